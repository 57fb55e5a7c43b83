/**
 * Resource schemas from the core's `schemas/` folder (format: docs/schemas.md):
 * `index.json` maps type names to files; each file is a draft-07 JSON Schema
 * of the resource's properties plus Cloud Control annotations.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  $ref?: string;
  definitions?: Record<string, JsonSchema>;
}

export interface ResourceSchema extends JsonSchema {
  typeName: string;
  primaryIdentifier: string[];
  refIdentifier?: string[];
  readOnlyProperties?: string[];
  createOnlyProperties?: string[];
  conditionalCreateOnlyProperties?: string[];
  attributes?: string[];
  arnTemplate?: string;
  tagging?: { taggable?: boolean; tagPropertyName?: string; variant?: string };
}

export class SchemaRegistry {
  private index?: Record<string, string>;
  private readonly cache = new Map<string, ResourceSchema>();

  constructor(readonly dir: string) {}

  private types(): Record<string, string> {
    if (!this.index) {
      try {
        const parsed = JSON.parse(fs.readFileSync(path.join(this.dir, 'index.json'), 'utf8')) as {
          types?: Record<string, string>;
        };
        this.index = parsed.types ?? {};
      } catch {
        this.index = {};
      }
    }
    return this.index;
  }

  has(typeName: string): boolean {
    return typeName in this.types();
  }

  get(typeName: string): ResourceSchema | undefined {
    const cached = this.cache.get(typeName);
    if (cached) return cached;
    const file = this.types()[typeName];
    if (!file) return undefined;
    const schema = JSON.parse(fs.readFileSync(path.join(this.dir, file), 'utf8')) as ResourceSchema;
    this.cache.set(typeName, schema);
    return schema;
  }

  typeNames(): string[] {
    return Object.keys(this.types());
  }
}

/** The default schemas folder: `<repository>/schemas`, found from the package root. */
export function defaultSchemasDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if (
          (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === '@cdkd/aws-emulator'
        )
          return path.resolve(dir, '../../schemas');
      } catch {
        // keep looking
      }
    }
    dir = path.dirname(dir);
  }
  return path.resolve(__dirname, '../../../../../schemas');
}

/** `/properties/A/B` → `['A', 'B']`. */
export function pointerPath(pointer: string): string[] {
  return pointer
    .replace(/^\/properties\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a path in a model (`*` is not followed). */
export function getAt(model: Record<string, unknown>, segments: string[]): unknown {
  let node: unknown = model;
  for (const s of segments) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[s];
  }
  return node;
}

export function setAt(model: Record<string, unknown>, segments: string[], value: unknown): void {
  let node = model;
  for (const s of segments.slice(0, -1)) {
    if (!node[s] || typeof node[s] !== 'object') node[s] = {};
    node = node[s] as Record<string, unknown>;
  }
  node[segments[segments.length - 1]!] = value;
}

/** The schema of a property path (following $ref into definitions). */
export function schemaAt(root: ResourceSchema, segments: string[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const s of segments) {
    node = resolveRef(root, node);
    if (!node) return undefined;
    if (s === '*')
      node =
        node.items ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    else node = node.properties?.[s];
  }
  return resolveRef(root, node);
}

export function resolveRef(root: JsonSchema, node: JsonSchema | undefined): JsonSchema | undefined {
  let current = node;
  for (let i = 0; current?.$ref && i < 10; i++) {
    const m = /^#\/definitions\/(.+)$/.exec(current.$ref);
    current = m ? root.definitions?.[m[1]!] : undefined;
  }
  return current;
}
