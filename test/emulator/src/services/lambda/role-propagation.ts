/**
 * IAM is eventually consistent: a role created moments ago may not yet be
 * assumable by Lambda, and CreateFunction (or an update naming the role)
 * fails with "The role defined for the function cannot be assumed by Lambda."
 * until it has propagated. Modelled behind a consistency switch, off by
 * default. A role's age is taken from the IAM service when it can tell
 * (its `api`'s `roleByArn`), else from when Lambda first saw the role.
 */
import { AwsError } from '../../core/errors';
import type { Platform } from '../../core/service';

export const ROLE_PROPAGATION = 'lambda.role-propagation';

/** What Lambda asks an IAM service, if one offers it in its `api`. */
export interface IamRoles {
  /** The role an ARN names (`created`: ISO 8601), when it exists. */
  roleByArn?(arn: string): { created: string } | undefined;
}

export class RolePropagation {
  /** `${account}|${roleArn}` → epoch ms Lambda first saw the role. */
  private readonly firstSeen = new Map<string, number>();

  constructor(private readonly platform: Platform) {
    platform.consistency.register({
      name: ROLE_PROPAGATION,
      description:
        'A new IAM role is not assumable by Lambda until it has propagated: CreateFunction and UpdateFunctionConfiguration answer InvalidParameterValueException "The role defined for the function cannot be assumed by Lambda." (IAM User Guide, "Changes that I make are not always immediately visible"; Lambda CreateFunction errors).',
      defaultDelayMs: 5000,
    });
  }

  /** Throws Lambda's error while `roleArn` is younger than the modelled lag. */
  check(account: string, roleArn: string): void {
    const lag = this.platform.consistency.delayFor(ROLE_PROPAGATION);
    if (!lag) return;
    const created = this.createdAt(account, roleArn);
    if (Date.now() - created < lag)
      throw new AwsError(
        'InvalidParameterValueException',
        'The role defined for the function cannot be assumed by Lambda.',
      );
  }

  clear(): void {
    this.firstSeen.clear();
  }

  private createdAt(account: string, roleArn: string): number {
    const created = this.iam()?.roleByArn?.(roleArn)?.created;
    if (created && !Number.isNaN(Date.parse(created))) return Date.parse(created);
    const key = `${account}|${roleArn}`;
    let seen = this.firstSeen.get(key);
    if (seen === undefined) this.firstSeen.set(key, (seen = Date.now()));
    return seen;
  }

  private iam(): IamRoles | undefined {
    try {
      return this.platform.api<IamRoles>('iam');
    } catch {
      return undefined; // no IAM service, or one without an api
    }
  }
}
