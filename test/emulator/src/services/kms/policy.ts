/**
 * Key policies: the default KMS attaches when CreateKey gets none, the policy
 * of an AWS managed key, and the checks PutKeyPolicy / CreateKey apply
 * (valid JSON; the policy lockout safety check).
 */
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';

/** KMS's default key policy: the account (through IAM) may do everything with the key. */
export function defaultKeyPolicy(account: string, region: string): string {
  return JSON.stringify(
    {
      Version: '2012-10-17',
      Id: 'key-default-1',
      Statement: [
        {
          Sid: 'Enable IAM User Permissions',
          Effect: 'Allow',
          Principal: { AWS: `arn:${partitionOf(region)}:iam::${account}:root` },
          Action: 'kms:*',
          Resource: '*',
        },
      ],
    },
    null,
    2,
  );
}

/** The key policy of an AWS managed key: use through the owning service, metadata to the account. */
export function managedKeyPolicy(account: string, region: string, service: string): string {
  return JSON.stringify(
    {
      Version: '2012-10-17',
      Id: `auto-${service}-1`,
      Statement: [
        {
          Sid: `Allow access through ${service} for all principals in the account that are authorized to use ${service}`,
          Effect: 'Allow',
          Principal: { AWS: '*' },
          Action: ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey'],
          Resource: '*',
          Condition: {
            StringEquals: {
              'kms:CallerAccount': account,
              'kms:ViaService': `${service}.${region}.amazonaws.com`,
            },
          },
        },
        {
          Sid: 'Allow direct access to key metadata to the account',
          Effect: 'Allow',
          Principal: { AWS: `arn:${partitionOf(region)}:iam::${account}:root` },
          Action: ['kms:Describe*', 'kms:Get*', 'kms:List*', 'kms:RevokeGrant'],
          Resource: '*',
        },
      ],
    },
    null,
    2,
  );
}

interface Statement {
  Effect?: unknown;
  Principal?: unknown;
  Action?: unknown;
}

const malformed = (message: string) => new AwsError('MalformedPolicyDocumentException', message);

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/**
 * Parses a key policy (≤ 32 KB of JSON with a `Statement`), and unless the
 * caller bypasses it, applies the lockout safety check: the policy must let
 * the calling principal (or its account) call PutKeyPolicy afterwards.
 */
export function validateKeyPolicy(
  policy: string,
  caller: { account: string; arn: string },
  bypassLockoutSafetyCheck: boolean,
): void {
  if (Buffer.byteLength(policy) > 32_768)
    throw new AwsError('LimitExceededException', 'Policy exceeds the maximum size of 32768 bytes.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(policy);
  } catch {
    throw malformed('The new key policy is not valid JSON.');
  }
  const statements = asList((parsed as { Statement?: unknown } | null)?.Statement);
  if (!parsed || typeof parsed !== 'object' || statements.length === 0)
    throw malformed('The new key policy has no statements.');
  if (bypassLockoutSafetyCheck) return;
  const administers = (statements as Statement[]).some((s) => {
    if (s.Effect !== 'Allow') return false;
    const actions = asList(s.Action).map(String);
    if (!actions.some((a) => a === '*' || a === 'kms:*' || a === 'kms:PutKeyPolicy')) return false;
    const principals =
      s.Principal === '*' ? ['*'] : asList((s.Principal as { AWS?: unknown } | undefined)?.AWS).map(String);
    return principals.some(
      (p) =>
        p === '*' ||
        p === caller.account ||
        p === caller.arn ||
        new RegExp(`^arn:aws[a-z-]*:iam::${caller.account}:root$`).test(p),
    );
  });
  if (!administers) {
    throw malformed('The new key policy will not allow you to update the key policy in the future.');
  }
}
