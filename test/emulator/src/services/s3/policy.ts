/**
 * A deliberately small bucket-policy evaluation, enough for cross-account
 * tests: unconditional Allow/Deny statements matched by principal and action.
 * Statements with a Condition are ignored (the emulator knows no request context).
 */

interface Statement {
  Effect?: string;
  Principal?: unknown;
  Action?: string | string[];
  Condition?: unknown;
}

function principalMatches(principal: unknown, account: string, arn: string): boolean {
  if (principal === '*') return true;
  if (!principal || typeof principal !== 'object') return false;
  const aws = (principal as Record<string, unknown>).AWS;
  const list = Array.isArray(aws) ? aws : [aws];
  return list.some((p) => p === '*' || p === account || p === `arn:aws:iam::${account}:root` || p === arn);
}

function actionMatches(actions: string | string[] | undefined, action: string): boolean {
  const list = Array.isArray(actions) ? actions : actions ? [actions] : [];
  return list.some((pattern) => {
    const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
    return re.test(action);
  });
}

/** `allow`, `deny` or `none` for a caller and an IAM action under a bucket policy. */
export function evaluatePolicy(
  policy: string | undefined,
  account: string,
  arn: string,
  action: string,
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
    if (s.Effect === 'Deny') return 'deny';
    if (s.Effect === 'Allow') result = 'allow';
  }
  return result;
}
