/**
 * Secret redaction: one registry of the secret values this process has seen
 * (NoEcho parameter values, resolved `ssm-secure` / `secretsmanager` dynamic
 * references, provider attributes marked `noEchoAttributes` /
 * `noEchoAttributeNames`, custom-resource `NoEcho` responses, write-only
 * properties Cloud Control read back) and the functions every sink calls
 * before it stores or prints anything: state.json, the write-ahead log, the
 * rollback journal, progress events, log lines and errors.
 *
 * The registry is process-wide on purpose: a secret the resolver saw must be
 * masked in every sink of the same invocation, including ones (an error thrown
 * three layers down, a provider's log line) that no deploy object is threaded
 * to. AWS still gets the clear values: masking happens only on the way out.
 *
 * Matching follows the spec's bounds: a value equal to a secret is masked at any
 * length; a secret inside a longer string only when it has at least
 * {@link MIN_NEEDLE_LENGTH} characters (shorter ones would mask unrelated text).
 * Keys of objects are never rewritten (they are names, not values).
 */

import { isPlainData } from '../util/objects';

/** What a secret is replaced with. */
export const SECRET_MASK = '***';

/** The shortest secret matched inside a longer string. */
export const MIN_NEEDLE_LENGTH = 4;

/** How deep a value is walked (cycles and pathological nesting stop here). */
const MAX_DEPTH = 64;

const secrets = new Set<string>();
/**
 * Secrets with nothing behind them to read again (a provider's `noEcho`
 * attributes, a custom resource's `NoEcho` data, a write-only property read
 * back): once masked in state, a later run only ever sees the mask.
 */
const minted = new Set<string>();
/** Substring needles, longest first (so a secret containing another is masked whole), with their JSON-escaped forms. */
let needles: string[] = [];

function rebuildNeedles(): void {
  const all = new Set<string>();
  for (const s of secrets) {
    if (s.length < MIN_NEEDLE_LENGTH) continue;
    all.add(s);
    // A secret quoted inside JSON (a policy document, an error echoing a request) is escaped.
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s) all.add(escaped);
  }
  needles = [...all].sort((a, b) => b.length - a.length);
}

/** Where a secret comes from: `derived` ones can be read again (a parameter, a dynamic reference). */
export type SecretOrigin = 'derived' | 'minted';

/**
 * Records a secret value (every string leaf of an object or list): from now on
 * every sink masks it. Empty values and the mask itself are ignored.
 */
export function registerSecret(value: unknown, origin: SecretOrigin = 'derived'): void {
  if (typeof value === 'string') {
    if (value === '' || value === SECRET_MASK) return;
    if (origin === 'minted') minted.add(value);
    if (secrets.has(value)) return;
    secrets.add(value);
    rebuildNeedles();
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    registerSecret(String(value), origin);
  } else if (Array.isArray(value)) {
    for (const v of value) registerSecret(v, origin);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) registerSecret(v, origin);
  }
}

/** True when `value` is a registered secret. */
export function isSecret(value: string): boolean {
  return secrets.has(value);
}

/** Every registered secret, in clear (what a masked value may be restored from). */
export function registeredSecrets(): readonly string[] {
  return [...secrets];
}

/** True when any secret is registered (sinks skip their walk otherwise). */
export function hasSecrets(): boolean {
  return secrets.size > 0;
}

/** Forgets every secret. For tests, and for programs driving several unrelated invocations. */
export function clearSecrets(): void {
  secrets.clear();
  minted.clear();
  needles = [];
}

/** A text with every registered secret masked. */
export function redactSecretsInText(text: string): string {
  if (secrets.size === 0 || text === '') return text;
  if (secrets.has(text)) return SECRET_MASK;
  let out = text;
  for (const n of needles) if (out.includes(n)) out = out.split(n).join(SECRET_MASK);
  return out;
}

/**
 * A copy of `value` with every string leaf masked (whole values at any length,
 * substrings per {@link MIN_NEEDLE_LENGTH}); object keys are kept. Values that
 * hold no secret come back unchanged (the same object when nothing changed).
 * The one function the state, write-ahead log and rollback journal writers call.
 */
export function redactSecrets<T>(value: T): T {
  if (secrets.size === 0) return value;
  return walk(value, 0) as T;
}

/**
 * A copy of `value` with only the whole-value leaves equal to a minted secret
 * masked: the form a value takes once it has been through state, which is what
 * the secret digest of a resource is computed over.
 */
export function maskMintedSecrets<T>(value: T): T {
  if (minted.size === 0) return value;
  return walk(value, 0, (s) => (minted.has(s) ? SECRET_MASK : s)) as T;
}

function walk(value: unknown, depth: number, leaf: (s: string) => string = redactSecretsInText): unknown {
  if (typeof value === 'string') return leaf(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = walk(v, depth + 1, leaf);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (value instanceof Error || !isPlainData(value)) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const r = walk(v, depth + 1, leaf);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

/**
 * Paths (`Password`, `Tags[0].Value`) of the leaves of `value` that are exactly
 * the mask: what a resource would send when a value it reads (a minted secret
 * from state) has nothing behind the mask to read again.
 */
export function maskedPaths(value: unknown, path = '', depth = 0): string[] {
  if (value === SECRET_MASK) return [path || '(value)'];
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => maskedPaths(v, `${path}[${i}]`, depth + 1));
  return Object.entries(value).flatMap(([k, v]) => maskedPaths(v, path ? `${path}.${k}` : k, depth + 1));
}
