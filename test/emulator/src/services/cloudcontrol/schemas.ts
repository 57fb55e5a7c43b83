/**
 * Where Cloud Control finds resource schemas, and what it does with their
 * annotations when it answers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pointerPath, type ResourceSchema } from '../../core/resource-schema';

export type { JsonSchema, ResourceSchema } from '../../core/resource-schema';
export { getAt, pointerPath, resolveRef, schemaAt, setAt } from '../../core/resource-schema';

/** A source of resource schemas by type name. */
export interface SchemaSource {
  /** Where the schemas come from (shown in `/_emulator/settings`). */
  readonly description: string;
  has(typeName: string): boolean;
  get(typeName: string): ResourceSchema | undefined;
}

/**
 * Hand-written schemas in a folder (`index.json` mapping type names to
 * files, the format of docs/schemas.md), for tests of types AWS does not have.
 */
export class SchemaDirectory implements SchemaSource {
  private index?: Record<string, string>;
  private readonly cache = new Map<string, ResourceSchema>();

  constructor(readonly dir: string) {}

  get description(): string {
    return this.dir;
  }

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
}

/** A model as Cloud Control reads it back: without the type's write-only properties. */
export function withoutWriteOnly(
  schema: ResourceSchema,
  model: Record<string, unknown>,
): Record<string, unknown> {
  const writeOnly = schema.writeOnlyProperties;
  if (!writeOnly?.length) return model;
  const out = structuredClone(model);
  for (const pointer of writeOnly) removeAt(out, pointerPath(pointer));
  return out;
}

function removeAt(node: unknown, segments: string[]): void {
  if (!node || typeof node !== 'object') return;
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (head === '*') {
    for (const child of Array.isArray(node) ? node : Object.values(node)) removeAt(child, rest);
    return;
  }
  const record = node as Record<string, unknown>;
  if (!rest.length) delete record[head];
  else removeAt(record[head], rest);
}
