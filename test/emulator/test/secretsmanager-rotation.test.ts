/**
 * Secrets Manager rotation through the real SDK: RotateSecret invokes a
 * rotation Lambda (a Node.js handler in the emulator's Lambda, calling
 * Secrets Manager back through the SDK as AWS's rotation templates do) once
 * per step; the new value becomes AWSCURRENT and the old AWSPREVIOUS;
 * DescribeSecret reports the configuration; a failing step leaves AWSPENDING
 * and the next rotation is refused; CancelRotateSecret turns rotation off;
 * UpdateSecretVersionStage and the documented errors; an
 * AWS::SecretsManager::RotationSchedule made through Cloud Control turns
 * rotation on and rotates, and deleting it cancels rotation.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
} from '@aws-sdk/client-cloudcontrol';
import { AddPermissionCommand, CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  CancelRotateSecretCommand,
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RotateSecretCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { clientConfig, useEmulator } from './helpers';
import { zipOf } from './support/zip';

const ctx = useEmulator();
let lambda: LambdaClient;
let sm: SecretsManagerClient;
const ACCOUNT = '123456789012';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/rotation-role`;

/**
 * The single-user rotation AWS's templates implement, in Node.js: each step
 * checks the token is AWSPENDING, createSecret puts a new value, finishSecret
 * moves AWSCURRENT. `FAIL_STEP` makes one step throw.
 */
const ROTATION_HANDLER = `
const sm = require('@aws-sdk/client-secrets-manager');
const client = new sm.SecretsManagerClient({});
exports.handler = async ({ Step, SecretId, ClientRequestToken: token }) => {
  console.log('step', Step);
  if (process.env.FAIL_STEP === Step) throw new Error('cannot ' + Step);
  const meta = await client.send(new sm.DescribeSecretCommand({ SecretId }));
  if (!meta.RotationEnabled) throw new Error('rotation is not enabled');
  const stages = meta.VersionIdsToStages[token] || [];
  if (stages.includes('AWSCURRENT')) return;
  if (!stages.includes('AWSPENDING')) throw new Error('version ' + token + ' is not AWSPENDING');
  if (Step === 'createSecret') {
    const current = await client.send(new sm.GetSecretValueCommand({ SecretId, VersionStage: 'AWSCURRENT' }));
    try {
      await client.send(new sm.GetSecretValueCommand({ SecretId, VersionId: token, VersionStage: 'AWSPENDING' }));
    } catch (err) {
      if (err.name !== 'ResourceNotFoundException') throw err;
      const value = { ...JSON.parse(current.SecretString), password: 'rotated-' + token.slice(0, 8) };
      await client.send(new sm.PutSecretValueCommand({ SecretId, ClientRequestToken: token, SecretString: JSON.stringify(value), VersionStages: ['AWSPENDING'] }));
    }
  } else if (Step === 'finishSecret') {
    const currentId = Object.entries(meta.VersionIdsToStages).find(([, s]) => s.includes('AWSCURRENT'))[0];
    await client.send(new sm.UpdateSecretVersionStageCommand({ SecretId, VersionStage: 'AWSCURRENT', MoveToVersionId: token, RemoveFromVersionId: currentId }));
  }
};
`;

async function rotationFunction(
  name: string,
  env: Record<string, string> = {},
  allow = true,
): Promise<string> {
  const out = await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Role: ROLE,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Timeout: 60,
      Code: { ZipFile: await zipOf({ 'index.js': ROTATION_HANDLER }) },
      Environment: { Variables: env },
    }),
  );
  if (allow)
    await lambda.send(
      new AddPermissionCommand({
        FunctionName: name,
        StatementId: 'secretsmanager',
        Action: 'lambda:InvokeFunction',
        Principal: 'secretsmanager.amazonaws.com',
      }),
    );
  return out.FunctionArn!;
}

const token = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;

beforeAll(() => {
  lambda = new LambdaClient(clientConfig(ctx.emulator));
  sm = new SecretsManagerClient(clientConfig(ctx.emulator));
});
afterAll(() => {
  lambda.destroy();
  sm.destroy();
});

