/**
 * Rewrites the names of the CDK bootstrap asset storage (bucket, ECR
 * repository) in a template to the cdkd asset storage, so that resources read
 * their assets from where cdkd published them. Names are replaced wherever they
 * occur in a string value: a plain name (`cdk-hnb659fds-assets-123456789012-eu-west-1`),
 * an `Fn::Sub` format string (`cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}`),
 * a longer ARN, URL or image URI built around one.
 */
import type { CloudFormationTemplate } from '../synth/cloud-assembly';

/** Replace the storage name `from` (as written in the asset manifest) with `to`. */
export interface NameReplacement {
  from: string;
  to: string;
}

/** Characters that continue a bucket or repository name: a match must not be part of a longer name. */
const NAME_CHAR = /[A-Za-z0-9._-]/;

/** A copy of `template` with every replacement applied to every string value. Keys are left alone. */
export function rewriteStorageNames(
  template: CloudFormationTemplate,
  replacements: readonly NameReplacement[],
): CloudFormationTemplate {
  const active = dedupe(replacements).filter((r) => r.from !== r.to && r.from.length > 0);
  if (active.length === 0) return template;
  return rewriteValue(template, active) as CloudFormationTemplate;
}

function rewriteValue(value: unknown, replacements: readonly NameReplacement[]): unknown {
  if (typeof value === 'string') return replaceNames(value, replacements);
  if (Array.isArray(value)) return value.map((v) => rewriteValue(v, replacements));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rewriteValue(v, replacements);
    return out;
  }
  return value;
}

/** Replaces whole-name occurrences of each `from` in `s`. */
export function replaceNames(s: string, replacements: readonly NameReplacement[]): string {
  let result = s;
  for (const { from, to } of replacements) {
    if (!result.includes(from)) continue;
    let out = '';
    let i = 0;
    for (;;) {
      const at = result.indexOf(from, i);
      if (at < 0) break;
      const before = at > 0 ? result[at - 1] : '';
      const after = result[at + from.length] ?? '';
      const whole = !NAME_CHAR.test(before) && !NAME_CHAR.test(after);
      out += result.slice(i, at) + (whole ? to : from);
      i = at + from.length;
    }
    result = out + result.slice(i);
  }
  return result;
}

function dedupe(replacements: readonly NameReplacement[]): NameReplacement[] {
  const seen = new Map<string, NameReplacement>();
  for (const r of replacements) seen.set(r.from, r);
  // Longest first, so a name that contains another is replaced before it.
  return [...seen.values()].sort((a, b) => b.from.length - a.from.length);
}
