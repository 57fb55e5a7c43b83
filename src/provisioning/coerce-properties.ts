/**
 * CloudFormation accepts template scalars loosely (`"300"` for an integer,
 * `"true"` for a boolean) and converts them itself; Cloud Control validates
 * strictly against the type's schema. This converts resolved property values
 * to the types the schema declares, the way CloudFormation would, and strips
 * nulls (which Cloud Control rejects).
 */

/** The part of a JSON Schema node this module reads. */
export interface SchemaNode {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

export interface SchemaDocument extends SchemaNode {
  definitions?: Record<string, SchemaNode>;
}

function deref(node: SchemaNode | undefined, doc: SchemaDocument, depth = 0): SchemaNode | undefined {
  if (!node || !node.$ref || depth > 20) return node;
  const match = /^#\/definitions\/(.+)$/.exec(node.$ref);
  return match ? deref(doc.definitions?.[match[1]], doc, depth + 1) : undefined;
}

function types(node: SchemaNode): string[] {
  if (Array.isArray(node.type)) return node.type;
  return node.type ? [node.type] : [];
}

function coerceScalar(value: unknown, wanted: string[]): unknown {
  if (wanted.length === 0) return value;
  if (typeof value === 'string') {
    if (wanted.includes('string')) return value;
    if (
      (wanted.includes('integer') || wanted.includes('number')) &&
      value.trim() !== '' &&
      Number.isFinite(Number(value))
    ) {
      return Number(value);
    }
    if (wanted.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  }
  if (
    (typeof value === 'number' || typeof value === 'boolean') &&
    wanted.includes('string') &&
    !wanted.includes(typeof value)
  ) {
    if (!(typeof value === 'number' && wanted.includes('integer'))) return String(value);
  }
  return value;
}

export function coerceValue(value: unknown, node: SchemaNode | undefined, doc: SchemaDocument): unknown {
  if (value === null || value === undefined) return undefined;
  const schema = deref(node, doc);
  if (!schema) return stripNulls(value);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !schema.type) {
    // Pick the first alternative whose declared type the value already has; otherwise leave it.
    const jsType = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
    const fit = alternatives
      .map((a) => deref(a, doc))
      .find((a) => a && types(a).some((t) => t === jsType || (t === 'integer' && jsType === 'number')));
    return fit ? coerceValue(value, fit, doc) : stripNulls(value);
  }
  const wanted = types(schema);
  if (Array.isArray(value)) {
    const items = wanted.includes('array') || schema.items ? schema.items : undefined;
    return value.filter((v) => v !== null && v !== undefined).map((v) => coerceValue(v, items, doc));
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      let child: SchemaNode | undefined = schema.properties?.[key];
      if (!child && typeof schema.additionalProperties === 'object') child = schema.additionalProperties;
      if (!child && schema.patternProperties) {
        child = Object.entries(schema.patternProperties).find(([pattern]) =>
          new RegExp(pattern).test(key),
        )?.[1];
      }
      out[key] = coerceValue(v, child, doc);
    }
    return out;
  }
  return coerceScalar(value, wanted);
}

/** Coerces a resource's top-level properties against its schema document. */
export function coerceProperties(
  properties: Record<string, unknown>,
  doc: SchemaDocument | undefined,
): Record<string, unknown> {
  if (!doc) return stripNulls(properties) as Record<string, unknown>;
  return coerceValue(properties, { type: 'object', properties: doc.properties }, doc) as Record<
    string,
    unknown
  >;
}

/** Removes null/undefined values at every depth. */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map(stripNulls);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = stripNulls(v);
    return out;
  }
  return value;
}
