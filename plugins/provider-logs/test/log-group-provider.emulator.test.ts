import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  DescribeIndexPoliciesCommand,
  DescribeLogGroupsCommand,
  DescribeResourcePoliciesCommand,
  GetDataProtectionPolicyCommand,
  ListTagsForResourceCommand,
  type LogGroup,
} from '@aws-sdk/client-cloudwatch-logs';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { LogGroupProvider } from '../src/log-group-provider';

// The provider against the emulator's CloudWatch Logs, through real SDK clients
// built by cdkd's client factory and cdkd's own create context, as a deploy builds them.
const TYPE = 'AWS::Logs::LogGroup';
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const arn = (name: string) => `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}`;

let emulator: RunningEmulator;
let ctx: ProviderContext;
let logs: CloudWatchLogsClient;
let provider: LogGroupProvider;
let counter = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  logs = factory.get(CloudWatchLogsClient);
  provider = new LogGroupProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

/** cdkd's create context for a create of its own (a token per intent). */
const createContext = (logicalId: string, token = `token-${++counter}`): CreateContext =>
  buildCreateContext({ stackName: 'LogsPackTest', region: REGION, logicalId, idempotencyToken: token });

async function group(name: string): Promise<LogGroup | undefined> {
  return (await logs.send(new DescribeLogGroupsCommand({ logGroupIdentifiers: [name] }))).logGroups?.[0];
}
const tagsOf = async (name: string) =>
  (await logs.send(new ListTagsForResourceCommand({ resourceArn: arn(name) }))).tags ?? {};

