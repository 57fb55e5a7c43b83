import {
  GetDataProtectionPolicyCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  PublishCommand,
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
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { SnsSubscriptionProvider } from '../src/subscription-provider';
import { defaultTopicPolicy, SnsTopicPolicyProvider } from '../src/topic-policy-provider';
import { SnsTopicProvider } from '../src/topic-provider';

// The providers against the emulator's SNS, through real SDK clients built by
// cdkd's client factory, with the create contexts cdkd builds.
const TOPIC = 'AWS::SNS::Topic';
const SUBSCRIPTION = 'AWS::SNS::Subscription';
const POLICY = 'AWS::SNS::TopicPolicy';
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STACK = 'SnsPackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let host: RecordingIoHost;
let sns: SNSClient;
let sqs: SQSClient;
let topics: SnsTopicProvider;
let subscriptions: SnsSubscriptionProvider;
let policies: SnsTopicPolicyProvider;
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
  sns = factory.get(SNSClient);
  sqs = factory.get(SQSClient);
  topics = new SnsTopicProvider(ctx);
  subscriptions = new SnsSubscriptionProvider(ctx);
  policies = new SnsTopicPolicyProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

/** The create context cdkd builds for one create intent (a fresh token unless given). */
const createContext = (logicalId: string, token = `token-${++counter}`): CreateContext =>
  buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });

const attributesOf = async (TopicArn: string) =>
  (await sns.send(new GetTopicAttributesCommand({ TopicArn }))).Attributes ?? {};
const tagsOf = async (ResourceArn: string) =>
  Object.fromEntries(
    ((await sns.send(new ListTagsForResourceCommand({ ResourceArn }))).Tags ?? []).map((t) => [
      t.Key,
      t.Value,
    ]),
  );
const topicCount = async () => ((await sns.send(new ListTopicsCommand({}))).Topics ?? []).length;

async function queue(name: string) {
  const QueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl,
      Attributes: {
        Policy: JSON.stringify({
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Resource: arn,
            },
          ],
        }),
      },
    }),
  );
  return { QueueUrl, arn };
}

