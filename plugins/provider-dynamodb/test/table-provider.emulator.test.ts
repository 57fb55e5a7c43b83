import {
  CreateTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeContributorInsightsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetResourcePolicyCommand,
  ListTagsOfResourceCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { updateSteps } from '../src/table-plan';
import { TableProvider } from '../src/table-provider';

// The provider against the emulator's DynamoDB, through real SDK clients built
// by cdkd's client factory and cdkd's own create context, as a deploy builds them.
const TYPE = 'AWS::DynamoDB::Table';
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const arn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;

let emulator: RunningEmulator;
let ctx: ProviderContext;
let ddb: DynamoDBClient;
let provider: TableProvider;
let counter = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  ddb = factory.get(DynamoDBClient);
  provider = new TableProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

/** cdkd's create context for a create of its own (a token per intent). */
const createContext = (logicalId: string, token = `token-${++counter}`): CreateContext =>
  buildCreateContext({ stackName: 'DynamoPackTest', region: REGION, logicalId, idempotencyToken: token });

async function table(name: string): Promise<TableDescription | undefined> {
  try {
    return (await ddb.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (err) {
    if ((err as Error).name === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}
const tagsOf = async (resourceArn: string) =>
  Object.fromEntries(
    ((await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: resourceArn }))).Tags ?? []).map((t) => [
      t.Key,
      t.Value,
    ]),
  );
const ttlOf = async (name: string) =>
  (await ddb.send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription;
const pitrOf = async (name: string) =>
  (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: name }))).ContinuousBackupsDescription
    ?.PointInTimeRecoveryDescription;
const policyOf = async (resourceArn: string) =>
  ddb.send(new GetResourcePolicyCommand({ ResourceArn: resourceArn })).then(
    (r) => JSON.parse(r.Policy!) as unknown,
    (err: Error) => err.name,
  );

const KEY = [{ AttributeName: 'pk', KeyType: 'HASH' }];
const DEFS = [{ AttributeName: 'pk', AttributeType: 'S' }];
const POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
      Action: 'dynamodb:GetItem',
      Resource: '*',
    },
  ],
};
/** A minimal on-demand table. */
const basic = (extra: Record<string, unknown> = {}) => ({
  KeySchema: KEY,
  AttributeDefinitions: DEFS,
  BillingMode: 'PAY_PER_REQUEST',
  ...extra,
});

