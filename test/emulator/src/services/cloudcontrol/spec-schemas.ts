/**
 * The emulator's own source of resource schemas: `@aws-cdk/aws-service-spec`
 * read directly (not cdkd's generated `schemas/`), so the emulator checks
 * cdkd's schema assumptions instead of sharing them. A type's schema is built
 * on first use: its properties with their types (definitions as `$ref`),
 * required ones, read-only attributes (dotted ones as nested paths),
 * create-only paths (properties that cause replacement), the primary
 * identifier, ARN template, tagging, and write-only properties from the
 * emulator's own table.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { JsonSchema, ResourceSchema } from '../../core/resource-schema';
import type { SchemaSource } from './schemas';
import { WRITE_ONLY_PROPERTIES } from './write-only';

/* The parts of the spec database's entities the conversion reads. */
interface SpecType {
  type: string;
  element?: SpecType;
  types?: SpecType[];
  reference?: { $ref: string };
}
interface SpecProperty {
  type: SpecType;
  required?: boolean;
  deprecated?: string;
  causesReplacement?: 'yes' | 'no' | 'maybe';
}
interface SpecResource {
  cloudFormationType: string;
  properties: Record<string, SpecProperty>;
  attributes: Record<string, { type: SpecType }>;
  primaryIdentifier?: string[];
  arnTemplate?: string;
  tagInformation?: { tagPropertyName: string; variant: string };
  additionalReplacementProperties?: string[][];
}
interface SpecDefinition {
  name: string;
  properties: Record<string, SpecProperty>;
}
/** The spec's resources and type definitions, by what the conversion looks them up by. */
interface SpecDatabase {
  resources: Map<string, SpecResource>;
  definitions: Map<string, SpecDefinition>;
  version: string;
}

let database: SpecDatabase | undefined;

/**
 * Reads the spec's database file directly (gunzip + JSON.parse, about 0.4 s)
 * rather than through `loadAwsServiceSpecSync()`, which also builds query
 * indexes the emulator does not need (several times slower).
 */
function spec(): SpecDatabase {
  if (!database) {
    const root = path.dirname(require.resolve('@aws-cdk/aws-service-spec/package.json'));
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const raw = JSON.parse(
      zlib.gunzipSync(fs.readFileSync(path.join(root, 'db.json.gz'))).toString('utf8'),
    ) as {
      schema: {
        resource: { entities: Array<SpecResource & { $id: string }> };
        typeDefinition: { entities: Array<SpecDefinition & { $id: string }> };
      };
    };
    database = {
      version,
      resources: new Map(raw.schema.resource.entities.map((r) => [r.cloudFormationType, r])),
      definitions: new Map(raw.schema.typeDefinition.entities.map((d) => [d.$id, d])),
    };
  }
  return database;
}