describe('AWS::SNS::Topic', () => {
  it('creates a topic with a generated name, its attributes, tags and ownership tags', async () => {
    const context = createContext('Orders');
    const result = await topics.create(
      'Orders',
      TOPIC,
      {
        DisplayName: 'Orders',
        TracingConfig: 'Active',
        Tags: [{ Key: 'team', Value: 'shop' }],
        DeliveryStatusLogging: [
          {
            Protocol: 'sqs',
            SuccessFeedbackRoleArn: `arn:aws:iam::${ACCOUNT}:role/log`,
            SuccessFeedbackSampleRate: '50',
          },
        ],
      },
      context,
    );
    expect(result.physicalId).toMatch(
      new RegExp(`^arn:aws:sns:${REGION}:${ACCOUNT}:${STACK}-Orders-[A-Z2-7]{13}$`),
    );
    const name = result.physicalId.split(':').pop();
    expect(result.attributes).toEqual({ TopicArn: result.physicalId, TopicName: name });
    expect(await attributesOf(result.physicalId)).toMatchObject({
      DisplayName: 'Orders',
      TracingConfig: 'Active',
      SQSSuccessFeedbackRoleArn: `arn:aws:iam::${ACCOUNT}:role/log`,
      SQSSuccessFeedbackSampleRate: '50',
    });
    expect(await tagsOf(result.physicalId)).toEqual({ team: 'shop', ...context.ownership!.tags });
  });

  it('knows a topic CreateTopic answered is its own without reading its tags, first time or repeated', async () => {
    // SNS answers an existing topic only when it carries every requested tag, this create's token among them.
    const token = `token-${++counter}`;
    await emulator.control.clearRequests();
    const first = await topics.create('Plain', TOPIC, {}, createContext('Plain', token));
    const again = await topics.create('Plain', TOPIC, {}, createContext('Plain', token));
    expect(again.physicalId).toBe(first.physicalId);
    const calls = (await emulator.control.requests()).byOperation;
    expect(calls['sns:CreateTopic']).toBe(2);
    expect(calls['sns:ListTagsForResource']).toBeUndefined();
    expect(await tagsOf(first.physicalId)).toEqual(createContext('Plain', token).ownership!.tags);
  });

  it('a repeated create with the same token finds its topic, even one changed since; another create is refused', async () => {
    const token = `token-${++counter}`;
    const properties = { TopicName: 'repeat', DisplayName: 'first' };
    const first = await topics.create('Repeat', TOPIC, properties, createContext('Repeat', token));
    const before = await topicCount();
    // The reply was lost, and the topic changed before the retry: the retry adopts it and converges.
    await sns.send(
      new SetTopicAttributesCommand({
        TopicArn: first.physicalId,
        AttributeName: 'DisplayName',
        AttributeValue: 'drifted',
      }),
    );
    const again = await topics.create('Repeat', TOPIC, properties, createContext('Repeat', token));
    expect(again.physicalId).toBe(first.physicalId);
    expect(await topicCount()).toBe(before);
    expect((await attributesOf(first.physicalId)).DisplayName).toBe('first');

    // The same name under another create of the same resource, or another stack's: never adopted.
    await expect(topics.create('Repeat', TOPIC, properties, createContext('Repeat'))).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('made by an earlier create of this resource'),
    });
    const foreign = buildCreateContext({
      stackName: 'Other',
      region: REGION,
      logicalId: 'X',
      idempotencyToken: 'other-1',
    });
    await expect(topics.create('Repeat', TOPIC, { TopicName: 'repeat' }, foreign)).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining('not made by this stack'),
    });
  });

  it('creates a FIFO topic: the generated name ends in .fifo', async () => {
    const result = await topics.create(
      'Ledger',
      TOPIC,
      { FifoTopic: true, ContentBasedDeduplication: true, FifoThroughputScope: 'MessageGroup' },
      createContext('Ledger'),
    );
    expect(result.physicalId).toMatch(/-Ledger-[A-Z2-7]{13}\.fifo$/);
    expect(await attributesOf(result.physicalId)).toMatchObject({
      FifoTopic: 'true',
      ContentBasedDeduplication: 'true',
      FifoThroughputScope: 'MessageGroup',
    });
  });

  it('updates in place, resets removed properties, reconciles tags (keeping ownership) and inline subscriptions', async () => {
    const context = createContext('Updated');
    const q1 = `arn:aws:sqs:${REGION}:${ACCOUNT}:inline-1`;
    const q2 = `arn:aws:sqs:${REGION}:${ACCOUNT}:inline-2`;
    const v1 = {
      DisplayName: 'v1',
      TracingConfig: 'Active',
      KmsMasterKeyId: 'alias/aws/sns',
      SignatureVersion: '2',
      DataProtectionPolicy: { Name: 'dpp', Version: '2021-06-01', Statement: [] },
      DeliveryStatusLogging: [
        { Protocol: 'lambda', FailureFeedbackRoleArn: `arn:aws:iam::${ACCOUNT}:role/log` },
      ],
      Subscription: [{ Protocol: 'sqs', Endpoint: q1 }],
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const { physicalId } = await topics.create('Updated', TOPIC, v1, context);
    const v2 = {
      DisplayName: 'v2',
      Subscription: [{ Protocol: 'sqs', Endpoint: q2 }],
      Tags: [
        { Key: 'keep', Value: 'changed' },
        { Key: 'new', Value: '3' },
      ],
    };
    const updated = await topics.update('Updated', physicalId, TOPIC, v2, v1, { expectedRegion: REGION });
    expect(updated).toEqual({
      physicalId,
      wasReplaced: false,
      attributes: { TopicArn: physicalId, TopicName: physicalId.split(':').pop() },
    });
    const attributes = await attributesOf(physicalId);
    expect(attributes.DisplayName).toBe('v2');
    expect(attributes.TracingConfig).toBe('PassThrough');
    expect(attributes.SignatureVersion).toBe('1');
    expect(attributes.KmsMasterKeyId).toBeUndefined();
    expect(attributes.LambdaFailureFeedbackRoleArn).toBeUndefined();
    expect(
      (await sns.send(new GetDataProtectionPolicyCommand({ ResourceArn: physicalId }))).DataProtectionPolicy,
    ).toBeUndefined();
    const subscribed = (await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: physicalId })))
      .Subscriptions!;
    expect(subscribed.map((s) => s.Endpoint)).toEqual([q2]);
    expect(await tagsOf(physicalId)).toEqual({ keep: 'changed', new: '3', ...context.ownership!.tags });
  });

  it('deletes (again without error); refuses a delete in another region than the record', async () => {
    const { physicalId } = await topics.create('Gone', TOPIC, {}, createContext('Gone'));
    await expect(
      topics.delete('Gone', physicalId, TOPIC, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toThrow(/eu-west-1/);
    await topics.delete('Gone', physicalId, TOPIC, {}, { expectedRegion: REGION });
    await expect(sns.send(new GetTopicAttributesCommand({ TopicArn: physicalId }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    await topics.delete('Gone', physicalId, TOPIC, {}, { expectedRegion: REGION });
  });

  it('reads the current state with every user-controllable property, attributes from the ARN, imports by name', async () => {
    const { physicalId } = await topics.create(
      'Read',
      TOPIC,
      { TopicName: 'read-me', Tags: [{ Key: 'a', Value: 'b' }] },
      createContext('Read'),
    );
    const state = await topics.readCurrentState(physicalId);
    expect(Object.keys(state!).sort()).toEqual(
      [
        'DataProtectionPolicy',
        'DeliveryStatusLogging',
        'DisplayName',
        'FifoTopic',
        'KmsMasterKeyId',
        'MaximumMessageSize',
        'SignatureVersion',
        'Subscription',
        'Tags',
        'TopicName',
        'TracingConfig',
      ].sort(),
    );
    expect(state).toMatchObject({
      TopicName: 'read-me',
      DisplayName: '',
      FifoTopic: false,
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    expect(await topics.getAttribute(physicalId, TOPIC, 'TopicName')).toBe('read-me');
    expect(await topics.readCurrentState(`arn:aws:sns:${REGION}:${ACCOUNT}:missing`)).toBeUndefined();
    const imported = await topics.import({
      logicalId: 'Read',
      resourceType: TOPIC,
      stackName: STACK,
      region: REGION,
      properties: { TopicName: 'read-me' },
    });
    expect(imported?.physicalId).toBe(physicalId);
    expect(
      await topics.import({
        logicalId: 'X',
        resourceType: TOPIC,
        stackName: STACK,
        region: REGION,
        properties: {},
      }),
    ).toBeNull();
  });

  it('refuses a DeliveryStatusLogging protocol SNS does not know', async () => {
    await expect(
      topics.create('Bad', TOPIC, { DeliveryStatusLogging: [{ Protocol: 'pigeon' }] }, createContext('Bad')),
    ).rejects.toThrow(/pigeon/);
  });
});

describe('AWS::SNS::Subscription', () => {
  it('subscribes with attributes; a retry of the same create finds it; a subscription it did not make is refused', async () => {
    const { physicalId: topicArn } = await topics.create('SubTopic', TOPIC, {}, createContext('SubTopic'));
    const q = await queue('sub-queue');
    const properties = {
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: q.arn,
      RawMessageDelivery: true,
      FilterPolicy: { kind: ['order'] },
    };
    const context = createContext('Sub');
    const created = await subscriptions.create('Sub', SUBSCRIPTION, properties, context);
    expect(created.physicalId).toMatch(new RegExp(`^${topicArn}:[0-9a-f-]{36}$`));
    expect(created.attributes).toEqual({ Arn: created.physicalId });
    const again = await subscriptions.create('Sub', SUBSCRIPTION, properties, context);
    expect(again.physicalId).toBe(created.physicalId);
    await expect(
      subscriptions.create('Sub', SUBSCRIPTION, properties, createContext('Sub')),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringContaining(created.physicalId),
    });

    // Published messages reach the queue through the subscription, filtered.
    await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: 'yes',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'order' } },
      }),
    );
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'no' }));
    const received =
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10 })))
        .Messages ?? [];
    expect(received.map((m) => m.Body)).toEqual(['yes']);
  });

  it('updates attributes in place and resets removed ones; deletes', async () => {
    const { physicalId: topicArn } = await topics.create('SubTopic2', TOPIC, {}, createContext('SubTopic2'));
    const endpoint = `arn:aws:sqs:${REGION}:${ACCOUNT}:sub2`;
    const v1 = {
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: endpoint,
      RawMessageDelivery: true,
      FilterPolicy: { a: ['b'] },
    };
    const { physicalId } = await subscriptions.create('Sub2', SUBSCRIPTION, v1, createContext('Sub2'));
    const attrs = async () =>
      (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: physicalId }))).Attributes!;

    const v2 = { ...v1, FilterPolicyScope: 'MessageBody', FilterPolicy: { order: { state: ['paid'] } } };
    await subscriptions.update('Sub2', physicalId, SUBSCRIPTION, v2, v1, { expectedRegion: REGION });
    expect(await attrs()).toMatchObject({
      FilterPolicyScope: 'MessageBody',
      FilterPolicy: JSON.stringify({ order: { state: ['paid'] } }),
    });
    const v3 = { TopicArn: topicArn, Protocol: 'sqs', Endpoint: endpoint };
    await subscriptions.update('Sub2', physicalId, SUBSCRIPTION, v3, v2, { expectedRegion: REGION });
    const reset = await attrs();
    expect(reset.FilterPolicy).toBeUndefined();
    expect(reset.RawMessageDelivery).toBe('false');

    const state = await subscriptions.readCurrentState(physicalId);
    expect(state).toMatchObject({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: endpoint,
      Region: REGION,
      RawMessageDelivery: false,
      FilterPolicy: {},
    });
    // The read-back round-trips through update without sending anything SNS refuses.
    await subscriptions.update('Sub2', physicalId, SUBSCRIPTION, state!, state!, { expectedRegion: REGION });

    await subscriptions.delete('Sub2', physicalId, SUBSCRIPTION, v3, { expectedRegion: REGION });
    await subscriptions.delete('Sub2', physicalId, SUBSCRIPTION, v3, { expectedRegion: REGION });
    expect(await subscriptions.readCurrentState(physicalId)).toBeUndefined();
  });

  it('refuses a Region other than the topic’s', async () => {
    await expect(
      subscriptions.create(
        'Sub3',
        SUBSCRIPTION,
        {
          TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:t`,
          Protocol: 'sqs',
          Endpoint: 'x',
          Region: 'eu-west-1',
        },
        createContext('Sub3'),
      ),
    ).rejects.toThrow(/Region eu-west-1/);
  });
});

describe('AWS::SNS::TopicPolicy', () => {
  const document = (topic: string) => ({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topic,
      },
    ],
  });
  const policyOf = async (TopicArn: string) => JSON.parse((await attributesOf(TopicArn)).Policy!) as unknown;

  it('writes the policy on every topic; a dropped topic and a deleted policy get SNS’s default back', async () => {
    const a = (await topics.create('PolicyA', TOPIC, {}, createContext('PolicyA'))).physicalId;
    const b = (await topics.create('PolicyB', TOPIC, {}, createContext('PolicyB'))).physicalId;
    const doc = document('*');
    const created = await policies.create('Policy', POLICY, { Topics: [a, b], PolicyDocument: doc });
    expect(created).toEqual({ physicalId: a, attributes: { Id: a } });
    expect(await policyOf(a)).toEqual(doc);
    expect(await policyOf(b)).toEqual(doc);

    const updated = await policies.update(
      'Policy',
      a,
      POLICY,
      { Topics: [b], PolicyDocument: doc },
      { Topics: [a, b], PolicyDocument: doc },
      { expectedRegion: REGION },
    );
    expect(updated.physicalId).toBe(b);
    expect(await policyOf(a)).toEqual(JSON.parse(defaultTopicPolicy(a)));

    await policies.delete(
      'Policy',
      b,
      POLICY,
      { Topics: [b], PolicyDocument: doc },
      { expectedRegion: REGION },
    );
    expect(await policyOf(b)).toEqual(JSON.parse(defaultTopicPolicy(b)));
  });

  it('leaves a policy someone else has written since, with a warning; skips without a known document', async () => {
    const t = (await topics.create('PolicyC', TOPIC, {}, createContext('PolicyC'))).physicalId;
    await policies.create('Policy2', POLICY, { Topics: [t], PolicyDocument: document(t) });
    const theirs = JSON.stringify(document('theirs'));
    await sns.send(
      new SetTopicAttributesCommand({ TopicArn: t, AttributeName: 'Policy', AttributeValue: theirs }),
    );
    await policies.delete(
      'Policy2',
      t,
      POLICY,
      { Topics: [t], PolicyDocument: document(t) },
      { expectedRegion: REGION },
    );
    expect(await policyOf(t)).toEqual(JSON.parse(theirs));
    expect(host.messages.map((m) => m.message).join('\n')).toContain(
      `the policy on ${t} is no longer the one cdkd wrote`,
    );
    expect(await policies.delete('Policy2', t, POLICY, undefined, { expectedRegion: REGION })).toMatchObject({
      outcome: 'skipped',
    });
  });

  it('a topic gone before the delete is no error', async () => {
    const t = (await topics.create('PolicyD', TOPIC, {}, createContext('PolicyD'))).physicalId;
    await policies.create('Policy3', POLICY, { Topics: [t], PolicyDocument: document(t) });
    await topics.delete('PolicyD', t, TOPIC, {}, { expectedRegion: REGION });
    await policies.delete(
      'Policy3',
      t,
      POLICY,
      { Topics: [t], PolicyDocument: document(t) },
      { expectedRegion: REGION },
    );
    expect(await policies.readCurrentState(t, 'Policy3', POLICY, { Topics: [t] })).toBeUndefined();
  });

  it('matches policies by meaning (principal spellings, list order)', async () => {
    const t = (await topics.create('PolicyE', TOPIC, {}, createContext('PolicyE'))).physicalId;
    const written = {
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: ACCOUNT },
          Action: ['sns:Subscribe', 'sns:Publish'],
          Resource: t,
        },
      ],
    };
    await policies.create('Policy4', POLICY, { Topics: [t], PolicyDocument: written });
    const recorded = {
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: [`arn:aws:iam::${ACCOUNT}:root`] },
          Action: ['sns:Publish', 'sns:Subscribe'],
          Resource: [t],
        },
      ],
    };
    await policies.delete(
      'Policy4',
      t,
      POLICY,
      { Topics: [t], PolicyDocument: recorded },
      { expectedRegion: REGION },
    );
    expect(await policyOf(t)).toEqual(JSON.parse(defaultTopicPolicy(t)));
  });
});

describe('a topic whose subscription exists before the stack subscribes it', () => {
  it('is refused with the subscription named', async () => {
    const { physicalId: topicArn } = await topics.create('Pre', TOPIC, {}, createContext('Pre'));
    const existing = (
      await sns.send(
        new SubscribeCommand({
          TopicArn: topicArn,
          Protocol: 'sqs',
          Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:pre`,
        }),
      )
    ).SubscriptionArn!;
    await expect(
      subscriptions.create(
        'PreSub',
        SUBSCRIPTION,
        { TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:pre` },
        createContext('PreSub'),
      ),
    ).rejects.toMatchObject({ code: 'RESOURCE_ALREADY_EXISTS', message: expect.stringContaining(existing) });
  });
});
