/**
 * Bucket policy documents compared by meaning: S3 stores a policy in its own
 * spelling (a bare account id principal becomes the account's root ARN), and a
 * template may write one value where another writes a one-element list, or
 * order actions differently. None of those is a change.
 */
import { canonicalJson } from './bucket-config';

/** The document as the JSON text PutBucketPolicy takes. */
export function policyText(document: unknown): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

function parsed(document: unknown): unknown {
  if (typeof document !== 'string') return document;
  try {
    return JSON.parse(document) as unknown;
  } catch {
    return document;
  }
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);
/** Members whose value is a set of strings: order and one-vs-list do not matter. */
const SET_MEMBERS = new Set(['Action', 'NotAction', 'Resource', 'NotResource']);

function principal(value: unknown, partition: string): unknown {
  if (value === '*') return { AWS: ['*'] };
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([kind, ids]) => [
      kind,
      asArray(ids)
        .map((id) =>
          typeof id === 'string' && /^\d{12}$/.test(id) ? `arn:${partition}:iam::${id}:root` : id,
        )
        .map((id) => (typeof id === 'string' ? id : canonicalJson(id)))
        .sort(),
    ]),
  );
}

function condition(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, Record<string, unknown>>).map(([operator, keys]) => [
      operator,
      Object.fromEntries(
        Object.entries(keys ?? {}).map(([key, v]) => [
          key,
          asArray(v)
            .map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
            .sort(),
        ]),
      ),
    ]),
  );
}

function statement(value: unknown, partition: string): string {
  if (typeof value !== 'object' || value === null) return canonicalJson(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'Principal' || k === 'NotPrincipal') out[k] = principal(v, partition);
    else if (SET_MEMBERS.has(k)) out[k] = asArray(v).map(String).sort();
    else if (k === 'Condition') out[k] = condition(v);
    else out[k] = v;
  }
  return canonicalJson(out);
}

/** The document in one spelling per meaning. */
export function canonicalPolicy(document: unknown, partition: string): string {
  const doc = parsed(document);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return canonicalJson(doc);
  const { Statement, ...rest } = doc as Record<string, unknown>;
  const statements = asArray(Statement)
    .map((s) => statement(s, partition))
    .sort();
  return canonicalJson({ ...rest, Statement: statements });
}

export function samePolicy(a: unknown, b: unknown, partition: string): boolean {
  return canonicalPolicy(a, partition) === canonicalPolicy(b, partition);
}
