/**
 * Resource schemas as Cloud Control reads them: a draft-07 JSON Schema of a
 * type's properties plus the CloudFormation registry's annotations
 * (primaryIdentifier, readOnly/createOnly/writeOnlyProperties, ...), and the
 * JSON-pointer helpers that walk models by them.
 */
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
  /** Properties a create or update accepts but a read never returns (passwords, code, ...). */
  writeOnlyProperties?: string[];
  tagging?: { taggable?: boolean; tagPropertyName?: string; variant?: string };
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
