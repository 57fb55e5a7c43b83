/**
 * How a deploy tells whether a secret a resource uses has changed without
 * storing it. State keeps a secret-bearing property as its `{{resolve:...}}`
 * reference (or the mask, for a NoEcho parameter), so comparing the stored
 * properties with the template says nothing about the secret's value. The
 * record also keeps a salted scrypt digest of the properties as they were SENT
 * (`ResourceState.secretDigest`, a cdkd addition the reference tool ignores);
 * the next deploy resolves the same references, digests them with the stored
 * salt and compares. Equal: no change, no call. Different: an update.
 *
 * scrypt rather than a plain hash: a digest in a readable bucket must not make
 * a short password cheap to guess offline.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { isSecretReference, findDynamicReferences } from '../template/dynamic-references';
import type { ResourceState } from '../state/types';
import { maskMintedSecrets, redactSecrets, SECRET_MASK } from '../template/redaction';
import { containsUnknown } from '../template/unknown';
import type { DesiredResourceState, ResourceChange } from './types';

const SCHEME = 'scrypt1';
const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** JSON with object keys sorted, so the digest does not depend on key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function hash(sent: unknown, salt: Buffer): Buffer {
  // Minted secrets (a provider's noEcho attributes) reach a later run only as the mask: digest that form.
  return scryptSync(canonical(maskMintedSecrets(sent)), salt, KEY_LENGTH, PARAMS);
}

/** True when `properties` (as desired, secrets as references) carry a secret reference anywhere. */
export function hasSecretReference(value: unknown): boolean {
  if (typeof value === 'string')
    return value.includes('{{resolve:') && findDynamicReferences(value).some(isSecretReference);
  if (Array.isArray(value)) return value.some(hasSecretReference);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasSecretReference);
  return false;
}

/**
 * True when a resource's properties hold a secret a later run can read again:
 * a secret reference in the desired form, or a registered secret in the sent one.
 */
export function holdsSecret(desired: Record<string, unknown>, sent: Record<string, unknown>): boolean {
  if (hasSecretReference(desired)) return true;
  const masked = maskMintedSecrets(sent);
  return redactSecrets(masked) !== masked;
}

/** A fresh digest of the properties as sent. */
export function secretDigestOf(sent: Record<string, unknown> | string): string {
  const salt = randomBytes(16);
  return `${SCHEME}$${salt.toString('base64')}$${hash(sent, salt).toString('base64')}`;
}

/** A fresh digest of one clear value (a masked leaf of a write-ahead intent). */
export function valueDigestOf(value: string): string {
  return secretDigestOf(value);
}

/** True when `sent` (properties, or one value) digests to `digest`; an unreadable digest never matches. */
export function matchesSecretDigest(digest: string, sent: unknown): boolean {
  const [scheme, salt, expected] = digest.split('$');
  if (scheme !== SCHEME || !salt || !expected) return false;
  const want = Buffer.from(expected, 'base64');
  const got = hash(sent, Buffer.from(salt, 'base64'));
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * The change of a resource once its secrets are compared too: a resource that
 * compares equal as stored (NO_CHANGE, or a policy-only update) but whose
 * secrets digest differently from its record is an UPDATE. `resolveSecrets`
 * reads the references (as the deploy's call would); it is asked only when the
 * record has a digest, so a stack without secrets reads nothing.
 */
export async function withSecretChanges(
  change: ResourceChange,
  desired: DesiredResourceState,
  recorded: ResourceState | undefined,
  resolveSecrets: (properties: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<ResourceChange> {
  if (!recorded?.secretDigest) return change;
  if (change.action !== 'NO_CHANGE' && !(change.action === 'UPDATE' && change.policyOnly)) return change;
  if (containsUnknown(desired.properties)) return change;
  const sent = await resolveSecrets(desired.properties);
  if (matchesSecretDigest(recorded.secretDigest, sent)) return change;
  const { policyOnly: _policyOnly, ...rest } = change;
  return {
    ...rest,
    action: 'UPDATE',
    propertyChanges: [
      { path: 'Properties (a secret value)', before: SECRET_MASK, after: SECRET_MASK },
      ...change.propertyChanges,
    ],
  };
}
