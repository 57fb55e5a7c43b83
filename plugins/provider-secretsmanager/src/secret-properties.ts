/**
 * AWS::SecretsManager::Secret properties as the Secrets Manager API takes
 * them, with no SDK import (the hook reads {@link SECRET_HANDLED_PROPERTIES}
 * without loading the client).
 */
import { createHash } from 'node:crypto';

/** Every writable property of AWS::SecretsManager::Secret; all are wired to the API. */
export const SECRET_HANDLED_PROPERTIES = [
  'Description',
  'GenerateSecretString',
  'KmsKeyId',
  'Name',
  'ReplicaRegions',
  'SecretString',
  'Tags',
  'Type',
] as const;

/** Secrets Manager's own key, which a removed `KmsKeyId` goes back to. */
export const DEFAULT_KMS_KEY = 'alias/aws/secretsmanager';

export interface GenerateSecretString {
  ExcludeCharacters?: string;
  ExcludeLowercase?: boolean;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  ExcludeUppercase?: boolean;
  GenerateStringKey?: string;
  IncludeSpace?: boolean;
  PasswordLength?: number;
  RequireEachIncludedType?: boolean;
  SecretStringTemplate?: string;
}

export interface ReplicaRegion {
  Region: string;
  KmsKeyId?: string;
}

/** The GetRandomPassword input of a `GenerateSecretString`. */
export function passwordOptions(generate: GenerateSecretString): Record<string, unknown> {
  const { GenerateStringKey: _key, SecretStringTemplate: _template, ...options } = generate;
  return options;
}

/**
 * The secret text of a generated password: the password itself, or the
 * template with the password under `GenerateStringKey` (both or neither, as
 * CloudFormation requires).
 */
export function generatedSecretString(generate: GenerateSecretString, password: string): string {
  const hasTemplate = generate.SecretStringTemplate !== undefined;
  const hasKey = generate.GenerateStringKey !== undefined;
  if (hasTemplate !== hasKey)
    throw new Error(
      'GenerateSecretString needs both SecretStringTemplate and GenerateStringKey, or neither.',
    );
  if (!hasTemplate) return password;
  let template: unknown;
  try {
    template = JSON.parse(generate.SecretStringTemplate!);
  } catch {
    throw new Error('GenerateSecretString.SecretStringTemplate is not valid JSON.');
  }
  if (!template || typeof template !== 'object' || Array.isArray(template))
    throw new Error('GenerateSecretString.SecretStringTemplate must be a JSON object.');
  return JSON.stringify({
    ...(template as Record<string, unknown>),
    [generate.GenerateStringKey!]: password,
  });
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
): { toSet: Array<{ Key: string; Value: string }>; toRemove: string[] } {
  return {
    toSet: Object.entries(desired)
      .filter(([k, v]) => previous[k] !== v)
      .map(([Key, Value]) => ({ Key, Value })),
    toRemove: Object.keys(previous).filter((k) => !(k in desired)),
  };
}

export function replicaRegions(value: unknown): ReplicaRegion[] {
  return Array.isArray(value) ? (value as ReplicaRegion[]).filter((r) => typeof r?.Region === 'string') : [];
}

/**
 * Replica changes: regions to drop (gone, or with another key: a replica's
 * key cannot change in place) and regions to add.
 */
export function replicaChanges(
  desired: ReplicaRegion[],
  current: ReplicaRegion[],
): { toRemove: string[]; toAdd: ReplicaRegion[] } {
  const same = (a: ReplicaRegion, b: ReplicaRegion) =>
    a.Region === b.Region && (a.KmsKeyId ?? DEFAULT_KMS_KEY) === (b.KmsKeyId ?? DEFAULT_KMS_KEY);
  const toRemove = current.filter((c) => !desired.some((d) => same(d, c))).map((c) => c.Region);
  const toAdd = desired.filter((d) => !current.some((c) => same(d, c)));
  return { toRemove, toAdd };
}

/**
 * A `ClientRequestToken` (32-64 characters) from a cdkd intent token: the same
 * intent always sends the same token, so Secrets Manager answers a repeat with
 * the version the first attempt made.
 */
export function clientRequestToken(intentToken: string, purpose: string): string {
  return createHash('sha256').update(`${purpose}:${intentToken}`).digest('hex');
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
