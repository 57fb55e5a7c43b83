/**
 * Reads cdkd's resource schemas (`schemas/`, generated from the pinned
 * `@aws-cdk/aws-service-spec`, format in docs/schemas.md: "the catalogue"). A
 * type's schema is read on first use and compiled for validation on first
 * `validate`, once. {@link SchemaStore.withTypes} adds the schemas provider
 * packs bring for types outside the catalogue (org-internal types); every
 * reader of schemas asks the same store, so those types plan, resolve and
 * validate like catalogued ones.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type Ajv from 'ajv';
import type * as AjvModule from 'ajv';
import type * as AjvFormatsModule from 'ajv-formats';
import { ValidationError } from '../util/errors';

/** A JSON Schema fragment, as the generated schemas use them. */
export interface JsonSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  $ref?: string;
}

/** How a type is tagged (from the service spec). */
export interface CfnTagging {
  taggable: true;
  /** The property holding the tags, usually `Tags`. */
  tagPropertyName: string;
  /** `standard` = `[{Key, Value}]`, `map` = `{key: value}`, `asg` = `[{Key, Value, PropagateAtLaunch}]`. */
  variant: 'standard' | 'map' | 'asg';
}

/** One CloudFormation resource type's schema, with cdkd's annotation keywords. */
export interface CfnResourceSchema {
  $schema: string;
  /** `AWS::SQS::Queue`. */
  typeName: string;
  type: 'object';
  /** Every property, writable and read-only. */
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties: false;
  definitions?: Record<string, JsonSchema>;
  /** Cloud Control identifier as JSON pointers (`/properties/QueueUrl`); multi-part ids join with `|`. */
  primaryIdentifier?: string[];
  /** What `Ref` returns, as JSON pointers. */
  refIdentifier?: string[];
  /** Values AWS computes; a template must not set them. */
  readOnlyProperties?: string[];
  /** Changing one of these replaces the resource (nested paths use `*` for items). */
  createOnlyProperties?: string[];
  /** Changing one of these may replace the resource. */
  conditionalCreateOnlyProperties?: string[];
  /** Every `Fn::GetAtt` name; nested ones dotted (`Endpoint.Address`). */
  attributes?: string[];
  /** Properties a read never returns (passwords, code), from the CloudFormation registry's schemas. */
  writeOnlyProperties?: string[];
  /** Properties the service spec marks deprecated (still accepted). */
  deprecatedProperties?: string[];
  /** `arn:${Partition}:sqs:${Region}:${Account}:${QueueName}`, when known. */
  arnTemplate?: string;
  tagging?: CfnTagging;
}

/** One problem found by {@link SchemaStore.validate}. */
export interface SchemaViolation {
  /** JSON pointer into the properties (`/Tags/0/Key`); `''` for the whole object. */
  path: string;
  message: string;
}

interface SchemaIndex {
  specVersion: string;
  types: Record<string, string>;
  /** What the CDK's security diff examines, by type: `["*"]` (the whole resource) or property names. */
  securityScrutiny?: Record<string, string[]>;
}

/** The annotation keywords cdkd adds to JSON Schema (ajv is told they carry no validation). */
export const CDKD_SCHEMA_KEYWORDS = [
  'typeName',
  'primaryIdentifier',
  'refIdentifier',
  'readOnlyProperties',
  'createOnlyProperties',
  'conditionalCreateOnlyProperties',
  'attributes',
  'writeOnlyProperties',
  'deprecatedProperties',
  'arnTemplate',
  'tagging',
] as const;

/**
 * Property-level annotation keywords of the CloudFormation registry schema
 * format, which a pack's schema may carry (see src/provisioning/pack-schema.ts).
 */
export const REGISTRY_PROPERTY_KEYWORDS = ['insertionOrder', 'arrayType', 'relationshipRef'] as const;

/** `schemas/` of this package: two levels up from both `src/provisioning` and `dist/provisioning`. */
export const DEFAULT_SCHEMAS_DIR = path.resolve(__dirname, '..', '..', 'schemas');

