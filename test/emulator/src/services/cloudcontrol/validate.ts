/**
 * Validation of a resource model against its schema, with the messages
 * CloudFormation's handlers report ("#/DelaySeconds: expected type: Integer, found: String").
 */
import { resolveRef, type JsonSchema, type ResourceSchema } from './schemas';

function typeOf(value: unknown): string {
  if (value === null) return 'Null';
  if (Array.isArray(value)) return 'JSONArray';
  if (typeof value === 'object') return 'JSONObject';
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'BigDecimal';
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  string: 'String',
  integer: 'Integer',
  number: 'Number',
  boolean: 'Boolean',
  object: 'JSONObject',
  array: 'JSONArray',
  null: 'Null',
};

function matchesType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return !!value && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

function check(
  root: ResourceSchema,
  node: JsonSchema | undefined,
  value: unknown,
  at: string,
  errors: string[],
): void {
  const schema = resolveRef(root, node);
  if (!schema) return;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const ok = alternatives.some((alt) => {
      const sub: string[] = [];
      check(root, alt, value, at, sub);
      return sub.length === 0;
    });
    if (!ok) errors.push(`${at}: #: no subschema matched out of the total ${alternatives.length} subschemas`);
    return;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => matchesType(t, value))) {
      errors.push(
        `${at}: expected type: ${types.map((t) => EXPECTED[t] ?? t).join(' or ')}, found: ${typeOf(value)}`,
      );
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${at}: ${JSON.stringify(value)} is not a valid enum value`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? [])
      if (!(key in obj)) errors.push(`${at}: required key [${key}] not found`);
    for (const [key, child] of Object.entries(obj)) {
      const childSchema = schema.properties?.[key];
      if (childSchema) check(root, childSchema, child, `${at}/${key}`, errors);
      else if (schema.additionalProperties === false && schema.properties)
        errors.push(`${at}: extraneous key [${key}] is not permitted`);
      else if (typeof schema.additionalProperties === 'object')
        check(root, schema.additionalProperties, child, `${at}/${key}`, errors);
    }
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => check(root, schema.items, item, `${at}/${i}`, errors));
}

/** Schema violations of a model, empty when it is valid. */
export function validateModel(schema: ResourceSchema, model: Record<string, unknown>): string[] {
  const errors: string[] = [];
  check(schema, schema, model, '#', errors);
  return errors;
}

/** The StatusMessage CloudFormation handlers give for schema violations. */
export function validationMessage(errors: string[]): string {
  if (errors.length === 1) return `Model validation failed (${errors[0]})`;
  return `Model validation failed (#: ${errors.length} schema violations found, ${errors.join(', ')})`;
}
