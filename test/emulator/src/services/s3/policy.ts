/**
 * A deliberately small bucket-policy evaluation, enough for cross-account and
 * least-privilege tests: unconditional Allow/Deny statements matched by
 * principal, action and — when the caller names the resource acted on —
 * `Resource` (`arn:aws:s3:::bucket/key`, `*` wildcards). Statements with a
 * Condition are ignored (the emulator knows no request context).
 */

interface Statement {
  Effect?: string;
  Principal?: unknown;
  Action?: string | string[];
  Resource?: string | string[];
  Condition?: unknown;
}

function principalMatches(principal: unknown, account: string, arn: string): boolean {
  if (principal === '*') return true;
  if (!principal || typeof principal !== 'object') return false;
  const aws = (principal as Record<string, unknown>).AWS;
  const list = Array.isArray(aws) ? aws : [aws];
  return list.some((p) => p === '*' || p === account || p === `arn:aws:iam::${account}:root` || p === arn);
}

function wildcardMatches(patterns: string | string[] | undefined, value: string, flags: string): boolean {
  const list = Array.isArray(patterns) ? patterns : patterns ? [patterns] : [];
  return list.some((pattern) => {
    const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, flags);
    return re.test(value);
  });
}

/** IAM action names are case-insensitive. */
const actionMatches = (actions: string | string[] | undefined, action: string) =>
  wildcardMatches(actions, action, 'i');

/** A statement without `Resource`, or a check that names none, applies to the whole bucket. */
const resourceMatches = (resources: string | string[] | undefined, resource: string | undefined) =>
  resources === undefined || resource === undefined || wildcardMatches(resources, resource, '');

/** `allow`, `deny` or `none` for a caller and an IAM action under a bucket policy. */
export function evaluatePolicy(
  policy: string | undefined,
  account: string,
  arn: string,
  action: string,
  /** The ARN acted on (`arn:aws:s3:::bucket/key` for an object action). */
  resource?: string,
): 'allow' | 'deny' | 'none' {
  if (!policy) return 'none';
  let statements: Statement[];
  try {
    const doc = JSON.parse(policy) as { Statement?: Statement | Statement[] };
    statements = Array.isArray(doc.Statement) ? doc.Statement : doc.Statement ? [doc.Statement] : [];
  } catch {
    return 'none';
  }
  let result: 'allow' | 'none' = 'none';
  for (const s of statements) {
    if (s.Condition) continue;
    if (!principalMatches(s.Principal, account, arn) || !actionMatches(s.Action, action)) continue;
    if (!resourceMatches(s.Resource, resource)) continue;
    if (s.Effect === 'Deny') return 'deny';
    if (s.Effect === 'Allow') result = 'allow';
  }
  return result;
}
