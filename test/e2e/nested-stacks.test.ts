/**
 * A real aws-cdk-lib app with two levels of nested stacks (parent -> child ->
 * grandchild), through the built CLI against the emulator: each
 * AWS::CloudFormation::Stack becomes a child state record under its parent
 * (never a Cloud Control request), the parent's topic reaches the child as a
 * Parameter, the grandchild's queue and table reach the child and the parent
 * through Outputs.*, an update of the grandchild (in place and a replacement)
 * flows up to the parent's outputs, the state commands show the tree, and
 * destroy leaves nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import {
  BIN,
  STATE_BUCKET,
  expectExit,
  inventoryResources,
  startHarness,
  stateResources,
} from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import type { StackState } from '../../src/state/types';

const lib = (m: string) => JSON.stringify(require.resolve(m));

const APP = `const cdk = require(${lib('aws-cdk-lib')});
const sqs = require(${lib('aws-cdk-lib/aws-sqs')});
const sns = require(${lib('aws-cdk-lib/aws-sns')});
const iam = require(${lib('aws-cdk-lib/aws-iam')});
const dynamodb = require(${lib('aws-cdk-lib/aws-dynamodb')});
const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const destroy = cdk.RemovalPolicy.DESTROY;
const parent = new cdk.Stack(app, 'Parent', { stackName: app.node.tryGetContext('stackName') ?? 'NestedApp' });
const topic = new sns.Topic(parent, 'Events');

const child = new cdk.NestedStack(parent, 'Child');
// v3 drops the grandchild.
let dlq, table;
if (variant !== 'v3') {
  const grandchild = new cdk.NestedStack(child, 'Grandchild');
  dlq = new sqs.Queue(grandchild, 'DeadLetters', {
    retentionPeriod: cdk.Duration.days(variant === 'v1' ? 4 : 7),
    removalPolicy: destroy,
  });
  table = new dynamodb.Table(grandchild, 'Ledger', {
    partitionKey: { name: variant === 'v1' ? 'id' : 'entryId', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    removalPolicy: destroy,
  });
}

const work = new sqs.Queue(child, 'Work', {
  ...(dlq ? { deadLetterQueue: { queue: dlq, maxReceiveCount: 3 } } : {}),
  removalPolicy: destroy,
});
// The parent's topic reaches the child as a Parameter.
new sns.Subscription(child, 'WorkSubscription', { topic, endpoint: work.queueArn, protocol: sns.SubscriptionProtocol.SQS });
work.addToResourcePolicy(new iam.PolicyStatement({
  actions: ['sqs:SendMessage'],
  principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
  resources: [work.queueArn],
  conditions: { ArnEquals: { 'aws:SourceArn': topic.topicArn } },
}));

new cdk.CfnOutput(parent, 'WorkQueueUrl', { value: work.queueUrl });
new cdk.CfnOutput(parent, 'LedgerTable', { value: table ? table.tableName : 'none' });
app.synth();
`;

const PARENT = 'NestedApp';

describe('nested stacks: parent -> child -> grandchild', () => {
  let h: CdkdHarness;
  let dir: string;
  let sqsClient: SQSClient;

  const cdkd = (args: string[]) => h.cdkd(args, { cwd: dir });
  const deploy = (variant: string) =>
    cdkd([
      'deploy',
      '--progress',
      'events',
      '-o',
      path.join(dir, `out-${variant}`),
      '-c',
      `variant=${variant}`,
    ]);

  /** The parent and every nested stack below it, by reading each nested-stack record's child. */
  const tree = async (root = PARENT): Promise<Array<{ name: string; state: StackState }>> => {
    const out: Array<{ name: string; state: StackState }> = [];
    const walk = async (name: string) => {
      const state = await h.readState(name);
      if (!state) return;
      out.push({ name, state });
      for (const [id, r] of Object.entries(state.resources))
        if (r.resourceType === 'AWS::CloudFormation::Stack') await walk(`${name}~${id}`);
    };
    await walk(root);
    return out;
  };
  const childName = (state: StackState, parentName: string) =>
    `${parentName}~${Object.entries(state.resources).find(([, r]) => r.resourceType === 'AWS::CloudFormation::Stack')![0]}`;
  const resourceOf = (state: StackState, prefix: string) =>
    Object.entries(state.resources).find(([id]) => id.startsWith(prefix))![1];

  /** Everything in the emulator is in some stack's state, and the reverse (nested-stack records are cdkd's own). */
  const expectInventoryMatchesTree = async (root = PARENT) => {
    const stacks = await tree(root);
    const recorded = stacks
      .flatMap(({ state }) => stateResources(state))
      .filter((r) => !r.startsWith('AWS::CloudFormation::Stack '))
      .sort();
    expect(inventoryResources(await h.appInventory())).toEqual(recorded);
    return stacks;
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-nested-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    sqsClient = new SQSClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    sqsClient?.destroy();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('deploys the tree: each nested stack its own record under its parent, values passed down and up', async () => {
    await h.emulator.control.clearRequests();
    const result = await deploy('v1');
    expectExit(result);
    const stacks = await expectInventoryMatchesTree();
    expect(stacks).toHaveLength(3);
    const [parent, child, grandchild] = stacks.map((s) => s.state);
    expect(stacks[1].name).toBe(childName(parent, PARENT));
    expect(stacks[2].name).toBe(childName(child, stacks[1].name));
    expect(parent.parentStack).toBeUndefined();
    expect(child).toMatchObject({ parentStack: PARENT, parentRegion: 'us-east-1' });
    expect(grandchild).toMatchObject({ parentStack: stacks[1].name, parentRegion: 'us-east-1' });
    expect(stacks[1].name).toBe(`${PARENT}~${child.parentLogicalId}`);

    // Grandchild -> child -> parent through Outputs.*.
    const work = resourceOf(child, 'Work');
    expect(parent.outputs.WorkQueueUrl).toBe(work.physicalId);
    const ledger = resourceOf(grandchild, 'Ledger');
    expect(parent.outputs.LedgerTable).toBe(ledger.physicalId);
    // The child's queue is wired to the grandchild's queue and to the parent's topic (a Parameter).
    const dlq = resourceOf(grandchild, 'DeadLetters');
    const attrs = await sqsClient.send(
      new GetQueueAttributesCommand({ QueueUrl: work.physicalId, AttributeNames: ['RedrivePolicy'] }),
    );
    expect(JSON.parse(attrs.Attributes!.RedrivePolicy!).deadLetterTargetArn).toBe(dlq.attributes?.Arn);
    const subscription = Object.values(child.resources).find(
      (r) => r.resourceType === 'AWS::SNS::Subscription',
    )!;
    expect(subscription.properties?.TopicArn).toBe(resourceOf(parent, 'Events').physicalId);

    // No nested stack reaches Cloud Control, and none of the nested-stack records claims a pack.
    const calls = Object.keys((await h.emulator.control.requests()).byOperation);
    expect(calls.filter((c) => c.startsWith('cloudcontrol:'))).toEqual([]);
    for (const { state } of stacks)
      for (const r of Object.values(state.resources))
        if (r.resourceType === 'AWS::CloudFormation::Stack')
          expect(r).toMatchObject({
            provisionedBy: 'sdk',
            physicalId: expect.stringMatching(/^arn:aws:cloudformation:us-east-1:\d+:stack\//),
          });
    // The children took no lock of their own.
    for (const { name } of stacks)
      expect(await h.stateObjectExists(`cdkd/${name}/us-east-1/lock.json`)).toBe(false);
  });

  it('state list --tree and state show --show-nested show the tree', async () => {
    const stacks = await tree();
    const list = await cdkd(['state', 'list', '--tree']);
    expectExit(list);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      `${PARENT} (us-east-1)`,
      `└── ${stacks[1].name} (us-east-1)`,
      `    └── ${stacks[2].name} (us-east-1)`,
    ]);
    const show = await cdkd(['state', 'show', PARENT, '--show-nested', '--json']);
    expectExit(show);
    const view = JSON.parse(show.stdout) as {
      state: StackState;
      children: Array<{ state: StackState; children: Array<{ state: StackState; children: unknown[] }> }>;
    };
    expect(view.state.stackName).toBe(PARENT);
    expect(view.children.map((c) => c.state.stackName)).toEqual([stacks[1].name]);
    expect(view.children[0].children.map((c) => c.state.stackName)).toEqual([stacks[2].name]);
    expect(view.children[0].children[0].children).toEqual([]);
  });

  it('a second deploy changes nothing', async () => {
    const before = await tree();
    const result = await deploy('v1');
    expectExit(result);
    const after = await tree();
    expect(after.map((s) => s.state.serial)).toEqual(before.map((s) => s.state.serial));
  });

  it('updates the grandchild (in place and a replacement); the new values flow up to the parent', async () => {
    const before = await tree();
    const result = await deploy('v2');
    expectExit(result);
    const stacks = await expectInventoryMatchesTree();
    const [parent, child, grandchild] = stacks.map((s) => s.state);
    expect(stacks.map((s) => s.name)).toEqual(before.map((s) => s.name));
    // In place: the dead-letter queue keeps its URL, with the new retention.
    const dlq = resourceOf(grandchild, 'DeadLetters');
    expect(dlq.physicalId).toBe(resourceOf(before[2].state, 'DeadLetters').physicalId);
    const attrs = await sqsClient.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.physicalId, AttributeNames: ['MessageRetentionPeriod'] }),
    );
    expect(attrs.Attributes!.MessageRetentionPeriod).toBe(String(7 * 24 * 3600));
    // Replaced: a new table, whose name the parent's output now carries.
    const ledger = resourceOf(grandchild, 'Ledger');
    expect(ledger.physicalId).not.toBe(resourceOf(before[2].state, 'Ledger').physicalId);
    expect(parent.outputs.LedgerTable).toBe(ledger.physicalId);
    expect(parent.outputs.WorkQueueUrl).toBe(resourceOf(child, 'Work').physicalId);
    // The nested-stack records kept their ids (updated, not replaced).
    expect(childName(parent, PARENT)).toBe(before[1].name);
  });

  it('a nested stack removed from the app is destroyed with everything in it', async () => {
    const before = await tree();
    const result = await deploy('v3');
    expectExit(result);
    const stacks = await expectInventoryMatchesTree();
    expect(stacks.map((s) => s.name)).toEqual(before.slice(0, 2).map((s) => s.name));
    expect(await h.readState(before[2].name)).toBeUndefined();
    expect(stacks[0].state.outputs.LedgerTable).toBe('none');
    const work = resourceOf(stacks[1].state, 'Work');
    const attrs = await sqsClient.send(
      new GetQueueAttributesCommand({ QueueUrl: work.physicalId, AttributeNames: ['All'] }),
    );
    expect(attrs.Attributes?.RedrivePolicy).toBeUndefined();
  });

  it('destroy deletes the children with the parent and leaves nothing', async () => {
    const stacks = await tree();
    expect(stacks).toHaveLength(2);
    const result = await cdkd([
      'destroy',
      '--force',
      '-o',
      path.join(dir, 'out-destroy'),
      '-c',
      'variant=v3',
    ]);
    expectExit(result);
    expect(await h.appInventory()).toEqual([]);
    for (const { name } of stacks) {
      expect(await h.readState(name)).toBeUndefined();
      expect(await h.stateObjectExists(`cdkd/${name}/us-east-1/lock.json`)).toBe(false);
    }
    const list = await cdkd(['state', 'list']);
    expectExit(list);
    expect(list.stdout.trim()).toBe('');
  });

  it('a process killed mid-grandchild: the re-run settles each level and converges, destroy leaves nothing', async () => {
    const stack = 'NestedCrash';
    const args = [
      'deploy',
      '--progress',
      'events',
      '-o',
      path.join(dir, 'out-crash'),
      '-c',
      'variant=v1',
      '-c',
      `stackName=${stack}`,
    ];
    // The grandchild's table create is held in the emulator, so the kill lands while it is in flight.
    await h.emulator.control.setLatency({ service: 'dynamodb', operation: 'CreateTable', ms: 5000 });
    await h.emulator.control.clearRequests();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: h.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('close', (_code, signal) => resolve(signal)),
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const sent = async () =>
      ((await h.emulator.control.requests()).byOperation['dynamodb:CreateTable'] ?? 0) > 0;
    while (!(await sent())) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // The held create still lands (its reply is lost with the process).
    const tableMade = async () => (await h.appInventory()).some((r) => r.type === 'AWS::DynamoDB::Table');
    while (!(await tableMade())) await new Promise((r) => setTimeout(r, 100));
    await h.emulator.control.clearLatency();

    // Every level of the tree has its write-ahead log: the parent's and the child's nested-stack
    // creates and the grandchild's table create are pending there.
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    const keys =
      (await s3.send(new ListObjectsV2Command({ Bucket: STATE_BUCKET, Prefix: `cdkd/${stack}` }))).Contents ??
      [];
    s3.destroy();
    const logged = new Set(keys.filter((k) => k.Key!.includes('/wal/')).map((k) => k.Key!.split('/')[1]));
    expect(logged.size).toBe(3);

    expectExit(await cdkd(['force-unlock', stack, '--region', 'us-east-1', '--force']));
    const rerun = await cdkd(args);
    expectExit(rerun);
    // Each level settles its own pending operations first: the parent's re-sent nested-stack create
    // deploys the child, whose re-sent one deploys the grandchild, which re-sends its table create
    // (and its queue's, when the kill also caught that one in flight, as it can on a loaded machine).
    const settled = [
      ...rerun.stderr.matchAll(/(\S+): settling (\d+) operation\(s\) an interrupted run left in flight/g),
    ];
    expect(settled.map((m) => m[1]).sort()).toEqual([...logged].sort());
    for (const m of settled) expect(Number(m[2])).toBeGreaterThanOrEqual(1);
    const stacks = await expectInventoryMatchesTree(stack);
    expect(stacks).toHaveLength(3);
    for (const { name, state } of stacks) {
      expect(state.pendingIntents ?? []).toEqual([]);
      expect(await h.stateObjectExists(`cdkd/${name}/us-east-1/lock.json`)).toBe(false);
    }
    // One table: the re-sent create adopted what the lost reply made.
    expect((await h.appInventory()).filter((r) => r.type === 'AWS::DynamoDB::Table')).toHaveLength(1);
    expect(stacks[0].state.outputs.LedgerTable).toBe(resourceOf(stacks[2].state, 'Ledger').physicalId);

    expectExit(
      await cdkd(['destroy', '--force', '-o', path.join(dir, 'out-crash'), '-c', `stackName=${stack}`]),
    );
    expect(await h.appInventory()).toEqual([]);
    for (const { name } of stacks) expect(await h.readState(name)).toBeUndefined();
  });
});
