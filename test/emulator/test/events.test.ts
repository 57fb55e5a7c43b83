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
  CreateEventBusCommand,
  DeleteEventBusCommand,
  DeleteRuleCommand,
  DescribeEventBusCommand,
  DescribeRuleCommand,
  DisableRuleCommand,
  EnableRuleCommand,
  EventBridgeClient,
  ListEventBusesCommand,
  ListRuleNamesByTargetCommand,
  ListRulesCommand,
  ListTagsForResourceCommand,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutPermissionCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemovePermissionCommand,
  RemoveTargetsCommand,
  TagResourceCommand,
  TestEventPatternCommand,
  UntagResourceCommand,
  UpdateEventBusCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateTopicCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { EventsStore } from '../src/services/events/store';
import { clientConfig, useEmulator } from './helpers';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

const ctx = useEmulator();
let events: EventBridgeClient;
let sqs: SQSClient;
let sns: SNSClient;
let cc: CloudControlClient;

beforeAll(() => {
  events = new EventBridgeClient(clientConfig(ctx.emulator));
  sqs = new SQSClient(clientConfig(ctx.emulator));
  sns = new SNSClient(clientConfig(ctx.emulator));
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  for (const c of [events, sqs, sns, cc]) c.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

const ruleArn = (name: string, bus?: string) =>
  `arn:aws:events:${REGION}:${ACCOUNT}:rule/${bus ? `${bus}/` : ''}${name}`;
const pattern = JSON.stringify({ source: ['com.shop'] });
const deliveries = async () =>
  (await ctx.emulator.control.call('GET', '/events/deliveries')) as Array<{
    status: string;
    reason?: string;
    targetId: string;
  }>;

/** A queue whose policy lets EventBridge rules send to it (as CDK's SqsQueue target writes it). */
async function queue(name: string, fifo = false) {
  const QueueUrl = (
    await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true' } : {} }))
  ).QueueUrl!;
  const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
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
              Resource: arn,
              Condition: { ArnLike: { 'aws:SourceArn': `arn:aws:events:${REGION}:${ACCOUNT}:rule/*` } },
            },
          ],
        }),
      },
    }),
  );
  return { QueueUrl, arn };
}