describe('AWS::Logs::LogGroup', () => {
  it('creates a log group with a generated name and every setting, and reports Arn with :*', async () => {
    const dataProtection = { Name: 'dp', Version: '2021-06-01', Statement: [] };
    const result = await provider.create(
      'AppLogs',
      TYPE,
      {
        RetentionInDays: 14,
        KmsKeyId: KEY,
        LogGroupClass: 'STANDARD',
        DataProtectionPolicy: dataProtection,
        FieldIndexPolicies: [{ Fields: ['requestId'] }],
        ResourcePolicyDocument: { Version: '2012-10-17', Statement: [] },
        DeletionProtectionEnabled: false,
        BearerTokenAuthenticationEnabled: true,
        Tags: [{ Key: 'team', Value: 'core' }],
      },
      createContext('AppLogs'),
    );
    const name = result.physicalId;
    expect(name).toMatch(/^LogsPackTest-AppLogs-[A-Z2-7]{13}$/);
    expect(result.attributes).toEqual({ Arn: `${arn(name)}:*` });
    expect(await provider.getAttribute(name, TYPE, 'Arn')).toBe(`${arn(name)}:*`);
    expect(await provider.getAttribute(name, TYPE, 'Nope')).toBeUndefined();
    expect(await group(name)).toMatchObject({
      retentionInDays: 14,
      kmsKeyId: KEY,
      logGroupClass: 'STANDARD',
      dataProtectionStatus: 'ACTIVATED',
      bearerTokenAuthenticationEnabled: true,
      deletionProtectionEnabled: false,
    });
    expect(await tagsOf(name)).toEqual({
      team: 'core',
      'cdkd:stack-name': 'LogsPackTest',
      'cdkd:logical-id': 'AppLogs',
      'cdkd:token': expect.any(String),
    });
    expect(
      (await logs.send(new DescribeIndexPoliciesCommand({ logGroupIdentifiers: [name] }))).indexPolicies,
    ).toHaveLength(1);
    expect(
      (await logs.send(new DescribeResourcePoliciesCommand({ resourceArn: arn(name) }))).resourcePolicies,
    ).toHaveLength(1);
  });

  it('a retried create with the same token adopts the group the first attempt made; another intent is refused', async () => {
    const context = createContext('Retried');
    const first = await provider.create('Retried', TYPE, { RetentionInDays: 3 }, context);
    const second = await provider.create('Retried', TYPE, { RetentionInDays: 3 }, context);
    expect(second.physicalId).toBe(first.physicalId);
    expect(
      (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: first.physicalId }))).logGroups,
    ).toHaveLength(1);

    // A fixed name held by a group of an earlier create of this resource, or by someone else.
    await provider.create('Named', TYPE, { LogGroupName: '/pack/named' }, createContext('Named'));
    await expect(
      provider.create('Named', TYPE, { LogGroupName: '/pack/named' }, createContext('Named')),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('made by an earlier create of this resource'),
    });
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/pack/foreign', tags: { owner: 'someone' } }));
    await expect(
      provider.create(
        'Foreign',
        TYPE,
        { LogGroupName: '/pack/foreign', RetentionInDays: 1 },
        createContext('Foreign'),
      ),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('not made by this stack'),
    });
    expect((await group('/pack/foreign'))?.retentionInDays).toBeUndefined();
  });

  it('a create that fails after CreateLogGroup deletes the group it made and names the AWS error', async () => {
    await expect(
      provider.create('Bad', TYPE, { LogGroupName: '/pack/bad', RetentionInDays: 2 }, createContext('Bad')),
    ).rejects.toMatchObject({
      code: 'PROVISIONING_ERROR',
      message: expect.stringMatching(
        /^CloudWatch Logs InvalidParameterException while configuring log group \/pack\/bad/,
      ),
    });
    expect(await group('/pack/bad')).toBeUndefined();
  });

  it('updates in place: changes applied, removed properties reset, tags diffed with the ownership tags kept', async () => {
    const previous = {
      LogGroupName: '/pack/updated',
      RetentionInDays: 30,
      KmsKeyId: KEY,
      DataProtectionPolicy: { Name: 'dp', Version: '2021-06-01', Statement: [] },
      DeletionProtectionEnabled: true,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const { physicalId } = await provider.create('Updated', TYPE, previous, createContext('Updated'));
    const desired = {
      LogGroupName: '/pack/updated',
      RetentionInDays: 90,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'new', Value: '3' },
      ],
    };
    const result = await provider.update('Updated', physicalId, TYPE, desired, previous, {
      expectedRegion: REGION,
    });
    expect(result).toEqual({ physicalId, wasReplaced: false, attributes: { Arn: `${arn(physicalId)}:*` } });
    const after = (await group(physicalId))!;
    expect(after).toMatchObject({ retentionInDays: 90, deletionProtectionEnabled: false });
    expect(after.kmsKeyId).toBeUndefined();
    expect(after.dataProtectionStatus).toBeUndefined();
    expect(
      (await logs.send(new GetDataProtectionPolicyCommand({ logGroupIdentifier: physicalId })))
        .policyDocument,
    ).toBeUndefined();
    expect(await tagsOf(physicalId)).toEqual({
      keep: '1',
      new: '3',
      'cdkd:stack-name': 'LogsPackTest',
      'cdkd:logical-id': 'Updated',
      'cdkd:token': expect.any(String),
    });

    // Removing the retention resets it to never expire.
    await provider.update('Updated', physicalId, TYPE, { LogGroupName: physicalId }, desired, {
      expectedRegion: REGION,
    });
    expect((await group(physicalId))!.retentionInDays).toBeUndefined();
  });

  it('refuses to change the log group class, with the remedy', async () => {
    const { physicalId } = await provider.create('Classy', TYPE, {}, createContext('Classy'));
    await expect(
      provider.update('Classy', physicalId, TYPE, { LogGroupClass: 'INFREQUENT_ACCESS' }, {}),
    ).rejects.toMatchObject({
      message: expect.stringContaining('cannot change from STANDARD to INFREQUENT_ACCESS'),
      remedy: expect.stringContaining('new LogGroupName'),
    });
  });

  it('refuses an update in another region before touching anything', async () => {
    const { physicalId } = await provider.create(
      'Regional',
      TYPE,
      { RetentionInDays: 1 },
      createContext('Regional'),
    );
    await expect(
      provider.update(
        'Regional',
        physicalId,
        TYPE,
        { RetentionInDays: 7 },
        { RetentionInDays: 1 },
        { expectedRegion: 'eu-west-1' },
      ),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });
    expect((await group(physicalId))!.retentionInDays).toBe(1);
  });

  it('deletes; an already deleted group is gone in its own region only; a protected one names the remedy', async () => {
    const { physicalId } = await provider.create('Deleted', TYPE, {}, createContext('Deleted'));
    await provider.delete('Deleted', physicalId, TYPE, {}, { expectedRegion: REGION });
    expect(await group(physicalId)).toBeUndefined();
    await expect(
      provider.delete('Deleted', physicalId, TYPE, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
    await expect(
      provider.delete('Deleted', physicalId, TYPE, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });

    const protectedGroup = await provider.create(
      'Protected',
      TYPE,
      { DeletionProtectionEnabled: true },
      createContext('Protected'),
    );
    await expect(
      provider.delete('Protected', protectedGroup.physicalId, TYPE, {}, { expectedRegion: REGION }),
    ).rejects.toMatchObject({ remedy: expect.stringContaining('DeletionProtectionEnabled to false') });
  });

  it('reads the current state back in template shape, and nothing for a missing group', async () => {
    const { physicalId } = await provider.create(
      'Read',
      TYPE,
      {
        RetentionInDays: 5,
        Tags: [
          { Key: 'b', Value: '2' },
          { Key: 'a', Value: '1' },
        ],
      },
      createContext('Read'),
    );
    expect(await provider.readCurrentState(physicalId)).toEqual({
      LogGroupName: physicalId,
      LogGroupClass: 'STANDARD',
      KmsKeyId: '',
      RetentionInDays: 5,
      DeletionProtectionEnabled: false,
      BearerTokenAuthenticationEnabled: false,
      Tags: [
        { Key: 'a', Value: '1' },
        { Key: 'b', Value: '2' },
      ],
    });
    expect(await provider.readCurrentState('/pack/none')).toBeUndefined();
  });

  it('imports an existing group by name and finds nothing for a missing one', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/pack/imported' }));
    const input = { logicalId: 'Imported', resourceType: TYPE, stackName: 's', region: REGION };
    expect(await provider.import({ ...input, properties: { LogGroupName: '/pack/imported' } })).toEqual({
      physicalId: '/pack/imported',
      attributes: { Arn: `${arn('/pack/imported')}:*` },
    });
    expect(await provider.import({ ...input, properties: { LogGroupName: '/pack/none' } })).toBeNull();
  });

  it('rides out throttling through the SDK retries', async () => {
    await emulator.control.addFault({
      service: 'logs',
      operation: 'PutRetentionPolicy',
      error: 'ThrottlingException',
      count: 1,
    });
    const { physicalId } = await provider.create(
      'Throttled',
      TYPE,
      { RetentionInDays: 7 },
      createContext('Throttled'),
    );
    expect((await group(physicalId))!.retentionInDays).toBe(7);
  });
});
