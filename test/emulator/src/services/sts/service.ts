/** AWS STS operations: GetCallerIdentity and AssumeRole. */
import type { AccountRegistry } from '../../core/accounts';
import { temporaryAccessKeyId } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import { secretKey, upperAlnum } from '../../core/ids';
import { requireParam } from '../../core/protocols/aws-query';
import type { Operations } from '../../core/service';

type Input = Record<string, unknown>;
const ROLE_ARN = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;

export class StsOperations {
  readonly operations: Operations = {
    GetCallerIdentity: (ctx) => ({ UserId: ctx.callerUserId, Account: ctx.account, Arn: ctx.callerArn }),
    AssumeRole: (_ctx, input: Input) => this.assumeRole(input),
  };

  constructor(private readonly accounts: AccountRegistry) {}

  private assumeRole(input: Input): unknown {
    const roleArn = requireParam(input, 'RoleArn');
    const sessionName = requireParam(input, 'RoleSessionName');
    if (roleArn.length < 20 || roleArn.length > 2048) {
      throw new AwsError(
        'ValidationError',
        `1 validation error detected: Value '${roleArn}' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20`,
      );
    }
    const m = ROLE_ARN.exec(roleArn);
    if (!m) throw new AwsError('ValidationError', `${roleArn} is invalid`);
    if (sessionName.length < 2 || sessionName.length > 64) {
      throw new AwsError(
        'ValidationError',
        `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint: Member must have length ${sessionName.length < 2 ? 'greater than or equal to 2' : 'less than or equal to 64'}`,
      );
    }
    if (!/^[\w+=,.@-]*$/.test(sessionName)) {
      throw new AwsError(
        'ValidationError',
        `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`,
      );
    }
    const duration = typeof input.DurationSeconds === 'number' ? input.DurationSeconds : 3600;
    if (!Number.isInteger(duration) || duration < 900 || duration > 43200) {
      throw new AwsError(
        'ValidationError',
        `1 validation error detected: Value '${duration}' at 'durationSeconds' failed to satisfy constraint: Member must have value ${duration < 900 ? 'greater than or equal to 900' : 'less than or equal to 43200'}`,
      );
    }
    const [, partition, account, roleName] = m;
    const roleId = `AROA${upperAlnum(17)}`;
    const arn = `arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`;
    const accessKeyId = temporaryAccessKeyId();
    const expiration = new Date(Date.now() + duration * 1000);
    expiration.setUTCMilliseconds(0);
    const userId = `${roleId}:${sessionName}`;
    this.accounts.register({
      accessKeyId,
      account: account!,
      arn,
      userId,
      expiration: expiration.toISOString(),
    });
    return {
      Credentials: {
        AccessKeyId: accessKeyId,
        SecretAccessKey: secretKey(),
        SessionToken: Buffer.from(`${accessKeyId}:${secretKey()}${secretKey()}`).toString('base64'),
        Expiration: expiration,
      },
      AssumedRoleUser: { AssumedRoleId: userId, Arn: arn },
    };
  }
}
