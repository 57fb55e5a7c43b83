/**
 * The account-only bucket policy cdkd puts on the buckets it creates: deny every
 * principal outside the bucket's account, and deny any request not made over TLS.
 * Explicit Denies only — access within the account is still granted by IAM.
 *
 * cdkd owns its statements by `Sid`; a policy a user added statements to keeps
 * them when bootstrap runs again.
 */

export const DENY_EXTERNAL_SID = 'CdkdDenyExternalAccess';
export const DENY_INSECURE_TRANSPORT_SID = 'CdkdDenyInsecureTransport';

export interface PolicyStatement {
  Sid?: string;
  Effect: string;
  Principal?: unknown;
  Action?: unknown;
  Resource?: unknown;
  Condition?: unknown;
  [key: string]: unknown;
}

export interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

/** The two Deny statements for a bucket. */
export function accountOnlyStatements(
  bucket: string,
  accountId: string,
  partition = 'aws',
): PolicyStatement[] {
  const resources = [`arn:${partition}:s3:::${bucket}`, `arn:${partition}:s3:::${bucket}/*`];
  return [
    {
      Sid: DENY_EXTERNAL_SID,
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:*',
      Resource: resources,
      Condition: { StringNotEquals: { 'aws:PrincipalAccount': accountId } },
    },
    {
      Sid: DENY_INSECURE_TRANSPORT_SID,
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:*',
      Resource: resources,
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    },
  ];
}

export function accountOnlyPolicy(bucket: string, accountId: string, partition = 'aws'): PolicyDocument {
  return { Version: '2012-10-17', Statement: accountOnlyStatements(bucket, accountId, partition) };
}

/**
 * The policy with cdkd's statements in place: `existing` (a policy JSON string, or
 * undefined when the bucket has none) keeps every statement that is not cdkd's.
 * Returns undefined when `existing` already has them exactly.
 */
export function mergeAccountOnlyPolicy(
  existing: string | undefined,
  wanted: PolicyDocument,
): PolicyDocument | undefined {
  if (existing === undefined || existing.trim() === '') return wanted;
  let doc: Partial<PolicyDocument>;
  try {
    doc = JSON.parse(existing) as Partial<PolicyDocument>;
  } catch {
    return wanted;
  }
  const current = Array.isArray(doc.Statement)
    ? doc.Statement
    : doc.Statement
      ? [doc.Statement as PolicyStatement]
      : [];
  const ours = new Set(wanted.Statement.map((s) => s.Sid));
  const upToDate = wanted.Statement.every((w) => current.some((c) => c.Sid === w.Sid && sameJson(c, w)));
  if (upToDate) return undefined;
  return {
    Version: doc.Version ?? wanted.Version,
    Statement: [...current.filter((s) => !ours.has(s.Sid)), ...wanted.Statement],
  };
}

/** Structural equality that ignores key order (AWS may return a policy reformatted). */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
