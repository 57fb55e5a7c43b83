/**
 * The pack's providers against the emulator's Lambda, through real SDK clients
 * built by cdkd's own client factory and provider context, exactly as a deploy
 * builds them: lifecycle, every update kind, removal resets, attributes,
 * idempotent creates, ownership, region checks, IAM propagation and the
 * waiters.
 */
import {
  GetAliasCommand,
  GetEventSourceMappingCommand,
  GetFunctionCommand,
  GetFunctionConcurrencyCommand,
  GetFunctionConfigurationCommand,
  GetFunctionEventInvokeConfigCommand,
  GetFunctionUrlConfigCommand,
  GetPolicyCommand,
  GetProvisionedConcurrencyConfigCommand,
  InvokeCommand,
  LambdaClient,
  ListTagsCommand,
  ListVersionsByFunctionCommand,
  CreateFunctionCommand,
} from '@aws-sdk/client-lambda';
import { CloudControlClient, GetResourceCommand } from '@aws-sdk/client-cloudcontrol';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { zipOf } from '../../../test/emulator/test/support/zip';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { LambdaAliasProvider } from '../src/alias-provider';
import { LambdaEventInvokeConfigProvider } from '../src/event-invoke-config-provider';
import { LambdaEventSourceMappingProvider } from '../src/event-source-mapping-provider';
import { LambdaFunctionProvider } from '../src/function-provider';
import { LambdaLayerVersionProvider } from '../src/layer-version-provider';
import { LambdaPermissionProvider } from '../src/permission-provider';
import { LambdaUrlProvider } from '../src/url-provider';
import { LambdaVersionProvider } from '../src/version-provider';

// Waiters poll on the SDK's schedule (seconds); a project's testTimeout does not apply to a file run from the root.
jest.setTimeout(60_000);

