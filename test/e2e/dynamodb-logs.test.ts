/**
 * A real aws-cdk-lib app with DynamoDB tables (a global index, a stream, TTL,
 * PITR) and CloudWatch log groups, through the built CLI against the emulator
 * and the bundled DynamoDB and Logs packs. Deploy, update in place (a second
 * index, a removed stream and PITR, a removed retention, tags), replacement
 * (a new partition key, a new log group name), no-op and destroy: the
 * request log shows every type going through its own service's API and no
 * Cloud Control request, and the emulator's inventory equals state after
 * each step.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import type { StackState } from '../../src/state/types';

const lib = (m: string) => JSON.stringify(require.resolve(m));

const APP = `const cdk = require(${lib('aws-cdk-lib')});
const dynamodb = require(${lib('aws-cdk-lib/aws-dynamodb')});
const logs = require(${lib('aws-cdk-lib/aws-logs')});
const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const stack = new cdk.Stack(app, 'Stack', { stackName: app.node.tryGetContext('stackName') });
const destroy = cdk.RemovalPolicy.DESTROY;
const orders = new dynamodb.Table(stack, 'Orders', {
  partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
  sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
  billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
  timeToLiveAttribute: 'expires',
  ...(variant === 'v1'
    ? { stream: dynamodb.StreamViewType.NEW_IMAGE, pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true } }
    : {}),
  removalPolicy: destroy,
});
orders.addGlobalSecondaryIndex({ indexName: 'byStatus', partitionKey: { name: 'status', type: dynamodb.AttributeType.STRING } });
if (variant !== 'v1')
  orders.addGlobalSecondaryIndex({ indexName: 'byCustomer', partitionKey: { name: 'customer', type: dynamodb.AttributeType.STRING } });
new dynamodb.Table(stack, 'Counters', {
  partitionKey: { name: variant === 'v3' ? 'counterId' : 'id', type: dynamodb.AttributeType.STRING },
  readCapacity: variant === 'v1' ? 1 : 2,
  writeCapacity: 1,
  removalPolicy: destroy,
});
const group = new logs.LogGroup(stack, 'AppLogs', {
  retention: variant === 'v1' ? logs.RetentionDays.ONE_WEEK : logs.RetentionDays.INFINITE,
  removalPolicy: destroy,
});
cdk.Tags.of(group).add('team', variant === 'v1' ? 'core' : 'platform');
new logs.LogGroup(stack, 'Audit', {
  logGroupName: variant === 'v3' ? '/e2e/audit-renamed' : '/e2e/audit',
  retention: logs.RetentionDays.ONE_MONTH,
  removalPolicy: destroy,
});
new cdk.CfnOutput(stack, 'OrdersStream', { value: variant === 'v1' ? orders.tableStreamArn : 'none' });
app.synth();
`;

const STACK = 'DynamoLogs';
const SERVICE_OF: Record<string, string> = {
  'AWS::DynamoDB::Table': 'dynamodb',
  'AWS::Logs::LogGroup': 'logs',
};

describe('DynamoDB tables and log groups through their packs', () => {
  let h: CdkdHarness;
  let dir: string;
  let ddb: DynamoDBClient;
  let cwl: CloudWatchLogsClient;

  const cdkd = (command: 'deploy' | 'destroy', variant: string) =>
    h.cdkd(
      [
        command,
        ...(command === 'deploy' ? ['--progress', 'events'] : ['--force']),
        '-o',
        path.join(dir, 'out'),
        '-c',
        `stackName=${STACK}`,
        '-c',
        `variant=${variant}`,
      ],
      { cwd: dir },
    );
  const calls = async () => Object.keys((await h.emulator.control.requests()).byOperation);
  const expectNoCloudControl = async () =>
    expect((await calls()).filter((c) => c.startsWith('cloudcontrol:'))).toEqual([]);
  const resource = (state: StackState | undefined, prefix: string) =>
    Object.entries(state?.resources ?? {}).find(([id]) => id.startsWith(prefix))![1];
  const expectInventoryMatchesState = async () => {
    const state = await h.readState(STACK);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    return state;
  };
  const describeTable = async (name: string) =>
    (await ddb.send(new DescribeTableCommand({ TableName: name }))).Table!;
  const logGroup = async (name: string) =>
    (await cwl.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }))).logGroups?.find(
      (g) => g.logGroupName === name,
    );

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-dynamodb-logs-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    const config = {
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    ddb = new DynamoDBClient(config);
    cwl = new CloudWatchLogsClient(config);
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    for (const c of [ddb, cwl]) c?.destroy();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(['@cdkd/provider-dynamodb', '@cdkd/provider-logs'])(
    'cdkd providers check --pack %s: every property accounted for',
    async (pack) => {
      const result = await h.cdkd(['providers', 'check', '--pack', pack]);
      expectExit(result);
      expect(result.stdout).toMatch(
        /\(@cdkd\/provider-\w+\): \d+ handled, 0 by design, \d+ read-only, 0 unaccounted/,
      );
    },
  );

  it('deploys every resource through its own service API', async () => {
    await h.emulator.control.clearRequests();
    expectExit(await cdkd('deploy', 'v1'));
    const state = await expectInventoryMatchesState();
    const resources = Object.values(state!.resources);
    expect(resources.map((r) => r.resourceType).sort()).toEqual([
      'AWS::DynamoDB::Table',
      'AWS::DynamoDB::Table',
      'AWS::Logs::LogGroup',
      'AWS::Logs::LogGroup',
    ]);
    expect(resources.every((r) => r.provisionedBy === 'sdk')).toBe(true);
    const made = await calls();
    for (const service of Object.values(SERVICE_OF))
      expect(made.some((c) => c.startsWith(`${service}:`))).toBe(true);
    expect(made).toEqual(
      expect.arrayContaining([
        'dynamodb:CreateTable',
        'dynamodb:UpdateTimeToLive',
        'dynamodb:UpdateContinuousBackups',
        'logs:CreateLogGroup',
        'logs:PutRetentionPolicy',
      ]),
    );
    await expectNoCloudControl();

    const orders = await describeTable(resource(state, 'Orders').physicalId);
    expect(orders).toMatchObject({
      TableStatus: 'ACTIVE',
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      GlobalSecondaryIndexes: [{ IndexName: 'byStatus', IndexStatus: 'ACTIVE' }],
    });
    // Fn::GetAtt StreamArn resolved from the pack's attributes.
    expect(state!.outputs.OrdersStream).toBe(orders.LatestStreamArn);
    expect(
      (await ddb.send(new DescribeTimeToLiveCommand({ TableName: orders.TableName }))).TimeToLiveDescription,
    ).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' });
    expect(await logGroup(resource(state, 'AppLogs').physicalId)).toMatchObject({ retentionInDays: 7 });
    expect(await logGroup('/e2e/audit')).toMatchObject({ retentionInDays: 30 });
  });

  it('updates in place: a new index, a removed stream, PITR and retention, capacity and tags', async () => {
    const before = await h.readState(STACK);
    await h.emulator.control.clearRequests();
    expectExit(await cdkd('deploy', 'v2'));
    const state = await expectInventoryMatchesState();
    await expectNoCloudControl();
    for (const id of ['Orders', 'Counters', 'AppLogs', 'Audit'])
      expect(resource(state, id).physicalId).toBe(resource(before, id).physicalId);

    const orders = await describeTable(resource(state, 'Orders').physicalId);
    expect(orders.GlobalSecondaryIndexes!.map((g) => g.IndexName).sort()).toEqual(['byCustomer', 'byStatus']);
    expect(orders.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(
      (await ddb.send(new DescribeContinuousBackupsCommand({ TableName: orders.TableName })))
        .ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus,
    ).toBe('DISABLED');
    expect(resource(state, 'Orders').attributes?.StreamArn).toBeUndefined();
    expect((await describeTable(resource(state, 'Counters').physicalId)).ProvisionedThroughput).toMatchObject(
      { ReadCapacityUnits: 2, WriteCapacityUnits: 1 },
    );
    // The retention removed from the template: the group's events never expire again.
    expect((await logGroup(resource(state, 'AppLogs').physicalId))!.retentionInDays).toBeUndefined();
    const made = await calls();
    expect(made).toEqual(
      expect.arrayContaining(['dynamodb:UpdateTable', 'logs:DeleteRetentionPolicy', 'logs:TagResource']),
    );
    expect(made).not.toContain('dynamodb:CreateTable');
    expect(made).not.toContain('logs:CreateLogGroup');
  });

  it('replaces a table whose key changed and a log group whose name changed, deleting the originals', async () => {
    const before = await h.readState(STACK);
    await h.emulator.control.clearRequests();
    expectExit(await cdkd('deploy', 'v3'));
    const state = await expectInventoryMatchesState();
    await expectNoCloudControl();
    const counters = resource(state, 'Counters');
    expect(counters.physicalId).not.toBe(resource(before, 'Counters').physicalId);
    expect((await describeTable(counters.physicalId)).KeySchema).toEqual([
      { AttributeName: 'counterId', KeyType: 'HASH' },
    ]);
    expect(resource(state, 'Audit').physicalId).toBe('/e2e/audit-renamed');
    expect(await logGroup('/e2e/audit')).toBeUndefined();
    expect(await calls()).toEqual(
      expect.arrayContaining([
        'dynamodb:CreateTable',
        'dynamodb:DeleteTable',
        'logs:CreateLogGroup',
        'logs:DeleteLogGroup',
      ]),
    );
  });

  it('redeploys with no changes: no call to DynamoDB, Logs or Cloud Control', async () => {
    await h.emulator.control.clearRequests();
    const result = await cdkd('deploy', 'v3');
    expectExit(result);
    expect(result.stderr).toMatch(/no changes/);
    expect((await calls()).filter((c) => /^(cloudcontrol|dynamodb|logs):/.test(c))).toEqual([]);
    await expectInventoryMatchesState();
  });

  it('destroys everything through the packs', async () => {
    await h.emulator.control.clearRequests();
    expectExit(await cdkd('destroy', 'v3'));
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
    await expectNoCloudControl();
    expect(await calls()).toEqual(expect.arrayContaining(['dynamodb:DeleteTable', 'logs:DeleteLogGroup']));
  });
});
