/**
 * Lambda's API through the real SDK v3 client: functions from zip uploads and
 * S3 objects, configuration rules, states and the SDK waiters, updates,
 * versions, aliases, permissions, URLs, event source mappings, layers, invoke
 * configs, concurrency, tags, pagination, throttling, IAM role propagation,
 * and the shared view with Cloud Control. Running code is in
 * lambda-invoke.test.ts.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AddPermissionCommand,
  CreateAliasCommand,
  CreateEventSourceMappingCommand,
  CreateFunctionCommand,
  CreateFunctionUrlConfigCommand,
  DeleteAliasCommand,
  DeleteFunctionCodeSigningConfigCommand,
  DeleteProvisionedConcurrencyConfigCommand,
  GetFunctionCodeSigningConfigCommand,
  GetFunctionRecursionConfigCommand,
  GetProvisionedConcurrencyConfigCommand,
  GetRuntimeManagementConfigCommand,
  PutFunctionCodeSigningConfigCommand,
  PutFunctionRecursionConfigCommand,
  PutFunctionScalingConfigCommand,
  PutProvisionedConcurrencyConfigCommand,
  PutRuntimeManagementConfigCommand,
  DeleteEventSourceMappingCommand,
  DeleteFunctionCommand,
  DeleteFunctionConcurrencyCommand,
  DeleteFunctionEventInvokeConfigCommand,
  DeleteFunctionUrlConfigCommand,
  DeleteLayerVersionCommand,
  GetAliasCommand,
  GetEventSourceMappingCommand,
  GetFunctionCommand,
  GetFunctionConcurrencyCommand,
  GetFunctionConfigurationCommand,
  GetFunctionEventInvokeConfigCommand,
  GetFunctionUrlConfigCommand,
  GetLayerVersionByArnCommand,
  GetLayerVersionCommand,
  GetPolicyCommand,
  LambdaClient,
  ListAliasesCommand,
  ListEventSourceMappingsCommand,
  ListFunctionEventInvokeConfigsCommand,
  ListFunctionsCommand,
  ListFunctionUrlConfigsCommand,
  ListLayerVersionsCommand,
  ListTagsCommand,
  ListVersionsByFunctionCommand,
  paginateListFunctions,
  PublishLayerVersionCommand,
  PublishVersionCommand,
  PutFunctionConcurrencyCommand,
  PutFunctionEventInvokeConfigCommand,
  RemovePermissionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAliasCommand,
  UpdateEventSourceMappingCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  UpdateFunctionEventInvokeConfigCommand,
  UpdateFunctionUrlConfigCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
  type CreateFunctionCommandInput,
} from '@aws-sdk/client-lambda';
import {
  CreateBucketCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { clientConfig, useEmulator } from './helpers';
import { zipOf } from './support/zip';

const ctx = useEmulator();
const config = () => ({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
let lambda: LambdaClient;
let s3: S3Client;
let cc: CloudControlClient;
let code: Buffer;
let otherCode: Buffer;

const ACCOUNT = '123456789012';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/fn-role`;
const ARN = (name: string, qualifier?: string) =>
  `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}${qualifier ? `:${qualifier}` : ''}`;

beforeAll(async () => {
  lambda = new LambdaClient(config());
  s3 = new S3Client(config());
  cc = new CloudControlClient(config());
  code = await zipOf({ 'index.js': 'exports.handler = async () => "one";' });
  otherCode = await zipOf({ 'index.js': 'exports.handler = async () => "two";' });
});
afterAll(() => {
  lambda.destroy();
  s3.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function failure(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

function createFunction(name: string, extra: Partial<CreateFunctionCommandInput> = {}) {
  return lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Role: ROLE,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Code: { ZipFile: code },
      ...extra,
    }),
  );
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('base64');

describe('functions', () => {
  test('CreateFunction from a zip upload: defaults, Pending at create, Active on read', async () => {
    const created = await createFunction('orders', {
      Environment: { Variables: { STAGE: 'test' } },
      Tags: { team: 'core' },
    });
    expect(created).toMatchObject({
      FunctionName: 'orders',
      FunctionArn: ARN('orders'),
      Runtime: 'nodejs20.x',
      Role: ROLE,
      Handler: 'index.handler',
      CodeSize: code.length,
      CodeSha256: sha256(code),
      Description: '',
      Timeout: 3,
      MemorySize: 128,
      Version: '$LATEST',
      PackageType: 'Zip',
      Architectures: ['x86_64'],
      EphemeralStorage: { Size: 512 },
      TracingConfig: { Mode: 'PassThrough' },
      LoggingConfig: { LogFormat: 'Text', LogGroup: '/aws/lambda/orders' },
      Environment: { Variables: { STAGE: 'test' } },
      State: 'Pending',
      StateReasonCode: 'Creating',
    });
    expect(created.LastModified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
    expect(created.RevisionId).toMatch(/^[0-9a-f-]{36}$/);
    const got = await lambda.send(new GetFunctionCommand({ FunctionName: 'orders' }));
    expect(got.Configuration).toMatchObject({ State: 'Active', LastUpdateStatus: 'Successful' });
    expect(got.Tags).toEqual({ team: 'core' });
    expect(got.Code?.RepositoryType).toBe('S3');
    const download = await fetch(got.Code!.Location!);
    expect(Buffer.from(await download.arrayBuffer()).equals(code)).toBe(true);
    for (const name of ['orders', ARN('orders'), `${ACCOUNT}:function:orders`])
      expect(
        (await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }))).FunctionName,
      ).toBe('orders');
  });

  test('CreateFunction from an S3 object (and an object version)', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'code-bucket' }));
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'code-bucket',
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
    const first = await s3.send(new PutObjectCommand({ Bucket: 'code-bucket', Key: 'fn.zip', Body: code }));
    await s3.send(new PutObjectCommand({ Bucket: 'code-bucket', Key: 'fn.zip', Body: otherCode }));
    const latest = await createFunction('from-s3', { Code: { S3Bucket: 'code-bucket', S3Key: 'fn.zip' } });
    expect(latest.CodeSha256).toBe(sha256(otherCode));
    const pinned = await createFunction('pinned', {
      Code: { S3Bucket: 'code-bucket', S3Key: 'fn.zip', S3ObjectVersion: first.VersionId },
    });
    expect(pinned.CodeSha256).toBe(sha256(code));
    const missing = (Code: CreateFunctionCommandInput['Code']) => failure(createFunction('bad', { Code }));
    expect(await missing({ S3Bucket: 'code-bucket', S3Key: 'nope.zip' })).toMatchObject({
      name: 'InvalidParameterValueException',
      message:
        'Error occurred while GetObject. S3 Error Code: NoSuchKey. S3 Error Message: The specified key does not exist.',
    });
    expect(await missing({ S3Bucket: 'no-such-bucket', S3Key: 'fn.zip' })).toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('NoSuchBucket'),
    });
    expect(await missing({ ZipFile: Buffer.from('not a zip') })).toMatchObject({
      name: 'InvalidParameterValueException',
      message: 'Could not unzip uploaded file. Please check your file, then try to upload again.',
    });
  });

  test('validation and conflicts answer with Lambda error codes and statuses', async () => {
    await createFunction('dup');
    expect(await failure(createFunction('dup'))).toMatchObject({
      name: 'ResourceConflictException',
      message: 'Function already exist: dup',
      $metadata: { httpStatusCode: 409 },
    });
    expect(await failure(createFunction('t', { Timeout: 0 }))).toMatchObject({ name: 'ValidationException' });
    expect(await failure(createFunction('t', { MemorySize: 64 }))).toMatchObject({
      name: 'ValidationException',
    });
    expect(await failure(createFunction('t', { Runtime: 'nodejs12.x' }))).toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('nodejs12.x is no longer supported'),
    });
    expect(
      await failure(createFunction('t', { Environment: { Variables: { AWS_REGION: 'x' } } })),
    ).toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('Reserved keys used in this request: AWS_REGION'),
    });
    expect(await failure(createFunction('t', { Role: 'not-a-role' }))).toMatchObject({
      name: 'ValidationException',
    });
    expect(await failure(createFunction('t', { Handler: undefined }))).toMatchObject({
      name: 'InvalidParameterValueException',
      message: 'Runtime and Handler are mandatory parameters for functions created with deployment packages.',
    });
    expect(
      await failure(createFunction('t', { Layers: [`arn:aws:lambda:us-east-1:${ACCOUNT}:layer:nope:1`] })),
    ).toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('does not exist'),
    });
    expect(await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'nope' })))).toMatchObject({
      name: 'ResourceNotFoundException',
      message: `Function not found: ${ARN('nope')}`,
      $metadata: { httpStatusCode: 404 },
    });
    expect(
      await failure(
        lambda.send(
          new GetFunctionCommand({ FunctionName: 'arn:aws:lambda:eu-west-1:123456789012:function:dup' }),
        ),
      ),
    ).toMatchObject({
      name: 'ResourceNotFoundException',
      message: expect.stringContaining('not reachable in this region'),
    });
  });

  test('states: Pending and InProgress while the transition lasts, conflicts meanwhile, the SDK waiters finish', async () => {
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 600_000 });
    await createFunction('slow');
    expect((await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'slow' }))).State).toBe(
      'Pending',
    );
    expect(
      await failure(
        lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: 'slow', Timeout: 10 })),
      ),
    ).toMatchObject({
      name: 'ResourceConflictException',
      message: expect.stringContaining('The function is currently in the following state: Pending'),
    });
    // Settling is the emulator's setting: back to 0, the waiters see Active and Successful.
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 0 });
    await waitUntilFunctionActiveV2({ client: lambda, maxWaitTime: 60 }, { FunctionName: 'slow' });
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 600_000 });
    const updating = await lambda.send(
      new UpdateFunctionConfigurationCommand({ FunctionName: 'slow', Timeout: 10 }),
    );
    expect(updating).toMatchObject({ State: 'Active', LastUpdateStatus: 'InProgress' });
    expect(
      await failure(lambda.send(new UpdateFunctionCodeCommand({ FunctionName: 'slow', ZipFile: otherCode }))),
    ).toMatchObject({
      name: 'ResourceConflictException',
      message: `The operation cannot be performed at this time. An update is in progress for resource: ${ARN('slow')}`,
    });
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 0 });
    const done = await waitUntilFunctionUpdatedV2(
      { client: lambda, maxWaitTime: 60 },
      { FunctionName: 'slow' },
    );
    expect(done.state).toBe('SUCCESS');
    expect((await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'slow' }))).Timeout).toBe(
      10,
    );
  });

  test('UpdateFunctionCode and UpdateFunctionConfiguration: merge semantics, clears, revision checks', async () => {
    const created = await createFunction('upd', {
      Environment: { Variables: { AB: '1' } },
      Description: 'first',
      DeadLetterConfig: { TargetArn: `arn:aws:sqs:us-east-1:${ACCOUNT}:dlq` },
    });
    const coded = await lambda.send(
      new UpdateFunctionCodeCommand({ FunctionName: 'upd', ZipFile: otherCode }),
    );
    expect(coded).toMatchObject({ CodeSha256: sha256(otherCode), LastUpdateStatus: 'InProgress' });
    expect(coded.RevisionId).not.toBe(created.RevisionId);
    expect(
      await failure(
        lambda.send(
          new UpdateFunctionConfigurationCommand({
            FunctionName: 'upd',
            Timeout: 5,
            RevisionId: created.RevisionId,
          }),
        ),
      ),
    ).toMatchObject({ name: 'PreconditionFailedException', $metadata: { httpStatusCode: 412 } });
    await lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: 'upd',
        MemorySize: 256,
        RevisionId: coded.RevisionId,
      }),
    );
    const after = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'upd' }));
    expect(after).toMatchObject({
      MemorySize: 256,
      Description: 'first',
      Environment: { Variables: { AB: '1' } },
    });
    expect(
      await failure(createFunction('short-key', { Environment: { Variables: { A: '1' } } })),
    ).toMatchObject({
      name: 'ValidationException',
    });
    await lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: 'upd',
        Environment: { Variables: {} },
        DeadLetterConfig: { TargetArn: '' },
        Description: '',
      }),
    );
    const cleared = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'upd' }));
    expect(cleared.Environment).toBeUndefined();
    expect(cleared.DeadLetterConfig).toBeUndefined();
    expect(cleared.Description).toBe('');
  });

  test('ListFunctions pages with Marker and MaxItems; DeleteFunction removes it', async () => {
    for (const name of ['e', 'a', 'd', 'c', 'b']) await createFunction(name);
    const first = await lambda.send(new ListFunctionsCommand({ MaxItems: 2 }));
    expect(first.Functions!.map((f) => f.FunctionName)).toEqual(['a', 'b']);
    expect(first.NextMarker).toBeDefined();
    const names: string[] = [];
    for await (const page of paginateListFunctions({ client: lambda, pageSize: 2 }, {}))
      names.push(...page.Functions!.map((f) => f.FunctionName!));
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await failure(lambda.send(new ListFunctionsCommand({ MaxItems: 0 })))).toMatchObject({
      name: 'ValidationException',
    });
    expect((await lambda.send(new DeleteFunctionCommand({ FunctionName: 'c' }))).StatusCode).toBe(204);
    expect((await lambda.send(new ListFunctionsCommand({}))).Functions!.map((f) => f.FunctionName)).toEqual([
      'a',
      'b',
      'd',
      'e',
    ]);
    expect(await failure(lambda.send(new DeleteFunctionCommand({ FunctionName: 'c' })))).toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('tags on the unqualified function ARN', async () => {
    await createFunction('tagged', { Tags: { a: '1' } });
    await lambda.send(new TagResourceCommand({ Resource: ARN('tagged'), Tags: { b: '2', a: 'x' } }));
    await lambda.send(new UntagResourceCommand({ Resource: ARN('tagged'), TagKeys: ['b'] }));
    expect((await lambda.send(new ListTagsCommand({ Resource: ARN('tagged') }))).Tags).toEqual({ a: 'x' });
    expect(
      await failure(lambda.send(new TagResourceCommand({ Resource: ARN('tagged', '1'), Tags: { c: '3' } }))),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    expect(
      await failure(lambda.send(new ListTagsCommand({ Resource: ARN('untagged-missing') }))),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('throttling through a fault is TooManyRequestsException (429)', async () => {
    await createFunction('throttled');
    await ctx.emulator.control.addFault({ service: 'lambda', operation: 'GetFunction', error: 429 });
    expect(await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'throttled' })))).toMatchObject({
      name: 'TooManyRequestsException',
      $metadata: { httpStatusCode: 429 },
    });
  });

  test('reserved concurrency: put, get, delete, and the account minimum', async () => {
    await createFunction('conc');
    expect(
      (
        await lambda.send(
          new PutFunctionConcurrencyCommand({ FunctionName: 'conc', ReservedConcurrentExecutions: 5 }),
        )
      ).ReservedConcurrentExecutions,
    ).toBe(5);
    expect((await lambda.send(new GetFunctionCommand({ FunctionName: 'conc' }))).Concurrency).toEqual({
      ReservedConcurrentExecutions: 5,
    });
    expect(
      await failure(
        lambda.send(
          new PutFunctionConcurrencyCommand({ FunctionName: 'conc', ReservedConcurrentExecutions: 950 }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException', message: expect.stringContaining('[100]') });
    await lambda.send(new DeleteFunctionConcurrencyCommand({ FunctionName: 'conc' }));
    expect(await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: 'conc' }))).not.toHaveProperty(
      'ReservedConcurrentExecutions',
    );
  });

  test('IAM role propagation: a new role cannot be assumed until it has propagated (switch, off by default)', async () => {
    await createFunction('fine-by-default');
    await ctx.emulator.control.setConsistency('lambda.role-propagation', { enabled: true, delayMs: 600_000 });
    const role = `arn:aws:iam::${ACCOUNT}:role/just-created`;
    expect(await failure(createFunction('early', { Role: role }))).toMatchObject({
      name: 'InvalidParameterValueException',
      message: 'The role defined for the function cannot be assumed by Lambda.',
    });
    expect(
      await failure(
        lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: 'fine-by-default', Role: role })),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    await ctx.emulator.control.setConsistency('lambda.role-propagation', { delayMs: 0 });
    await createFunction('later', { Role: role });
  });
});

describe('function settings with operations of their own', () => {
  test('recursion, runtime management, code signing, provisioned concurrency, scaling', async () => {
    await createFunction('settings');
    expect(
      (await lambda.send(new GetFunctionRecursionConfigCommand({ FunctionName: 'settings' }))).RecursiveLoop,
    ).toBe('Terminate');
    await lambda.send(
      new PutFunctionRecursionConfigCommand({ FunctionName: 'settings', RecursiveLoop: 'Allow' }),
    );
    expect(
      (await lambda.send(new GetFunctionRecursionConfigCommand({ FunctionName: 'settings' }))).RecursiveLoop,
    ).toBe('Allow');
    expect(
      await lambda.send(new GetRuntimeManagementConfigCommand({ FunctionName: 'settings' })),
    ).toMatchObject({
      UpdateRuntimeOn: 'Auto',
      FunctionArn: ARN('settings', '$LATEST'),
    });
    expect(
      await failure(
        lambda.send(
          new PutRuntimeManagementConfigCommand({ FunctionName: 'settings', UpdateRuntimeOn: 'Manual' }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    await lambda.send(
      new PutRuntimeManagementConfigCommand({ FunctionName: 'settings', UpdateRuntimeOn: 'FunctionUpdate' }),
    );
    expect(
      (await lambda.send(new GetRuntimeManagementConfigCommand({ FunctionName: 'settings' })))
        .UpdateRuntimeOn,
    ).toBe('FunctionUpdate');
    const csc = `arn:aws:lambda:us-east-1:${ACCOUNT}:code-signing-config:csc-0123456789abcdefg`;
    await lambda.send(
      new PutFunctionCodeSigningConfigCommand({ FunctionName: 'settings', CodeSigningConfigArn: csc }),
    );
    expect(
      (await lambda.send(new GetFunctionCodeSigningConfigCommand({ FunctionName: 'settings' })))
        .CodeSigningConfigArn,
    ).toBe(csc);
    await lambda.send(new DeleteFunctionCodeSigningConfigCommand({ FunctionName: 'settings' }));
    expect(
      (await lambda.send(new GetFunctionCodeSigningConfigCommand({ FunctionName: 'settings' })))
        .CodeSigningConfigArn,
    ).toBe('');
    expect(
      await failure(
        lambda.send(
          new PutProvisionedConcurrencyConfigCommand({
            FunctionName: 'settings',
            Qualifier: '$LATEST',
            ProvisionedConcurrentExecutions: 1,
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    await lambda.send(new PublishVersionCommand({ FunctionName: 'settings' }));
    expect(
      (
        await lambda.send(
          new PutProvisionedConcurrencyConfigCommand({
            FunctionName: 'settings',
            Qualifier: '1',
            ProvisionedConcurrentExecutions: 2,
          }),
        )
      ).Status,
    ).toBe('IN_PROGRESS');
    expect(
      await lambda.send(
        new GetProvisionedConcurrencyConfigCommand({ FunctionName: 'settings', Qualifier: '1' }),
      ),
    ).toMatchObject({
      Status: 'READY',
      RequestedProvisionedConcurrentExecutions: 2,
    });
    await lambda.send(
      new DeleteProvisionedConcurrencyConfigCommand({ FunctionName: 'settings', Qualifier: '1' }),
    );
    expect(
      await failure(
        lambda.send(new GetProvisionedConcurrencyConfigCommand({ FunctionName: 'settings', Qualifier: '1' })),
      ),
    ).toMatchObject({
      name: 'ProvisionedConcurrencyConfigNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    expect(
      await failure(
        lambda.send(
          new PutFunctionScalingConfigCommand({
            FunctionName: 'settings',
            Qualifier: '$LATEST',
            FunctionScalingConfig: { MaxExecutionEnvironments: 2 },
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
  });
});

describe('versions and aliases', () => {
  test('PublishVersion publishes only when $LATEST changed; ListVersionsByFunction; DeleteFunction of a version', async () => {
    await createFunction('ver');
    const v1 = await lambda.send(new PublishVersionCommand({ FunctionName: 'ver', Description: 'first' }));
    expect(v1).toMatchObject({ Version: '1', FunctionArn: ARN('ver', '1'), Description: 'first' });
    expect((await lambda.send(new PublishVersionCommand({ FunctionName: 'ver' }))).Version).toBe('1');
    expect(
      await failure(lambda.send(new PublishVersionCommand({ FunctionName: 'ver', CodeSha256: 'wrong' }))),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    await lambda.send(new UpdateFunctionCodeCommand({ FunctionName: 'ver', ZipFile: otherCode }));
    const v2 = await lambda.send(
      new PublishVersionCommand({ FunctionName: 'ver', CodeSha256: sha256(otherCode) }),
    );
    expect(v2.Version).toBe('2');
    const versions = await lambda.send(new ListVersionsByFunctionCommand({ FunctionName: 'ver' }));
    expect(versions.Versions!.map((v) => v.Version)).toEqual(['$LATEST', '1', '2']);
    expect(
      (await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'ver', Qualifier: '1' })))
        .CodeSha256,
    ).toBe(sha256(code));
    await lambda.send(new CreateAliasCommand({ FunctionName: 'ver', Name: 'live', FunctionVersion: '1' }));
    expect(
      await failure(lambda.send(new DeleteFunctionCommand({ FunctionName: 'ver', Qualifier: '1' }))),
    ).toMatchObject({ name: 'ResourceConflictException', message: expect.stringContaining('[live]') });
    await lambda.send(new DeleteFunctionCommand({ FunctionName: 'ver', Qualifier: '2' }));
    expect(
      await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'ver', Qualifier: '2' }))),
    ).toMatchObject({ name: 'ResourceNotFoundException', message: `Function not found: ${ARN('ver', '2')}` });
    await lambda.send(
      new UpdateFunctionCodeCommand({ FunctionName: 'ver', ZipFile: await zipOf({ 'index.js': '3' }) }),
    );
    // Numbers are never reused.
    expect((await lambda.send(new PublishVersionCommand({ FunctionName: 'ver' }))).Version).toBe('3');
  });

  test('aliases: create, get, update with weights, list, delete', async () => {
    await createFunction('al');
    await lambda.send(new PublishVersionCommand({ FunctionName: 'al' }));
    await lambda.send(new UpdateFunctionCodeCommand({ FunctionName: 'al', ZipFile: otherCode }));
    await lambda.send(new PublishVersionCommand({ FunctionName: 'al' }));
    const alias = await lambda.send(
      new CreateAliasCommand({ FunctionName: 'al', Name: 'prod', FunctionVersion: '1', Description: 'd' }),
    );
    expect(alias).toMatchObject({
      AliasArn: ARN('al', 'prod'),
      Name: 'prod',
      FunctionVersion: '1',
      Description: 'd',
    });
    expect(
      await failure(
        lambda.send(new CreateAliasCommand({ FunctionName: 'al', Name: 'prod', FunctionVersion: '1' })),
      ),
    ).toMatchObject({
      name: 'ResourceConflictException',
      message: `Alias already exists: ${ARN('al', 'prod')}`,
    });
    expect(
      await failure(
        lambda.send(new CreateAliasCommand({ FunctionName: 'al', Name: 'x', FunctionVersion: '9' })),
      ),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
    const updated = await lambda.send(
      new UpdateAliasCommand({
        FunctionName: 'al',
        Name: 'prod',
        FunctionVersion: '2',
        RoutingConfig: { AdditionalVersionWeights: { '1': 0.25 } },
      }),
    );
    expect(updated).toMatchObject({
      FunctionVersion: '2',
      RoutingConfig: { AdditionalVersionWeights: { '1': 0.25 } },
    });
    expect(updated.RevisionId).not.toBe(alias.RevisionId);
    expect(
      await failure(
        lambda.send(
          new UpdateAliasCommand({
            FunctionName: 'al',
            Name: 'prod',
            FunctionVersion: '$LATEST',
            RoutingConfig: { AdditionalVersionWeights: { '1': 0.5 } },
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
    await lambda.send(
      new CreateAliasCommand({ FunctionName: 'al', Name: 'dev', FunctionVersion: '$LATEST' }),
    );
    expect(
      (await lambda.send(new ListAliasesCommand({ FunctionName: 'al' }))).Aliases!.map((a) => a.Name),
    ).toEqual(['dev', 'prod']);
    expect(
      (await lambda.send(new ListAliasesCommand({ FunctionName: 'al', FunctionVersion: '2' }))).Aliases!.map(
        (a) => a.Name,
      ),
    ).toEqual(['prod']);
    expect(
      (await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'al', Qualifier: 'prod' })))
        .Version,
    ).toBe('2');
    await lambda.send(new DeleteAliasCommand({ FunctionName: 'al', Name: 'dev' }));
    expect(
      await failure(lambda.send(new GetAliasCommand({ FunctionName: 'al', Name: 'dev' }))),
    ).toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('permissions', () => {
  test('AddPermission writes statements Lambda-style; GetPolicy; RemovePermission; conflicts and not-found', async () => {
    await createFunction('perm');
    const added = await lambda.send(
      new AddPermissionCommand({
        FunctionName: 'perm',
        StatementId: 's3-invoke',
        Action: 'lambda:InvokeFunction',
        Principal: 's3.amazonaws.com',
        SourceArn: 'arn:aws:s3:::bucket',
        SourceAccount: ACCOUNT,
      }),
    );
    expect(JSON.parse(added.Statement!)).toEqual({
      Sid: 's3-invoke',
      Effect: 'Allow',
      Principal: { Service: 's3.amazonaws.com' },
      Action: 'lambda:InvokeFunction',
      Resource: ARN('perm'),
      Condition: {
        StringEquals: { 'AWS:SourceAccount': ACCOUNT },
        ArnLike: { 'AWS:SourceArn': 'arn:aws:s3:::bucket' },
      },
    });
    await lambda.send(
      new AddPermissionCommand({
        FunctionName: 'perm',
        StatementId: 'acct',
        Action: 'lambda:*',
        Principal: '111122223333',
      }),
    );
    expect(
      await failure(
        lambda.send(
          new AddPermissionCommand({
            FunctionName: 'perm',
            StatementId: 'acct',
            Action: 'lambda:*',
            Principal: '*',
          }),
        ),
      ),
    ).toMatchObject({
      name: 'ResourceConflictException',
      message: expect.stringContaining('(acct) provided already exists'),
    });
    const policy = await lambda.send(new GetPolicyCommand({ FunctionName: 'perm' }));
    const document = JSON.parse(policy.Policy!) as {
      Version: string;
      Statement: Array<{ Sid: string; Principal: unknown }>;
    };
    expect(document.Version).toBe('2012-10-17');
    expect(document.Statement.map((s) => s.Sid)).toEqual(['s3-invoke', 'acct']);
    expect(document.Statement[1]!.Principal).toEqual({ AWS: 'arn:aws:iam::111122223333:root' });
    await lambda.send(new RemovePermissionCommand({ FunctionName: 'perm', StatementId: 's3-invoke' }));
    await lambda.send(new RemovePermissionCommand({ FunctionName: 'perm', StatementId: 'acct' }));
    expect(await failure(lambda.send(new GetPolicyCommand({ FunctionName: 'perm' })))).toMatchObject({
      name: 'ResourceNotFoundException',
    });
    expect(
      await failure(lambda.send(new RemovePermissionCommand({ FunctionName: 'perm', StatementId: 'acct' }))),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(
      await failure(
        lambda.send(
          new AddPermissionCommand({
            FunctionName: 'perm',
            Qualifier: '$LATEST',
            StatementId: 'x',
            Action: 'lambda:InvokeFunction',
            Principal: '*',
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidParameterValueException' });
  });
});

describe('function URLs', () => {
  test('create, get, update, list, delete; one per qualifier; aliases only', async () => {
    await createFunction('url');
    const created = await lambda.send(
      new CreateFunctionUrlConfigCommand({ FunctionName: 'url', AuthType: 'NONE' }),
    );
    expect(created.FunctionUrl).toMatch(/^https:\/\/[a-z0-9]{32}\.lambda-url\.us-east-1\.on\.aws\/$/);
    expect(created).toMatchObject({ FunctionArn: ARN('url'), AuthType: 'NONE', InvokeMode: 'BUFFERED' });
    expect(
      await failure(
        lambda.send(new CreateFunctionUrlConfigCommand({ FunctionName: 'url', AuthType: 'NONE' })),
      ),
    ).toMatchObject({ name: 'ResourceConflictException' });
    const updated = await lambda.send(
      new UpdateFunctionUrlConfigCommand({
        FunctionName: 'url',
        AuthType: 'AWS_IAM',
        Cors: { AllowOrigins: ['*'] },
      }),
    );
    expect(updated).toMatchObject({
      AuthType: 'AWS_IAM',
      Cors: { AllowOrigins: ['*'] },
      FunctionUrl: created.FunctionUrl,
    });
    await lambda.send(
      new CreateAliasCommand({ FunctionName: 'url', Name: 'live', FunctionVersion: '$LATEST' }),
    );
    await lambda.send(
      new CreateFunctionUrlConfigCommand({ FunctionName: 'url', Qualifier: 'live', AuthType: 'NONE' }),
    );
    expect(
      (await lambda.send(new ListFunctionUrlConfigsCommand({ FunctionName: 'url' }))).FunctionUrlConfigs!.map(
        (u) => u.FunctionArn,
      ),
    ).toEqual([ARN('url'), ARN('url', 'live')]);
    expect(
      await failure(
        lambda.send(
          new CreateFunctionUrlConfigCommand({ FunctionName: 'url', Qualifier: '1', AuthType: 'NONE' }),
        ),
      ),
    ).toMatchObject({ name: 'ValidationException' });
    await lambda.send(new DeleteFunctionUrlConfigCommand({ FunctionName: 'url' }));
    expect(
      await failure(lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: 'url' }))),
    ).toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('event source mappings', () => {
  const queue = `arn:aws:sqs:us-east-1:${ACCOUNT}:jobs`;

  test('Creating then Enabled; update; one mapping per source and function; Deleting; list filters', async () => {
    await createFunction('consumer');
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 600_000 });
    const created = await lambda.send(
      new CreateEventSourceMappingCommand({
        FunctionName: 'consumer',
        EventSourceArn: queue,
        Tags: { t: '1' },
      }),
    );
    expect(created).toMatchObject({
      State: 'Creating',
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 0,
      EventSourceArn: queue,
      FunctionArn: ARN('consumer'),
      StateTransitionReason: 'USER_INITIATED',
      EventSourceMappingArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:event-source-mapping:${created.UUID}`,
    });
    expect(created.LastModified).toBeInstanceOf(Date);
    expect(
      await failure(lambda.send(new UpdateEventSourceMappingCommand({ UUID: created.UUID, BatchSize: 5 }))),
    ).toMatchObject({ name: 'ResourceInUseException' });
    await ctx.emulator.control.updateSettings({ lambdaStateTransitionMs: 0 });
    expect((await lambda.send(new GetEventSourceMappingCommand({ UUID: created.UUID }))).State).toBe(
      'Enabled',
    );
    expect(
      await failure(
        lambda.send(new CreateEventSourceMappingCommand({ FunctionName: 'consumer', EventSourceArn: queue })),
      ),
    ).toMatchObject({ name: 'ResourceConflictException', message: expect.stringContaining(created.UUID!) });
    expect(
      await failure(
        lambda.send(
          new CreateEventSourceMappingCommand({
            FunctionName: 'consumer',
            EventSourceArn: `${queue}2`,
            BatchSize: 100,
          }),
        ),
      ),
    ).toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('batch window'),
    });
    const updated = await lambda.send(
      new UpdateEventSourceMappingCommand({ UUID: created.UUID, BatchSize: 5, Enabled: false }),
    );
    expect(updated).toMatchObject({ State: 'Updating', BatchSize: 5 });
    expect((await lambda.send(new GetEventSourceMappingCommand({ UUID: created.UUID }))).State).toBe(
      'Disabled',
    );
    expect(
      (await lambda.send(new ListTagsCommand({ Resource: created.EventSourceMappingArn }))).Tags,
    ).toEqual({ t: '1' });
    expect(
      (
        await lambda.send(new ListEventSourceMappingsCommand({ FunctionName: 'consumer' }))
      ).EventSourceMappings!.map((m) => m.UUID),
    ).toEqual([created.UUID]);
    expect(
      (
        await lambda.send(
          new ListEventSourceMappingsCommand({ EventSourceArn: 'arn:aws:sqs:us-east-1:123456789012:other' }),
        )
      ).EventSourceMappings,
    ).toEqual([]);
    expect((await lambda.send(new DeleteEventSourceMappingCommand({ UUID: created.UUID }))).State).toBe(
      'Deleting',
    );
    expect(
      await failure(lambda.send(new GetEventSourceMappingCommand({ UUID: created.UUID }))),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(
      await failure(
        lambda.send(new CreateEventSourceMappingCommand({ FunctionName: 'nope', EventSourceArn: queue })),
      ),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('layers', () => {
  test('PublishLayerVersion counts versions up; get, get by ARN, list newest first, delete; functions use them', async () => {
    const content = await zipOf({ 'nodejs/node_modules/greet/index.js': 'module.exports = () => "hi";' });
    const v1 = await lambda.send(
      new PublishLayerVersionCommand({
        LayerName: 'greet',
        Content: { ZipFile: content },
        CompatibleRuntimes: ['nodejs20.x'],
        Description: 'first',
      }),
    );
    expect(v1).toMatchObject({
      LayerArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:layer:greet`,
      LayerVersionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:layer:greet:1`,
      Version: 1,
      Description: 'first',
      Content: { CodeSha256: sha256(content), CodeSize: content.length },
    });
    const v2 = await lambda.send(
      new PublishLayerVersionCommand({ LayerName: 'greet', Content: { ZipFile: content } }),
    );
    expect(v2.Version).toBe(2);
    expect(
      (await lambda.send(new GetLayerVersionCommand({ LayerName: 'greet', VersionNumber: 1 }))).Description,
    ).toBe('first');
    expect((await lambda.send(new GetLayerVersionByArnCommand({ Arn: v2.LayerVersionArn }))).Version).toBe(2);
    expect(
      (await lambda.send(new ListLayerVersionsCommand({ LayerName: 'greet' }))).LayerVersions!.map(
        (v) => v.Version,
      ),
    ).toEqual([2, 1]);
    expect(
      (
        await lambda.send(
          new ListLayerVersionsCommand({ LayerName: 'greet', CompatibleRuntime: 'nodejs20.x' }),
        )
      ).LayerVersions!.map((v) => v.Version),
    ).toEqual([1]);
    const fn = await createFunction('with-layer', { Layers: [v1.LayerVersionArn!] });
    expect(fn.Layers).toEqual([{ Arn: v1.LayerVersionArn, CodeSize: content.length }]);
    await lambda.send(new DeleteLayerVersionCommand({ LayerName: 'greet', VersionNumber: 2 }));
    expect(
      await failure(lambda.send(new GetLayerVersionCommand({ LayerName: 'greet', VersionNumber: 2 }))),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(
      (
        await lambda.send(
          new PublishLayerVersionCommand({ LayerName: 'greet', Content: { ZipFile: content } }),
        )
      ).Version,
    ).toBe(3);
  });
});

describe('event invoke configs', () => {
  test('put replaces, update merges, get, list, delete; ranges checked', async () => {
    await createFunction('async');
    const put = await lambda.send(
      new PutFunctionEventInvokeConfigCommand({
        FunctionName: 'async',
        MaximumRetryAttempts: 1,
        DestinationConfig: { OnFailure: { Destination: `arn:aws:sqs:us-east-1:${ACCOUNT}:failed` } },
      }),
    );
    expect(put).toMatchObject({
      FunctionArn: ARN('async', '$LATEST'),
      MaximumRetryAttempts: 1,
      DestinationConfig: {
        OnFailure: { Destination: `arn:aws:sqs:us-east-1:${ACCOUNT}:failed` },
        OnSuccess: {},
      },
    });
    const updated = await lambda.send(
      new UpdateFunctionEventInvokeConfigCommand({ FunctionName: 'async', MaximumEventAgeInSeconds: 300 }),
    );
    expect(updated).toMatchObject({ MaximumRetryAttempts: 1, MaximumEventAgeInSeconds: 300 });
    const replaced = await lambda.send(
      new PutFunctionEventInvokeConfigCommand({ FunctionName: 'async', MaximumEventAgeInSeconds: 120 }),
    );
    expect(replaced.MaximumRetryAttempts).toBeUndefined();
    expect(
      (await lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: 'async' })))
        .MaximumEventAgeInSeconds,
    ).toBe(120);
    expect(
      (await lambda.send(new ListFunctionEventInvokeConfigsCommand({ FunctionName: 'async' })))
        .FunctionEventInvokeConfigs,
    ).toHaveLength(1);
    expect(
      await failure(
        lambda.send(
          new PutFunctionEventInvokeConfigCommand({ FunctionName: 'async', MaximumRetryAttempts: 3 }),
        ),
      ),
    ).toMatchObject({ name: 'ValidationException' });
    await lambda.send(new DeleteFunctionEventInvokeConfigCommand({ FunctionName: 'async' }));
    expect(
      await failure(lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: 'async' }))),
    ).toMatchObject({
      name: 'ResourceNotFoundException',
      message: `The function ${ARN('async', '$LATEST')} doesn't have an EventInvokeConfig`,
    });
  });
});

describe('the shared view with Cloud Control', () => {
  async function ccCreate(TypeName: string, desired: Record<string, unknown>) {
    const out = await cc.send(new CreateResourceCommand({ TypeName, DesiredState: JSON.stringify(desired) }));
    const { ProgressEvent } = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
    );
    expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
    return ProgressEvent!.Identifier!;
  }
  async function ccRead(TypeName: string, Identifier: string) {
    const out = await cc.send(new GetResourceCommand({ TypeName, Identifier }));
    return JSON.parse(out.ResourceDescription!.Properties!) as Record<string, unknown>;
  }
  async function ccSettle(token: string | undefined) {
    const { ProgressEvent } = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token! }));
    return ProgressEvent!;
  }

  test('a function made natively is a Cloud Control resource and an inventory item (Code left out)', async () => {
    await createFunction('native', { Tags: { a: 'b' }, Timeout: 9 });
    const model = await ccRead('AWS::Lambda::Function', 'native');
    expect(model).toMatchObject({
      FunctionName: 'native',
      Arn: ARN('native'),
      Role: ROLE,
      Timeout: 9,
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    expect(model).not.toHaveProperty('Code');
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Lambda::Function' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual(['native']);
    const inventory = (await ctx.emulator.control.inventory()).filter(
      (i) => i.type === 'AWS::Lambda::Function',
    );
    expect(inventory.map((i) => i.identifier)).toEqual(['native']);
  });

  test('a function made through Cloud Control from inline code is a Lambda function with index.js; updates and deletes apply', async () => {
    const name = await ccCreate('AWS::Lambda::Function', {
      FunctionName: 'inline',
      Role: ROLE,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Code: { ZipFile: 'exports.handler = async () => 1;' },
      MemorySize: 256,
    });
    expect(name).toBe('inline');
    const got = await lambda.send(new GetFunctionCommand({ FunctionName: 'inline' }));
    expect(got.Configuration).toMatchObject({ MemorySize: 256, State: 'Active' });
    const zip = Buffer.from(await (await fetch(got.Code!.Location!)).arrayBuffer());
    expect(zip.includes(Buffer.from('index.js'))).toBe(true);
    const update = await cc.send(
      new UpdateResourceCommand({
        TypeName: 'AWS::Lambda::Function',
        Identifier: 'inline',
        PatchDocument: JSON.stringify([
          { op: 'remove', path: '/MemorySize' },
          { op: 'add', path: '/Timeout', value: 20 },
        ]),
      }),
    );
    expect((await ccSettle(update.ProgressEvent!.RequestToken)).OperationStatus).toBe('SUCCESS');
    expect(await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'inline' }))).toMatchObject({
      MemorySize: 128,
      Timeout: 20,
    });
    const removed = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Lambda::Function', Identifier: 'inline' }),
    );
    expect((await ccSettle(removed.ProgressEvent!.RequestToken)).OperationStatus).toBe('SUCCESS');
    expect(await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'inline' })))).toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('permissions, versions, aliases, URLs, mappings, layers and invoke configs: both ways', async () => {
    await createFunction('parts');
    const permission = await ccCreate('AWS::Lambda::Permission', {
      FunctionName: 'parts',
      Action: 'lambda:InvokeFunction',
      Principal: 'sns.amazonaws.com',
      SourceArn: 'arn:aws:sns:us-east-1:123456789012:topic',
    });
    const [, sid] = permission.split('|');
    const policy = JSON.parse(
      (await lambda.send(new GetPolicyCommand({ FunctionName: 'parts' }))).Policy!,
    ) as {
      Statement: Array<{ Sid: string }>;
    };
    expect(policy.Statement.map((s) => s.Sid)).toEqual([sid]);
    expect(await ccRead('AWS::Lambda::Permission', permission)).toMatchObject({
      FunctionName: 'parts',
      Principal: 'sns.amazonaws.com',
      SourceArn: 'arn:aws:sns:us-east-1:123456789012:topic',
      Id: sid,
    });

    const version = await ccCreate('AWS::Lambda::Version', { FunctionName: 'parts', Description: 'v' });
    expect(version).toBe(ARN('parts', '1'));
    const alias = await ccCreate('AWS::Lambda::Alias', {
      FunctionName: 'parts',
      Name: 'live',
      FunctionVersion: '1',
    });
    expect((await lambda.send(new GetAliasCommand({ FunctionName: 'parts', Name: 'live' }))).AliasArn).toBe(
      alias,
    );
    const url = await ccCreate('AWS::Lambda::Url', {
      TargetFunctionArn: 'parts',
      Qualifier: 'live',
      AuthType: 'AWS_IAM',
    });
    expect(url).toBe(ARN('parts', 'live'));
    expect(
      (await lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: 'parts', Qualifier: 'live' })))
        .AuthType,
    ).toBe('AWS_IAM');
    const mapping = await ccCreate('AWS::Lambda::EventSourceMapping', {
      FunctionName: 'parts',
      EventSourceArn: `arn:aws:sqs:us-east-1:${ACCOUNT}:q`,
      BatchSize: 3,
    });
    expect((await lambda.send(new GetEventSourceMappingCommand({ UUID: mapping }))).BatchSize).toBe(3);
    await s3.send(new CreateBucketCommand({ Bucket: 'layers' }));
    await s3.send(new PutObjectCommand({ Bucket: 'layers', Key: 'l.zip', Body: code }));
    const layer = await ccCreate('AWS::Lambda::LayerVersion', {
      LayerName: 'cc-layer',
      Content: { S3Bucket: 'layers', S3Key: 'l.zip' },
    });
    expect(layer).toBe(`arn:aws:lambda:us-east-1:${ACCOUNT}:layer:cc-layer:1`);
    expect(await ccRead('AWS::Lambda::LayerVersion', layer)).not.toHaveProperty('Content');
    const eic = await ccCreate('AWS::Lambda::EventInvokeConfig', {
      FunctionName: 'parts',
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
    });
    expect(eic).toBe('parts|$LATEST');
    expect(
      (await lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: 'parts' })))
        .MaximumRetryAttempts,
    ).toBe(0);

    // Made natively, listed by Cloud Control and the inventory.
    await lambda.send(new PublishVersionCommand({ FunctionName: 'parts' }));
    await lambda.send(new UpdateFunctionCodeCommand({ FunctionName: 'parts', ZipFile: otherCode }));
    await lambda.send(new PublishVersionCommand({ FunctionName: 'parts' }));
    const versions = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Lambda::Version' }));
    expect(versions.ResourceDescriptions!.map((d) => d.Identifier)).toEqual([
      ARN('parts', '1'),
      ARN('parts', '2'),
    ]);
    const types = new Set((await ctx.emulator.control.inventory()).map((i) => i.type));
    for (const type of [
      'AWS::Lambda::Function',
      'AWS::Lambda::Permission',
      'AWS::Lambda::Version',
      'AWS::Lambda::Alias',
      'AWS::Lambda::Url',
      'AWS::Lambda::EventSourceMapping',
      'AWS::Lambda::LayerVersion',
      'AWS::Lambda::EventInvokeConfig',
    ])
      expect(types.has(type)).toBe(true);
  });
});
