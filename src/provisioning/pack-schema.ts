/**
 * A provider pack's schema for a type outside AWS's catalogue (an org-internal
 * type such as `Acme::Billing::Account`), in the CloudFormation registry schema
 * format: checked here for what cdkd relies on, then converted to cdkd's own
 * schema format (docs/schemas.md) so the rest of cdkd reads it like a committed
 * schema. ajv's compile (SchemaStore.compileError) checks the JSON Schema itself.
 */
import type { CfnResourceSchema, CfnTagging, JsonSchema } from './schema-store';
import { pointerToPath } from './schema-store';
import { isRecord } from '../util/objects';

/** Organization namespaces the CloudFormation registry reserves. */
export const RESERVED_TYPE_NAMESPACES = ['Alexa', 'AMZN', 'Amazon', 'AWS', 'Custom', 'Dev'] as const;

const TYPE_NAME = /^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$/;

/** The pointer lists of the registry format that must name declared properties. */
const POINTER_LISTS = [
  'primaryIdentifier',
  'readOnlyProperties',
  'createOnlyProperties',
  'conditionalCreateOnlyProperties',
  'writeOnlyProperties',
  'deprecatedProperties',
] as const;

export type PackSchemaResult = { schema: CfnResourceSchema; problems?: undefined } | { problems: string[] };

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Why `typeName` cannot name an org-internal type, or undefined when it can. */
export function typeNameProblem(typeName: string): string | undefined {
  if (!TYPE_NAME.test(typeName)) {
    return `${typeName} is not a resource type name of the form Organization::Service::Resource (letters and digits, 2 to 64 each)`;
  }
  const namespace = typeName.split('::')[0];
  if ((RESERVED_TYPE_NAMESPACES as readonly string[]).includes(namespace)) {
    return `the ${namespace} namespace is reserved (${RESERVED_TYPE_NAMESPACES.join(', ')}); an org-internal type uses the organization's own`;
  }
  return undefined;
}

/**
 * Checks a registration's `schema` for `resourceType` and converts it. Every
 * problem is one phrase naming the offending keyword or property.
 */
export function convertPackSchema(raw: unknown, resourceType: string): PackSchemaResult {
  if (!isRecord(raw)) return { problems: ['schema must be an object (a CloudFormation registry schema)'] };
  const problems: string[] = [];
  if (raw.typeName !== resourceType) {
    problems.push(
      `schema.typeName must equal the registration's resourceType (${resourceType}), got ${JSON.stringify(raw.typeName)}`,
    );
  }
  const nameProblem = typeNameProblem(resourceType);
  if (nameProblem) problems.push(nameProblem);
  const properties = raw.properties;
  if (!isRecord(properties) || Object.keys(properties).length === 0) {
    problems.push('schema.properties must be an object with at least one property');
    return { problems };
  }
  for (const [name, value] of Object.entries(properties)) {
    if (!isRecord(value)) problems.push(`schema.properties.${name} must be a JSON Schema object`);
  }
  if (raw.additionalProperties !== false) {
    problems.push(
      'schema.additionalProperties must be false (a template may set only the declared properties)',
    );
  }
  if (raw.definitions !== undefined && !isRecord(raw.definitions)) {
    problems.push('schema.definitions must be an object of sub-schemas');
  }
  if (raw.required !== undefined) {
    if (!isStringArray(raw.required)) problems.push('schema.required must be an array of property names');
    else {
      const unknown = raw.required.filter((r) => !(r in properties));
      if (unknown.length)
        problems.push(`schema.required names ${unknown.join(', ')}, not in schema.properties`);
    }
  }
  const lists: Partial<Record<(typeof POINTER_LISTS)[number], string[]>> = {};
  for (const key of POINTER_LISTS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (!isStringArray(value) || value.some((p) => !p.startsWith('/properties/'))) {
      problems.push(`schema.${key} must be an array of JSON pointers such as /properties/Name`);
      continue;
    }
    const unknown = value.filter((p) => !(pointerToPath(p)[0] in properties));
    if (unknown.length) problems.push(`schema.${key} names ${unknown.join(', ')}, not in schema.properties`);
    lists[key] = value;
  }
  const primary = lists.primaryIdentifier ?? [];
  if (primary.length === 0) {
    problems.push(
      'schema.primaryIdentifier must list the properties that identify a resource (e.g. ["/properties/Name"])',
    );
  }
  const fixed = new Set([...(lists.readOnlyProperties ?? []), ...(lists.createOnlyProperties ?? [])]);
  const changeable = primary.filter((p) => !fixed.has(p));
  if (changeable.length) {
    problems.push(
      `schema.primaryIdentifier ${changeable.join(', ')} must be read-only or create-only (an identifier cannot change in place)`,
    );
  }
  if (problems.length) return { problems };

  const readOnly = lists.readOnlyProperties ?? [];
  const schema: CfnResourceSchema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    typeName: resourceType,
    type: 'object',
    properties: properties as Record<string, JsonSchema>,
    ...(raw.required && (raw.required as string[]).length ? { required: raw.required as string[] } : {}),
    additionalProperties: false,
    ...(isRecord(raw.definitions) ? { definitions: raw.definitions as Record<string, JsonSchema> } : {}),
    primaryIdentifier: primary,
    refIdentifier: primary,
    ...(readOnly.length ? { readOnlyProperties: readOnly } : {}),
    ...(lists.createOnlyProperties?.length ? { createOnlyProperties: lists.createOnlyProperties } : {}),
    ...(lists.conditionalCreateOnlyProperties?.length
      ? { conditionalCreateOnlyProperties: lists.conditionalCreateOnlyProperties }
      : {}),
    ...(lists.writeOnlyProperties?.length ? { writeOnlyProperties: lists.writeOnlyProperties } : {}),
    ...(lists.deprecatedProperties?.length ? { deprecatedProperties: lists.deprecatedProperties } : {}),
    // CloudFormation's Fn::GetAtt names of a registry type are its read-only properties.
    attributes: readOnly.map((p) => pointerToPath(p).join('.')).sort(),
  };
  const tagging = taggingOf(raw.tagging, schema.properties);
  if (tagging) schema.tagging = tagging;
  return { schema };
}

/** The registry's `tagging` in cdkd's form, when it names a tag property cdkd understands. */
function taggingOf(raw: unknown, properties: Record<string, JsonSchema>): CfnTagging | undefined {
  if (!isRecord(raw) || raw.taggable === false) return undefined;
  const pointer = typeof raw.tagProperty === 'string' ? raw.tagProperty : '/properties/Tags';
  const [name, ...rest] = pointerToPath(pointer);
  const property = properties[name];
  if (rest.length > 0 || !property) return undefined;
  if (property.type === 'array') return { taggable: true, tagPropertyName: name, variant: 'standard' };
  if (property.type === 'object') return { taggable: true, tagPropertyName: name, variant: 'map' };
  return undefined;
}
