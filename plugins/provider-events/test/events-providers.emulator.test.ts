import {
  DescribeEventBusCommand,
  DescribeRuleCommand,
  EventBridgeClient,
  ListTagsForResourceCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { EventsBusProvider } from '../src/bus-provider';
import { targetFromSdk, targetToSdk } from '../src/rule-properties';
import { EventsRuleProvider } from '../src/rule-provider';

// The providers against the emulator's EventBridge, through real SDK clients
// built by cdkd's client factory, with the create contexts cdkd builds.
const RULE = 'AWS::Events::Rule';
const BUS = 'AWS::Events::EventBus';
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STACK = 'EventsPackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let events: EventBridgeClient;
let sqs: SQSClient;
let rules: EventsRuleProvider;
let buses: EventsBusProvider;
let counter = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  events = factory.get(EventBridgeClient);
  sqs = factory.get(SQSClient);
  rules = new EventsRuleProvider(ctx);
  buses = new EventsBusProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

const createContext = (logicalId: string, token = `token-${++counter}`): CreateContext =>
  buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });
const pattern = { source: ['com.shop'] };
const queueArn = (name: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
const tagsOf = async (ResourceARN: string) =>
  Object.fromEntries(
    ((await events.send(new ListTagsForResourceCommand({ ResourceARN }))).Tags ?? []).map((t) => [
      t.Key,
      t.Value,
    ]),
  );

describe('AWS::Events::EventBus', () => {
  it('creates, adopts only its own, updates (removed settings cleared, policy replaced and removed), deletes', async () => {
    const context = createContext('Bus');
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'p',
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::210987654321:root' },
          Action: 'events:PutEvents',
          Resource: '*',
        },
      ],
    };
    const v1 = {
      Name: 'orders-bus',
      Description: 'orders',
      Policy: policy,
      Tags: [{ Key: 'team', Value: 'a' }],
    };
    const created = await buses.create('Bus', BUS, v1, context);
    const arn = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/orders-bus`;
    expect(created).toEqual({ physicalId: 'orders-bus', attributes: { Arn: arn, Name: 'orders-bus' } });
    const described = await events.send(new DescribeEventBusCommand({ Name: 'orders-bus' }));
    expect(described.Description).toBe('orders');
    expect(JSON.parse(described.Policy!)).toEqual(policy);
    expect(await tagsOf(arn)).toEqual({ team: 'a', ...context.ownership!.tags });

    // The same create again (a lost reply) finds its bus; another create of the name is refused.
    expect((await buses.create('Bus', BUS, v1, context)).physicalId).toBe('orders-bus');
    await expect(buses.create('Bus', BUS, v1, createContext('Bus'))).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
    });

    const v2 = { Name: 'orders-bus', Tags: [{ Key: 'team', Value: 'b' }] };
    await buses.update('Bus', 'orders-bus', BUS, v2, v1, { expectedRegion: REGION });
    const after = await events.send(new DescribeEventBusCommand({ Name: 'orders-bus' }));
    expect(after.Description).toBeUndefined();
    expect(after.Policy).toBeUndefined();
    expect(await tagsOf(arn)).toEqual({ team: 'b', ...context.ownership!.tags });
    expect(await buses.readCurrentState('orders-bus')).toMatchObject({
      Name: 'orders-bus',
      Description: '',
      Policy: {},
      Tags: [{ Key: 'team', Value: 'b' }],
    });

    await buses.delete('Bus', 'orders-bus', BUS, v2, { expectedRegion: REGION });
    await buses.delete('Bus', 'orders-bus', BUS, v2, { expectedRegion: REGION });
    expect(await buses.readCurrentState('orders-bus')).toBeUndefined();
    await expect(buses.delete('Bus', 'orders-bus', BUS, v2, { expectedRegion: 'eu-west-1' })).rejects.toThrow(
      /eu-west-1/,
    );
  });
});

describe('AWS::Events::Rule', () => {
  it('creates a rule with a generated name and its targets; events reach an SQS target', async () => {
    const QueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'rule-target' }))).QueueUrl!;
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          Policy: JSON.stringify({
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'events.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: queueArn('rule-target'),
              },
            ],
          }),
        },
      }),
    );
    const context = createContext('OnOrder');
    const result = await rules.create(
      'OnOrder',
      RULE,
      {
        EventPattern: pattern,
        Description: 'orders',
        Targets: [{ Id: 'q', Arn: queueArn('rule-target'), Input: '{"hello":1}' }],
        Tags: [{ Key: 'k', Value: 'v' }],
      },
      context,
    );
    expect(result.physicalId).toMatch(
      new RegExp(`^arn:aws:events:${REGION}:${ACCOUNT}:rule/${STACK}-OnOrder-[A-Z2-7]{13}$`),
    );
    expect(result.attributes).toEqual({ Arn: result.physicalId });
    expect(await tagsOf(result.physicalId)).toEqual({ k: 'v', ...context.ownership!.tags });
    await events.send(
      new PutEventsCommand({ Entries: [{ Source: 'com.shop', DetailType: 'Order', Detail: '{}' }] }),
    );
    const bodies = ((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages ?? []).map(
      (m) => m.Body,
    );
    expect(bodies).toEqual(['{"hello":1}']);
  });

  it('a rule of the same name it did not make is refused, never overwritten; its own is adopted with exactly its targets', async () => {
    await events.send(
      new PutRuleCommand({ Name: 'taken', EventPattern: JSON.stringify(pattern), Description: 'theirs' }),
    );
    await expect(
      rules.create('Taken', RULE, { Name: 'taken', EventPattern: pattern }, createContext('Taken')),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('not made by this stack'),
    });
    expect((await events.send(new DescribeRuleCommand({ Name: 'taken' }))).Description).toBe('theirs');

    const context = createContext('Mine');
    const properties = { Name: 'mine', EventPattern: pattern, Targets: [{ Id: 'a', Arn: queueArn('a') }] };
    const first = await rules.create('Mine', RULE, properties, context);
    // The earlier attempt went further than its record: an extra target and a changed description.
    await events.send(
      new PutTargetsCommand({ Rule: 'mine', Targets: [{ Id: 'extra', Arn: queueArn('x') }] }),
    );
    const again = await rules.create('Mine', RULE, properties, context);
    expect(again.physicalId).toBe(first.physicalId);
    expect(
      (await events.send(new ListTargetsByRuleCommand({ Rule: 'mine' }))).Targets!.map((t) => t.Id),
    ).toEqual(['a']);
  });

  it('updates in place: PutRule resets what the template drops, tags and targets reconciled by id', async () => {
    const context = createContext('Updated');
    const v1 = {
      Name: 'updated',
      EventPattern: pattern,
      Description: 'first',
      State: 'ENABLED',
      Targets: [
        { Id: 'keep', Arn: queueArn('k') },
        { Id: 'change', Arn: queueArn('c'), Input: '{"v":1}' },
        { Id: 'drop', Arn: queueArn('d') },
      ],
      Tags: [{ Key: 'a', Value: '1' }],
    };
    const { physicalId } = await rules.create('Updated', RULE, v1, context);
    const v2 = {
      Name: 'updated',
      ScheduleExpression: 'rate(5 minutes)',
      State: 'DISABLED',
      Targets: [
        { Id: 'keep', Arn: queueArn('k') },
        { Id: 'change', Arn: queueArn('c'), Input: '{"v":2}' },
        { Id: 'new', Arn: queueArn('n'), RetryPolicy: { MaximumRetryAttempts: 2 } },
      ],
      Tags: [{ Key: 'b', Value: '2' }],
    };
    const out = await rules.update('Updated', physicalId, RULE, v2, v1, { expectedRegion: REGION });
    expect(out).toEqual({ physicalId, wasReplaced: false, attributes: { Arn: physicalId } });
    const described = await events.send(new DescribeRuleCommand({ Name: 'updated' }));
    expect(described).toMatchObject({ State: 'DISABLED', ScheduleExpression: 'rate(5 minutes)' });
    expect(described.Description).toBeUndefined();
    expect(described.EventPattern).toBeUndefined();
    const targets = (await events.send(new ListTargetsByRuleCommand({ Rule: 'updated' }))).Targets!;
    expect(targets.map((t) => [t.Id, t.Input])).toEqual([
      ['keep', undefined],
      ['change', '{"v":2}'],
      ['new', undefined],
    ]);
    expect(await tagsOf(physicalId)).toEqual({ b: '2', ...context.ownership!.tags });

    const state = await rules.readCurrentState(physicalId);
    expect(state).toMatchObject({
      Name: 'updated',
      State: 'DISABLED',
      Description: '',
      EventPattern: {},
      Tags: [{ Key: 'b', Value: '2' }],
    });
    expect((state!.Targets as unknown[]).length).toBe(3);
  });

  it('rules on a custom bus; deleting removes the targets first; records in CloudFormation spellings are read', async () => {
    await buses.create('CustomBus', BUS, { Name: 'custom' }, createContext('CustomBus'));
    const { physicalId } = await rules.create(
      'OnCustom',
      RULE,
      {
        Name: 'on-custom',
        EventBusName: 'custom',
        EventPattern: pattern,
        Targets: [{ Id: 't', Arn: queueArn('t') }],
      },
      createContext('OnCustom'),
    );
    expect(physicalId).toBe(`arn:aws:events:${REGION}:${ACCOUNT}:rule/custom/on-custom`);
    // A record written as CloudFormation names the rule (`bus|name`) addresses the same rule.
    expect(await rules.readCurrentState('custom|on-custom')).toMatchObject({
      Name: 'on-custom',
      EventBusName: 'custom',
    });
    expect(await rules.getAttribute('custom|on-custom', RULE, 'Arn')).toBe(physicalId);
    await rules.delete('OnCustom', physicalId, RULE, {}, { expectedRegion: REGION });
    await rules.delete('OnCustom', physicalId, RULE, {}, { expectedRegion: REGION });
    expect(await rules.readCurrentState(physicalId)).toBeUndefined();
  });

  it('a failed target put retires the rule it made', async () => {
    await expect(
      rules.create(
        'BadTarget',
        RULE,
        { Name: 'bad-target', EventPattern: pattern, Targets: [{ Id: 'x', Arn: 'not-an-arn' }] },
        createContext('BadTarget'),
      ),
    ).rejects.toThrow(/not valid/);
    expect(await rules.readCurrentState('bad-target')).toBeUndefined();
  });

  it('ECS targets cross between CloudFormation and SDK spellings', () => {
    const cfn = {
      Id: 'ecs',
      Arn: 'arn:aws:ecs:us-east-1:123456789012:cluster/c',
      EcsParameters: {
        TaskDefinitionArn: 'td',
        PlacementStrategies: [{ Type: 'spread', Field: 'attribute:ecs.availability-zone' }],
        TagList: [{ Key: 'a', Value: 'b' }],
        NetworkConfiguration: { AwsVpcConfiguration: { Subnets: ['s'] } },
      },
    };
    const sdk = targetToSdk(cfn);
    expect(sdk.EcsParameters).toEqual({
      TaskDefinitionArn: 'td',
      PlacementStrategy: [{ Type: 'spread', Field: 'attribute:ecs.availability-zone' }],
      Tags: [{ Key: 'a', Value: 'b' }],
      NetworkConfiguration: { awsvpcConfiguration: { Subnets: ['s'] } },
    });
    expect(targetFromSdk(sdk)).toEqual(cfn);
  });
});