describe('AWS::DynamoDB::Table', () => {
  it('creates a table with a generated name and every common setting, and reports Arn and StreamArn', async () => {
    const result = await provider.create(
      'Orders',
      TYPE,
      {
        KeySchema: [...KEY, { AttributeName: 'sk', KeyType: 'RANGE' }],
        AttributeDefinitions: [
          ...DEFS,
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'gsi', AttributeType: 'S' },
        ],
        ProvisionedThroughput: { ReadCapacityUnits: '5', WriteCapacityUnits: 5 },
        GlobalSecondaryIndexes: [
          {
            IndexName: 'byGsi',
            KeySchema: [{ AttributeName: 'gsi', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'KEYS_ONLY' },
            ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
            ContributorInsightsSpecification: { Enabled: true },
          },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: 'bySk',
            KeySchema: [...KEY, { AttributeName: 'sk', KeyType: 'RANGE' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES', Tags: [{ Key: 'on', Value: 'stream' }] },
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 },
        ContributorInsightsSpecification: { Enabled: true },
        ResourcePolicy: { PolicyDocument: POLICY },
        TableClass: 'STANDARD_INFREQUENT_ACCESS',
        Tags: [{ Key: 'team', Value: 'core' }],
      },
      createContext('Orders'),
    );
    const name = result.physicalId;
    expect(name).toMatch(/^DynamoPackTest-Orders-/);
    const described = (await table(name))!;
    expect(result.attributes).toEqual({ Arn: arn(name), StreamArn: described.LatestStreamArn });
    expect(result.attributes!.StreamArn).toMatch(new RegExp(`^${arn(name)}/stream/`));
    expect(await provider.getAttribute(name, TYPE, 'Arn')).toBe(arn(name));
    expect(await provider.getAttribute(name, TYPE, 'StreamArn')).toBe(described.LatestStreamArn);
    expect(await provider.getAttribute(name, TYPE, 'Nope')).toBeUndefined();
    expect(described).toMatchObject({
      TableStatus: 'ACTIVE',
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
      GlobalSecondaryIndexes: [{ IndexName: 'byGsi', IndexStatus: 'ACTIVE' }],
      LocalSecondaryIndexes: [{ IndexName: 'bySk' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      SSEDescription: { Status: 'ENABLED', SSEType: 'KMS' },
      TableClassSummary: { TableClass: 'STANDARD_INFREQUENT_ACCESS' },
    });
    expect(await ttlOf(name)).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' });
    expect(await pitrOf(name)).toMatchObject({
      PointInTimeRecoveryStatus: 'ENABLED',
      RecoveryPeriodInDays: 7,
    });
    for (const index of [undefined, 'byGsi'])
      expect(
        (await ddb.send(new DescribeContributorInsightsCommand({ TableName: name, IndexName: index })))
          .ContributorInsightsStatus,
      ).toBe('ENABLED');
    expect(await policyOf(arn(name))).toEqual(POLICY);
    expect(await tagsOf(arn(name))).toEqual({
      team: 'core',
      'cdkd:stack-name': 'DynamoPackTest',
      'cdkd:logical-id': 'Orders',
      'cdkd:token': expect.any(String),
    });
    expect(await tagsOf(described.LatestStreamArn!)).toEqual({ on: 'stream' });
  });

  it('a retried create with the same token adopts the table the first attempt made; another intent is refused', async () => {
    const context = createContext('Retried');
    const first = await provider.create('Retried', TYPE, basic(), context);
    const second = await provider.create(
      'Retried',
      TYPE,
      basic({ DeletionProtectionEnabled: true }),
      context,
    );
    expect(second.physicalId).toBe(first.physicalId);
    // The adopted table is brought to the template of the second attempt.
    expect((await table(first.physicalId))!.DeletionProtectionEnabled).toBe(true);

    await provider.create('Named', TYPE, basic({ TableName: 'pack-named' }), createContext('Named'));
    await expect(
      provider.create('Named', TYPE, basic({ TableName: 'pack-named' }), createContext('Named')),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('made by an earlier create of this resource'),
    });
    await ddb.send(
      new CreateTableCommand({
        TableName: 'pack-foreign',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        Tags: [{ Key: 'owner', Value: 'someone' }],
      }),
    );
    await expect(
      provider.create(
        'Foreign',
        TYPE,
        basic({ TableName: 'pack-foreign', DeletionProtectionEnabled: true }),
        createContext('Foreign'),
      ),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('not made by this stack'),
    });
    expect((await table('pack-foreign'))!.DeletionProtectionEnabled).toBe(false);
  });

  it('a create that fails after CreateTable deletes the table it made and names the AWS error', async () => {
    await expect(
      provider.create(
        'Bad',
        TYPE,
        basic({
          TableName: 'pack-bad',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 50 },
        }),
        createContext('Bad'),
      ),
    ).rejects.toMatchObject({
      code: 'PROVISIONING_ERROR',
      message: expect.stringMatching(/^DynamoDB ValidationException while configuring table pack-bad/),
    });
    expect(await table('pack-bad')).toBeUndefined();
  });

  it('a failed create whose table cannot be deleted reports it with the TableId; readIdentity tells it from a later table', async () => {
    await emulator.control.addFault({
      service: 'dynamodb',
      operation: 'DeleteTable',
      match: { TableName: 'pack-kept' },
      error: 'AccessDeniedException',
      status: 400,
      count: 1,
    });
    const err = (await provider
      .create(
        'Kept',
        TYPE,
        basic({
          TableName: 'pack-kept',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 50 },
        }),
        createContext('Kept'),
      )
      .catch((e: unknown) => e)) as { createdPhysicalId?: string; createdIdentity?: Record<string, string> };
    const made = await table('pack-kept');
    expect(err.createdPhysicalId).toBe('pack-kept');
    expect(err.createdIdentity).toEqual({ tableId: made!.TableId });
    expect(await provider.readIdentity('pack-kept')).toEqual({ tableId: made!.TableId });
    // Deleted, and another table made under the name: a different TableId.
    await provider.delete('Kept', 'pack-kept', TYPE, {}, { expectedRegion: REGION });
    expect(await provider.readIdentity('pack-kept', TYPE, { expectedRegion: REGION })).toBeUndefined();
    await ddb.send(
      new CreateTableCommand({
        TableName: 'pack-kept',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const later = await provider.readIdentity('pack-kept');
    expect(later?.tableId).toBeDefined();
    expect(later).not.toEqual(err.createdIdentity);
  });

  it('updates in place: capacity, indexes added and removed one at a time, a new stream view, tags with ownership kept', async () => {
    const previous = {
      TableName: 'pack-updated',
      KeySchema: KEY,
      AttributeDefinitions: [...DEFS, { AttributeName: 'a', AttributeType: 'S' }],
      ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byA',
          KeySchema: [{ AttributeName: 'a', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
          ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
        },
      ],
      StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const created = await provider.create('Updated', TYPE, previous, createContext('Updated'));
    const desired = {
      TableName: 'pack-updated',
      KeySchema: KEY,
      AttributeDefinitions: [
        ...DEFS,
        { AttributeName: 'b', AttributeType: 'S' },
        { AttributeName: 'c', AttributeType: 'N' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes: [
        { IndexName: 'byB', KeySchema: [{ AttributeName: 'b', KeyType: 'HASH' }], Projection: {} },
        {
          IndexName: 'byC',
          KeySchema: [{ AttributeName: 'c', KeyType: 'HASH' }],
          Projection: { NonKeyAttributes: ['x'] },
        },
      ],
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'new', Value: '3' },
      ],
    };
    await emulator.control.clearRequests();
    const result = await provider.update('Updated', 'pack-updated', TYPE, desired, previous, {
      expectedRegion: REGION,
    });
    const after = (await table('pack-updated'))!;
    expect(result).toEqual({
      physicalId: 'pack-updated',
      wasReplaced: false,
      attributes: { Arn: arn('pack-updated'), StreamArn: after.LatestStreamArn },
    });
    expect(after.LatestStreamArn).not.toBe(created.attributes!.StreamArn);
    expect(after).toMatchObject({
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    });
    expect(after.GlobalSecondaryIndexes!.map((g) => [g.IndexName, g.Projection?.ProjectionType])).toEqual([
      ['byB', 'ALL'],
      ['byC', 'INCLUDE'],
    ]);
    // One index change per UpdateTable, as DynamoDB requires: delete byA, capacity, create byB, create byC, stream off, on.
    const calls = (await emulator.control.requests()).byOperation;
    expect(calls['dynamodb:UpdateTable']).toBe(6);
    expect(await tagsOf(arn('pack-updated'))).toEqual({
      keep: '1',
      new: '3',
      'cdkd:stack-name': 'DynamoPackTest',
      'cdkd:logical-id': 'Updated',
      'cdkd:token': expect.any(String),
    });
  });

  it('resets removed properties to what a new table has', async () => {
    const previous = basic({
      TableName: 'pack-reset',
      StreamSpecification: { StreamViewType: 'NEW_IMAGE', ResourcePolicy: { PolicyDocument: POLICY } },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      ContributorInsightsSpecification: { Enabled: true },
      ResourcePolicy: { PolicyDocument: POLICY },
      TableClass: 'STANDARD_INFREQUENT_ACCESS',
      DeletionProtectionEnabled: true,
      OnDemandThroughput: { MaxReadRequestUnits: 100, MaxWriteRequestUnits: 100 },
    });
    await provider.create('Reset', TYPE, previous, createContext('Reset'));
    const desired = basic({ TableName: 'pack-reset' });
    const result = await provider.update('Reset', 'pack-reset', TYPE, desired, previous, {
      expectedRegion: REGION,
    });
    expect(result.attributes).toEqual({ Arn: arn('pack-reset') });
    const after = (await table('pack-reset'))!;
    expect(after.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(after.SSEDescription?.Status ?? 'DISABLED').toBe('DISABLED');
    expect(after.TableClassSummary?.TableClass ?? 'STANDARD').toBe('STANDARD');
    expect(after.DeletionProtectionEnabled).toBe(false);
    expect(after.OnDemandThroughput ?? {}).toMatchObject({
      MaxReadRequestUnits: -1,
      MaxWriteRequestUnits: -1,
    });
    expect((await ttlOf('pack-reset'))?.TimeToLiveStatus).toMatch(/^DISABL/);
    expect((await pitrOf('pack-reset'))?.PointInTimeRecoveryStatus).toBe('DISABLED');
    expect(
      (await ddb.send(new DescribeContributorInsightsCommand({ TableName: 'pack-reset' })))
        .ContributorInsightsStatus,
    ).toMatch(/^DISABL/);
    expect(await policyOf(arn('pack-reset'))).toBe('PolicyNotFoundException');
    // Nothing left to change: the table now reads back as the template.
    expect(
      updateSteps(desired, (await provider.readCurrentState('pack-reset', 'Reset', TYPE, desired))!),
    ).toEqual([]);
  });

  it('reads a table back in template shape with no drift, and nothing for a missing table', async () => {
    const props = basic({
      TableName: 'pack-read',
      StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      Tags: [{ Key: 'a', Value: '1' }],
    });
    await provider.create('Read', TYPE, props, createContext('Read'));
    const current = (await provider.readCurrentState('pack-read', 'Read', TYPE, props))!;
    expect(current).toMatchObject({
      TableName: 'pack-read',
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      Tags: [{ Key: 'a', Value: '1' }],
    });
    expect(updateSteps(props, current)).toEqual([]);
    expect(await provider.readCurrentState('pack-none', 'None', TYPE)).toBeUndefined();
  });

  it('refuses to change local secondary indexes in place, with the remedy', async () => {
    const previous = basic({ TableName: 'pack-lsi' });
    await provider.create('Lsi', TYPE, previous, createContext('Lsi'));
    await expect(
      provider.update(
        'Lsi',
        'pack-lsi',
        TYPE,
        basic({
          TableName: 'pack-lsi',
          LocalSecondaryIndexes: [{ IndexName: 'l', KeySchema: KEY, Projection: { ProjectionType: 'ALL' } }],
        }),
        previous,
        { expectedRegion: REGION },
      ),
    ).rejects.toMatchObject({
      message: expect.stringContaining('cannot change LocalSecondaryIndexes'),
      remedy: expect.stringContaining('new TableName'),
    });
  });

  it('refuses an update in another region before touching anything', async () => {
    const previous = basic({ TableName: 'pack-regional' });
    await provider.create('Regional', TYPE, previous, createContext('Regional'));
    await expect(
      provider.update(
        'Regional',
        'pack-regional',
        TYPE,
        { ...previous, DeletionProtectionEnabled: true },
        previous,
        {
          expectedRegion: 'eu-west-1',
        },
      ),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });
    expect((await table('pack-regional'))!.DeletionProtectionEnabled).toBe(false);
  });

  it('deletes and waits until the table is gone; a missing table is gone in its own region only; a protected one names the remedy', async () => {
    await provider.create('Deleted', TYPE, basic({ TableName: 'pack-deleted' }), createContext('Deleted'));
    await provider.delete('Deleted', 'pack-deleted', TYPE, {}, { expectedRegion: REGION });
    expect(await table('pack-deleted')).toBeUndefined();
    await expect(
      provider.delete('Deleted', 'pack-deleted', TYPE, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
    await expect(
      provider.delete('Deleted', 'pack-deleted', TYPE, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });

    await provider.create(
      'Protected',
      TYPE,
      basic({ TableName: 'pack-protected', DeletionProtectionEnabled: true }),
      createContext('Protected'),
    );
    await expect(
      provider.delete('Protected', 'pack-protected', TYPE, {}, { expectedRegion: REGION }),
    ).rejects.toMatchObject({ remedy: expect.stringContaining('DeletionProtectionEnabled to false') });
    expect(await table('pack-protected')).toBeDefined();
  });

  it('waits for the table to become ACTIVE before configuring it (the SDK waiter, not a sleep)', async () => {
    await emulator.control.updateSettings({ dynamodbStatusDelayMs: 3_600_000 });
    await emulator.control.clearRequests();
    const creating = provider.create(
      'Slow',
      TYPE,
      basic({ TableName: 'pack-slow', TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } }),
      createContext('Slow'),
    );
    // Once the waiter has looked twice (and so has seen CREATING and polled again), let the table settle.
    const calls = async () => (await emulator.control.requests()).byOperation;
    while (((await calls())['dynamodb:DescribeTable'] ?? 0) < 2)
      await new Promise((resolve) => setImmediate(resolve));
    expect((await calls())['dynamodb:UpdateTimeToLive']).toBeUndefined();
    await emulator.control.updateSettings({ dynamodbStatusDelayMs: 0 });
    await creating;
    expect(await ttlOf('pack-slow')).toMatchObject({ TimeToLiveStatus: 'ENABLED' });
  });

  it('imports an existing table by name and finds nothing for a missing one', async () => {
    await ddb.send(
      new CreateTableCommand({
        TableName: 'pack-imported',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const input = { logicalId: 'Imported', resourceType: TYPE, stackName: 's', region: REGION };
    expect(await provider.import({ ...input, properties: { TableName: 'pack-imported' } })).toEqual({
      physicalId: 'pack-imported',
      attributes: { Arn: arn('pack-imported') },
    });
    expect(await provider.import({ ...input, properties: { TableName: 'pack-none' } })).toBeNull();
  });

  it('rides out throttling through the SDK retries', async () => {
    await emulator.control.addFault({
      service: 'dynamodb',
      operation: 'UpdateTimeToLive',
      error: 'ThrottlingException',
      count: 1,
    });
    const { physicalId } = await provider.create(
      'Throttled',
      TYPE,
      basic({ TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } }),
      createContext('Throttled'),
    );
    expect((await ttlOf(physicalId))?.TimeToLiveStatus).toBe('ENABLED');
  });
});
