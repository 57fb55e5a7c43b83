/**
 * AWS::SSM::Parameter properties as Parameter Store's PutParameter takes them,
 * with no SDK import (the hook reads {@link PARAMETER_HANDLED_PROPERTIES}
 * without loading the client).
 */

/** Every writable property of AWS::SSM::Parameter; all are wired to the SSM API. */
export const PARAMETER_HANDLED_PROPERTIES = [
  'AllowedPattern',
  'DataType',
  'Description',
  'Name',
  'Policies',
  'Tags',
  'Tier',
  'Type',
  'Value',
] as const;

/**
 * What PutParameter needs to put a removed property back to Parameter Store's
 * default (PutParameter with Overwrite keeps whatever it is not given):
 * no description, no pattern, `text`, no policies (`[]` removes them).
 */
const RESET_VALUES: Record<string, string> = {
  AllowedPattern: '',
  DataType: 'text',
  Description: '',
  Policies: '[]',
};

const OPTIONAL_INPUTS = ['AllowedPattern', 'DataType', 'Description', 'Policies', 'Tier'] as const;

/** The PutParameter input (without `Overwrite`/`Tags`) for a property bag. */
export function putInput(
  name: string,
  properties: Record<string, unknown>,
): { Name: string; Value: string; Type: string } & Record<string, string> {
  const input: { Name: string; Value: string; Type: string } & Record<string, string> = {
    Name: name,
    Value: stringOf(properties.Value),
    Type: stringOf(properties.Type),
  };
  for (const key of OPTIONAL_INPUTS)
    if (properties[key] !== undefined) input[key] = stringOf(properties[key]);
  return input;
}

/**
 * The PutParameter input of an update: the whole desired parameter, each
 * property the template dropped reset to its default. `Tier` is the exception:
 * Parameter Store cannot move an Advanced parameter back to Standard, so a
 * dropped `Advanced` leaves the tier as it is (`tierKept` says so).
 */
export function updateInput(
  name: string,
  properties: Record<string, unknown>,
  previous: Record<string, unknown>,
): { input: ReturnType<typeof putInput>; tierKept: boolean } {
  const input = putInput(name, properties);
  for (const [key, reset] of Object.entries(RESET_VALUES)) {
    if (properties[key] === undefined && previous[key] !== undefined) input[key] = reset;
  }
  let tierKept = false;
  if (properties.Tier === undefined && previous.Tier !== undefined) {
    if (previous.Tier === 'Advanced') tierKept = true;
    else input.Tier = 'Standard';
  }
  return { input, tierKept };
}

/** True when anything but the tags differs (CloudFormation's handler only then writes a new version). */
export function parameterChanged(
  properties: Record<string, unknown>,
  previous: Record<string, unknown>,
): boolean {
  const keys = new Set([...Object.keys(properties), ...Object.keys(previous)]);
  keys.delete('Tags');
  for (const key of keys) {
    if (JSON.stringify(properties[key]) !== JSON.stringify(previous[key])) return true;
  }
  return false;
}

/** The template's `Tags` (a map for this type), as strings. */
export function tagMap(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (tags && typeof tags === 'object' && !Array.isArray(tags)) {
    for (const [k, v] of Object.entries(tags as Record<string, unknown>)) out[k] = stringOf(v);
  }
  return out;
}

/** Tags to add or change, and keys to remove (only keys the template used to set). */
export function tagChanges(
  desired: Record<string, string>,
  previous: Record<string, string>,
): { toSet: Array<{ Key: string; Value: string }>; toRemove: string[] } {
  return {
    toSet: Object.entries(desired)
      .filter(([k, v]) => previous[k] !== v)
      .map(([Key, Value]) => ({ Key, Value })),
    toRemove: Object.keys(previous).filter((k) => !(k in desired)),
  };
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
