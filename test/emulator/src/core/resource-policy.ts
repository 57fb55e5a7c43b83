/**
 * A small evaluation of resource policies (an SQS queue's `Policy`, an SNS
 * topic's `Policy`, an EventBridge bus policy): does a statement allow, or
 * deny, one principal one action on one resource, given the request's
 * condition keys? Enough for the deliveries AWS gates on them: SNS and
 * EventBridge may send to a queue only when its policy allows their service
 * principal (usually with an `aws:SourceArn` condition), as AWS documents.
 *
 * It knows the condition operators such policies use (`ArnEquals`, `ArnLike`,
 * `StringEquals`, `StringLike`, their `Not` forms, `IfExists`); a statement
 * with any other operator never matches (fails closed for Allow).
 */

/** Who asks: an AWS account or role ARN, or a service principal (`sns.amazonaws.com`). */
export type PolicyPrincipal = { aws: { account: string; arn?: string } } | { service: string };

export interface PolicyRequest {
  principal: PolicyPrincipal;
  /** `sqs:SendMessage`. */
  action: string;
  /** The resource's ARN. */
  resource: string;
  /** Condition keys of the request (`aws:SourceArn`, `aws:SourceAccount`), lower-case names. */
  context?: Record<string, string>;
}

interface Statement {
  Effect?: unknown;
  Principal?: unknown;
  Action?: unknown;
  NotAction?: unknown;
  Resource?: unknown;
  Condition?: unknown;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** IAM wildcards (`*`, `?`), case-sensitive unless asked. */
function wildcard(pattern: string, value: string, ignoreCase = false): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, ignoreCase ? 'i' : '').test(value);
}

function principalMatches(principal: unknown, who: PolicyPrincipal): boolean {
  if (principal === '*') return true;
  if (!principal || typeof principal !== 'object') return false;
  const p = principal as Record<string, unknown>;
  if ('service' in who) return list(p.Service).some((s) => s === who.service);
  const { account, arn } = who.aws;
  return list(p.AWS).some(
    (a) =>
      a === '*' || a === account || a === `arn:aws:iam::${account}:root` || (arn !== undefined && a === arn),
  );
}

function actionMatches(s: Statement, action: string): boolean {
  if (s.NotAction !== undefined)
    return !list(s.NotAction).some((a) => typeof a === 'string' && wildcard(a, action, true));
  return list(s.Action).some((a) => typeof a === 'string' && wildcard(a, action, true));
}

function resourceMatches(s: Statement, resource: string): boolean {
  // A resource policy's statement without Resource applies to the resource it is attached to.
  if (s.Resource === undefined) return true;
  return list(s.Resource).some((r) => typeof r === 'string' && wildcard(r, resource));
}

const OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (p, v) => p === v,
  StringEqualsIgnoreCase: (p, v) => p.toLowerCase() === v.toLowerCase(),
  StringLike: (p, v) => wildcard(p, v),
  ArnEquals: (p, v) => p === v,
  ArnLike: (p, v) => wildcard(p, v),
};

function conditionHolds(condition: unknown, context: Record<string, string>): boolean {
  if (condition === undefined) return true;
  if (!condition || typeof condition !== 'object') return false;
  for (const [rawOperator, block] of Object.entries(condition as Record<string, unknown>)) {
    const ifExists = rawOperator.endsWith('IfExists');
    const base = ifExists ? rawOperator.slice(0, -'IfExists'.length) : rawOperator;
    const negated = /^(String|Arn)Not/.test(base);
    const positive = base.replace(/^(String|Arn)Not/, '$1');
    const test = OPERATORS[positive];
    if (!test || !block || typeof block !== 'object') return false;
    for (const [key, expected] of Object.entries(block as Record<string, unknown>)) {
      const value = context[key.toLowerCase()];
      if (value === undefined) {
        if (ifExists || negated) continue;
        return false;
      }
      const any = list(expected).some((p) => typeof p === 'string' && test(p, value));
      if (negated ? any : !any) return false;
    }
  }
  return true;
}

/** `allow`, `deny` or `none` (no statement applies: the default deny for another principal). */
export function evaluateResourcePolicy(
  policy: string | undefined,
  request: PolicyRequest,
): 'allow' | 'deny' | 'none' {
  if (!policy) return 'none';
  let statements: Statement[];
  try {
    const doc = JSON.parse(policy) as { Statement?: unknown };
    statements = list(doc.Statement).filter((s): s is Statement => !!s && typeof s === 'object');
  } catch {
    return 'none';
  }
  const context = Object.fromEntries(
    Object.entries(request.context ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  let result: 'allow' | 'none' = 'none';
  for (const s of statements) {
    if (!principalMatches(s.Principal, request.principal)) continue;
    if (!actionMatches(s, request.action) || !resourceMatches(s, request.resource)) continue;
    if (!conditionHolds(s.Condition, context)) continue;
    if (s.Effect === 'Deny') return 'deny';
    if (s.Effect === 'Allow') result = 'allow';
  }
  return result;
}
