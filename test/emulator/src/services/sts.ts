/** AWS STS (query protocol): GetCallerIdentity and AssumeRole. */
import type { AccountRegistry } from '../core/accounts';
import { temporaryAccessKeyId } from '../core/accounts';
import { AwsError } from '../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../core/http';
import { secretKey, upperAlnum } from '../core/ids';
import { QueryService, queryParams, queryResponse, requireParam } from '../core/query-protocol';
import type { CallContext, RoutedCall } from '../core/service';

const STS_NS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const ROLE_ARN = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;

export class StsService extends QueryService {
  readonly name = 'sts';
  protected readonly xmlns = STS_NS;

  constructor(private readonly accounts: AccountRegistry) {
    super();
  }

  route(req: EmulatorRequest): RoutedCall {
    const params = queryParams(req);
    const action = params.get('Action') ?? '';
    switch (action) {
      case 'GetCallerIdentity':
        return { operation: action, run: (ctx) => this.getCallerIdentity(ctx) };
      case 'AssumeRole':
        return { operation: action, run: (ctx) => this.assumeRole(ctx, params) };
      default:
        throw new AwsError('InvalidAction', `Could not find operation ${action} for version 2011-06-15`, 400);
    }
  }

  private getCallerIdentity(ctx: CallContext): EmulatorResponse {
    return queryResponse(
      'GetCallerIdentity',
      STS_NS,
      { UserId: ctx.callerUserId, Account: ctx.account, Arn: ctx.callerArn },
      ctx.requestId,
    );
  }

  private assumeRole(ctx: CallContext, params: URLSearchParams): EmulatorResponse {
    const roleArn = requireParam(params, 'RoleArn');
    const sessionName = requireParam(params, 'RoleSessionName');
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
    const duration = Number(params.get('DurationSeconds') ?? '3600');
    if (!Number.isInteger(duration) || duration < 900 || duration > 43200) {
      throw new AwsError(
        'ValidationError',
        `1 validation error detected: Value '${params.get('DurationSeconds')}' at 'durationSeconds' failed to satisfy constraint: Member must have value ${duration < 900 ? 'greater than or equal to 900' : 'less than or equal to 43200'}`,
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
    return queryResponse(
      'AssumeRole',
      STS_NS,
      {
        Credentials: {
          AccessKeyId: accessKeyId,
          SecretAccessKey: secretKey(),
          SessionToken: Buffer.from(`${accessKeyId}:${secretKey()}${secretKey()}`).toString('base64'),
          Expiration: expiration.toISOString().replace('.000Z', 'Z'),
        },
        AssumedRoleUser: { AssumedRoleId: userId, Arn: arn },
      },
      ctx.requestId,
    );
  }
}