/** `/properties/Endpoint/Address` → `['Endpoint', 'Address']` (RFC 6901 unescaping). */
export function pointerToPath(pointer: string): string[] {
  const segments = pointer.split('/').slice(1);
  if (segments[0] === 'properties') segments.shift();
  return segments.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export class SchemaStore {
  private index?: SchemaIndex;
  private readonly schemas = new Map<string, CfnResourceSchema>();
  private readonly validators = new Map<string, ValidateFunction>();
  private ajv?: Ajv;
  private static shared?: SchemaStore;

  constructor(
    private readonly dir: string = DEFAULT_SCHEMAS_DIR,
    /** Schemas of types outside the catalogue (from provider packs), by type. */
    private readonly packTypes: ReadonlyMap<string, CfnResourceSchema> = new Map(),
    /** The store whose catalogue (and its caches) this one shares. */
    private readonly base?: SchemaStore,
  ) {}

  /** The process-wide store over the package's own `schemas/`. */
  static default(): SchemaStore {
    SchemaStore.shared ??= new SchemaStore();
    return SchemaStore.shared;
  }

  /**
   * A store that also knows `types` (schemas of types outside the catalogue, in
   * cdkd's format), sharing this store's catalogue and caches. A type that is in
   * the catalogue cannot be replaced this way.
   */
  withTypes(types: ReadonlyMap<string, CfnResourceSchema>): SchemaStore {
    const catalogue = this.base ?? this;
    for (const type of types.keys()) {
      if (catalogue.isCatalogued(type)) throw new Error(`${type} is in the catalogue; it cannot be replaced`);
    }
    return new SchemaStore(this.dir, new Map([...this.packTypes, ...types]), catalogue);
  }

  /** The `@aws-cdk/aws-service-spec` version the schemas were generated from. */
  specVersion(): string {
    return this.loadIndex().specVersion;
  }

  /** Every known type name (catalogued, then from packs), sorted. */
  types(): string[] {
    const catalogued = Object.keys(this.loadIndex().types);
    return this.packTypes.size === 0 ? catalogued : [...catalogued, ...this.packTypes.keys()].sort();
  }

  has(type: string): boolean {
    return this.packTypes.has(type) || this.isCatalogued(type);
  }

  /** True for a type of AWS's catalogue (`schemas/`): one Cloud Control can be asked to provision. */
  isCatalogued(type: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.loadIndex().types, type);
  }

  /**
   * What the CDK's permission / network-access diff examines in `type`: `'*'`
   * for the whole resource, the top-level property names otherwise, undefined
   * when the type has nothing of the kind.
   */
  securityScrutiny(type: string): '*' | readonly string[] | undefined {
    const entry = this.loadIndex().securityScrutiny?.[type];
    if (!entry) return undefined;
    return entry.includes('*') ? '*' : entry;
  }

  /** True for a type whose schema a provider pack brought. */
  isPackType(type: string): boolean {
    return this.packTypes.has(type);
  }

  /** The schema of `type`; throws a {@link ValidationError} for an unknown type. */
  get(type: string): CfnResourceSchema {
    const fromPack = this.packTypes.get(type);
    if (fromPack) return fromPack;
    if (this.base) return this.base.get(type);
    const cached = this.schemas.get(type);
    if (cached) return cached;
    const file = this.has(type) ? this.loadIndex().types[type] : undefined;
    if (!file) {
      throw new ValidationError(`Unknown resource type ${type}: cdkd has no schema for it.`, {
        remedy: `Check the spelling; the known types are listed in ${path.join(this.dir, 'index.json')}.`,
      });
    }
    const schema = JSON.parse(fs.readFileSync(path.join(this.dir, file), 'utf8')) as CfnResourceSchema;
    this.schemas.set(type, schema);
    return schema;
  }

  /** The schema of `type`, or undefined for an unknown type. */
  tryGet(type: string): CfnResourceSchema | undefined {
    return this.has(type) ? this.get(type) : undefined;
  }

  /** Top-level property names, writable and read-only, sorted. */
  propertyNames(type: string): string[] {
    return Object.keys(this.get(type).properties);
  }

  /** Top-level properties a template may set (every property that is not wholly read-only). */
  writablePropertyNames(type: string): string[] {
    const readOnly = new Set(this.readOnlyPropertyNames(type));
    return this.propertyNames(type).filter((name) => !readOnly.has(name));
  }

  /** Read-only paths as JSON pointers, nested ones included. */
  readOnlyProperties(type: string): string[] {
    return this.get(type).readOnlyProperties ?? [];
  }

  /** Top-level properties that are wholly read-only (`Arn`, `QueueUrl`). */
  readOnlyPropertyNames(type: string): string[] {
    return this.readOnlyProperties(type)
      .map(pointerToPath)
      .filter((p) => p.length === 1)
      .map((p) => p[0]);
  }

  /** Replacement-causing paths as JSON pointers. */
  createOnlyProperties(type: string): string[] {
    return this.get(type).createOnlyProperties ?? [];
  }

  /** Paths that may cause replacement, as JSON pointers. */
  conditionalCreateOnlyProperties(type: string): string[] {
    return this.get(type).conditionalCreateOnlyProperties ?? [];
  }

  /** The primary identifier as JSON pointers; `[]` when the type has none. */
  primaryIdentifier(type: string): string[] {
    return this.get(type).primaryIdentifier ?? [];
  }

  /** What `Ref` returns, as JSON pointers. */
  refIdentifier(type: string): string[] {
    const schema = this.get(type);
    return schema.refIdentifier ?? schema.primaryIdentifier ?? [];
  }

  /** Every `Fn::GetAtt` attribute name. */
  attributes(type: string): string[] {
    return this.get(type).attributes ?? [];
  }

  /**
   * Checks resolved properties (no intrinsics left) against the type's schema:
   * unknown and read-only properties, missing required ones, wrong types. `[]` when valid.
   */
  validate(type: string, properties: Record<string, unknown>): SchemaViolation[] {
    if (this.base && !this.packTypes.has(type)) return this.base.validate(type, properties);
    const readOnly = new Set(this.readOnlyPropertyNames(type));
    const violations: SchemaViolation[] = Object.keys(properties)
      .filter((name) => readOnly.has(name))
      .map((name) => ({ path: `/${name}`, message: `${name} is read-only in ${type}; AWS sets it` }));
    const validator = this.validator(type);
    if (!validator(properties)) {
      for (const err of validator.errors ?? []) violations.push(toViolation(type, err));
    }
    return violations;
  }

  /**
   * Compiles the type's schema (the first `validate` would): `undefined` when it
   * compiles, else ajv's reason. Checks a schema a pack brought.
   */
  compileError(type: string): string | undefined {
    try {
      this.validator(type);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private validator(type: string): ValidateFunction {
    let validate = this.validators.get(type);
    if (!validate) {
      validate = this.compiler().compile(this.get(type));
      this.validators.set(type, validate);
    }
    return validate;
  }

  private compiler(): Ajv {
    if (!this.ajv) {
      // Loaded on first validation only: listing and routing never need ajv.
      const AjvClass = (require('ajv') as typeof AjvModule).default;
      const addFormats = (require('ajv-formats') as typeof AjvFormatsModule).default;
      const ajv = new AjvClass({ allErrors: true, strict: true });
      addFormats(ajv);
      for (const keyword of [...CDKD_SCHEMA_KEYWORDS, ...REGISTRY_PROPERTY_KEYWORDS])
        ajv.addKeyword({ keyword });
      this.ajv = ajv;
    }
    return this.ajv;
  }

  private loadIndex(): SchemaIndex {
    if (this.base) return this.base.loadIndex();
    if (!this.index) {
      const file = path.join(this.dir, 'index.json');
      if (!fs.existsSync(file)) {
        throw new ValidationError(`cdkd's resource schemas are missing: ${file} does not exist.`, {
          remedy: 'Reinstall cdkd; in a source checkout run `npm run generate-schemas`.',
        });
      }
      this.index = JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaIndex;
    }
    return this.index;
  }
}

function toViolation(type: string, err: ErrorObject): SchemaViolation {
  const at = err.instancePath === '' ? type : `${err.instancePath.slice(1).replace(/\//g, '.')}`;
  switch (err.keyword) {
    case 'additionalProperties': {
      const name = (err.params as { additionalProperty: string }).additionalProperty;
      return {
        path: `${err.instancePath}/${name}`,
        message: `${name} is not a property of ${err.instancePath === '' ? type : at}`,
      };
    }
    case 'required': {
      const name = (err.params as { missingProperty: string }).missingProperty;
      return { path: `${err.instancePath}/${name}`, message: `${name} is required in ${at}` };
    }
    default:
      return { path: err.instancePath, message: `${at} ${err.message ?? 'is invalid'}` };
  }
}