const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STACK = 'LambdaPackTest';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/fn-role`;
const BUCKET = 'lambda-pack-code';
const FUNCTION = 'AWS::Lambda::Function';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let host: RecordingIoHost;
let lambda: LambdaClient;
let s3: S3Client;
let functions: LambdaFunctionProvider;
let counter = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  host = new RecordingIoHost();
  ctx = createProviderContext({ clients: factory, logger: createLogger(host) });
  lambda = factory.get(LambdaClient);
  s3 = factory.get(S3Client);
  functions = new LambdaFunctionProvider(ctx);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

afterEach(async () => {
  await emulator.control.updateSettings({ lambdaStateTransitionMs: 0 });
  await emulator.control.clearFaults();
});

/** A create context of a new intent, as the engine builds it. */
function createContext(logicalId: string, token = `token-${++counter}`): CreateContext {
  return buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });
}

async function upload(key: string, source: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: await zipOf({ 'index.js': source }) }),
  );
}

const nodeFunction = (extra: Record<string, unknown> = {}) => ({
  Role: ROLE,
  Runtime: 'nodejs20.x',
  Handler: 'index.handler',
  Code: { ZipFile: 'exports.handler = async (event) => ({ inline: true, event });' },
  Timeout: 30,
  ...extra,
});

async function configurationOf(name: string) {
  return lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
}

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected the call to fail');
}

describe('AWS::Lambda::Function', () => {
  it('creates a function from inline code with a generated name, tags and attributes, and the code runs', async () => {
    const result = await functions.create(
      'Handler',
      FUNCTION,
      nodeFunction({ Tags: [{ Key: 'team', Value: 'core' }] }),
      createContext('Handler'),
    );
    const name = result.physicalId;
    expect(name).toMatch(/^LambdaPackTest-Handler-[A-Z2-7]{13}$/);
    const configuration = await configurationOf(name);
    expect(configuration).toMatchObject({ State: 'Active', Runtime: 'nodejs20.x', Timeout: 30 });
    expect(result.attributes).toEqual({
      Arn: configuration.FunctionArn,
      SnapStartResponse: { ApplyOn: 'None', OptimizationStatus: 'Off' },
      'SnapStartResponse.ApplyOn': 'None',
      'SnapStartResponse.OptimizationStatus': 'Off',
    });
    expect(await functions.getAttribute(name, FUNCTION, 'Arn')).toBe(configuration.FunctionArn);
    const tags = (await lambda.send(new ListTagsCommand({ Resource: configuration.FunctionArn }))).Tags;
    expect(tags).toMatchObject({ team: 'core', 'cdkd:stack-name': STACK, 'cdkd:logical-id': 'Handler' });
    // Inline source went into index.js, as CloudFormation puts it.
    const out = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from('{"n":1}') }));
    expect(JSON.parse(Buffer.from(out.Payload!).toString())).toEqual({ inline: true, event: { n: 1 } });
  });

  it('zips inline Python source as index.py', async () => {
    const { physicalId } = await functions.create(
      'Py',
      FUNCTION,
      {
        Role: ROLE,
        Runtime: 'python3.12',
        Handler: 'index.handler',
        Code: { ZipFile: 'def handler(e, c):\n    return 1\n' },
      },
      createContext('Py'),
    );
    const location = (await lambda.send(new GetFunctionCommand({ FunctionName: physicalId }))).Code!
      .Location!;
    const zip = Buffer.from(await (await fetch(location)).arrayBuffer());
    expect(zip.includes(Buffer.from('index.py'))).toBe(true);
    expect(zip.includes(Buffer.from('index.js'))).toBe(false);
  });

  it('a create repeated with the same token adopts the function; another intent or a foreign function is refused', async () => {
    const context = createContext('Repeated');
    const first = await functions.create('Repeated', FUNCTION, nodeFunction(), context);
    const again = await functions.create('Repeated', FUNCTION, nodeFunction(), context);
    expect(again.physicalId).toBe(first.physicalId);
    const named = nodeFunction({ FunctionName: first.physicalId });
    expect(
      await failure(functions.create('Repeated', FUNCTION, named, createContext('Repeated'))),
    ).toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('made by cdkd for this resource by another deploy'),
    });
    await lambda.send(
      new CreateFunctionCommand({
        FunctionName: 'someone-elses',
        Role: ROLE,
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Code: { ZipFile: await zipOf({ 'index.js': '' }) },
      }),
    );
    expect(
      await failure(
        functions.create(
          'Foreign',
          FUNCTION,
          nodeFunction({ FunctionName: 'someone-elses' }),
          createContext('Foreign'),
        ),
      ),
    ).toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('was not made by this stack'),
    });
  });

  it('waits until the function is Active before it reports the create, and until updates are done', async () => {
    await emulator.control.updateSettings({ lambdaStateTransitionMs: 1500 });
    const { physicalId } = await functions.create('Slow', FUNCTION, nodeFunction(), createContext('Slow'));
    expect((await configurationOf(physicalId)).State).toBe('Active');
    const previous = nodeFunction();
    const desired = nodeFunction({ Timeout: 9, Code: { ZipFile: 'exports.handler = async () => 2;' } });
    await functions.update('Slow', physicalId, FUNCTION, desired, previous, { expectedRegion: REGION });
    expect(await configurationOf(physicalId)).toMatchObject({ Timeout: 9, LastUpdateStatus: 'Successful' });
  });

  it('retries, bounded, while a new role has not propagated to Lambda', async () => {
    await emulator.control.setConsistency('lambda.role-propagation', { enabled: true, delayMs: 2000 });
    try {
      const { physicalId } = await functions.create(
        'NewRole',
        FUNCTION,
        nodeFunction({ Role: `arn:aws:iam::${ACCOUNT}:role/brand-new` }),
        createContext('NewRole'),
      );
      expect((await configurationOf(physicalId)).Role).toBe(`arn:aws:iam::${ACCOUNT}:role/brand-new`);
    } finally {
      await emulator.control.setConsistency('lambda.role-propagation', { enabled: false });
    }
    const requests = await emulator.control.requests();
    expect(requests.byOperation['lambda:CreateFunction']).toBeGreaterThan(1);
  });

  it('updates in place: changed members set, removed ones reset, code from a new S3 object, tags and concurrency reconciled', async () => {
    await upload('v1.zip', 'exports.handler = async () => "v1";');
    await upload('v2.zip', 'exports.handler = async () => "v2";');
    const previous = nodeFunction({
      Code: { S3Bucket: BUCKET, S3Key: 'v1.zip' },
      Description: 'first',
      MemorySize: 256,
      Environment: { Variables: { STAGE: 'one' } },
      ReservedConcurrentExecutions: 5,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    });
    const { physicalId } = await functions.create('Updated', FUNCTION, previous, createContext('Updated'));
    const before = await configurationOf(physicalId);
    const desired = nodeFunction({
      Code: { S3Bucket: BUCKET, S3Key: 'v2.zip' },
      Timeout: 12,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'new', Value: '3' },
      ],
    });
    const result = await functions.update('Updated', physicalId, FUNCTION, desired, previous, {
      expectedRegion: REGION,
    });
    expect(result).toMatchObject({ physicalId, wasReplaced: false });
    const after = await configurationOf(physicalId);
    expect(after).toMatchObject({ Timeout: 12, MemorySize: 128, Description: '' });
    expect(after.Environment).toBeUndefined();
    expect(after.CodeSha256).not.toBe(before.CodeSha256);
    expect(
      (await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: physicalId })))
        .ReservedConcurrentExecutions,
    ).toBeUndefined();
    const tags = (await lambda.send(new ListTagsCommand({ Resource: after.FunctionArn }))).Tags!;
    expect(tags).toMatchObject({ keep: '1', new: '3', 'cdkd:logical-id': 'Updated' });
    expect(tags).not.toHaveProperty('drop');
    const out = await lambda.send(new InvokeCommand({ FunctionName: physicalId }));
    expect(Buffer.from(out.Payload!).toString()).toBe('"v2"');
  });

  it('reads its state back in template shape, imports by name, deletes, and checks the region before "not found" counts as deleted', async () => {
    const { physicalId } = await functions.create(
      'Gone',
      FUNCTION,
      nodeFunction({ MemorySize: 512 }),
      createContext('Gone'),
    );
    expect(await functions.readCurrentState(physicalId)).toMatchObject({
      FunctionName: physicalId,
      MemorySize: 512,
      Runtime: 'nodejs20.x',
      Tags: [],
    });
    expect(
      await functions.import({
        logicalId: 'Gone',
        resourceType: FUNCTION,
        stackName: STACK,
        region: REGION,
        properties: { FunctionName: physicalId },
      }),
    ).toMatchObject({ physicalId });
    await functions.delete('Gone', physicalId, FUNCTION, {}, { expectedRegion: REGION });
    expect(await functions.readCurrentState(physicalId)).toBeUndefined();
    await expect(
      functions.delete('Gone', physicalId, FUNCTION, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
    expect(
      await failure(functions.delete('Gone', physicalId, FUNCTION, {}, { expectedRegion: 'eu-west-1' })),
    ).toMatchObject({
      code: 'REGION_MISMATCH',
    });
  });

  it("names Lambda's error when it refuses a property", async () => {
    expect(
      await failure(functions.create('Bad', FUNCTION, nodeFunction({ Timeout: 5000 }), createContext('Bad'))),
    ).toMatchObject({
      code: 'PROVISIONING_ERROR',
      message: expect.stringMatching(
        /^Lambda ValidationException while creating function LambdaPackTest-Bad-/,
      ),
    });
  });
});

describe("the function's parts", () => {
  let fnName: string;
  let fnArn: string;

  beforeAll(async () => {
    fnName = (await functions.create('Parts', FUNCTION, nodeFunction(), createContext('Parts'))).physicalId;
    fnArn = (await configurationOf(fnName)).FunctionArn!;
  });

  it('Permission: a statement id from the token, adopted on a repeat, removed on delete', async () => {
    const permissions = new LambdaPermissionProvider(ctx);
    const props = {
      FunctionName: fnArn,
      Action: 'lambda:InvokeFunction',
      Principal: 's3.amazonaws.com',
      SourceArn: 'arn:aws:s3:::b',
    };
    const context = createContext('Invoke');
    const created = await permissions.create('Invoke', 'AWS::Lambda::Permission', props, context);
    const [, sid] = created.physicalId.split('|');
    expect(created).toEqual({ physicalId: `${fnArn}|${sid}`, attributes: { Id: sid } });
    expect((await permissions.create('Invoke', 'AWS::Lambda::Permission', props, context)).physicalId).toBe(
      created.physicalId,
    );
    const statements = JSON.parse(
      (await lambda.send(new GetPolicyCommand({ FunctionName: fnName }))).Policy!,
    ).Statement;
    expect(statements).toHaveLength(1);
    expect(await permissions.readCurrentState(created.physicalId)).toEqual(props);
    await permissions.delete('Invoke', created.physicalId, 'AWS::Lambda::Permission', props, {
      expectedRegion: REGION,
    });
    await expect(lambda.send(new GetPolicyCommand({ FunctionName: fnName }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(
      permissions.delete('Invoke', created.physicalId, 'AWS::Lambda::Permission', props, {
        expectedRegion: REGION,
      }),
    ).resolves.toBeUndefined();
    expect(await permissions.delete('Invoke', 'no-bar', 'AWS::Lambda::Permission')).toMatchObject({
      outcome: 'skipped',
    });
  });

  it('Version: publishes, survives a lost reply, refuses a new intent when nothing changed, sets provisioned concurrency', async () => {
    const versions = new LambdaVersionProvider(ctx);
    await emulator.control.addFault({ service: 'lambda', operation: 'PublishVersion', mode: 'drop' });
    const v1 = await versions.create(
      'V1',
      'AWS::Lambda::Version',
      { FunctionName: fnName, Description: 'one' },
      createContext('V1'),
    );
    expect(v1).toEqual({ physicalId: `${fnArn}:1`, attributes: { FunctionArn: `${fnArn}:1`, Version: '1' } });
    const listed = await lambda.send(new ListVersionsByFunctionCommand({ FunctionName: fnName }));
    expect(listed.Versions!.map((v) => v.Version)).toEqual(['$LATEST', '1']);
    expect(
      await failure(
        versions.create('V1b', 'AWS::Lambda::Version', { FunctionName: fnName }, createContext('V1b')),
      ),
    ).toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('A version for this Lambda function exists ( 1 )'),
    });
    await functions.update('Parts', fnName, FUNCTION, nodeFunction({ Timeout: 31 }), nodeFunction(), {
      expectedRegion: REGION,
    });
    const v2 = await versions.create(
      'V2',
      'AWS::Lambda::Version',
      { FunctionName: fnName, ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 } },
      createContext('V2'),
    );
    expect(v2.attributes).toMatchObject({ Version: '2' });
    expect(
      (
        await lambda.send(
          new GetProvisionedConcurrencyConfigCommand({ FunctionName: fnName, Qualifier: '2' }),
        )
      ).RequestedProvisionedConcurrentExecutions,
    ).toBe(2);
    await versions.delete('V2', v2.physicalId, 'AWS::Lambda::Version', {}, { expectedRegion: REGION });
    expect(
      (await lambda.send(new ListVersionsByFunctionCommand({ FunctionName: fnName }))).Versions!.map(
        (v) => v.Version,
      ),
    ).toEqual(['$LATEST', '1']);
  });

  it('Alias: create, adopt an identical one on a repeat, update with removal resets, delete', async () => {
    const aliases = new LambdaAliasProvider(ctx);
    const props = {
      FunctionName: fnName,
      Name: 'live',
      FunctionVersion: '1',
      Description: 'current',
    };
    const context = createContext('Live');
    const created = await aliases.create('Live', 'AWS::Lambda::Alias', props, context);
    expect(created).toEqual({ physicalId: `${fnArn}:live`, attributes: { AliasArn: `${fnArn}:live` } });
    expect((await aliases.create('Live', 'AWS::Lambda::Alias', props, context)).physicalId).toBe(
      created.physicalId,
    );
    expect(
      await failure(
        aliases.create(
          'Live',
          'AWS::Lambda::Alias',
          { ...props, FunctionVersion: '$LATEST' },
          createContext('Live'),
        ),
      ),
    ).toMatchObject({ code: 'RESOURCE_ALREADY_EXISTS' });
    await aliases.update(
      'Live',
      created.physicalId,
      'AWS::Lambda::Alias',
      { FunctionName: fnName, Name: 'live', FunctionVersion: '$LATEST' },
      props,
      {
        expectedRegion: REGION,
      },
    );
    expect(await lambda.send(new GetAliasCommand({ FunctionName: fnName, Name: 'live' }))).toMatchObject({
      FunctionVersion: '$LATEST',
      Description: '',
    });
    expect(await aliases.readCurrentState(created.physicalId)).toMatchObject({
      Name: 'live',
      FunctionVersion: '$LATEST',
    });
    await aliases.delete('Live', created.physicalId, 'AWS::Lambda::Alias', {}, { expectedRegion: REGION });
    await expect(
      lambda.send(new GetAliasCommand({ FunctionName: fnName, Name: 'live' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('Url: create with its attributes, adopt on a repeat, update with removal resets, delete', async () => {
    const urls = new LambdaUrlProvider(ctx);
    const props = { TargetFunctionArn: fnArn, AuthType: 'NONE', Cors: { AllowOrigins: ['*'] } };
    const context = createContext('Url');
    const created = await urls.create('Url', 'AWS::Lambda::Url', props, context);
    expect(created.physicalId).toBe(fnArn);
    expect(created.attributes).toEqual({
      FunctionArn: fnArn,
      FunctionUrl: expect.stringMatching(/^https:\/\/[a-z0-9]{32}\.lambda-url\.us-east-1\.on\.aws\/$/),
    });
    expect((await urls.create('Url', 'AWS::Lambda::Url', props, context)).physicalId).toBe(fnArn);
    await urls.update(
      'Url',
      fnArn,
      'AWS::Lambda::Url',
      { TargetFunctionArn: fnArn, AuthType: 'AWS_IAM' },
      props,
      { expectedRegion: REGION },
    );
    const url = await lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: fnName }));
    expect(url.AuthType).toBe('AWS_IAM');
    expect(url.Cors ?? {}).toEqual({});
    await urls.delete('Url', fnArn, 'AWS::Lambda::Url', {}, { expectedRegion: REGION });
    await expect(
      lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: fnName })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('EventSourceMapping: Enabled before the create returns, adopted on a repeat, reset on removal, gone after delete', async () => {
    const mappings = new LambdaEventSourceMappingProvider(ctx);
    await emulator.control.updateSettings({ lambdaStateTransitionMs: 1500 });
    const queue = `arn:aws:sqs:${REGION}:${ACCOUNT}:jobs`;
    const props = {
      FunctionName: fnName,
      EventSourceArn: queue,
      BatchSize: 5,
      Tags: [{ Key: 'k', Value: 'v' }],
    };
    const context = createContext('Jobs');
    const created = await mappings.create('Jobs', 'AWS::Lambda::EventSourceMapping', props, context);
    const uuid = created.physicalId;
    expect((await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }))).State).toBe('Enabled');
    expect(created.attributes).toEqual({
      Id: uuid,
      EventSourceMappingArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:event-source-mapping:${uuid}`,
    });
    expect(
      (await mappings.create('Jobs', 'AWS::Lambda::EventSourceMapping', props, context)).physicalId,
    ).toBe(uuid);
    expect(
      await failure(mappings.create('Jobs', 'AWS::Lambda::EventSourceMapping', props, createContext('Jobs'))),
    ).toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
    });
    await mappings.update(
      'Jobs',
      uuid,
      'AWS::Lambda::EventSourceMapping',
      { FunctionName: fnName, EventSourceArn: queue, Enabled: false },
      props,
      {
        expectedRegion: REGION,
      },
    );
    expect(await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }))).toMatchObject({
      BatchSize: 10,
      State: 'Disabled',
    });
    expect((await mappings.readCurrentState(uuid))?.Tags).toEqual([]);
    await mappings.delete('Jobs', uuid, 'AWS::Lambda::EventSourceMapping', {}, { expectedRegion: REGION });
    await expect(lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('LayerVersion: publishes from S3, a retried create adopts its own version, deletes', async () => {
    const layers = new LambdaLayerVersionProvider(ctx);
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'layer.zip',
        Body: await zipOf({ 'nodejs/node_modules/x/index.js': '' }),
      }),
    );
    const props = {
      LayerName: 'pack-layer',
      Content: { S3Bucket: BUCKET, S3Key: 'layer.zip' },
      CompatibleRuntimes: ['nodejs20.x'],
    };
    const context = createContext('Layer');
    // The first attempt's reply is lost: the retry finds the version it published.
    await emulator.control.addFault({
      service: 'lambda',
      operation: 'PublishLayerVersion',
      mode: 'error-after',
      error: 'ServiceException',
    });
    await expect(layers.create('Layer', 'AWS::Lambda::LayerVersion', props, context)).rejects.toThrow();
    const created = await layers.create('Layer', 'AWS::Lambda::LayerVersion', props, context);
    expect(created.physicalId).toBe(`arn:aws:lambda:${REGION}:${ACCOUNT}:layer:pack-layer:1`);
    expect(await layers.readCurrentState(created.physicalId)).toEqual({
      LayerName: 'pack-layer',
      CompatibleRuntimes: ['nodejs20.x'],
    });
    await layers.delete(
      'Layer',
      created.physicalId,
      'AWS::Lambda::LayerVersion',
      {},
      { expectedRegion: REGION },
    );
    expect(await layers.readCurrentState(created.physicalId)).toBeUndefined();
  });

  it('EventInvokeConfig: put, replaced on update (removed members back to defaults), deleted', async () => {
    const configs = new LambdaEventInvokeConfigProvider(ctx);
    const props = {
      FunctionName: fnName,
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 600,
    };
    const created = await configs.create(
      'Async',
      'AWS::Lambda::EventInvokeConfig',
      props,
      createContext('Async'),
    );
    expect(created.physicalId).toBe(`${fnName}|$LATEST`);
    await configs.update(
      'Async',
      created.physicalId,
      'AWS::Lambda::EventInvokeConfig',
      { FunctionName: fnName, Qualifier: '$LATEST', MaximumRetryAttempts: 1 },
      props,
      {
        expectedRegion: REGION,
      },
    );
    const config = await lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: fnName }));
    expect(config.MaximumRetryAttempts).toBe(1);
    expect(config.MaximumEventAgeInSeconds).toBeUndefined();
    await configs.delete(
      'Async',
      created.physicalId,
      'AWS::Lambda::EventInvokeConfig',
      {},
      { expectedRegion: REGION },
    );
    await expect(
      lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: fnName })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('physical ids are Cloud Control identifiers (physicalIdIsPrimaryIdentifier)', () => {
  it("Cloud Control reads every resource the pack made by the pack's physical id", async () => {
    const cc = new CloudControlClient({
      region: REGION,
      endpoint: emulator.url,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const made: Array<[string, string]> = [];
    const make = async (
      provider: { create: LambdaFunctionProvider['create'] },
      type: string,
      props: object,
    ) => {
      const logicalId = `Cc${made.length}`;
      const { physicalId, attributes } = await provider.create(
        logicalId,
        type,
        props as Record<string, unknown>,
        createContext(logicalId),
      );
      made.push([type, physicalId]);
      return { physicalId, attributes: attributes ?? {} };
    };
    const fn = await make(functions, FUNCTION, nodeFunction());
    const arn = String(fn.attributes.Arn);
    await make(new LambdaPermissionProvider(ctx), 'AWS::Lambda::Permission', {
      FunctionName: arn,
      Action: 'lambda:InvokeFunction',
      Principal: 'sns.amazonaws.com',
    });
    const version = await make(new LambdaVersionProvider(ctx), 'AWS::Lambda::Version', { FunctionName: arn });
    await make(new LambdaAliasProvider(ctx), 'AWS::Lambda::Alias', {
      FunctionName: fn.physicalId,
      FunctionVersion: String(version.attributes.Version),
      Name: 'live',
    });
    await make(new LambdaUrlProvider(ctx), 'AWS::Lambda::Url', { TargetFunctionArn: arn, AuthType: 'NONE' });
    await make(new LambdaEventSourceMappingProvider(ctx), 'AWS::Lambda::EventSourceMapping', {
      FunctionName: fn.physicalId,
      EventSourceArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:cc-jobs`,
    });
    await upload('cc-layer.zip', 'module.exports = 1;');
    await make(new LambdaLayerVersionProvider(ctx), 'AWS::Lambda::LayerVersion', {
      Content: { S3Bucket: BUCKET, S3Key: 'cc-layer.zip' },
    });
    await make(new LambdaEventInvokeConfigProvider(ctx), 'AWS::Lambda::EventInvokeConfig', {
      FunctionName: fn.physicalId,
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 1,
    });
    for (const [TypeName, Identifier] of made) {
      const out = await cc.send(new GetResourceCommand({ TypeName, Identifier }));
      expect([TypeName, out.ResourceDescription?.Identifier]).toEqual([TypeName, Identifier]);
    }
  });
});
