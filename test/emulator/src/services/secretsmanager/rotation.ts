/**
 * Rotation, as the Secrets Manager user guide's "Rotation by Lambda function"
 * describes it: RotateSecret records the configuration, labels a new version
 * id AWSPENDING and invokes the rotation function through the emulator's
 * Lambda once per step (`createSecret`, `setSecret`, `testSecret`,
 * `finishSecret`), each with `{ Step, SecretId, ClientRequestToken }`; the
 * function puts the new value (PutSecretValue with that token) and finishes
 * by moving AWSCURRENT (UpdateSecretVersionStage), which leaves AWSPREVIOUS
 * on the old version. A step that fails stops the rotation with AWSPENDING
 * left where it was, and the next RotateSecret refuses until it is cleared.
 * CancelRotateSecret turns rotation off.
 *
 * On AWS the steps run after RotateSecret has answered; here RotateSecret
 * answers once they ran, so a test sees the outcome without waiting.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { LambdaSyncInvokeApi } from '../../core/lambda-invoke';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import type { SecretsManagement } from './secrets';
import { secretErrors, type RotationConfig, type Secret } from './store';

type Input = Record<string, unknown>;

/** A secret's rotation and version stages before a rotation began. */
export interface RotationSnapshot {
  rotation: Secret['rotation'];
  versions: { v: Secret['versions'][number]; stages: string[] }[];
}

const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
const FUNCTION_ARN =
  /^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:[a-zA-Z0-9-_]+(:[a-zA-Z0-9-_$]+)?$/;
const DAY_MS = 86_400_000;

function rules(input: unknown): RotationConfig['rules'] {
  if (input === undefined) return undefined;
  const r = input as NonNullable<RotationConfig['rules']>;
  if (r.AutomaticallyAfterDays !== undefined && r.ScheduleExpression !== undefined)
    throw secretErrors.invalidParameter(
      'You cannot specify both rotation frequency and schedule expression together.',
    );
  if (
    r.AutomaticallyAfterDays !== undefined &&
    (!Number.isInteger(r.AutomaticallyAfterDays) ||
      r.AutomaticallyAfterDays < 1 ||
      r.AutomaticallyAfterDays > 1000)
  )
    throw secretErrors.invalidParameter('The rotation interval must be between 1 and 1000 days.');
  if (
    r.ScheduleExpression !== undefined &&
    !/^(rate\(\d+ (hours?|days?)\)|cron\(.+\))$/.test(r.ScheduleExpression)
  )
    throw secretErrors.invalidParameter(`Invalid ScheduleExpression: ${r.ScheduleExpression}`);
  if (r.Duration !== undefined) {
    const hours = /^(\d+)h$/.exec(r.Duration);
    if (!hours || Number(hours[1]) < 1 || Number(hours[1]) > 24)
      throw secretErrors.invalidParameter('The rotation window Duration must be between 1h and 24h.');
  }
  return { ...r };
}

/** When the next rotation is due: the interval's days, or a rate's; cron schedules are not computed. */
function nextRotation(from: Date, r: RotationConfig['rules']): Date | undefined {
  const days = r?.AutomaticallyAfterDays;
  if (days !== undefined) return new Date(from.getTime() + days * DAY_MS);
  const rate = /^rate\((\d+) (hours?|days?)\)$/.exec(r?.ScheduleExpression ?? '');
  if (rate)
    return new Date(from.getTime() + Number(rate[1]) * (rate[2]!.startsWith('hour') ? 3_600_000 : DAY_MS));
  return undefined;
}

export class SecretRotation {
  readonly operations: Operations = {
    RotateSecret: (ctx, input: Input) => this.rotate(ctx, input),
    CancelRotateSecret: (ctx, input: Input) => this.cancel(ctx, input),
    UpdateSecretVersionStage: (ctx, input: Input) => this.updateStage(ctx, input),
  };

  constructor(
    private readonly secrets: SecretsManagement,
    private readonly lambda: () => LambdaSyncInvokeApi | undefined,
  ) {}

  private async rotate(ctx: CallContext, input: Input) {
    const { secret, lambdaArn, before } = this.configure(
      { account: ctx.account, region: ctx.region },
      requireString(input, 'SecretId'),
      {
        lambdaArn: typeof input.RotationLambdaARN === 'string' ? input.RotationLambdaARN : undefined,
        rules: input.RotationRules,
      },
    );
    if (input.RotateImmediately === false) return { ARN: secret.arn, Name: secret.name };
    const token = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : uuid();
    await this.runSteps(secret, lambdaArn, token, before);
    return { ARN: secret.arn, Name: secret.name, VersionId: token };
  }

  /**
   * Checks and records a secret's rotation configuration (RotateSecret's
   * validation) without rotating; answers what {@link runSteps} needs.
   */
  configure(
    scope: { account: string; region: string },
    secretId: string,
    change: { lambdaArn?: string; rules?: unknown },
  ): { secret: Secret; lambdaArn: string; before: RotationSnapshot } {
    const secret = this.secrets.primary(scope, secretId);
    const lambdaArn = change.lambdaArn ?? secret.rotation?.lambdaArn;
    if (!lambdaArn)
      throw secretErrors.invalidRequest('No Lambda rotation function ARN is associated with this secret.');
    if (!FUNCTION_ARN.test(lambdaArn))
      throw secretErrors.invalidParameter(`Invalid RotationLambdaARN: ${lambdaArn}`);
    const newRules = change.rules !== undefined ? rules(change.rules) : secret.rotation?.rules;
    if (secret.versions.some((v) => v.stages.includes('AWSPENDING') && !v.stages.includes('AWSCURRENT')))
      throw secretErrors.invalidRequest(
        "A previous rotation isn't complete. That rotation will be reattempted.",
      );
    if (!this.lambda())
      throw new AwsError('InternalServiceError', 'The emulator has no Lambda service to rotate with.', 500);
    const before = {
      rotation: secret.rotation,
      versions: secret.versions.map((v) => ({ v, stages: [...v.stages] })),
    };
    secret.rotation = { ...secret.rotation, enabled: true, lambdaArn, rules: newRules };
    secret.rotation.nextRotation = nextRotation(new Date(), newRules);
    return { secret, lambdaArn, before };
  }