describe('rotation by a Lambda function', () => {
  it('runs the four steps: the new value is AWSCURRENT, the old AWSPREVIOUS, and DescribeSecret shows the schedule', async () => {
    const fn = await rotationFunction('rotate-ok');
    const created = await sm.send(
      new CreateSecretCommand({
        Name: 'db/app',
        SecretString: JSON.stringify({ user: 'app', password: 'first' }),
      }),
    );
    const rotated = await sm.send(
      new RotateSecretCommand({
        SecretId: 'db/app',
        RotationLambdaARN: fn,
        RotationRules: { AutomaticallyAfterDays: 30 },
        ClientRequestToken: token(1),
      }),
    );
    expect(rotated).toMatchObject({ ARN: created.ARN, Name: 'db/app', VersionId: token(1) });

    const current = await sm.send(new GetSecretValueCommand({ SecretId: 'db/app' }));
    expect(current.VersionId).toBe(token(1));
    expect(JSON.parse(current.SecretString!)).toEqual({ user: 'app', password: 'rotated-00000001' });
    const previous = await sm.send(
      new GetSecretValueCommand({ SecretId: 'db/app', VersionStage: 'AWSPREVIOUS' }),
    );
    expect(previous.VersionId).toBe(created.VersionId);

    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'db/app' }));
    expect(described).toMatchObject({
      RotationEnabled: true,
      RotationLambdaARN: fn,
      RotationRules: { AutomaticallyAfterDays: 30 },
    });
    expect(described.LastRotatedDate).toBeInstanceOf(Date);
    const days = (described.NextRotationDate!.getTime() - described.LastRotatedDate!.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(described.VersionIdsToStages![token(1)]).toEqual(expect.arrayContaining(['AWSCURRENT']));
    expect(described.VersionIdsToStages![created.VersionId!]).toEqual(['AWSPREVIOUS']);

    // A second rotation reuses the configured function.
    await sm.send(new RotateSecretCommand({ SecretId: 'db/app', ClientRequestToken: token(2) }));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'db/app' }))).VersionId).toBe(token(2));
    expect(
      (await sm.send(new GetSecretValueCommand({ SecretId: 'db/app', VersionStage: 'AWSPREVIOUS' })))
        .VersionId,
    ).toBe(token(1));
  });

  it('stops at a failing step with AWSPENDING left, refuses the next rotation, and CancelRotateSecret turns rotation off', async () => {
    const fn = await rotationFunction('rotate-fails', { FAIL_STEP: 'testSecret' });
    const created = await sm.send(
      new CreateSecretCommand({ Name: 'db/flaky', SecretString: '{"password":"first"}' }),
    );
    await sm.send(
      new RotateSecretCommand({ SecretId: 'db/flaky', RotationLambdaARN: fn, ClientRequestToken: token(3) }),
    );
    // createSecret ran (the pending value exists), finishSecret did not.
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'db/flaky' }))).VersionId).toBe(
      created.VersionId,
    );
    const pending = await sm.send(
      new GetSecretValueCommand({ SecretId: 'db/flaky', VersionStage: 'AWSPENDING' }),
    );
    expect(pending.VersionId).toBe(token(3));
    await expect(
      sm.send(new RotateSecretCommand({ SecretId: 'db/flaky', ClientRequestToken: token(4) })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining("A previous rotation isn't complete"),
    });

    const cancelled = await sm.send(new CancelRotateSecretCommand({ SecretId: 'db/flaky' }));
    expect(cancelled).toMatchObject({ Name: 'db/flaky', VersionId: token(3) });
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'db/flaky' }));
    expect(described.RotationEnabled).toBe(false);
    expect(described.NextRotationDate).toBeUndefined();
    // Clearing the label by hand lets a rotation start again.
    await sm.send(
      new UpdateSecretVersionStageCommand({
        SecretId: 'db/flaky',
        VersionStage: 'AWSPENDING',
        RemoveFromVersionId: token(3),
      }),
    );
    await expect(
      sm.send(new GetSecretValueCommand({ SecretId: 'db/flaky', VersionStage: 'AWSPENDING' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('refuses a function whose policy does not let Secrets Manager invoke it, and leaves the secret as it was', async () => {
    const fn = await rotationFunction('rotate-private', {}, false);
    await sm.send(new CreateSecretCommand({ Name: 'db/private', SecretString: 'x' }));
    await expect(
      sm.send(new RotateSecretCommand({ SecretId: 'db/private', RotationLambdaARN: fn })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('secretsmanager.amazonaws.com'),
    });
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'db/private' }));
    expect(described.RotationEnabled).toBe(false);
    expect(Object.values(described.VersionIdsToStages!)).toEqual([['AWSCURRENT']]);
  });

  it('records the schedule without rotating when RotateImmediately is false', async () => {
    const fn = await rotationFunction('rotate-later');
    await sm.send(new CreateSecretCommand({ Name: 'db/later', SecretString: 'x' }));
    const out = await sm.send(
      new RotateSecretCommand({
        SecretId: 'db/later',
        RotationLambdaARN: fn,
        RotateImmediately: false,
        RotationRules: { ScheduleExpression: 'rate(10 days)', Duration: '2h' },
      }),
    );
    expect(out.VersionId).toBeUndefined();
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'db/later' }));
    expect(described).toMatchObject({
      RotationEnabled: true,
      RotationRules: { ScheduleExpression: 'rate(10 days)', Duration: '2h' },
    });
    expect(described.LastRotatedDate).toBeUndefined();
    expect(Object.keys(described.VersionIdsToStages!)).toHaveLength(1);
  });

  it('answers the documented errors', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'db/errors', SecretString: 'x' }));
    await expect(sm.send(new RotateSecretCommand({ SecretId: 'db/errors' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: 'No Lambda rotation function ARN is associated with this secret.',
    });
    await expect(
      sm.send(new RotateSecretCommand({ SecretId: 'db/errors', RotationLambdaARN: 'not-an-arn' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const fn = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:missing`;
    await expect(
      sm.send(
        new RotateSecretCommand({
          SecretId: 'db/errors',
          RotationLambdaARN: fn,
          RotationRules: { AutomaticallyAfterDays: 7, ScheduleExpression: 'rate(7 days)' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(
        new RotateSecretCommand({
          SecretId: 'db/errors',
          RotationLambdaARN: fn,
          RotationRules: { AutomaticallyAfterDays: 0 },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(new RotateSecretCommand({ SecretId: 'db/errors', RotationLambdaARN: fn })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    await expect(
      sm.send(new RotateSecretCommand({ SecretId: 'db/absent', RotationLambdaARN: fn })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

    const second = await sm.send(
      new PutSecretValueCommand({ SecretId: 'db/errors', SecretString: 'y', VersionStages: ['STAGED'] }),
    );
    const current = (await sm.send(new GetSecretValueCommand({ SecretId: 'db/errors' }))).VersionId!;
    await expect(
      sm.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 'db/errors',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: second.VersionId,
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('RemoveFromVersionId'),
    });
    await expect(
      sm.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 'db/errors',
          VersionStage: 'AWSCURRENT',
          RemoveFromVersionId: current,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 'db/errors',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: '99999999-0000-4000-8000-000000000000',
          RemoveFromVersionId: current,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await sm.send(
      new UpdateSecretVersionStageCommand({
        SecretId: 'db/errors',
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: second.VersionId,
        RemoveFromVersionId: current,
      }),
    );
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'db/errors' }));
    expect(described.VersionIdsToStages).toEqual({
      [second.VersionId!]: expect.arrayContaining(['STAGED', 'AWSCURRENT']),
      [current]: ['AWSPREVIOUS'],
    });
  });
});

describe('AWS::SecretsManager::RotationSchedule through Cloud Control', () => {
  let cc: CloudControlClient;
  beforeAll(() => {
    cc = new CloudControlClient(clientConfig(ctx.emulator));
  });
  afterAll(() => cc.destroy());
  beforeEach(() => ctx.emulator.control.reset());

  async function settle(token: string) {
    const { ProgressEvent: event } = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: token }),
    );
    return event!;
  }

  /** Waits (bounded) for the rotation the schedule started after its request answered. */
  async function rotatedOnce(secretId: string) {
    for (let i = 0; i < 600; i++) {
      const d = await sm.send(new DescribeSecretCommand({ SecretId: secretId }));
      if (d.LastRotatedDate) return d;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${secretId} was never rotated`);
  }

  it('turns the secret’s rotation on and rotates it at once; the schedule reads back, lists, and deleting it cancels rotation', async () => {
    const fn = await rotationFunction('rotate-cc');
    const secret = await sm.send(
      new CreateSecretCommand({ Name: 'cc/db', SecretString: JSON.stringify({ user: 'u', password: 'p0' }) }),
    );
    const out = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SecretsManager::RotationSchedule',
        DesiredState: JSON.stringify({
          SecretId: secret.ARN,
          RotationLambdaARN: fn,
          RotationRules: { ScheduleExpression: 'rate(30 days)' },
        }),
      }),
    );
    const event = await settle(out.ProgressEvent!.RequestToken!);
    expect(event).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: secret.ARN });

    const described = await rotatedOnce('cc/db');
    expect(described).toMatchObject({
      RotationEnabled: true,
      RotationLambdaARN: fn,
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
    });
    const current = await sm.send(new GetSecretValueCommand({ SecretId: 'cc/db' }));
    expect(JSON.parse(current.SecretString!).password).toMatch(/^rotated-/);

    const read = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::SecretsManager::RotationSchedule', Identifier: secret.ARN }),
    );
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      Id: secret.ARN,
      SecretId: secret.ARN,
      RotationLambdaARN: fn,
    });
    const inventory = (await ctx.emulator.control.inventory()).filter(
      (r) => r.type === 'AWS::SecretsManager::RotationSchedule',
    );
    expect(inventory.map((r) => r.identifier)).toEqual([secret.ARN]);

    // A second schedule for the same secret already exists.
    const again = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SecretsManager::RotationSchedule',
        DesiredState: JSON.stringify({ SecretId: 'cc/db', RotationLambdaARN: fn }),
      }),
    );
    expect(await settle(again.ProgressEvent!.RequestToken!)).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'AlreadyExists',
    });

    const deleted = await cc.send(
      new DeleteResourceCommand({
        TypeName: 'AWS::SecretsManager::RotationSchedule',
        Identifier: secret.ARN,
      }),
    );
    expect((await settle(deleted.ProgressEvent!.RequestToken!)).OperationStatus).toBe('SUCCESS');
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'cc/db' }))).RotationEnabled).toBe(false);
    const listed = await cc.send(
      new ListResourcesCommand({ TypeName: 'AWS::SecretsManager::RotationSchedule' }),
    );
    expect(listed.ResourceDescriptions).toEqual([]);
  });

  it('RotateImmediatelyOnUpdate false records the schedule without rotating; a native RotateSecret is a schedule too', async () => {
    const fn = await rotationFunction('rotate-later');
    const secret = await sm.send(
      new CreateSecretCommand({ Name: 'cc/later', SecretString: '{"password":"x"}' }),
    );
    const out = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SecretsManager::RotationSchedule',
        DesiredState: JSON.stringify({
          SecretId: 'cc/later',
          RotationLambdaARN: fn,
          RotationRules: { AutomaticallyAfterDays: 7 },
          RotateImmediatelyOnUpdate: false,
        }),
      }),
    );
    expect((await settle(out.ProgressEvent!.RequestToken!)).OperationStatus).toBe('SUCCESS');
    const d = await sm.send(new DescribeSecretCommand({ SecretId: 'cc/later' }));
    expect(d).toMatchObject({ RotationEnabled: true, RotationRules: { AutomaticallyAfterDays: 7 } });
    expect(d.LastRotatedDate).toBeUndefined();
    expect(Object.keys(d.VersionIdsToStages!)).toHaveLength(1);

    const native = await sm.send(
      new CreateSecretCommand({ Name: 'cc/native', SecretString: '{"password":"y"}' }),
    );
    await sm.send(
      new RotateSecretCommand({ SecretId: 'cc/native', RotationLambdaARN: fn, RotateImmediately: false }),
    );
    const read = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::SecretsManager::RotationSchedule', Identifier: native.ARN }),
    );
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({ RotationLambdaARN: fn });
    expect(secret.ARN).toBeDefined();
  });

  it('fails as the handler does: unknown secret, bad rules, hosted rotation', async () => {
    const fn = await rotationFunction('rotate-bad');
    await sm.send(new CreateSecretCommand({ Name: 'cc/bad', SecretString: 'v' }));
    const attempt = async (desired: Record<string, unknown>) => {
      const out = await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SecretsManager::RotationSchedule',
          DesiredState: JSON.stringify(desired),
        }),
      );
      return settle(out.ProgressEvent!.RequestToken!);
    };
    expect(await attempt({ SecretId: 'cc/none', RotationLambdaARN: fn })).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'GeneralServiceException',
    });
    expect(
      await attempt({
        SecretId: 'cc/bad',
        RotationLambdaARN: fn,
        RotationRules: { AutomaticallyAfterDays: 0 },
      }),
    ).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'InvalidRequest' });
    expect(
      await attempt({ SecretId: 'cc/bad', HostedRotationLambda: { RotationType: 'MySQLSingleUser' } }),
    ).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'InvalidRequest' });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'cc/bad' }))).RotationEnabled).toBe(false);
  });
});
