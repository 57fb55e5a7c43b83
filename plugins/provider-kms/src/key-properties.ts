/**
 * AWS::KMS::Key and AWS::KMS::Alias properties as the KMS API takes them,
 * with no SDK import (the hook reads the handled lists without loading the
 * client).
 */

/** Every writable property of AWS::KMS::Key; all are wired to the API. */
export const KEY_HANDLED_PROPERTIES = [
  'BypassPolicyLockoutSafetyCheck',
  'Description',
  'EnableKeyRotation',
  'Enabled',
  'KeyPolicy',
  'KeySpec',
  'KeyUsage',
  'MultiRegion',
  'Origin',
  'PendingWindowInDays',
  'RotationPeriodInDays',
  'Tags',
] as const;

/** Every property of AWS::KMS::Alias. */
export const ALIAS_HANDLED_PROPERTIES = ['AliasName', 'TargetKeyId'] as const;

/**
 * What the key is, fixed at CreateKey; CloudFormation refuses to change them
 * ("You cannot change the values of the KeySpec, KeyUsage, Origin, or
 * MultiRegion properties of an AWS::KMS::Key resource."). Values: KMS's defaults.
 */
export const IMMUTABLE_KEY_PROPERTIES: Readonly<Record<string, unknown>> = {
  KeySpec: 'SYMMETRIC_DEFAULT',
  KeyUsage: 'ENCRYPT_DECRYPT',
  Origin: 'AWS_KMS',
  MultiRegion: false,
};

/** KMS's default rotation period (EnableKeyRotation without RotationPeriodInDays). */
export const DEFAULT_ROTATION_PERIOD_DAYS = 365;
/** KMS's default waiting period of ScheduleKeyDeletion. */
export const DEFAULT_PENDING_WINDOW_DAYS = 30;

/** KMS key states in which the key is on its way out: never adopted, already deleted for a delete. */
export const DELETING_STATES: ReadonlySet<string> = new Set(['PendingDeletion', 'PendingReplicaDeletion']);

/**
 * The policy KMS gives a key created without one ("key-default-1": the
 * account, through IAM, may do everything with the key). A `KeyPolicy`
 * removed from the template goes back to it.
 */
export function defaultKeyPolicy(partition: string, accountId: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Id: 'key-default-1',
    Statement: [
      {
        Sid: 'Enable IAM User Permissions',
        Effect: 'Allow',
        Principal: { AWS: `arn:${partition}:iam::${accountId}:root` },
        Action: 'kms:*',
        Resource: '*',
      },
    ],
  });
}

/** A template's `KeyPolicy` (an object in CDK templates, a JSON string in some) as KMS takes it. */
export function policyText(policy: unknown): string | undefined {
  if (policy === undefined || policy === null) return undefined;
  return typeof policy === 'string' ? policy : JSON.stringify(policy);
}

/** The template's tags as a map. */
export function tagMap(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(tags))
    for (const t of tags as Array<{ Key?: unknown; Value?: unknown }>)
      if (typeof t.Key === 'string')
        out[t.Key] = typeof t.Value === 'string' ? t.Value : String(t.Value ?? '');
  return out;
}

/** Tags to add or change, and keys to remove (only keys the template used to set). */
export function tagChanges(
  desired: Record<string, string>,
  previous: Record<string, string>,
): { toSet: Array<{ TagKey: string; TagValue: string }>; toRemove: string[] } {
  return {
    toSet: Object.entries(desired)
      .filter(([k, v]) => previous[k] !== v)
      .map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
    toRemove: Object.keys(previous).filter((k) => !(k in desired)),
  };
}

/** The rotation a template asks for: off, or on with its period. */
export function rotationOf(properties: Record<string, unknown>): { enabled: boolean; periodInDays: number } {
  const period = properties.RotationPeriodInDays;
  return {
    enabled: properties.EnableKeyRotation === true,
    periodInDays: typeof period === 'number' ? period : DEFAULT_ROTATION_PERIOD_DAYS,
  };
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