  /**
   * Runs the four steps with one token. Refused before anything ran, the
   * secret goes back to `before` and the refusal is thrown.
   */
  async runSteps(secret: Secret, lambdaArn: string, token: string, before: RotationSnapshot): Promise<void> {
    const invoker = this.lambda()!;
    const pending = this.secrets.pendingVersion(secret, token);
    for (const step of STEPS) {
      const outcome = await invoker.invokeSync(
        lambdaArn,
        JSON.stringify({ Step: step, SecretId: secret.arn, ClientRequestToken: token }),
        {
          servicePrincipal: 'secretsmanager.amazonaws.com',
          sourceArn: secret.arn,
          sourceAccount: secret.account,
        },
      );
      if (!outcome.accepted) {
        if (step === 'createSecret') {
          // Refused before anything ran: the secret is as it was.
          secret.rotation = before.rotation;
          secret.versions = before.versions.map(({ v, stages }) => Object.assign(v, { stages }));
          throw new AwsError(
            'AccessDeniedException',
            `Secrets Manager cannot invoke the specified Lambda function. Ensure that the function policy grants access to the principal secretsmanager.amazonaws.com. (${outcome.reason})`,
            400,
          );
        }
        break;
      }
      // A failed step ends the rotation; AWSPENDING stays for the function's next attempt.
      if (outcome.functionError) break;
    }
    if (pending.stages.includes('AWSCURRENT') && secret.rotation) {
      secret.rotation.lastRotated = new Date();
      secret.rotation.nextRotation = nextRotation(secret.rotation.lastRotated, secret.rotation.rules);
    }
  }

  private cancel(ctx: CallContext, input: Input) {
    return this.cancelRotation(
      { account: ctx.account, region: ctx.region },
      requireString(input, 'SecretId'),
    );
  }

  /** CancelRotateSecret: rotation off, an unfinished AWSPENDING version kept. */
  cancelRotation(scope: { account: string; region: string }, secretId: string) {
    const secret = this.secrets.primary(scope, secretId);
    if (secret.rotation) secret.rotation = { ...secret.rotation, enabled: false, nextRotation: undefined };
    // A rotation cut short keeps its AWSPENDING version (the user guide: remove the label yourself).
    const pending = secret.versions.find(
      (v) => v.stages.includes('AWSPENDING') && !v.stages.includes('AWSCURRENT'),
    );
    return { ARN: secret.arn, Name: secret.name, VersionId: pending?.versionId };
  }

  private updateStage(ctx: CallContext, input: Input) {
    const secret = this.secrets.primary(
      { account: ctx.account, region: ctx.region },
      requireString(input, 'SecretId'),
    );
    const stage = requireString(input, 'VersionStage');
    const moveTo = typeof input.MoveToVersionId === 'string' ? input.MoveToVersionId : undefined;
    const removeFrom = typeof input.RemoveFromVersionId === 'string' ? input.RemoveFromVersionId : undefined;
    const find = (id: string) => {
      const v = secret.versions.find((x) => x.versionId === id);
      if (!v)
        throw new AwsError(
          'ResourceNotFoundException',
          `Secrets Manager can't find the specified secret version: ${id}`,
          400,
        );
      return v;
    };
    const target = moveTo ? find(moveTo) : undefined;
    const holder = secret.versions.find((v) => v.stages.includes(stage));
    if (removeFrom !== undefined && holder?.versionId !== removeFrom)
      throw secretErrors.invalidParameter(
        `The staging label ${stage} is not attached to version ${removeFrom}.`,
      );
    if (target && holder && holder !== target && removeFrom === undefined)
      throw secretErrors.invalidParameter(
        `The parameter RemoveFromVersionId can't be empty. Staging label ${stage} is currently attached to version ${holder.versionId}, so you must explicitly reference that version in RemoveFromVersionId.`,
      );
    if (!target && stage === 'AWSCURRENT')
      throw secretErrors.invalidParameter(
        'You can only move staging label AWSCURRENT to a different secret version. It can’t be completely removed.',
      );
    if (target?.awaitingValue && stage === 'AWSCURRENT')
      throw secretErrors.invalidRequest(`Version ${target.versionId} has no secret value yet.`);
    this.secrets.moveStage(secret, stage, target);
    secret.lastChanged = new Date();
    return { ARN: secret.arn, Name: secret.name };
  }
}

/** DescribeSecret's rotation members. */
export function rotationOf(secret: Secret): Record<string, unknown> {
  const r = secret.rotation;
  return {
    RotationEnabled: r?.enabled ?? false,
    RotationLambdaARN: r?.lambdaArn,
    RotationRules: r?.rules,
    LastRotatedDate: r?.lastRotated,
    NextRotationDate: r?.enabled ? r.nextRotation : undefined,
  };
}
