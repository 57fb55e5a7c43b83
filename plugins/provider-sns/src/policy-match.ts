/**
 * Whether the policy on a topic is still the one a TopicPolicy wrote, judged
 * by meaning: key order, list order, a one-element list against its value, a
 * bare account id against its root ARN, and `"*"` against `{"AWS": "*"}` do
 * not count as differences.
 */

/** A policy given as JSON text or an object; `undefined` for anything else. */
export function policyObject(policy: unknown): Record<string, unknown> | undefined {
  let value = policy;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Members IAM reads as a list whether written as one value or many. */
const LIST_MEMBERS = new Set(['Statement', 'Action', 'NotAction', 'Resource', 'NotResource']);

/** JSON with sorted keys: one text per meaning. */
function text(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(text).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${text((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const asSet = (value: unknown, each: (v: unknown) => unknown = (v) => v): string[] =>
  (Array.isArray(value) ? value : [value]).map((v) => text(each(v))).sort();

function principal(value: unknown, partition: string): unknown {
  const p = value === '*' ? { AWS: '*' } : value;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return p;
  const rootArn = (v: unknown) =>
    typeof v === 'string' && /^\d{12}$/.test(v) ? `arn:${partition}:iam::${v}:root` : v;
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, asSet(v, rootArn)]));
}

function statement(value: unknown, partition: string): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'Principal' || k === 'NotPrincipal') out[k] = principal(v, partition);
    else if (LIST_MEMBERS.has(k)) out[k] = asSet(v);
    else if (k === 'Condition' && v && typeof v === 'object')
      out[k] = Object.fromEntries(
        Object.entries(v).map(([op, block]) => [
          op,
          Object.fromEntries(
            Object.entries((block ?? {}) as Record<string, unknown>).map(([key, x]) => [key, asSet(x)]),
          ),
        ]),
      );
    else out[k] = v;
  }
  return out;
}

/** True when both documents say the same thing in the spellings above. */
export function samePolicy(a: unknown, b: unknown, partition: string): boolean {
  const pa = policyObject(a);
  const pb = policyObject(b);
  if (!pa || !pb) return false;
  const canonical = (p: Record<string, unknown>) =>
    text({ ...p, Statement: asSet(p.Statement, (s) => statement(s, partition)) });
  return canonical(pa) === canonical(pb);
}
