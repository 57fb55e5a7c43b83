/**
 * Secrets in a write-ahead intent. An intent is stored masked like everything
 * else, but it is also what a later run re-sends when it settles an operation a
 * killed run left in flight: a leaf stored as `***` (a NoEcho parameter value,
 * or one substituted into a longer string) would reach AWS as `***`. So each
 * masked leaf keeps a salted digest of its clear value ({@link digestMaskedLeaves});
 * the settling run fills the mask back from the secrets it holds itself (the
 * NoEcho parameters of its own run) and keeps a value only when it digests to
 * what was first sent ({@link restoreMaskedLeaves}). Secret dynamic references
 * need none of this: intents keep them as references, re-resolved at the call.
 */
import { matchesSecretDigest, valueDigestOf } from '../plan/secret-digest';
import { SECRET_MASK, redactSecretsInText, registeredSecrets } from '../template/redaction';
import { escapePointerSegment } from '../util/json-patch';

/** How deep a properties value is walked (as redaction walks it). */
const MAX_DEPTH = 64;

type Leaf = { pointer: string; value: string };

function stringLeaves(value: unknown, pointer = '', depth = 0, out: Leaf[] = []): Leaf[] {
  if (typeof value === 'string') out.push({ pointer, value });
  else if (depth < MAX_DEPTH && value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    for (const [k, v] of entries) stringLeaves(v, `${pointer}/${escapePointerSegment(k)}`, depth + 1, out);
  }
  return out;
}

/** Digests computed once per properties object (an intent is stored in each segment and state write). */
const computed = new WeakMap<object, Record<string, string>>();

/**
 * JSON pointer -> digest of the clear value, for every string leaf of
 * `properties` (clear) that redaction would change; undefined when none would.
 */
export function digestMaskedLeaves(properties: Record<string, unknown>): Record<string, string> | undefined {
  let digests = computed.get(properties);
  if (!digests) {
    digests = {};
    for (const leaf of stringLeaves(properties))
      if (redactSecretsInText(leaf.value) !== leaf.value) digests[leaf.pointer] = valueDigestOf(leaf.value);
    computed.set(properties, digests);
  }
  return Object.keys(digests).length > 0 ? digests : undefined;
}

/** The clear values a masked leaf may have been: each secret this run holds, in place of every mask in it. */
function candidatesFor(masked: string, secrets: readonly string[]): string[] {
  if (masked === SECRET_MASK) return [...secrets];
  const parts = masked.split(SECRET_MASK);
  return secrets.map((s) => parts.join(s));
}

function setAt(root: unknown, pointer: string, value: string): void {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = root as Record<string, unknown>;
  for (const s of segments.slice(0, -1)) node = node[s] as Record<string, unknown>;
  node[segments[segments.length - 1]] = value;
}

export type RestoredProperties =
  | { ok: true; properties: Record<string, unknown> }
  /** `unrestored`: the JSON pointers of the leaves left masked. */
  | { ok: false; unrestored: string[] };

/**
 * The intent's properties with every masked leaf restored from this run's
 * secrets, proven by its digest. A leaf that is the mask with no digest (an
 * intent an older cdkd wrote), or whose digest no secret of this run matches,
 * leaves the result unrestored: it must not be sent.
 */
export function restoreMaskedLeaves(
  properties: Record<string, unknown>,
  digests: Record<string, string> | undefined,
): RestoredProperties {
  // A leaf is masked when it has a digest, or is exactly the mask (a string that merely contains `***` is text).
  const masked = stringLeaves(properties).filter(
    (l) => l.value.includes(SECRET_MASK) && (digests?.[l.pointer] !== undefined || l.value === SECRET_MASK),
  );
  if (masked.length === 0) return { ok: true, properties };
  const restored = structuredClone(properties);
  const secrets = registeredSecrets();
  const unrestored: string[] = [];
  for (const leaf of masked) {
    const digest = digests?.[leaf.pointer];
    const clear = digest
      ? candidatesFor(leaf.value, secrets).find((c) => matchesSecretDigest(digest, c))
      : undefined;
    if (clear === undefined) unrestored.push(leaf.pointer);
    else setAt(restored, leaf.pointer, clear);
  }
  return unrestored.length > 0 ? { ok: false, unrestored } : { ok: true, properties: restored };
}
