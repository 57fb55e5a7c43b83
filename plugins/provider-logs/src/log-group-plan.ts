/**
 * AWS::Logs::LogGroup properties → the CloudWatch Logs calls that make a log
 * group match them. CreateLogGroup takes the name, class, KMS key and tags;
 * every other property is a call of its own, so an update is a list of
 * steps, and a property removed from the template is reset to what a new log
 * group has (never expire, no key, no policies, protections off), as
 * CloudFormation resets it. Pure: no SDK here, so the hook can load this
 * module without loading the client.
 */

/** Every AWS::Logs::LogGroup property this pack wires (`Arn` is read-only). */
export const LOG_GROUP_HANDLED_PROPERTIES = [
  'BearerTokenAuthenticationEnabled',
  'DataProtectionPolicy',
  'DeletionProtectionEnabled',
  'FieldIndexPolicies',
  'KmsKeyId',
  'LogGroupClass',
  'LogGroupName',
  'ResourcePolicyDocument',
  'RetentionInDays',
  'Tags',
];

/** CloudWatch Logs' name rules: 1–512 of `[.-_/#A-Za-z0-9]`. */
export const LOG_GROUP_NAME_MAX_LENGTH = 512;
export const LOG_GROUP_NAME_EXTRA_CHARACTERS = '._-/#';

/** The class a log group has when the template names none. */
export const DEFAULT_LOG_GROUP_CLASS = 'STANDARD';

export type Step =
  | { kind: 'putRetention'; days: number }
  | { kind: 'deleteRetention' }
  | { kind: 'associateKmsKey'; kmsKeyId: string }
  | { kind: 'disassociateKmsKey' }
  | { kind: 'putDataProtectionPolicy'; document: string }
  | { kind: 'deleteDataProtectionPolicy' }
  | { kind: 'putIndexPolicy'; document: string }
  | { kind: 'deleteIndexPolicy' }
  | { kind: 'putResourcePolicy'; document: string }
  | { kind: 'deleteResourcePolicy' }
  | { kind: 'setBearerTokenAuthentication'; enabled: boolean }
  | { kind: 'untag'; keys: string[] }
  | { kind: 'tag'; tags: Record<string, string> }
  // Last, so a create that fails earlier can still delete what it made.
  | { kind: 'setDeletionProtection'; enabled: boolean };

/** A template's `[{ Key, Value }]` tags as a map. */
export function tagMap(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(tags))
    for (const t of tags as Array<{ Key?: unknown; Value?: unknown }>)
      if (typeof t?.Key === 'string')
        out[t.Key] = typeof t.Value === 'string' ? t.Value : String(t.Value ?? '');
  return out;
}

/** JSON with object keys sorted, so two spellings of one document compare equal. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(typeof value === 'string' ? parseMaybe(value) : value));
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A JSON property as the document CloudWatch Logs takes: objects serialized, strings as written. */
export function documentOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** FieldIndexPolicies holds at most one policy (a log group has one field index policy). */
function indexPolicyOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : undefined;
}

const truthy = (v: unknown) => v === true || v === 'true';

/** An integer property that templates may carry as a string. */
export function integerOf(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The steps that take a log group from `previous` to `desired`. With an empty
 * `previous` (a create) nothing is reset, and the class, key and tags are
 * left to CreateLogGroup.
 */
export function planLogGroup(
  desired: Record<string, unknown>,
  previous: Record<string, unknown>,
  forCreate: boolean,
): Step[] {
  const steps: Step[] = [];
  const changed = (name: string) =>
    desired[name] !== undefined &&
    (previous[name] === undefined || canonicalJson(desired[name]) !== canonicalJson(previous[name]));
  const removed = (name: string) => desired[name] === undefined && previous[name] !== undefined;

  const days = integerOf(desired.RetentionInDays);
  if (days !== undefined && days !== integerOf(previous.RetentionInDays))
    steps.push({ kind: 'putRetention', days });
  else if (days === undefined && integerOf(previous.RetentionInDays) !== undefined)
    steps.push({ kind: 'deleteRetention' });

  if (!forCreate) {
    if (typeof desired.KmsKeyId === 'string' && desired.KmsKeyId !== previous.KmsKeyId)
      steps.push({ kind: 'associateKmsKey', kmsKeyId: desired.KmsKeyId });
    else if (removed('KmsKeyId')) steps.push({ kind: 'disassociateKmsKey' });
  }

  if (changed('DataProtectionPolicy'))
    steps.push({ kind: 'putDataProtectionPolicy', document: documentOf(desired.DataProtectionPolicy)! });
  else if (removed('DataProtectionPolicy')) steps.push({ kind: 'deleteDataProtectionPolicy' });

  const index = indexPolicyOf(desired.FieldIndexPolicies);
  const previousIndex = indexPolicyOf(previous.FieldIndexPolicies);
  if (
    index !== undefined &&
    canonicalJson(index) !== (previousIndex !== undefined ? canonicalJson(previousIndex) : undefined)
  )
    steps.push({ kind: 'putIndexPolicy', document: documentOf(index)! });
  else if (index === undefined && previousIndex !== undefined) steps.push({ kind: 'deleteIndexPolicy' });

  if (changed('ResourcePolicyDocument'))
    steps.push({ kind: 'putResourcePolicy', document: documentOf(desired.ResourcePolicyDocument)! });
  else if (removed('ResourcePolicyDocument')) steps.push({ kind: 'deleteResourcePolicy' });

  const bearer = truthy(desired.BearerTokenAuthenticationEnabled);
  if (bearer !== truthy(previous.BearerTokenAuthenticationEnabled))
    steps.push({ kind: 'setBearerTokenAuthentication', enabled: bearer });

  if (!forCreate) {
    const tags = tagMap(desired.Tags);
    const before = tagMap(previous.Tags);
    const gone = Object.keys(before).filter((k) => !(k in tags));
    const set = Object.fromEntries(Object.entries(tags).filter(([k, v]) => before[k] !== v));
    if (gone.length) steps.push({ kind: 'untag', keys: gone });
    if (Object.keys(set).length) steps.push({ kind: 'tag', tags: set });
  }

  const protection = truthy(desired.DeletionProtectionEnabled);
  if (protection !== truthy(previous.DeletionProtectionEnabled))
    steps.push({ kind: 'setDeletionProtection', enabled: protection });
  return steps;
}

/** The class a template asks for (STANDARD when it names none). */
export function logGroupClassOf(properties: Record<string, unknown>): string {
  return typeof properties.LogGroupClass === 'string' ? properties.LogGroupClass : DEFAULT_LOG_GROUP_CLASS;
}
