import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  CreateTableCommand,
  DeleteItemCommand,
  DeleteResourcePolicyCommand,
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeContributorInsightsCommand,
  DescribeImportCommand,
  DescribeKinesisStreamingDestinationCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DisableKinesisStreamingDestinationCommand,
  DynamoDBClient,
  EnableKinesisStreamingDestinationCommand,
  GetItemCommand,
  GetResourcePolicyCommand,
  ImportTableCommand,
  ListImportsCommand,
  ListTablesCommand,
  ListTagsOfResourceCommand,
  paginateListTables,
  paginateQuery,
  PutItemCommand,
  PutResourcePolicyCommand,
  QueryCommand,
  ScanCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateContinuousBackupsCommand,
  UpdateContributorInsightsCommand,
  UpdateKinesisStreamingDestinationCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { startEmulator } from '../src/index';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ddb: DynamoDBClient;
let cc: CloudControlClient;
const ACCOUNT = '123456789012';
const ARN = (name: string) => `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/${name}`;

beforeAll(() => {
  ddb = new DynamoDBClient(clientConfig(ctx.emulator));
  cc = new CloudControlClient(clientConfig(ctx.emulator));
});
afterAll(() => {
  ddb.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

const setDelay = (ms: number) => ctx.emulator.control.updateSettings({ dynamodbStatusDelayMs: ms });
const describe_ = async (TableName: string) =>
  (await ddb.send(new DescribeTableCommand({ TableName }))).Table!;
/** A waiter that checks at once and then every few milliseconds (the emulator settles on the next read). */
const quickWaiter = {
  client: undefined as unknown as DynamoDBClient,
  minDelay: 1,
  maxDelay: 1,
  maxWaitTime: 20,
};

function simpleTable(
  TableName: string,
  extra: Partial<CreateTableCommandInput> = {},
): CreateTableCommandInput {
  return {
    TableName,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
    ...extra,
  };
}

describe('tables', () => {
  test('create with every part of a definition: CREATING, then ACTIVE with ids, ARNs and index statuses', async () => {
    const created = await ddb.send(
      new CreateTableCommand({
        TableName: 'orders',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
          { AttributeName: 'gpk', AttributeType: 'S' },
          { AttributeName: 'lsk', AttributeType: 'B' },
        ],
        ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by-gpk',
            KeySchema: [{ AttributeName: 'gpk', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['total'] },
            ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 },
          },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: 'by-lsk',
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'lsk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
        SSESpecification: { Enabled: true },
        TableClass: 'STANDARD_INFREQUENT_ACCESS',
        DeletionProtectionEnabled: true,
        Tags: [{ Key: 'team', Value: 'orders' }],
      }),
    );
    expect(created.TableDescription).toMatchObject({
      TableName: 'orders',
      TableStatus: 'CREATING',
      TableArn: ARN('orders'),
      TableId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      CreationDateTime: expect.any(Date),
    });
    await waitUntilTableExists({ ...quickWaiter, client: ddb }, { TableName: 'orders' });
    const table = await describe_('orders');
    expect(table).toMatchObject({
      TableStatus: 'ACTIVE',
      TableId: created.TableDescription!.TableId,
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5, NumberOfDecreasesToday: 0 },
      ItemCount: 0,
      TableSizeBytes: 0,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      SSEDescription: {
        Status: 'ENABLED',
        SSEType: 'KMS',
        KMSMasterKeyArn: expect.stringMatching(/^arn:aws:kms:us-east-1:123456789012:key\/[0-9a-f-]{36}$/),
      },
      TableClassSummary: { TableClass: 'STANDARD_INFREQUENT_ACCESS' },
      DeletionProtectionEnabled: true,
    });
    expect(table.BillingModeSummary).toBeUndefined();
    expect(table.LatestStreamArn).toBe(`${ARN('orders')}/stream/${table.LatestStreamLabel}`);
    expect(table.LatestStreamLabel).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    expect(table.GlobalSecondaryIndexes).toEqual([
      expect.objectContaining({
        IndexName: 'by-gpk',
        IndexStatus: 'ACTIVE',
        IndexArn: `${ARN('orders')}/index/by-gpk`,
        ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3, NumberOfDecreasesToday: 0 },
      }),
    ]);
    expect(table.GlobalSecondaryIndexes![0]!.Backfilling).toBeUndefined();
    expect(table.LocalSecondaryIndexes).toEqual([
      expect.objectContaining({ IndexName: 'by-lsk', IndexArn: `${ARN('orders')}/index/by-lsk` }),
    ]);
    expect((await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: ARN('orders') }))).Tags).toEqual([
      { Key: 'team', Value: 'orders' },
    ]);
    // Two tables never share an id.
    await ddb.send(new CreateTableCommand(simpleTable('other')));
    expect((await describe_('other')).TableId).not.toBe(table.TableId);
  });

  test('a table held in a transition refuses changes (ResourceInUseException) until it settles', async () => {
    await setDelay(3_600_000);
    await ddb.send(new CreateTableCommand(simpleTable('slow')));
    expect((await describe_('slow')).TableStatus).toBe('CREATING');
    await expect(
      ddb.send(new UpdateTableCommand({ TableName: 'slow', DeletionProtectionEnabled: true })),
    ).rejects.toMatchObject({
      name: 'ResourceInUseException',
      message: 'Attempt to change a resource which is still in use: Table is being created: slow',
    });
    await expect(ddb.send(new DeleteTableCommand({ TableName: 'slow' }))).rejects.toMatchObject({
      name: 'ResourceInUseException',
    });
    await expect(
      ddb.send(new PutItemCommand({ TableName: 'slow', Item: { pk: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await setDelay(0);
    expect((await describe_('slow')).TableStatus).toBe('ACTIVE');
    await setDelay(3_600_000);
    const update = await ddb.send(
      new UpdateTableCommand({ TableName: 'slow', TableClass: 'STANDARD_INFREQUENT_ACCESS' }),
    );
    expect(update.TableDescription!.TableStatus).toBe('UPDATING');
    await expect(
      ddb.send(new UpdateTableCommand({ TableName: 'slow', TableClass: 'STANDARD' })),
    ).rejects.toMatchObject({
      name: 'ResourceInUseException',
      message: 'Attempt to change a resource which is still in use: Table is being updated: slow',
    });
    await setDelay(0);
    expect((await describe_('slow')).TableStatus).toBe('ACTIVE');
  });

  test('CreateTable validation, ResourceInUseException for an existing table, ResourceNotFoundException', async () => {
    const invalid = async (input: Partial<CreateTableCommandInput>, message: string | RegExp) =>
      expect(ddb.send(new CreateTableCommand({ ...simpleTable('tbl1'), ...input }))).rejects.toMatchObject({
        name: 'ValidationException',
        $metadata: { httpStatusCode: 400 },
        message:
          typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
      });
    await invalid({ TableName: 'ab' }, 'TableName must be at least 3 characters long');
    await invalid(
      { TableName: 'bad name' },
      'Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+',
    );
    await invalid(
      { AttributeDefinitions: [] },
      'Some index key attributes are not defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: []',
    );
    await invalid(
      {
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'extra', AttributeType: 'S' },
        ],
      },
      'Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions',
    );
    await invalid(
      { BillingMode: 'PROVISIONED' },
      'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED',
    );
    await invalid(
      { ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } },
      'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
    );
    await invalid(
      {
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: 1 },
      },
      'Member must have value greater than or equal to 1',
    );
    await invalid(
      { KeySchema: [{ AttributeName: 'pk', KeyType: 'RANGE' }] },
      'The first KeySchemaElement is not a HASH key type',
    );
    await invalid(
      {
        LocalSecondaryIndexes: [
          {
            IndexName: 'lsi',
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'x', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      },
      'Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex',
    );
    const gsi = (name: string) => ({
      IndexName: name,
      KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' as const }],
      Projection: { ProjectionType: 'ALL' as const },
    });
    const withG = [
      { AttributeName: 'pk', AttributeType: 'S' as const },
      { AttributeName: 'g', AttributeType: 'S' as const },
    ];
    await invalid(
      { AttributeDefinitions: withG, GlobalSecondaryIndexes: [gsi('dup'), gsi('dup')] },
      'Duplicate index name: dup',
    );
    await invalid(
      {
        AttributeDefinitions: withG,
        GlobalSecondaryIndexes: [
          { ...gsi('gsi-1'), ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } },
        ],
      },
      'ProvisionedThroughput should not be specified for index: gsi-1 when BillingMode is PAY_PER_REQUEST',
    );
    await invalid(
      {
        AttributeDefinitions: withG,
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
        GlobalSecondaryIndexes: [gsi('gsi-1')],
      },
      'ProvisionedThroughput must be specified for index: gsi-1',
    );
    await invalid(
      {
        AttributeDefinitions: withG,
        GlobalSecondaryIndexes: [{ ...gsi('gsi-1'), Projection: { ProjectionType: 'INCLUDE' } }],
      },
      'ProjectionType is INCLUDE, but NonKeyAttributes is not specified',
    );

    await ddb.send(new CreateTableCommand(simpleTable('exists')));
    await expect(ddb.send(new CreateTableCommand(simpleTable('exists')))).rejects.toMatchObject({
      name: 'ResourceInUseException',
      message: 'Table already exists: exists',
    });
    await expect(ddb.send(new DescribeTableCommand({ TableName: 'missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Requested resource not found: Table: missing not found',
    });
    await expect(ddb.send(new DeleteTableCommand({ TableName: 'missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('a throttled CreateTable is retried by the SDK and makes one table', async () => {
    await ctx.emulator.control.addFault({
      service: 'dynamodb',
      operation: 'CreateTable',
      error: 'ThrottlingException',
      count: 1,
    });
    await ddb.send(new CreateTableCommand(simpleTable('throttled')));
    expect((await ddb.send(new ListTablesCommand({}))).TableNames).toEqual(['throttled']);
  });

  test('GSIs change one at a time: CREATING with Backfilling, LimitExceededException for a second, deletion prunes definitions', async () => {
    await ddb.send(new CreateTableCommand(simpleTable('idx')));
    await describe_('idx');
    const create = (IndexName: string, attribute: string) => ({
      Create: {
        IndexName,
        KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' as const }],
        Projection: { ProjectionType: 'ALL' as const },
      },
    });
    await expect(
      ddb.send(
        new UpdateTableCommand({
          TableName: 'idx',
          AttributeDefinitions: [
            { AttributeName: 'a', AttributeType: 'S' },
            { AttributeName: 'b', AttributeType: 'S' },
          ],
          GlobalSecondaryIndexUpdates: [create('idx-a', 'a'), create('idx-b', 'b')],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'LimitExceededException',
      message:
        'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table',
    });
    await expect(
      ddb.send(
        new UpdateTableCommand({ TableName: 'idx', GlobalSecondaryIndexUpdates: [create('idx-a', 'a')] }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('Keys: [a]') });

    await setDelay(3_600_000);
    const out = await ddb.send(
      new UpdateTableCommand({
        TableName: 'idx',
        AttributeDefinitions: [{ AttributeName: 'a', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [create('idx-a', 'a')],
      }),
    );
    expect(out.TableDescription!.TableStatus).toBe('UPDATING');
    expect(out.TableDescription!.GlobalSecondaryIndexes).toEqual([
      expect.objectContaining({ IndexName: 'idx-a', IndexStatus: 'CREATING', Backfilling: true }),
    ]);
    await expect(
      ddb.send(new UpdateTableCommand({ TableName: 'idx', DeletionProtectionEnabled: true })),
    ).rejects.toMatchObject({ name: 'ResourceInUseException' });
    await setDelay(0);
    const settled = await describe_('idx');
    expect(settled.TableStatus).toBe('ACTIVE');
    expect(settled.GlobalSecondaryIndexes![0]).toMatchObject({ IndexStatus: 'ACTIVE', Backfilling: false });
    expect(settled.AttributeDefinitions!.map((d) => d.AttributeName).sort()).toEqual(['a', 'pk']);

    await setDelay(3_600_000);
    const deleting = await ddb.send(
      new UpdateTableCommand({
        TableName: 'idx',
        GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'idx-a' } }],
      }),
    );
    expect(deleting.TableDescription!.GlobalSecondaryIndexes![0]!.IndexStatus).toBe('DELETING');
    await setDelay(0);
    const after = await describe_('idx');
    expect(after.GlobalSecondaryIndexes).toBeUndefined();
    expect(after.AttributeDefinitions).toEqual([{ AttributeName: 'pk', AttributeType: 'S' }]);
    await expect(
      ddb.send(
        new UpdateTableCommand({
          TableName: 'idx',
          GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'idx-a' } }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('billing mode switches, throughput changes, and updates that change nothing', async () => {
    await ddb.send(
      new CreateTableCommand({
        ...simpleTable('bill'),
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'g', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    expect((await describe_('bill')).BillingModeSummary).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      LastUpdateToPayPerRequestDateTime: expect.any(Date),
    });
    await expect(
      ddb.send(
        new UpdateTableCommand({
          TableName: 'bill',
          BillingMode: 'PROVISIONED',
          ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 },
        }),
      ),
    ).rejects.toMatchObject({
      message: expect.stringContaining('ProvisionedThroughput must be specified for index: gsi1'),
    });
    await ddb.send(
      new UpdateTableCommand({
        TableName: 'bill',
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 },
        GlobalSecondaryIndexUpdates: [
          {
            Update: {
              IndexName: 'gsi1',
              ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
            },
          },
        ],
      }),
    );
    const provisioned = await describe_('bill');
    expect(provisioned.BillingModeSummary!.BillingMode).toBe('PROVISIONED');
    expect(provisioned.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 3, WriteCapacityUnits: 3 });
    expect(provisioned.GlobalSecondaryIndexes![0]!.ProvisionedThroughput).toMatchObject({
      ReadCapacityUnits: 1,
    });
    await expect(
      ddb.send(
        new UpdateTableCommand({
          TableName: 'bill',
          ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 },
        }),
      ),
    ).rejects.toMatchObject({
      message: expect.stringContaining('The provisioned throughput for the table will not change'),
    });
    await ddb.send(
      new UpdateTableCommand({
        TableName: 'bill',
        ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 },
      }),
    );
    expect((await describe_('bill')).ProvisionedThroughput).toMatchObject({
      NumberOfDecreasesToday: 1,
      LastDecreaseDateTime: expect.any(Date),
    });
    await expect(ddb.send(new UpdateTableCommand({ TableName: 'bill' }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('At least one of ProvisionedThroughput, BillingMode'),
    });
    await ddb.send(new UpdateTableCommand({ TableName: 'bill', BillingMode: 'PAY_PER_REQUEST' }));
    const onDemand = await describe_('bill');
    expect(onDemand.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 0, WriteCapacityUnits: 0 });
    expect(onDemand.BillingModeSummary!.BillingMode).toBe('PAY_PER_REQUEST');
  });

  test('streams: enabled once, disabled keeps the last stream ARN, a new stream gets a new label', async () => {
    await ddb.send(new CreateTableCommand(simpleTable('streamed')));
    await expect(
      ddb.send(
        new UpdateTableCommand({ TableName: 'streamed', StreamSpecification: { StreamEnabled: false } }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    const enabled = await ddb.send(
      new UpdateTableCommand({
        TableName: 'streamed',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    const first = enabled.TableDescription!.LatestStreamArn!;
    expect(first).toMatch(/^arn:aws:dynamodb:us-east-1:123456789012:table\/streamed\/stream\/\d{4}-/);
    await expect(
      ddb.send(
        new UpdateTableCommand({
          TableName: 'streamed',
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
        }),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('Table already has an enabled stream') });
    await ddb.send(
      new UpdateTableCommand({ TableName: 'streamed', StreamSpecification: { StreamEnabled: false } }),
    );
    const disabled = await describe_('streamed');
    expect(disabled.StreamSpecification).toBeUndefined();
    expect(disabled.LatestStreamArn).toBe(first);
    const again = await ddb.send(
      new UpdateTableCommand({
        TableName: 'streamed',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    expect(again.TableDescription!.LatestStreamArn).toMatch(/\/stream\//);
    expect(again.TableDescription!.LatestStreamArn).not.toBe(first);
    expect(
      (
        await ddb.send(
          new ListTagsOfResourceCommand({ ResourceArn: again.TableDescription!.LatestStreamArn! }),
        )
      ).Tags,
    ).toEqual([]);
  });

  test('deletion protection, DELETING, and the SDK waiter for deletion', async () => {
    await ddb.send(new CreateTableCommand(simpleTable('protected', { DeletionProtectionEnabled: true })));
    await expect(ddb.send(new DeleteTableCommand({ TableName: 'protected' }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('protected against deletion'),
    });
    await ddb.send(new UpdateTableCommand({ TableName: 'protected', DeletionProtectionEnabled: false }));
    await setDelay(3_600_000);
    const deleted = await ddb.send(new DeleteTableCommand({ TableName: 'protected' }));
    expect(deleted.TableDescription!.TableStatus).toBe('DELETING');
    expect((await describe_('protected')).TableStatus).toBe('DELETING');
    await setDelay(0);
    await waitUntilTableNotExists({ ...quickWaiter, client: ddb }, { TableName: 'protected' });
    await expect(ddb.send(new DescribeTableCommand({ TableName: 'protected' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('ListTables pages by Limit and ExclusiveStartTableName; the paginator reads them all', async () => {
    for (const name of ['t-c', 't-a', 't-e', 't-b', 't-d'])
      await ddb.send(new CreateTableCommand(simpleTable(name)));
    const first = await ddb.send(new ListTablesCommand({ Limit: 2 }));
    expect(first).toMatchObject({ TableNames: ['t-a', 't-b'], LastEvaluatedTableName: 't-b' });
    const next = await ddb.send(new ListTablesCommand({ Limit: 2, ExclusiveStartTableName: 't-b' }));
    expect(next.TableNames).toEqual(['t-c', 't-d']);
    const names: string[] = [];
    for await (const page of paginateListTables({ client: ddb, pageSize: 2 }, {}))
      names.push(...page.TableNames!);
    expect(names).toEqual(['t-a', 't-b', 't-c', 't-d', 't-e']);
    await expect(ddb.send(new ListTablesCommand({ Limit: 101 }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    const west = new DynamoDBClient(clientConfig(ctx.emulator, 'us-west-2'));
    expect((await west.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    west.destroy();
  });
});

describe('settings managed by calls of their own', () => {
  beforeEach(async () => {
    await ddb.send(
      new CreateTableCommand({
        ...simpleTable('settings'),
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'g', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
  });

  test('time to live: enable, the documented refusals, disable', async () => {
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'settings' }))).TimeToLiveDescription,
    ).toEqual({
      TimeToLiveStatus: 'DISABLED',
    });
    const out = await ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: 'settings',
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' },
      }),
    );
    expect(out.TimeToLiveSpecification).toEqual({ Enabled: true, AttributeName: 'expires' });
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'settings' }))).TimeToLiveDescription,
    ).toEqual({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: 'expires',
    });
    await expect(
      ddb.send(
        new UpdateTimeToLiveCommand({
          TableName: 'settings',
          TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: 'TimeToLive is already enabled' });
    await expect(
      ddb.send(
        new UpdateTimeToLiveCommand({
          TableName: 'settings',
          TimeToLiveSpecification: { Enabled: true, AttributeName: 'other' },
        }),
      ),
    ).rejects.toMatchObject({
      message: 'TimeToLive is active on a different AttributeName: current AttributeName is expires',
    });
    await ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: 'settings',
        TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' },
      }),
    );
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'settings' }))).TimeToLiveDescription,
    ).toEqual({
      TimeToLiveStatus: 'DISABLED',
    });
    await expect(
      ddb.send(
        new UpdateTimeToLiveCommand({
          TableName: 'settings',
          TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' },
        }),
      ),
    ).rejects.toMatchObject({ message: 'TimeToLive is already disabled' });
    await expect(
      ddb.send(
        new UpdateTimeToLiveCommand({
          TableName: 'nope',
          TimeToLiveSpecification: { Enabled: true, AttributeName: 'x' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('point-in-time recovery: enable with a recovery period, describe, disable; TableNotFoundException', async () => {
    expect(
      (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: 'settings' })))
        .ContinuousBackupsDescription,
    ).toEqual({
      ContinuousBackupsStatus: 'ENABLED',
      PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' },
    });
    const out = await ddb.send(
      new UpdateContinuousBackupsCommand({
        TableName: 'settings',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 },
      }),
    );
    expect(out.ContinuousBackupsDescription!.PointInTimeRecoveryDescription).toMatchObject({
      PointInTimeRecoveryStatus: 'ENABLED',
      RecoveryPeriodInDays: 7,
      EarliestRestorableDateTime: expect.any(Date),
      LatestRestorableDateTime: expect.any(Date),
    });
    await expect(
      ddb.send(
        new UpdateContinuousBackupsCommand({
          TableName: 'settings',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 36 },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await ddb.send(
      new UpdateContinuousBackupsCommand({
        TableName: 'settings',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      }),
    );
    expect(
      (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: 'settings' })))
        .ContinuousBackupsDescription!.PointInTimeRecoveryDescription,
    ).toEqual({ PointInTimeRecoveryStatus: 'DISABLED' });
    await expect(ddb.send(new DescribeContinuousBackupsCommand({ TableName: 'nope' }))).rejects.toMatchObject(
      {
        name: 'TableNotFoundException',
        message: 'Table not found: nope',
      },
    );
  });

  test('contributor insights on a table and on an index', async () => {
    const out = await ddb.send(
      new UpdateContributorInsightsCommand({ TableName: 'settings', ContributorInsightsAction: 'ENABLE' }),
    );
    expect(out.ContributorInsightsStatus).toBe('ENABLING');
    expect(
      (await ddb.send(new DescribeContributorInsightsCommand({ TableName: 'settings' })))
        .ContributorInsightsStatus,
    ).toBe('ENABLED');
    await ddb.send(
      new UpdateContributorInsightsCommand({
        TableName: 'settings',
        IndexName: 'gsi1',
        ContributorInsightsAction: 'ENABLE',
      }),
    );
    const index = await ddb.send(
      new DescribeContributorInsightsCommand({ TableName: 'settings', IndexName: 'gsi1' }),
    );
    expect(index).toMatchObject({ IndexName: 'gsi1', ContributorInsightsStatus: 'ENABLED' });
    await ddb.send(
      new UpdateContributorInsightsCommand({ TableName: 'settings', ContributorInsightsAction: 'DISABLE' }),
    );
    expect(
      (await ddb.send(new DescribeContributorInsightsCommand({ TableName: 'settings' })))
        .ContributorInsightsStatus,
    ).toBe('DISABLED');
    await expect(
      ddb.send(
        new UpdateContributorInsightsCommand({
          TableName: 'settings',
          IndexName: 'none',
          ContributorInsightsAction: 'ENABLE',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('Kinesis streaming destinations: enable, update, describe, disable', async () => {
    const StreamArn = `arn:aws:kinesis:us-east-1:${ACCOUNT}:stream/changes`;
    const enabled = await ddb.send(
      new EnableKinesisStreamingDestinationCommand({ TableName: 'settings', StreamArn }),
    );
    expect(enabled.DestinationStatus).toBe('ENABLING');
    await ddb.send(
      new UpdateKinesisStreamingDestinationCommand({
        TableName: 'settings',
        StreamArn,
        UpdateKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: 'MICROSECOND' },
      }),
    );
    expect(
      (await ddb.send(new DescribeKinesisStreamingDestinationCommand({ TableName: 'settings' })))
        .KinesisDataStreamDestinations,
    ).toEqual([
      { StreamArn, DestinationStatus: 'ACTIVE', ApproximateCreationDateTimePrecision: 'MICROSECOND' },
    ]);
    await expect(
      ddb.send(
        new EnableKinesisStreamingDestinationCommand({ TableName: 'settings', StreamArn: 'not-an-arn' }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await ddb.send(new DisableKinesisStreamingDestinationCommand({ TableName: 'settings', StreamArn }));
    expect(
      (await ddb.send(new DescribeKinesisStreamingDestinationCommand({ TableName: 'settings' })))
        .KinesisDataStreamDestinations![0]!.DestinationStatus,
    ).toBe('DISABLED');
  });

  test('tags: TagResource, UntagResource, ListTagsOfResource in pages of ten', async () => {
    await ddb.send(
      new TagResourceCommand({
        ResourceArn: ARN('settings'),
        Tags: Array.from({ length: 12 }, (_, i) => ({
          Key: `k${String(i).padStart(2, '0')}`,
          Value: String(i),
        })),
      }),
    );
    const first = await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: ARN('settings') }));
    expect(first.Tags).toHaveLength(10);
    const second = await ddb.send(
      new ListTagsOfResourceCommand({ ResourceArn: ARN('settings'), NextToken: first.NextToken }),
    );
    expect(second.Tags).toHaveLength(2);
    expect(second.NextToken).toBeUndefined();
    await ddb.send(new UntagResourceCommand({ ResourceArn: ARN('settings'), TagKeys: ['k00', 'k01'] }));
    expect(
      (await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: ARN('settings') }))).Tags,
    ).toHaveLength(10);
    await expect(
      ddb.send(
        new TagResourceCommand({ ResourceArn: ARN('settings'), Tags: [{ Key: 'aws:x', Value: '1' }] }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      ddb.send(new ListTagsOfResourceCommand({ ResourceArn: ARN('missing') })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('resource policies on the table and on its stream', async () => {
    const Policy = JSON.stringify({ Version: '2012-10-17', Statement: [] });
    const { RevisionId } = await ddb.send(
      new PutResourcePolicyCommand({ ResourceArn: ARN('settings'), Policy }),
    );
    expect(await ddb.send(new GetResourcePolicyCommand({ ResourceArn: ARN('settings') }))).toMatchObject({
      Policy,
      RevisionId,
    });
    await ddb.send(new DeleteResourcePolicyCommand({ ResourceArn: ARN('settings') }));
    await expect(
      ddb.send(new GetResourcePolicyCommand({ ResourceArn: ARN('settings') })),
    ).rejects.toMatchObject({
      name: 'PolicyNotFoundException',
    });
    const streamed = await ddb.send(
      new UpdateTableCommand({
        TableName: 'settings',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    const streamArn = streamed.TableDescription!.LatestStreamArn!;
    await ddb.send(new PutResourcePolicyCommand({ ResourceArn: streamArn, Policy }));
    expect((await ddb.send(new GetResourcePolicyCommand({ ResourceArn: streamArn }))).Policy).toBe(Policy);
    await expect(
      ddb.send(new PutResourcePolicyCommand({ ResourceArn: ARN('settings'), Policy: 'not json' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });
});

describe('items', () => {
  beforeEach(async () => {
    await ddb.send(
      new CreateTableCommand({
        TableName: 'items',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
          { AttributeName: 'status', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by-status',
            KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    for (let i = 1; i <= 5; i++)
      await ddb.send(
        new PutItemCommand({
          TableName: 'items',
          Item: {
            pk: { S: 'user#1' },
            sk: { N: String(i * 10) },
            ...(i % 2 ? { status: { S: 'open' } } : {}),
            data: { M: { size: { N: String(i) }, tags: { SS: ['a', `t${i}`] } } },
            blob: { B: Buffer.from([i, 255]) },
          },
        }),
      );
  });

  test('put, get (with projection), conditional put and delete, ALL_OLD', async () => {
    const got = await ddb.send(
      new GetItemCommand({ TableName: 'items', Key: { pk: { S: 'user#1' }, sk: { N: '10' } } }),
    );
    expect(got.Item).toMatchObject({ pk: { S: 'user#1' }, sk: { N: '10' }, status: { S: 'open' } });
    expect(Buffer.from(got.Item!.blob!.B!)).toEqual(Buffer.from([1, 255]));
    const projected = await ddb.send(
      new GetItemCommand({
        TableName: 'items',
        Key: { pk: { S: 'user#1' }, sk: { N: '10' } },
        ProjectionExpression: '#d.size, sk',
        ExpressionAttributeNames: { '#d': 'data' },
      }),
    );
    expect(projected.Item).toEqual({ sk: { N: '10' }, data: { M: { size: { N: '1' } } } });
    await expect(
      ddb.send(
        new PutItemCommand({
          TableName: 'items',
          Item: { pk: { S: 'user#1' }, sk: { N: '10' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'The conditional request failed',
    });
    const replaced = await ddb.send(
      new PutItemCommand({
        TableName: 'items',
        Item: { pk: { S: 'user#1' }, sk: { N: '10' }, v: { N: '2' } },
        ConditionExpression: '#s = :open AND size(#d.tags) = :two',
        ExpressionAttributeNames: { '#s': 'status', '#d': 'data' },
        ExpressionAttributeValues: { ':open': { S: 'open' }, ':two': { N: '2' } },
        ReturnValues: 'ALL_OLD',
      }),
    );
    expect(replaced.Attributes).toMatchObject({ status: { S: 'open' } });
    const removed = await ddb.send(
      new DeleteItemCommand({
        TableName: 'items',
        Key: { pk: { S: 'user#1' }, sk: { N: '10' } },
        ReturnValues: 'ALL_OLD',
      }),
    );
    expect(removed.Attributes).toEqual({ pk: { S: 'user#1' }, sk: { N: '10' }, v: { N: '2' } });
    expect(
      (
        await ddb.send(
          new GetItemCommand({ TableName: 'items', Key: { pk: { S: 'user#1' }, sk: { N: '10' } } }),
        )
      ).Item,
    ).toBeUndefined();
  });

  test('key and expression validation', async () => {
    await expect(
      ddb.send(new PutItemCommand({ TableName: 'items', Item: { pk: { S: 'x' } } })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('Missing the key sk in the item'),
    });
    await expect(
      ddb.send(new PutItemCommand({ TableName: 'items', Item: { pk: { S: 'x' }, sk: { S: 'text' } } })),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Type mismatch for key sk expected: N actual: S'),
    });
    await expect(
      ddb.send(new GetItemCommand({ TableName: 'items', Key: { pk: { S: 'x' } } })),
    ).rejects.toMatchObject({ message: 'The provided key element does not match the schema' });
    await expect(
      ddb.send(
        new PutItemCommand({
          TableName: 'items',
          Item: { pk: { S: 'x' }, sk: { N: '1' } },
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':unused': { S: 'u' } },
        }),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('unused in expressions') });
    await expect(
      ddb.send(new PutItemCommand({ TableName: 'missing', Item: { pk: { S: 'x' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('query: key conditions, order, pages, filters, COUNT, an index', async () => {
    const keys = async (input: Record<string, unknown>) =>
      ((await ddb.send(new QueryCommand({ TableName: 'items', ...input } as never))).Items ?? []).map(
        (i) => i.sk?.N,
      );
    const values = (v: Record<string, unknown>) => ({ ExpressionAttributeValues: v });
    expect(await keys({ KeyConditionExpression: 'pk = :p', ...values({ ':p': { S: 'user#1' } }) })).toEqual([
      '10',
      '20',
      '30',
      '40',
      '50',
    ]);
    expect(
      await keys({
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
        ScanIndexForward: false,
        ...values({ ':p': { S: 'user#1' }, ':a': { N: '20' }, ':b': { N: '40' } }),
      }),
    ).toEqual(['40', '30', '20']);
    expect(
      await keys({
        KeyConditionExpression: 'pk = :p AND sk > :a',
        FilterExpression: 'attribute_exists(#s)',
        ExpressionAttributeNames: { '#s': 'status' },
        ...values({ ':p': { S: 'user#1' }, ':a': { N: '15' } }),
      }),
    ).toEqual(['30', '50']);
    const count = await ddb.send(
      new QueryCommand({
        TableName: 'items',
        KeyConditionExpression: 'pk = :p',
        Select: 'COUNT',
        ExpressionAttributeValues: { ':p': { S: 'user#1' } },
      }),
    );
    expect(count).toMatchObject({ Count: 5, ScannedCount: 5 });
    expect(count.Items).toBeUndefined();
    const pages: string[][] = [];
    for await (const page of paginateQuery(
      { client: ddb, pageSize: 2 },
      {
        TableName: 'items',
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'user#1' } },
      },
    ))
      pages.push((page.Items ?? []).map((i) => i.sk!.N!));
    expect(pages).toEqual([['10', '20'], ['30', '40'], ['50']]);
    const byStatus = await ddb.send(
      new QueryCommand({
        TableName: 'items',
        IndexName: 'by-status',
        KeyConditionExpression: '#s = :open',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':open': { S: 'open' } },
      }),
    );
    expect(byStatus.Items!.map((i) => i.sk!.N)).toEqual(['10', '30', '50']);
    await expect(
      ddb.send(
        new QueryCommand({
          TableName: 'items',
          KeyConditionExpression: 'sk = :s',
          ExpressionAttributeValues: { ':s': { N: '1' } },
        }),
      ),
    ).rejects.toMatchObject({ message: 'Query condition missed key schema element: pk' });
  });

  test('scan: filters, Limit with LastEvaluatedKey, ExclusiveStartKey', async () => {
    const all = await ddb.send(
      new ScanCommand({
        TableName: 'items',
        FilterExpression: 'contains(#d.tags, :t) AND sk IN (:a, :b)',
        ExpressionAttributeNames: { '#d': 'data' },
        ExpressionAttributeValues: { ':t': { S: 'a' }, ':a': { N: '20' }, ':b': { N: '40' } },
      }),
    );
    expect(all.Items!.map((i) => i.sk!.N)).toEqual(['20', '40']);
    expect(all.ScannedCount).toBe(5);
    const first = await ddb.send(new ScanCommand({ TableName: 'items', Limit: 3 }));
    expect(first.Items).toHaveLength(3);
    expect(first.LastEvaluatedKey).toEqual({ pk: { S: 'user#1' }, sk: { N: '30' } });
    const rest = await ddb.send(
      new ScanCommand({ TableName: 'items', ExclusiveStartKey: first.LastEvaluatedKey }),
    );
    expect(rest.Items!.map((i) => i.sk!.N)).toEqual(['40', '50']);
    expect(rest.LastEvaluatedKey).toBeUndefined();
    expect((await describe_('items')).ItemCount).toBe(5);
  });
});

describe('ImportTable from S3', () => {
  let s3: S3Client;
  beforeAll(() => (s3 = new S3Client(clientConfig(ctx.emulator))));
  afterAll(() => s3.destroy());

  const params = (TableName: string) => ({
    TableName,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }],
    BillingMode: 'PAY_PER_REQUEST' as const,
  });

  test('DynamoDB JSON (gzip) and CSV become items; IN_PROGRESS until the table settles, then COMPLETED', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'import-source' }));
    const json = [
      '{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}',
      'not json',
      '{"Item":{"pk":{"S":"b"},"bin":{"B":"aGk="}}}',
    ].join('\n');
    await s3.send(
      new PutObjectCommand({ Bucket: 'import-source', Key: 'json/part-1.json.gz', Body: gzipSync(json) }),
    );
    await setDelay(3_600_000);
    const started = await ddb.send(
      new ImportTableCommand({
        ClientToken: 'import-1',
        S3BucketSource: { S3Bucket: 'import-source', S3KeyPrefix: 'json/' },
        InputFormat: 'DYNAMODB_JSON',
        InputCompressionType: 'GZIP',
        TableCreationParameters: params('imported-json'),
      }),
    );
    const importArn = started.ImportTableDescription!.ImportArn!;
    expect(importArn).toMatch(/^arn:aws:dynamodb:us-east-1:123456789012:table\/imported-json\/import\/.+/);
    expect(started.ImportTableDescription).toMatchObject({
      ImportStatus: 'IN_PROGRESS',
      ErrorCount: 1,
      ImportedItemCount: 2,
    });
    // The same ClientToken is the same import.
    const again = await ddb.send(
      new ImportTableCommand({
        ClientToken: 'import-1',
        S3BucketSource: { S3Bucket: 'import-source', S3KeyPrefix: 'json/' },
        InputFormat: 'DYNAMODB_JSON',
        InputCompressionType: 'GZIP',
        TableCreationParameters: params('imported-json'),
      }),
    );
    expect(again.ImportTableDescription!.ImportArn).toBe(importArn);
    await setDelay(0);
    expect(
      (await ddb.send(new DescribeImportCommand({ ImportArn: importArn }))).ImportTableDescription,
    ).toMatchObject({
      ImportStatus: 'COMPLETED',
      EndTime: expect.any(Date),
    });
    const item = await ddb.send(new GetItemCommand({ TableName: 'imported-json', Key: { pk: { S: 'b' } } }));
    expect(Buffer.from(item.Item!.bin!.B!).toString()).toBe('hi');

    await s3.send(
      new PutObjectCommand({
        Bucket: 'import-source',
        Key: 'csv/data.csv',
        Body: 'pk;city\nx;Paris\ny;Oslo\n',
      }),
    );
    const csv = await ddb.send(
      new ImportTableCommand({
        S3BucketSource: { S3Bucket: 'import-source', S3KeyPrefix: 'csv/' },
        InputFormat: 'CSV',
        InputFormatOptions: { Csv: { Delimiter: ';' } },
        TableCreationParameters: params('imported-csv'),
      }),
    );
    expect(csv.ImportTableDescription!.ImportedItemCount).toBe(2);
    expect(
      (await ddb.send(new GetItemCommand({ TableName: 'imported-csv', Key: { pk: { S: 'y' } } }))).Item,
    ).toEqual({
      pk: { S: 'y' },
      city: { S: 'Oslo' },
    });
    expect((await ddb.send(new ListImportsCommand({}))).ImportSummaryList).toHaveLength(2);
  });

  test('a missing bucket fails the import and leaves no table; an unknown import is ImportNotFoundException', async () => {
    const failed = await ddb.send(
      new ImportTableCommand({
        S3BucketSource: { S3Bucket: 'no-such-bucket' },
        InputFormat: 'CSV',
        TableCreationParameters: params('never-imported'),
      }),
    );
    expect(failed.ImportTableDescription).toMatchObject({
      ImportStatus: 'FAILED',
      FailureCode: 'S3NoSuchBucket',
    });
    await expect(ddb.send(new DescribeTableCommand({ TableName: 'never-imported' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(
      ddb.send(new DescribeImportCommand({ ImportArn: `${ARN('x')}/import/none` })),
    ).rejects.toMatchObject({ name: 'ImportNotFoundException' });
  });
});

describe('the shared view with Cloud Control', () => {
  async function ccSettle(token: string) {
    const { ProgressEvent } = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }));
    expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
    return ProgressEvent!;
  }
  const ccRead = async (name: string) =>
    JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::DynamoDB::Table', Identifier: name })))
        .ResourceDescription!.Properties!,
    ) as Record<string, unknown>;

  test('a native table is a Cloud Control resource with every property, and the inventory lists it', async () => {
    await ddb.send(
      new CreateTableCommand(
        simpleTable('native', {
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
          Tags: [{ Key: 'a', Value: '1' }],
        }),
      ),
    );
    await ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: 'native',
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' },
      }),
    );
    await ddb.send(
      new UpdateContinuousBackupsCommand({
        TableName: 'native',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      }),
    );
    const table = await describe_('native');
    expect(await ccRead('native')).toEqual({
      TableName: 'native',
      Arn: ARN('native'),
      StreamArn: table.LatestStreamArn,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
      TableClass: 'STANDARD',
      DeletionProtectionEnabled: false,
      Tags: [{ Key: 'a', Value: '1' }],
    });
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::DynamoDB::Table' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual(['native']);
    expect((await ctx.emulator.control.inventory()).map((i) => [i.type, i.identifier])).toEqual([
      ['AWS::DynamoDB::Table', 'native'],
    ]);
  });

  test('a table made and updated through Cloud Control is the native table, ACTIVE', async () => {
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::DynamoDB::Table',
        DesiredState: JSON.stringify({
          TableName: 'by-cc',
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
          TimeToLiveSpecification: { AttributeName: 'exp', Enabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
        }),
      }),
    );
    await ccSettle(created.ProgressEvent!.RequestToken!);
    const table = await describe_('by-cc');
    expect(table).toMatchObject({ TableStatus: 'ACTIVE', SSEDescription: { Status: 'ENABLED' } });
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'by-cc' }))).TimeToLiveDescription,
    ).toEqual({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: 'exp',
    });
    const updated = await cc.send(
      new UpdateResourceCommand({
        TypeName: 'AWS::DynamoDB::Table',
        Identifier: 'by-cc',
        PatchDocument: JSON.stringify([
          { op: 'remove', path: '/PointInTimeRecoverySpecification' },
          { op: 'remove', path: '/TimeToLiveSpecification' },
          { op: 'add', path: '/AttributeDefinitions/-', value: { AttributeName: 'g', AttributeType: 'S' } },
          {
            op: 'add',
            path: '/GlobalSecondaryIndexes',
            value: [
              {
                IndexName: 'gsi1',
                KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
                Projection: { ProjectionType: 'ALL' },
              },
            ],
          },
        ]),
      }),
    );
    await ccSettle(updated.ProgressEvent!.RequestToken!);
    const after = await describe_('by-cc');
    expect(after.TableId).toBe(table.TableId);
    expect(after.GlobalSecondaryIndexes!.map((i) => [i.IndexName, i.IndexStatus])).toEqual([
      ['gsi1', 'ACTIVE'],
    ]);
    expect(
      (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: 'by-cc' })))
        .ContinuousBackupsDescription!.PointInTimeRecoveryDescription!.PointInTimeRecoveryStatus,
    ).toBe('DISABLED');
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'by-cc' }))).TimeToLiveDescription!
        .TimeToLiveStatus,
    ).toBe('DISABLED');
    expect(await ccRead('by-cc')).not.toHaveProperty('PointInTimeRecoverySpecification');
  });
});

test('tables and their items, binary values included, survive a restart with --state-dir', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddb-state-'));
  try {
    const first = await startEmulator({ port: 0, stateDir: dir });
    const client = new DynamoDBClient(clientConfig(first));
    await client.send(new CreateTableCommand(simpleTable('kept')));
    await client.send(
      new PutItemCommand({ TableName: 'kept', Item: { pk: { S: 'k' }, bin: { B: Buffer.from('hi') } } }),
    );
    const id = (await client.send(new DescribeTableCommand({ TableName: 'kept' }))).Table!.TableId;
    client.destroy();
    await first.stop();
    const second = await startEmulator({ port: 0, stateDir: dir });
    const again = new DynamoDBClient(clientConfig(second));
    expect((await again.send(new DescribeTableCommand({ TableName: 'kept' }))).Table!.TableId).toBe(id);
    const item = (await again.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'k' } } }))).Item!;
    expect(Buffer.from(item.bin!.B!).toString()).toBe('hi');
    again.destroy();
    await second.stop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