const pointer = (segments: string[]) =>
  `/properties/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Builds one type's schema from the spec. */
function convert(db: SpecDatabase, resource: SpecResource): ResourceSchema {
  const definitions: Record<string, JsonSchema> = {};
  const definitionNames = new Map<string, string>();
  const usedNames = new Set<string>();

  const definitionRef = (id: string): JsonSchema => {
    let name = definitionNames.get(id);
    if (!name) {
      const def = db.definitions.get(id)!;
      name = def.name;
      for (let n = 2; usedNames.has(name); n++) name = `${def.name}${n}`;
      definitionNames.set(id, name);
      usedNames.add(name);
      definitions[name] = {}; // placeholder while recursing
      definitions[name] = objectOf(def.properties, true);
    }
    return { $ref: `#/definitions/${name}` };
  };

  const typeOf = (t: SpecType): JsonSchema => {
    switch (t.type) {
      case 'string':
      case 'date-time':
        return { type: 'string' };
      case 'integer':
      case 'number':
      case 'boolean':
      case 'null':
        return { type: t.type };
      case 'json':
        return {};
      case 'tag':
        return {
          type: 'object',
          properties: { Key: { type: 'string' }, Value: { type: 'string' } },
          required: ['Key', 'Value'],
          additionalProperties: false,
        };
      case 'ref':
        return definitionRef(t.reference!.$ref);
      case 'array':
        return { type: 'array', items: typeOf(t.element!) };
      case 'map': {
        const element = typeOf(t.element!);
        return Object.keys(element).length
          ? { type: 'object', additionalProperties: element }
          : { type: 'object' };
      }
      case 'union':
        return t.types!.some((u) => u.type === 'json') ? {} : { anyOf: t.types!.map(typeOf) };
      default:
        return {};
    }
  };

  function objectOf(props: Record<string, SpecProperty>, closed: boolean): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, prop] of Object.entries(props)) {
      if (prop.deprecated === 'IGNORE') continue;
      properties[name] = typeOf(prop.type);
      if (prop.required) required.push(name);
    }
    if (!Object.keys(properties).length) return { type: 'object' };
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      ...(closed ? { additionalProperties: false } : {}),
    };
  }

  const root = objectOf(resource.properties, true);
  const properties = root.properties ?? {};
  const readOnly: string[] = [];
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const segments = name.split('.');
    if (segments.length === 1) {
      // An attribute that is also a writable property (QueueName) is not read-only.
      if (!properties[name]) {
        properties[name] = typeOf(attribute.type);
        readOnly.push(pointer(segments));
      }
      continue;
    }
    readOnly.push(pointer(segments));
    if (resource.properties[segments[0]!] || resource.attributes[segments[0]!]) continue;
    // A dotted attribute under no property: nested objects down to its type.
    let node = (properties[segments[0]!] ??= { type: 'object', properties: {} });
    if (!readOnly.includes(pointer([segments[0]!]))) readOnly.push(pointer([segments[0]!]));
    for (const seg of segments.slice(1, -1))
      node = node.properties![seg] ??= { type: 'object', properties: {} };
    node.properties![segments[segments.length - 1]!] ??= typeOf(attribute.type);
  }

  const createOnly: string[] = [];
  const walking = new Set<string>();
  const replacing = (props: Record<string, SpecProperty>, prefix: string[]) => {
    for (const [name, prop] of Object.entries(props)) {
      if (prop.deprecated === 'IGNORE') continue;
      if (prop.causesReplacement === 'yes') {
        createOnly.push(pointer([...prefix, name]));
        continue;
      }
      let t = prop.type;
      const path = [...prefix, name];
      while (t.type === 'array' || t.type === 'map') {
        t = t.element!;
        path.push('*');
      }
      if (t.type === 'ref' && !walking.has(t.reference!.$ref)) {
        walking.add(t.reference!.$ref);
        replacing(db.definitions.get(t.reference!.$ref)!.properties, path);
        walking.delete(t.reference!.$ref);
      }
    }
  };
  replacing(resource.properties, []);
  for (const p of resource.additionalReplacementProperties ?? []) createOnly.push(pointer(p));

  const schema: ResourceSchema = {
    typeName: resource.cloudFormationType,
    type: 'object',
    properties,
    ...(root.required ? { required: root.required } : {}),
    additionalProperties: false,
    definitions,
    primaryIdentifier: (resource.primaryIdentifier ?? []).map((id) => pointer(id.split(/[./]/))),
    readOnlyProperties: readOnly,
    createOnlyProperties: [...new Set(createOnly)],
    writeOnlyProperties: [...(WRITE_ONLY_PROPERTIES[resource.cloudFormationType] ?? [])],
    attributes: Object.keys(resource.attributes),
  };
  if (resource.arnTemplate) schema.arnTemplate = resource.arnTemplate;
  if (resource.tagInformation)
    schema.tagging = {
      taggable: true,
      tagPropertyName: resource.tagInformation.tagPropertyName,
      variant: resource.tagInformation.variant,
    };
  return schema;
}

export class SpecSchemaSource implements SchemaSource {
  private readonly cache = new Map<string, ResourceSchema>();

  /** Names the spec and its version without loading it. */
  get description(): string {
    const { version } = JSON.parse(
      fs.readFileSync(require.resolve('@aws-cdk/aws-service-spec/package.json'), 'utf8'),
    ) as { version: string };
    return `@aws-cdk/aws-service-spec ${version}`;
  }

  has(typeName: string): boolean {
    return spec().resources.has(typeName);
  }

  get(typeName: string): ResourceSchema | undefined {
    const cached = this.cache.get(typeName);
    if (cached) return cached;
    const db = spec();
    const resource = db.resources.get(typeName);
    if (!resource) return undefined;
    const schema = convert(db, resource);
    this.cache.set(typeName, schema);
    return schema;
  }
}
