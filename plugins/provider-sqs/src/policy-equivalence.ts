/**
 * Compares two IAM policy documents by meaning rather than spelling, for the
 * spellings SQS rewrites when it stores a policy: a bare account id principal
 * becomes `arn:<partition>:iam::<id>:root`, a one-element list and its single
 * value are the same, `"*"` and `{"AWS": "*"}` are the same principal, and
 * order inside lists does not matter.
 */

/** Parses a policy given as a JSON string or an object; `undefined` for anything else. */
export function parsePolicy(policy: unknown): Record<string, unknown> | undefined {
  if (typeof policy === 'string') {
    if (policy.trim() === '') return undefined;
    try {
      const parsed = JSON.parse(policy) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  return typeof policy === 'object' && policy !== null && !Array.isArray(policy)
    ? (policy as Record<string, unknown>)
    : undefined;
}

/** True when both documents grant the same thing in the spellings above. */
export function policiesEquivalent(a: unknown, b: unknown, partition: string): boolean {
  const pa = parsePolicy(a);
  const pb = parsePolicy(b);
  if (!pa || !pb) return false;
  return canonical(normalizePolicy(pa, partition)) === canonical(normalizePolicy(pb, partition));
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function normalizePrincipalValue(value: unknown, partition: string): unknown {
  return asList(value)
    .map((v) => (typeof v === 'string' && /^\d{12}$/.test(v) ? `arn:${partition}:iam::${v}:root` : v))
    .map((v) => (typeof v === 'string' ? v : canonical(v)))
    .sort();
}

function normalizePrincipal(principal: unknown, partition: string): unknown {
  if (principal === '*') return { AWS: ['*'] };
  if (typeof principal !== 'object' || principal === null) return principal;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(principal)) out[k] = normalizePrincipalValue(v, partition);
  return out;
}

const LIST_KEYS = new Set(['Action', 'NotAction', 'Resource', 'NotResource']);

function normalizeStatement(statement: unknown, partition: string): unknown {
  if (typeof statement !== 'object' || statement === null) return statement;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(statement)) {
    if (k === 'Principal' || k === 'NotPrincipal') out[k] = normalizePrincipal(v, partition);
    else if (LIST_KEYS.has(k)) out[k] = asList(v).map(String).sort();
    else if (k === 'Condition' && typeof v === 'object' && v !== null) {
      const cond: Record<string, unknown> = {};
      for (const [op, entries] of Object.entries(v)) {
        const inner: Record<string, unknown> = {};
        for (const [key, val] of Object.entries((entries ?? {}) as Record<string, unknown>)) {
          inner[key] = asList(val)
            .map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
            .sort();
        }
        cond[op] = inner;
      }
      out[k] = cond;
    } else out[k] = v;
  }
  return out;
}

function normalizePolicy(policy: Record<string, unknown>, partition: string): unknown {
  const statements = asList(policy.Statement)
    .map((s) => normalizeStatement(s, partition))
    .map(canonical)
    .sort();
  const rest: Record<string, unknown> = { ...policy };
  delete rest.Statement;
  return { ...rest, Statement: statements };
}

/** JSON with object keys sorted at every level. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