const receive = async (QueueUrl: string) =>
  ((await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages ?? []).map(
    (m) => m.Body!,
  );

async function ccRun(out: { ProgressEvent?: { RequestToken?: string } }) {
  const { ProgressEvent } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
  return ProgressEvent!;
}

describe('EventBridge event buses', () => {
  test('create, describe, update, list, delete; the default bus always exists', async () => {
    const created = await events.send(
      new CreateEventBusCommand({
        Name: 'orders',
        Description: 'Orders',
        Tags: [{ Key: 'team', Value: 'a' }],
      }),
    );
    expect(created.EventBusArn).toBe(`arn:aws:events:${REGION}:${ACCOUNT}:event-bus/orders`);
    await expect(events.send(new CreateEventBusCommand({ Name: 'orders' }))).rejects.toMatchObject({
      name: 'ResourceAlreadyExistsException',
      message: 'Event bus orders already exists.',
    });
    await expect(events.send(new CreateEventBusCommand({ Name: 'a/b' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    const described = await events.send(new DescribeEventBusCommand({ Name: created.EventBusArn }));
    expect(described).toMatchObject({ Name: 'orders', Arn: created.EventBusArn, Description: 'Orders' });
    expect(described.CreationTime).toBeInstanceOf(Date);
    expect((await events.send(new DescribeEventBusCommand({}))).Name).toBe('default');

    await events.send(
      new UpdateEventBusCommand({
        Name: 'orders',
        Description: '',
        LogConfig: { Level: 'ERROR', IncludeDetail: 'FULL' },
      }),
    );
    const updated = await events.send(new DescribeEventBusCommand({ Name: 'orders' }));
    expect(updated.Description).toBeUndefined();
    expect(updated.LogConfig).toEqual({ Level: 'ERROR', IncludeDetail: 'FULL' });

    const listed = await events.send(new ListEventBusesCommand({}));
    expect(listed.EventBuses!.map((b) => b.Name)).toEqual(['default', 'orders']);
    const paged = await events.send(new ListEventBusesCommand({ Limit: 1 }));
    expect(paged.EventBuses!.map((b) => b.Name)).toEqual(['default']);
    expect(
      (
        await events.send(new ListEventBusesCommand({ Limit: 1, NextToken: paged.NextToken }))
      ).EventBuses!.map((b) => b.Name),
    ).toEqual(['orders']);

    await expect(events.send(new DeleteEventBusCommand({ Name: 'default' }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Cannot delete event bus default.',
    });
    await events.send(new DeleteEventBusCommand({ Name: 'orders' }));
    await events.send(new DeleteEventBusCommand({ Name: 'orders' }));
    await expect(events.send(new DescribeEventBusCommand({ Name: 'orders' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Event bus orders does not exist.',
    });
  });

  test('bus policies through PutPermission and RemovePermission', async () => {
    await events.send(new CreateEventBusCommand({ Name: 'shared' }));
    await events.send(
      new PutPermissionCommand({
        EventBusName: 'shared',
        Action: 'events:PutEvents',
        Principal: '210987654321',
        StatementId: 'partner',
      }),
    );
    const policy = JSON.parse((await events.send(new DescribeEventBusCommand({ Name: 'shared' }))).Policy!);
    expect(policy.Statement).toEqual([
      expect.objectContaining({
        Sid: 'partner',
        Principal: { AWS: 'arn:aws:iam::210987654321:root' },
        Action: 'events:PutEvents',
      }),
    ]);
    await expect(
      events.send(
        new PutPermissionCommand({
          EventBusName: 'shared',
          Action: 'events:PutEvents',
          Principal: 'someone',
          StatementId: 'x',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      events.send(new RemovePermissionCommand({ EventBusName: 'shared', StatementId: 'nope' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await events.send(new RemovePermissionCommand({ EventBusName: 'shared', StatementId: 'partner' }));
    expect((await events.send(new DescribeEventBusCommand({ Name: 'shared' }))).Policy).toBeUndefined();
    await events.send(
      new PutPermissionCommand({
        EventBusName: 'shared',
        Policy: JSON.stringify({ Version: '2012-10-17', Statement: [] }),
      }),
    );
    await expect(
      events.send(new PutPermissionCommand({ EventBusName: 'shared', Policy: '{bad' })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });
});

describe('EventBridge rules and targets', () => {
  test('PutRule creates and replaces; describe, enable/disable, list by prefix with pages', async () => {
    const { RuleArn } = await events.send(
      new PutRuleCommand({
        Name: 'on-order',
        EventPattern: pattern,
        Description: 'd',
        Tags: [{ Key: 'k', Value: 'v' }],
      }),
    );
    expect(RuleArn).toBe(ruleArn('on-order'));
    expect(await events.send(new DescribeRuleCommand({ Name: 'on-order' }))).toMatchObject({
      Name: 'on-order',
      Arn: RuleArn,
      EventPattern: pattern,
      State: 'ENABLED',
      Description: 'd',
      EventBusName: 'default',
    });
    // PutRule again replaces the rule: the description it leaves out is gone; the tags stay.
    await events.send(
      new PutRuleCommand({
        Name: 'on-order',
        ScheduleExpression: 'rate(5 minutes)',
        Tags: [{ Key: 'x', Value: 'y' }],
      }),
    );
    const replaced = await events.send(new DescribeRuleCommand({ Name: 'on-order' }));
    expect(replaced.Description).toBeUndefined();
    expect(replaced.EventPattern).toBeUndefined();
    expect(replaced.ScheduleExpression).toBe('rate(5 minutes)');
    expect((await events.send(new ListTagsForResourceCommand({ ResourceARN: RuleArn }))).Tags).toEqual([
      { Key: 'k', Value: 'v' },
    ]);

    await events.send(new DisableRuleCommand({ Name: 'on-order' }));
    expect((await events.send(new DescribeRuleCommand({ Name: 'on-order' }))).State).toBe('DISABLED');
    await events.send(new EnableRuleCommand({ Name: 'on-order' }));
    expect((await events.send(new DescribeRuleCommand({ Name: 'on-order' }))).State).toBe('ENABLED');

    for (const n of ['a-1', 'a-2', 'a-3', 'b-1'])
      await events.send(new PutRuleCommand({ Name: n, EventPattern: pattern }));
    const page1 = await events.send(new ListRulesCommand({ NamePrefix: 'a-', Limit: 2 }));
    expect(page1.Rules!.map((r) => r.Name)).toEqual(['a-1', 'a-2']);
    const page2 = await events.send(
      new ListRulesCommand({ NamePrefix: 'a-', Limit: 2, NextToken: page1.NextToken }),
    );
    expect(page2.Rules!.map((r) => r.Name)).toEqual(['a-3']);
    expect(page2.NextToken).toBeUndefined();
  });

  test('PutRule validation', async () => {
    await expect(events.send(new PutRuleCommand({ Name: 'x' }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Parameter(s) EventPattern or ScheduleExpression must be specified.',
    });
    await expect(
      events.send(new PutRuleCommand({ Name: 'x', EventPattern: '{"source":"a"}' })),
    ).rejects.toMatchObject({
      name: 'InvalidEventPatternException',
      message: 'Event pattern is not valid. Reason: "source" must be an object or an array',
    });
    await expect(events.send(new PutRuleCommand({ Name: 'x', EventPattern: '{' }))).rejects.toMatchObject({
      name: 'InvalidEventPatternException',
    });
    for (const schedule of [
      'rate(1 minutes)',
      'rate(5 minute)',
      'rate(0 minutes)',
      'cron(0 12 * * * *)',
      'every day',
    ])
      await expect(
        events.send(new PutRuleCommand({ Name: 'x', ScheduleExpression: schedule })),
      ).rejects.toMatchObject({
        name: 'ValidationException',
        message: 'Parameter ScheduleExpression is not valid.',
      });
    await events.send(new PutRuleCommand({ Name: 'cron', ScheduleExpression: 'cron(0 12 * * ? *)' }));
    await events.send(new CreateEventBusCommand({ Name: 'custom' }));
    await expect(
      events.send(
        new PutRuleCommand({ Name: 'x', EventBusName: 'custom', ScheduleExpression: 'rate(1 hour)' }),
      ),
    ).rejects.toMatchObject({ message: 'ScheduleExpression is supported only on the default event bus.' });
    await expect(
      events.send(new PutRuleCommand({ Name: 'bad name', EventPattern: pattern })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      events.send(new PutRuleCommand({ Name: 'x', EventPattern: pattern, EventBusName: 'nope' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Event bus nope does not exist.',
    });
    await expect(events.send(new DescribeRuleCommand({ Name: 'missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Rule missing does not exist on EventBus default.',
    });
  });

  test('targets: put (replace by id), list, remove; a rule with targets cannot be deleted; the five-target quota', async () => {
    await events.send(new CreateEventBusCommand({ Name: 'custom' }));
    const { RuleArn } = await events.send(
      new PutRuleCommand({ Name: 'r', EventBusName: 'custom', EventPattern: pattern }),
    );
    expect(RuleArn).toBe(ruleArn('r', 'custom'));
    const q = `arn:aws:sqs:${REGION}:${ACCOUNT}:q`;
    await events.send(
      new PutTargetsCommand({
        Rule: 'r',
        EventBusName: 'custom',
        Targets: [
          { Id: 'one', Arn: q, InputPath: '$.detail', RetryPolicy: { MaximumRetryAttempts: 3 } },
          { Id: 'two', Arn: q, Input: '{"fixed":true}' },
        ],
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'r',
        EventBusName: 'custom',
        Targets: [{ Id: 'two', Arn: q, Input: '{"fixed":false}' }],
      }),
    );
    const listed = await events.send(new ListTargetsByRuleCommand({ Rule: 'r', EventBusName: 'custom' }));
    expect(listed.Targets).toEqual([
      { Id: 'one', Arn: q, InputPath: '$.detail', RetryPolicy: { MaximumRetryAttempts: 3 } },
      { Id: 'two', Arn: q, Input: '{"fixed":false}' },
    ]);
    expect(
      (await events.send(new ListRuleNamesByTargetCommand({ TargetArn: q, EventBusName: 'custom' })))
        .RuleNames,
    ).toEqual(['r']);

    await expect(
      events.send(new DeleteRuleCommand({ Name: 'r', EventBusName: 'custom' })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: "Rule can't be deleted since it has targets.",
    });
    await expect(
      events.send(
        new PutTargetsCommand({
          Rule: 'r',
          EventBusName: 'custom',
          Targets: ['3', '4', '5', '6'].map((Id) => ({ Id, Arn: q })),
        }),
      ),
    ).rejects.toMatchObject({ name: 'LimitExceededException' });
    await expect(
      events.send(
        new PutTargetsCommand({
          Rule: 'r',
          EventBusName: 'custom',
          Targets: [{ Id: 'x', Arn: q, Input: '{}', InputPath: '$' }],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Only one of Input, InputPath, or InputTransformer must be provided.',
    });
    await expect(
      events.send(
        new PutTargetsCommand({ Rule: 'r', EventBusName: 'custom', Targets: [{ Id: 'x', Arn: 'queue' }] }),
      ),
    ).rejects.toMatchObject({
      message: 'Parameter queue is not valid. Reason: Provided Arn is not in correct format.',
    });
    await expect(
      events.send(
        new PutTargetsCommand({
          Rule: 'r',
          EventBusName: 'custom',
          Targets: [{ Id: 'x', Arn: `${q}.fifo` }],
        }),
      ),
    ).rejects.toMatchObject({ message: 'Parameter(s) SqsParameters must be specified for target: x.' });
    await expect(
      events.send(new PutTargetsCommand({ Rule: 'nope', Targets: [{ Id: 'x', Arn: q }] })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Rule nope does not exist on EventBus default.',
    });

    await events.send(new RemoveTargetsCommand({ Rule: 'r', EventBusName: 'custom', Ids: ['one', 'two'] }));
    await events.send(new DeleteRuleCommand({ Name: 'r', EventBusName: 'custom' }));
    await events.send(new DeleteRuleCommand({ Name: 'r', EventBusName: 'custom' }));
    await expect(
      events.send(new DescribeRuleCommand({ Name: 'r', EventBusName: 'custom' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('tags on buses and rules', async () => {
    const { EventBusArn } = await events.send(new CreateEventBusCommand({ Name: 'tagged' }));
    await events.send(
      new TagResourceCommand({
        ResourceARN: EventBusArn,
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      }),
    );
    await events.send(new UntagResourceCommand({ ResourceARN: EventBusArn, TagKeys: ['a'] }));
    expect((await events.send(new ListTagsForResourceCommand({ ResourceARN: EventBusArn }))).Tags).toEqual([
      { Key: 'b', Value: '2' },
    ]);
    await expect(
      events.send(new ListTagsForResourceCommand({ ResourceARN: ruleArn('nope') })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('EventBridge events', () => {
  test('PutEvents routes matching events to SQS targets (queue policy permitting), transformed as asked', async () => {
    const plain = await queue('plain');
    const shaped = await queue('shaped');
    const closed = `arn:aws:sqs:${REGION}:${ACCOUNT}:closed`;
    await sqs.send(new CreateQueueCommand({ QueueName: 'closed' }));
    await events.send(
      new PutRuleCommand({
        Name: 'shop',
        EventPattern: JSON.stringify({ source: ['com.shop'], detail: { state: ['paid'] } }),
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'shop',
        Targets: [
          { Id: 'plain', Arn: plain.arn },
          {
            Id: 'shaped',
            Arn: shaped.arn,
            InputTransformer: {
              InputPathsMap: { state: '$.detail.state', amount: '$.detail.amount' },
              InputTemplate:
                '{"summary": "order <state>", "amount": <amount>, "rule": "<aws.events.rule-name>"}',
            },
          },
          { Id: 'closed', Arn: closed },
        ],
      }),
    );
    const put = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: 'com.shop',
            DetailType: 'Order',
            Detail: JSON.stringify({ state: 'paid', amount: 12 }),
            Resources: ['r1'],
          },
          { Source: 'com.shop', DetailType: 'Order', Detail: JSON.stringify({ state: 'open' }) },
          { Source: 'com.shop', DetailType: 'Order', Detail: 'not json' },
          { DetailType: 'Order', Detail: '{}' },
        ],
      }),
    );
    expect(put.FailedEntryCount).toBe(2);
    expect(put.Entries![2]).toEqual({ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' });
    expect(put.Entries![3]).toMatchObject({ ErrorCode: 'InvalidArgument' });
    const [body] = await receive(plain.QueueUrl);
    expect(JSON.parse(body!)).toMatchObject({
      version: '0',
      id: put.Entries![0]!.EventId,
      'detail-type': 'Order',
      source: 'com.shop',
      account: ACCOUNT,
      region: REGION,
      resources: ['r1'],
      detail: { state: 'paid', amount: 12 },
    });
    expect(await receive(shaped.QueueUrl)).toEqual([
      '{"summary": "order paid", "amount": 12, "rule": "shop"}',
    ]);
    const log = await deliveries();
    expect(log.map((d) => `${d.targetId} ${d.status}`).sort()).toEqual([
      'closed failed',
      'plain delivered',
      'shaped delivered',
    ]);
    expect(log.find((d) => d.targetId === 'closed')!.reason).toContain('does not allow events.amazonaws.com');
  });

  test('disabled rules, custom buses, FIFO queues, dead-letter queues, SNS and Lambda targets', async () => {
    await events.send(new CreateEventBusCommand({ Name: 'custom' }));
    const fifo = await queue('ordered.fifo', true);
    const dlq = await queue('dlq');
    await events.send(new PutRuleCommand({ Name: 'to-fifo', EventBusName: 'custom', EventPattern: pattern }));
    await events.send(
      new PutTargetsCommand({
        Rule: 'to-fifo',
        EventBusName: 'custom',
        Targets: [
          { Id: 'fifo', Arn: fifo.arn, SqsParameters: { MessageGroupId: 'g' }, Input: '{"n":1}' },
          { Id: 'gone', Arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:gone`, DeadLetterConfig: { Arn: dlq.arn } },
          { Id: 'fn', Arn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:f` },
        ],
      }),
    );
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'alerts' }));
    await events.send(
      new PutRuleCommand({ Name: 'off', EventBusName: 'custom', EventPattern: pattern, State: 'DISABLED' }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'off',
        EventBusName: 'custom',
        Targets: [{ Id: 'never', Arn: fifo.arn, SqsParameters: { MessageGroupId: 'g' } }],
      }),
    );
    await events.send(
      new PutRuleCommand({ Name: 'to-topic', EventBusName: 'custom', EventPattern: pattern }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: 'to-topic',
        EventBusName: 'custom',
        Targets: [{ Id: 'topic', Arn: TopicArn! }],
      }),
    );

    const entry = { Source: 'com.shop', DetailType: 'Order', Detail: '{}', EventBusName: 'custom' };
    await events.send(new PutEventsCommand({ Entries: [entry] }));
    expect(await receive(fifo.QueueUrl)).toEqual(['{"n":1}']);
    expect(await receive(dlq.QueueUrl)).toHaveLength(1);
    const statuses = () => deliveries().then((l) => Object.fromEntries(l.map((d) => [d.targetId, d.status])));
    expect(await statuses()).toEqual({
      fifo: 'delivered',
      gone: 'dead-lettered',
      // The emulator has a Lambda service now: a function that does not exist is a failed invocation.
      fn: 'failed',
      topic: 'failed',
    });

    // The topic's policy must let EventBridge publish, as CDK's SnsTopic target grants.
    await sns.send(
      new SetTopicAttributesCommand({
        TopicArn,
        AttributeName: 'Policy',
        AttributeValue: JSON.stringify({
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: 'events.amazonaws.com' },
              Action: 'sns:Publish',
              Resource: TopicArn,
            },
          ],
        }),
      }),
    );
    const fan = await queue('fanout');
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: fan.QueueUrl,
        Attributes: {
          Policy: JSON.stringify({
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'sns.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: fan.arn,
              },
            ],
          }),
        },
      }),
    );
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: fan.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    await events.send(new PutEventsCommand({ Entries: [entry] }));
    const [fanned] = await receive(fan.QueueUrl);
    expect(JSON.parse(fanned!)).toMatchObject({ source: 'com.shop', 'detail-type': 'Order' });
  });

  test('TestEventPattern', async () => {
    const event = JSON.stringify({
      id: '1',
      account: ACCOUNT,
      source: 'com.shop',
      time: '2024-01-01T00:00:00Z',
      region: REGION,
      'detail-type': 'Order',
      detail: { amount: 5 },
    });
    expect(
      (await events.send(new TestEventPatternCommand({ EventPattern: pattern, Event: event }))).Result,
    ).toBe(true);
    expect(
      (
        await events.send(
          new TestEventPatternCommand({
            EventPattern: '{"detail":{"amount":[{"numeric":[">",10]}]}}',
            Event: event,
          }),
        )
      ).Result,
    ).toBe(false);
    await expect(
      events.send(new TestEventPatternCommand({ EventPattern: pattern, Event: '{"source":"x"}' })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Parameter Event is not valid.',
    });
    await expect(
      events.send(new TestEventPatternCommand({ EventPattern: '[]', Event: event })),
    ).rejects.toMatchObject({
      name: 'InvalidEventPatternException',
    });
  });
});

describe('EventBridge through Cloud Control', () => {
  test('native buses and rules are Cloud Control resources and inventory items (not the default bus)', async () => {
    await events.send(new CreateEventBusCommand({ Name: 'native', Description: 'n' }));
    const { RuleArn } = await events.send(new PutRuleCommand({ Name: 'native-rule', EventPattern: pattern }));
    await events.send(
      new PutTargetsCommand({
        Rule: 'native-rule',
        Targets: [{ Id: 't', Arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:q` }],
      }),
    );
    const bus = JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::Events::EventBus', Identifier: 'native' })))
        .ResourceDescription!.Properties!,
    );
    expect(bus).toEqual({
      Name: 'native',
      Arn: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/native`,
      Description: 'n',
    });
    const rule = JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::Events::Rule', Identifier: RuleArn })))
        .ResourceDescription!.Properties!,
    );
    expect(rule).toEqual({
      Arn: RuleArn,
      Name: 'native-rule',
      EventPattern: { source: ['com.shop'] },
      State: 'ENABLED',
      Targets: [{ Id: 't', Arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:q` }],
    });
    const inventory = (await ctx.emulator.control.inventory()).filter((i) =>
      i.type.startsWith('AWS::Events::'),
    );
    expect(inventory.map((i) => `${i.type} ${i.identifier}`).sort()).toEqual([
      'AWS::Events::EventBus native',
      `AWS::Events::Rule ${RuleArn}`,
    ]);
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Events::Rule' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual([RuleArn]);
  });

  test('Cloud Control creates and updates rules with targets (reconciled by id) and buses in EventBridge', async () => {
    await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::Events::EventBus',
          DesiredState: JSON.stringify({ Name: 'cc-bus' }),
        }),
      ),
    );
    expect((await events.send(new DescribeEventBusCommand({ Name: 'cc-bus' }))).Name).toBe('cc-bus');
    const q = `arn:aws:sqs:${REGION}:${ACCOUNT}:q`;
    const created = await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::Events::Rule',
          DesiredState: JSON.stringify({
            EventBusName: 'cc-bus',
            EventPattern: { source: ['x'] },
            Description: 'first',
            Targets: [{ Id: 'a', Arn: q }],
          }),
        }),
      ),
    );
    expect(created.Identifier).toMatch(/:rule\/cc-bus\/Rule-[A-Z0-9]{12}$/);
    const name = created.Identifier!.split('/').pop()!;
    await ccRun(
      await cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::Events::Rule',
          Identifier: created.Identifier,
          PatchDocument: JSON.stringify([
            { op: 'remove', path: '/Description' },
            { op: 'replace', path: '/Targets', value: [{ Id: 'b', Arn: q, Input: '{"x":1}' }] },
          ]),
        }),
      ),
    );
    const described = await events.send(new DescribeRuleCommand({ Name: name, EventBusName: 'cc-bus' }));
    expect(described.Description).toBeUndefined();
    expect(
      (await events.send(new ListTargetsByRuleCommand({ Rule: name, EventBusName: 'cc-bus' }))).Targets,
    ).toEqual([{ Id: 'b', Arn: q, Input: '{"x":1}' }]);
    await ccRun(
      await cc.send(
        new DeleteResourceCommand({ TypeName: 'AWS::Events::Rule', Identifier: created.Identifier }),
      ),
    );
    await expect(
      events.send(new DescribeRuleCommand({ Name: name, EventBusName: 'cc-bus' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('a snapshot restores buses and rules', () => {
    const store = new EventsStore();
    store.addBus({ account: ACCOUNT, region: REGION, name: 'b', tags: {}, created: 1, lastModified: 1 });
    store.putRule({
      account: ACCOUNT,
      region: REGION,
      busName: 'b',
      name: 'r',
      state: 'ENABLED',
      tags: {},
      targets: [],
      eventPattern: pattern,
    });
    const copy = new EventsStore();
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    expect(copy.rule(ACCOUNT, REGION, 'b', 'r')?.eventPattern).toBe(pattern);
  });
});
