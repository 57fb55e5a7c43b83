/**
 * A real aws-cdk-lib app with SNS topics (standard and FIFO), an SQS
 * subscription with a filter policy, a topic policy, an event bus and a rule
 * with a target, through the built CLI against the emulator: the bundled SNS
 * pack and the EventBridge pack installed from its `npm pack` tarball with
 * `cdkd plugins install`. Deploy, update (an attribute, a removed filter
 * policy, a changed rule target), replacement by rename, no-op and destroy:
 * the request log shows every type going through its own service's API and
 * no Cloud Control request, and the emulator's inventory equals state after
 * each step. Before the pack is installed, rules go to Cloud Control, saying
 * why; after, new ones go through the pack.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventBridgeClient, ListTargetsByRuleCommand, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  PublishCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import type { StackState } from '../../src/state/types';

const lib = (m: string) => JSON.stringify(require.resolve(m));

const APP = `const cdk = require(${lib('aws-cdk-lib')});
const sns = require(${lib('aws-cdk-lib/aws-sns')});
const subs = require(${lib('aws-cdk-lib/aws-sns-subscriptions')});
const sqs = require(${lib('aws-cdk-lib/aws-sqs')});
const events = require(${lib('aws-cdk-lib/aws-events')});
const targets = require(${lib('aws-cdk-lib/aws-events-targets')});
const iam = require(${lib('aws-cdk-lib/aws-iam')});
const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const only = app.node.tryGetContext('only');
const stack = new cdk.Stack(app, 'Stack', { stackName: app.node.tryGetContext('stackName') });
if (only === 'events') {
  // The installable pack's types alone: a bus and a rule (and a second rule on request).
  const bus = new events.EventBus(stack, 'Bus', { eventBusName: 'only-bus' });
  new events.Rule(stack, 'First', { eventBus: bus, eventPattern: { source: ['com.first'] } });
  if (app.node.tryGetContext('second') === 'true')
    new events.Rule(stack, 'Second', { eventBus: bus, eventPattern: { source: ['com.second'] } });
} else {
  const orders = new sns.Topic(stack, 'Orders', { displayName: variant === 'v1' ? 'Orders' : 'Orders (v2)' });
  new sns.Topic(stack, 'Ledger', {
    fifo: true,
    contentBasedDeduplication: true,
    ...(variant === 'v3' ? { topicName: 'ledger-renamed' } : {}),
  });
  const queue = new sqs.Queue(stack, 'Inbox');
  orders.addSubscription(new subs.SqsSubscription(queue, {
    rawMessageDelivery: true,
    ...(variant === 'v1' ? { filterPolicy: { kind: sns.SubscriptionFilter.stringFilter({ allowlist: ['order'] }) } } : {}),
  }));
  orders.addToResourcePolicy(new iam.PolicyStatement({
    principals: [new iam.AccountRootPrincipal()],
    actions: ['sns:Publish'],
    resources: [orders.topicArn],
  }));
  const bus = new events.EventBus(stack, 'Bus', { eventBusName: 'shop-bus' });
  new events.Rule(stack, 'OnOrder', {
    eventBus: bus,
    eventPattern: { source: ['com.shop'] },
    targets: [variant === 'v1' ? new targets.SqsQueue(queue) : new targets.SnsTopic(orders)],
  });
  new cdk.CfnOutput(stack, 'QueueUrl', { value: queue.queueUrl });
}
app.synth();
`;

const STACK = 'SnsEvents';
const EVENTS_ONLY = 'EventsOnly';
const TYPES_BY_SERVICE: Record<string, string> = {
  'AWS::SNS::Topic': 'sns',
  'AWS::SNS::Subscription': 'sns',
  'AWS::SNS::TopicPolicy': 'sns',
  'AWS::SQS::Queue': 'sqs',
  'AWS::SQS::QueuePolicy': 'sqs',
  'AWS::Events::EventBus': 'events',
  'AWS::Events::Rule': 'events',
};

describe('SNS and EventBridge through their packs', () => {
  let h: CdkdHarness;
  let dir: string;
  let tarball: string;
  let sns: SNSClient;
  let sqs: SQSClient;
  let eventbridge: EventBridgeClient;

  /** `cdkd deploy` of the app with context switches (`key=value`) and flags (`--verbose`). */
  const deploy = (stackName: string, ...args: string[]) =>
    h.cdkd(
      [
        'deploy',
        // The app's queue and topic policies widen permissions; this test is about routing, not approval.
        '--require-approval',
        'never',
        '--progress',
        'events',
        '-o',
        path.join(dir, 'out'),
        '-c',
        `stackName=${stackName}`,
        ...args.flatMap((a) => (a.startsWith('--') ? [a] : ['-c', a])),
      ],
      { cwd: dir },
    );
  const calls = async () => Object.keys((await h.emulator.control.requests()).byOperation);
  const resourcesOf = (state: StackState | undefined) => Object.values(state?.resources ?? {});
  const byType = (state: StackState | undefined, type: string) =>
    resourcesOf(state).filter((r) => r.resourceType === type);
  const one = (state: StackState | undefined, type: string) => {
    const found = byType(state, type);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const expectInventoryMatchesState = async (stackName: string) => {
    const state = await h.readState(stackName);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    return state;
  };

  /** The queue's messages, deleted once read: left in flight they would be seen again after the visibility timeout. */
  const takeMessages = async (queueUrl: string) => {
    const messages =
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }))).Messages ??
      [];
    if (messages.length)
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    return messages.map((m) => m.Body!);
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-sns-events-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    // The installable pack as its users get it: the tarball `npm pack` makes from the built package.
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: path.join(ROOT, 'plugins', 'provider-events'),
      encoding: 'utf8',
    }).trim();
    tarball = path.join(dir, name.split('\n').pop()!);
    // npm installs the pack's dependencies from the local cache (filled by `npm ci`), not the network.
    h.env.npm_config_cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    h.env.npm_config_prefer_offline = 'true';
    const config = {
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    sns = new SNSClient(config);
    sqs = new SQSClient(config);
    eventbridge = new EventBridgeClient(config);
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    for (const c of [sns, sqs, eventbridge]) c?.destroy();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the installable events pack', () => {
    it('without it, rules and buses go to Cloud Control, and cdkd says why', async () => {
      await h.emulator.control.clearRequests();
      const result = await deploy(EVENTS_ONLY, 'only=events', '--verbose');
      expectExit(result);
      expect(result.stderr).toContain('no provider pack registers AWS::Events::Rule');
      expect(result.stderr).toMatch(/creating First[^\n]* via Cloud Control/);
      const state = await expectInventoryMatchesState(EVENTS_ONLY);
      expect(resourcesOf(state).map((r) => r.provisionedBy)).toEqual(['cc-api', 'cc-api']);
      const made = await calls();
      expect(made).toContain('cloudcontrol:CreateResource');
      expect(made.filter((c) => c.startsWith('events:'))).toEqual([]);
    });

    it('installed from its tarball, it takes over the types on the next deploy', async () => {
      const install = await h.cdkd(['plugins', 'install', path.relative(dir, tarball)], { cwd: dir });
      expectExit(install);
      const listed = JSON.parse((await h.cdkd(['providers', '--json'])).stdout) as {
        providers: { resourceType: string; pack: string; install: string }[];
      };
      expect(
        listed.providers
          .filter((p) => p.pack === '@cdkd/provider-events')
          .map((p) => [p.resourceType, p.install]),
      ).toEqual([
        ['AWS::Events::EventBus', 'user'],
        ['AWS::Events::Rule', 'user'],
      ]);
      expectExit(await h.cdkd(['providers', 'check', '--pack', '@cdkd/provider-events']));

      await h.emulator.control.clearRequests();
      expectExit(await deploy(EVENTS_ONLY, 'only=events', 'second=true'));
      const state = await expectInventoryMatchesState(EVENTS_ONLY);
      // The new rule goes through the pack; what Cloud Control made stays Cloud Control's.
      const routeOf = (prefix: string) =>
        Object.entries(state!.resources).find(([id]) => id.startsWith(prefix))?.[1].provisionedBy;
      expect(routeOf('Second')).toBe('sdk');
      expect(routeOf('First')).toBe('cc-api');
      expect(routeOf('Bus')).toBe('cc-api');
      const made = await calls();
      expect(made).toEqual(expect.arrayContaining(['events:PutRule', 'events:DescribeRule']));
      expect(made.filter((c) => c.startsWith('cloudcontrol:'))).toEqual([]);

      expectExit(
        await h.cdkd(
          [
            'destroy',
            '--force',
            '-o',
            path.join(dir, 'out'),
            '-c',
            `stackName=${EVENTS_ONLY}`,
            '-c',
            'only=events',
          ],
          { cwd: dir },
        ),
      );
      expect(await h.readState(EVENTS_ONLY)).toBeUndefined();
      expect(await h.appInventory()).toEqual([]);
    });
  });

  describe('a CDK app of topics, a subscription, a topic policy, a bus and a rule', () => {
    const physicalIds: Record<string, string> = {};

    const expectNoCloudControl = async () => {
      expect((await calls()).filter((c) => c.startsWith('cloudcontrol:'))).toEqual([]);
    };

    it('cdkd providers check --pack @cdkd/provider-sns: every property accounted for', async () => {
      const result = await h.cdkd(['providers', 'check', '--pack', '@cdkd/provider-sns']);
      expectExit(result);
      for (const type of ['AWS::SNS::Topic', 'AWS::SNS::Subscription', 'AWS::SNS::TopicPolicy'])
        expect(result.stdout).toMatch(
          new RegExp(
            `${type} \\(@cdkd/provider-sns\\): \\d+ handled, \\d+ by design, \\d+ read-only, 0 unaccounted`,
          ),
        );
    });

    it('deploys every resource through its own service API', async () => {
      await h.emulator.control.clearRequests();
      const result = await deploy(STACK);
      expectExit(result);
      const state = await expectInventoryMatchesState(STACK);
      const types = resourcesOf(state)
        .map((r) => r.resourceType)
        .sort();
      expect(types).toEqual([
        'AWS::Events::EventBus',
        'AWS::Events::Rule',
        'AWS::SNS::Subscription',
        'AWS::SNS::Topic',
        'AWS::SNS::Topic',
        'AWS::SNS::TopicPolicy',
        'AWS::SQS::Queue',
        'AWS::SQS::QueuePolicy',
      ]);
      expect(resourcesOf(state).every((r) => r.provisionedBy === 'sdk')).toBe(true);
      const made = await calls();
      for (const service of new Set(types.map((t) => TYPES_BY_SERVICE[t])))
        expect(made.some((c) => c.startsWith(`${service}:`))).toBe(true);
      expect(made).toEqual(
        expect.arrayContaining([
          'sns:CreateTopic',
          'sns:Subscribe',
          'sns:SetTopicAttributes',
          'events:CreateEventBus',
          'events:PutRule',
          'events:PutTargets',
        ]),
      );
      await expectNoCloudControl();
      for (const r of resourcesOf(state))
        physicalIds[
          `${r.resourceType} ${Object.keys(state!.resources).find((k) => state!.resources[k] === r)}`
        ] = r.physicalId;
      const ledger = byType(state, 'AWS::SNS::Topic').find((r) => r.physicalId.endsWith('.fifo'));
      expect(ledger).toBeDefined();
      expect(
        (await sns.send(new GetTopicAttributesCommand({ TopicArn: ledger!.physicalId }))).Attributes,
      ).toMatchObject({
        FifoTopic: 'true',
        ContentBasedDeduplication: 'true',
      });

      // The wiring works as on AWS: a filtered publish reaches the queue, and so does an event.
      const queueUrl = state!.outputs.QueueUrl as string;
      const orders = byType(state, 'AWS::SNS::Topic').find(
        (r) => !r.physicalId.endsWith('.fifo'),
      )!.physicalId;
      await sns.send(new PublishCommand({ TopicArn: orders, Message: 'skip me' }));
      await sns.send(
        new PublishCommand({
          TopicArn: orders,
          Message: 'an order',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'order' } },
        }),
      );
      await eventbridge.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: 'shop-bus', Source: 'com.shop', DetailType: 'Order', Detail: '{"n":1}' }],
        }),
      );
      const bodies = await takeMessages(queueUrl);
      expect(bodies).toHaveLength(2);
      expect(bodies).toContain('an order');
      expect(JSON.parse(bodies.find((b) => b !== 'an order')!)).toMatchObject({
        source: 'com.shop',
        detail: { n: 1 },
      });
    });

    it('updates in place: a topic attribute, a removed filter policy, a changed rule target', async () => {
      const before = await h.readState(STACK);
      await h.emulator.control.clearRequests();
      expectExit(await deploy(STACK, 'variant=v2'));
      const state = await expectInventoryMatchesState(STACK);
      await expectNoCloudControl();
      const orders = byType(state, 'AWS::SNS::Topic').find((r) => !r.physicalId.endsWith('.fifo'))!;
      expect(orders.physicalId).toBe(
        byType(before, 'AWS::SNS::Topic').find((r) => !r.physicalId.endsWith('.fifo'))!.physicalId,
      );
      expect(
        (await sns.send(new GetTopicAttributesCommand({ TopicArn: orders.physicalId }))).Attributes!
          .DisplayName,
      ).toBe('Orders (v2)');
      const subscription = one(state, 'AWS::SNS::Subscription');
      expect(subscription.physicalId).toBe(one(before, 'AWS::SNS::Subscription').physicalId);
      const attributes = (
        await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscription.physicalId }))
      ).Attributes!;
      expect(attributes.FilterPolicy).toBeUndefined();
      const rule = one(state, 'AWS::Events::Rule');
      expect(rule.physicalId).toBe(one(before, 'AWS::Events::Rule').physicalId);
      const ruleName = rule.physicalId.split('/').pop()!;
      const listed = await eventbridge.send(
        new ListTargetsByRuleCommand({ Rule: ruleName, EventBusName: 'shop-bus' }),
      );
      expect(listed.Targets!.map((t) => t.Arn)).toEqual([orders.physicalId]);
      const made = await calls();
      expect(made).toEqual(
        expect.arrayContaining([
          'sns:SetTopicAttributes',
          'sns:SetSubscriptionAttributes',
          'events:PutTargets',
        ]),
      );
      expect(made).not.toContain('sns:CreateTopic');

      // An event now goes to the topic, and through the (unfiltered) subscription to the queue.
      await eventbridge.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: 'shop-bus', Source: 'com.shop', DetailType: 'Order', Detail: '{"n":2}' }],
        }),
      );
      const queueUrl = state!.outputs.QueueUrl as string;
      const bodies = await takeMessages(queueUrl);
      expect(bodies.map((b) => JSON.parse(b) as { detail?: unknown }).map((e) => e.detail)).toEqual([
        { n: 2 },
      ]);
    });

    it('replaces a topic whose name changed, and deletes the original', async () => {
      const before = await h.readState(STACK);
      const original = byType(before, 'AWS::SNS::Topic').find((r) => r.physicalId.endsWith('.fifo'))!;
      await h.emulator.control.clearRequests();
      expectExit(await deploy(STACK, 'variant=v3'));
      const state = await expectInventoryMatchesState(STACK);
      await expectNoCloudControl();
      const ledger = byType(state, 'AWS::SNS::Topic').find((r) => r.physicalId.endsWith('.fifo'))!;
      expect(ledger.physicalId).toMatch(/:ledger-renamed\.fifo$/);
      expect(ledger.physicalId).not.toBe(original.physicalId);
      expect(inventoryResources(await h.appInventory())).not.toContain(
        `AWS::SNS::Topic ${original.physicalId}`,
      );
      expect(await calls()).toEqual(expect.arrayContaining(['sns:CreateTopic', 'sns:DeleteTopic']));
    });

    it('redeploys with no changes: no call to SNS, SQS, EventBridge or Cloud Control', async () => {
      await h.emulator.control.clearRequests();
      const result = await deploy(STACK, 'variant=v3');
      expectExit(result);
      expect(result.stderr).toMatch(/no changes/);
      expect((await calls()).filter((c) => /^(cloudcontrol|sns|sqs|events):/.test(c))).toEqual([]);
      await expectInventoryMatchesState(STACK);
    });

    it('destroys everything through the packs', async () => {
      await h.emulator.control.clearRequests();
      expectExit(
        await h.cdkd(
          ['destroy', '--force', '-o', path.join(dir, 'out'), '-c', `stackName=${STACK}`, '-c', 'variant=v3'],
          { cwd: dir },
        ),
      );
      expect(await h.readState(STACK)).toBeUndefined();
      expect(await h.appInventory()).toEqual([]);
      await expectNoCloudControl();
      expect(await calls()).toEqual(
        expect.arrayContaining([
          'sns:DeleteTopic',
          'sns:Unsubscribe',
          'events:DeleteRule',
          'events:DeleteEventBus',
        ]),
      );
    });
  });
});
