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
  AddPermissionCommand,
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  DeleteTopicCommand,
  GetDataProtectionPolicyCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  PublishBatchCommand,
  PublishCommand,
  PutDataProtectionPolicyCommand,
  RemovePermissionCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
  TagResourceCommand,
  UnsubscribeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { RestJsonCodec, type ServiceModule } from '../src/index';
import type { LambdaInvokeApi, ServiceInvoker } from '../src/core/lambda-invoke';
import { SnsStore } from '../src/services/sns/store';
import { clientConfig, useEmulator } from './helpers';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

/** A test-only Lambda service that only records asynchronous invocations (the hook SNS calls). */
const invocations: Array<{ functionArn: string; payload: string; invoker: ServiceInvoker }> = [];
const lambdaHook: ServiceModule = {
  name: 'lambda',
  signingNames: ['lambda'],
  create() {
    const api: LambdaInvokeApi = {
      invokeAsync: async (functionArn, payload, invoker) => {
        if (functionArn.endsWith(':missing')) return { accepted: false, reason: 'Function not found' };
        invocations.push({ functionArn, payload, invoker });
        return { accepted: true };
      },
    };
    return {
      protocol: new RestJsonCodec({
        model: () => require('@aws-sdk/client-lambda') as Record<string, unknown>,
      }),
      operations: {},
      api,
    };
  },
};

const ctx = useEmulator({ services: [lambdaHook] });
let sns: SNSClient;
let sqs: SQSClient;
let cc: CloudControlClient;

beforeAll(() => {
  sns = new SNSClient(clientConfig(ctx.emulator));
  sqs = new SQSClient(clientConfig(ctx.emulator));
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  sns.destroy();
  sqs.destroy();
  cc.destroy();
});
beforeEach(async () => {
  invocations.length = 0;
  await ctx.emulator.control.reset();
});

const topicArn = (name: string) => `arn:aws:sns:${REGION}:${ACCOUNT}:${name}`;
const attributes = async (TopicArn: string) =>
  (await sns.send(new GetTopicAttributesCommand({ TopicArn }))).Attributes!;
const deliveries = async () =>
  (await ctx.emulator.control.call('GET', '/sns/deliveries')) as Array<{
    status: string;
    reason?: string;
    protocol: string;
  }>;

/** A queue whose policy lets the topic send to it, as CDK's SqsSubscription writes it. */
async function queueFor(topic: string, name: string, fifo = false) {
  const QueueUrl = (
    await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true' } : {} }))
  ).QueueUrl!;
  const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl,
      Attributes: {
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Resource: arn,
              Condition: { ArnEquals: { 'aws:SourceArn': topic } },
            },
          ],
        }),
      },
    }),
  );
  return { QueueUrl, arn };
}

async function ccRun(out: { ProgressEvent?: { RequestToken?: string } }) {
  const { ProgressEvent } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
  return ProgressEvent!;
}
const ccRead = async (TypeName: string, Identifier: string) =>
  JSON.parse(
    (await cc.send(new GetResourceCommand({ TypeName, Identifier }))).ResourceDescription!.Properties!,
  ) as Record<string, unknown>;

describe('SNS topics', () => {
  test('create: default attributes, the default policy, idempotent by name', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({
        Name: 'orders',
        Attributes: { DisplayName: 'Orders' },
        Tags: [{ Key: 'team', Value: 'a' }],
      }),
    );
    expect(TopicArn).toBe(topicArn('orders'));
    const attrs = await attributes(TopicArn!);
    expect(attrs).toMatchObject({
      TopicArn,
      Owner: ACCOUNT,
      DisplayName: 'Orders',
      SubscriptionsConfirmed: '0',
      SubscriptionsPending: '0',
      SubscriptionsDeleted: '0',
    });
    expect(attrs.FifoTopic).toBeUndefined();
    expect(JSON.parse(attrs.EffectiveDeliveryPolicy!)).toHaveProperty(
      'http.defaultHealthyRetryPolicy.numRetries',
      3,
    );
    const policy = JSON.parse(attrs.Policy!);
    expect(policy).toMatchObject({
      Id: '__default_policy_ID',
      Statement: [
        {
          Principal: { AWS: '*' },
          Resource: TopicArn,
          Condition: { StringEquals: { 'AWS:SourceOwner': ACCOUNT } },
        },
      ],
    });
    expect(policy.Statement[0].Action).toContain('SNS:Publish');

    // Same name, same attributes and tags: the same topic.
    const again = await sns.send(
      new CreateTopicCommand({
        Name: 'orders',
        Attributes: { DisplayName: 'Orders' },
        Tags: [{ Key: 'team', Value: 'a' }],
      }),
    );
    expect(again.TopicArn).toBe(TopicArn);
    expect((await sns.send(new CreateTopicCommand({ Name: 'orders' }))).TopicArn).toBe(TopicArn);
    await expect(
      sns.send(new CreateTopicCommand({ Name: 'orders', Attributes: { DisplayName: 'Other' } })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: Attributes Reason: Topic already exists with different attributes',
    });
    await expect(
      sns.send(new CreateTopicCommand({ Name: 'orders', Tags: [{ Key: 'team', Value: 'b' }] })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: Tags Reason: Topic already exists with different tags',
    });
  });

  test('names and FIFO topics', async () => {
    await expect(sns.send(new CreateTopicCommand({ Name: 'bad name' }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(
      sns.send(new CreateTopicCommand({ Name: 'events', Attributes: { FifoTopic: 'true' } })),
    ).rejects.toMatchObject({ message: expect.stringContaining('Fifo Topic names must end with .fifo') });
    await expect(sns.send(new CreateTopicCommand({ Name: 'events.fifo' }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({
        Name: 'events.fifo',
        Attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    expect(await attributes(TopicArn!)).toMatchObject({
      FifoTopic: 'true',
      ContentBasedDeduplication: 'true',
    });
    await expect(
      sns.send(new CreateTopicCommand({ Name: 'plain', Attributes: { ContentBasedDeduplication: 'true' } })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  test('SetTopicAttributes: set, remove, validation', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'attrs' }));
    await sns.send(
      new SetTopicAttributesCommand({
        TopicArn,
        AttributeName: 'KmsMasterKeyId',
        AttributeValue: 'alias/aws/sns',
      }),
    );
    await sns.send(
      new SetTopicAttributesCommand({ TopicArn, AttributeName: 'TracingConfig', AttributeValue: 'Active' }),
    );
    await sns.send(
      new SetTopicAttributesCommand({ TopicArn, AttributeName: 'SignatureVersion', AttributeValue: '2' }),
    );
    expect(await attributes(TopicArn!)).toMatchObject({
      KmsMasterKeyId: 'alias/aws/sns',
      TracingConfig: 'Active',
      SignatureVersion: '2',
    });
    await sns.send(
      new SetTopicAttributesCommand({ TopicArn, AttributeName: 'KmsMasterKeyId', AttributeValue: '' }),
    );
    expect((await attributes(TopicArn!)).KmsMasterKeyId).toBeUndefined();
    await expect(
      sns.send(new SetTopicAttributesCommand({ TopicArn, AttributeName: 'Colour', AttributeValue: 'blue' })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: AttributeName',
    });
    await expect(
      sns.send(
        new SetTopicAttributesCommand({ TopicArn, AttributeName: 'TracingConfig', AttributeValue: 'On' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sns.send(
        new SetTopicAttributesCommand({ TopicArn, AttributeName: 'Policy', AttributeValue: '{not json' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sns.send(
        new SetTopicAttributesCommand({ TopicArn, AttributeName: 'FifoTopic', AttributeValue: 'true' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn('nope') })),
    ).rejects.toMatchObject({
      name: 'NotFoundException',
      message: 'Topic does not exist',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(
      sns.send(new GetTopicAttributesCommand({ TopicArn: 'arn:aws:sns:eu-west-1:123456789012:attrs' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: 'Invalid parameter: TopicArn' });
  });

  test('ListTopics pages by 100; DeleteTopic is idempotent and removes subscriptions', async () => {
    for (let i = 0; i < 105; i++)
      await sns.send(new CreateTopicCommand({ Name: `t${String(i).padStart(3, '0')}` }));
    const first = await sns.send(new ListTopicsCommand({}));
    expect(first.Topics).toHaveLength(100);
    const second = await sns.send(new ListTopicsCommand({ NextToken: first.NextToken }));
    expect(second.Topics).toHaveLength(5);
    expect(second.NextToken).toBeUndefined();
    await expect(sns.send(new ListTopicsCommand({ NextToken: 'garbage' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });

    const TopicArn = topicArn('t000');
    const { arn } = await queueFor(TopicArn, 'q');
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: arn }));
    await sns.send(new DeleteTopicCommand({ TopicArn }));
    await sns.send(new DeleteTopicCommand({ TopicArn }));
    expect((await sns.send(new ListSubscriptionsCommand({}))).Subscriptions).toEqual([]);
  });

  test('tags, permissions, data protection policies', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'tagged' }));
    await sns.send(
      new TagResourceCommand({
        ResourceArn: TopicArn,
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      }),
    );
    await sns.send(new UntagResourceCommand({ ResourceArn: TopicArn, TagKeys: ['a'] }));
    expect((await sns.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn }))).Tags).toEqual([
      { Key: 'b', Value: '2' },
    ]);
    await expect(
      sns.send(new ListTagsForResourceCommand({ ResourceArn: topicArn('missing') })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404 } });
    const many = Array.from({ length: 51 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    await expect(
      sns.send(new TagResourceCommand({ ResourceArn: TopicArn, Tags: many })),
    ).rejects.toMatchObject({
      name: 'TagLimitExceededException',
    });

    await sns.send(
      new AddPermissionCommand({
        TopicArn,
        Label: 'partner',
        AWSAccountId: ['210987654321'],
        ActionName: ['Publish'],
      }),
    );
    const policy = JSON.parse((await attributes(TopicArn!)).Policy!);
    expect(policy.Statement[1]).toMatchObject({
      Sid: 'partner',
      Principal: { AWS: ['arn:aws:iam::210987654321:root'] },
      Action: ['SNS:Publish'],
    });
    await expect(
      sns.send(
        new AddPermissionCommand({
          TopicArn,
          Label: 'partner',
          AWSAccountId: ['210987654321'],
          ActionName: ['Publish'],
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await sns.send(new RemovePermissionCommand({ TopicArn, Label: 'partner' }));
    expect(JSON.parse((await attributes(TopicArn!)).Policy!).Statement).toHaveLength(1);

    const dpp = JSON.stringify({ Name: 'p', Version: '2021-06-01', Statement: [] });
    await sns.send(new PutDataProtectionPolicyCommand({ ResourceArn: TopicArn, DataProtectionPolicy: dpp }));
    expect(
      (await sns.send(new GetDataProtectionPolicyCommand({ ResourceArn: TopicArn }))).DataProtectionPolicy,
    ).toBe(dpp);
    await expect(
      sns.send(new PutDataProtectionPolicyCommand({ ResourceArn: TopicArn, DataProtectionPolicy: '[]' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  test('another account needs the topic policy', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'private' }));
    const other = new SNSClient(
      clientConfig(ctx.emulator, REGION, { accessKeyId: '210987654321', secretAccessKey: 'x' }),
    );
    try {
      await expect(other.send(new PublishCommand({ TopicArn, Message: 'hi' }))).rejects.toMatchObject({
        name: 'AuthorizationErrorException',
        $metadata: { httpStatusCode: 403 },
      });
      await sns.send(
        new AddPermissionCommand({
          TopicArn,
          Label: 'other',
          AWSAccountId: ['210987654321'],
          ActionName: ['Publish'],
        }),
      );
      expect((await other.send(new PublishCommand({ TopicArn, Message: 'hi' }))).MessageId).toBeDefined();
    } finally {
      other.destroy();
    }
  });

  test('throttling through a fault answers Throttled (429)', async () => {
    await ctx.emulator.control.addFault({ service: 'sns', operation: 'ListTopics', error: 429, count: 5 });
    const impatient = new SNSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    try {
      await expect(impatient.send(new ListTopicsCommand({}))).rejects.toMatchObject({
        name: 'ThrottledException',
        $metadata: { httpStatusCode: 429 },
      });
    } finally {
      impatient.destroy();
    }
  });
});

describe('SNS subscriptions', () => {
  test('sqs: confirmed at once, idempotent for the same attributes, attributes get/set/remove', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'subs' }));
    const { arn } = await queueFor(TopicArn!, 'subq');
    const filter = JSON.stringify({ kind: ['order'] });
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: arn,
        Attributes: { FilterPolicy: filter, RawMessageDelivery: 'true' },
      }),
    );
    expect(SubscriptionArn).toMatch(new RegExp(`^${TopicArn}:[0-9a-f-]{36}$`));
    const again = await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: arn,
        Attributes: { FilterPolicy: filter },
      }),
    );
    expect(again.SubscriptionArn).toBe(SubscriptionArn);
    await expect(
      sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'sqs',
          Endpoint: arn,
          Attributes: { RawMessageDelivery: 'false' },
        }),
      ),
    ).rejects.toMatchObject({
      message: 'Invalid parameter: Attributes Reason: Subscription already exists with different attributes',
    });

    const got = (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn }))).Attributes!;
    expect(got).toMatchObject({
      SubscriptionArn,
      TopicArn,
      Protocol: 'sqs',
      Endpoint: arn,
      Owner: ACCOUNT,
      PendingConfirmation: 'false',
      RawMessageDelivery: 'true',
      FilterPolicy: filter,
      FilterPolicyScope: 'MessageAttributes',
    });
    expect((await attributes(TopicArn!)).SubscriptionsConfirmed).toBe('1');

    await sns.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn,
        AttributeName: 'FilterPolicy',
        AttributeValue: '',
      }),
    );
    const cleared = (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn }))).Attributes!;
    expect(cleared.FilterPolicy).toBeUndefined();
    expect(cleared.FilterPolicyScope).toBeUndefined();
    await expect(
      sns.send(
        new SetSubscriptionAttributesCommand({
          SubscriptionArn,
          AttributeName: 'FilterPolicy',
          AttributeValue: '{"a":"b"}',
        }),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('Invalid parameter: FilterPolicy') });
    await expect(
      sns.send(
        new SetSubscriptionAttributesCommand({
          SubscriptionArn,
          AttributeName: 'FilterPolicy',
          AttributeValue: '{"a":[{"bogus":1}]}',
        }),
      ),
    ).rejects.toMatchObject({ message: 'Invalid parameter: FilterPolicy: Unrecognized match type bogus' });
    await expect(
      sns.send(
        new SetSubscriptionAttributesCommand({
          SubscriptionArn,
          AttributeName: 'Colour',
          AttributeValue: 'x',
        }),
      ),
    ).rejects.toMatchObject({ message: 'Invalid parameter: AttributeName' });

    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    await expect(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    expect((await attributes(TopicArn!)).SubscriptionsDeleted).toBe('1');
  });

  test('http and email subscriptions wait for confirmation', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'hooks' }));
    const pending = await sns.send(
      new SubscribeCommand({ TopicArn, Protocol: 'https', Endpoint: 'https://example.com/hook' }),
    );
    expect(pending.SubscriptionArn).toBe('pending confirmation');
    const withArn = await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'email',
        Endpoint: 'ops@example.com',
        ReturnSubscriptionArn: true,
      }),
    );
    expect(withArn.SubscriptionArn).toMatch(/^arn:aws:sns:/);
    const listed = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn }));
    expect(listed.Subscriptions!.map((s) => s.SubscriptionArn)).toEqual([
      'PendingConfirmation',
      'PendingConfirmation',
    ]);
    expect((await attributes(TopicArn!)).SubscriptionsPending).toBe('2');

    const [confirmation] = (await ctx.emulator.control.call('GET', '/sns/pending-confirmations')) as Array<{
      token: string;
      endpoint: string;
    }>;
    const confirmed = await sns.send(
      new ConfirmSubscriptionCommand({ TopicArn, Token: confirmation!.token }),
    );
    expect(confirmed.SubscriptionArn).toMatch(/^arn:aws:sns:/);
    await expect(sns.send(new ConfirmSubscriptionCommand({ TopicArn, Token: 'nope' }))).rejects.toMatchObject(
      {
        name: 'InvalidParameterException',
      },
    );
    expect((await attributes(TopicArn!)).SubscriptionsPending).toBe('1');
  });

  test('protocol and endpoint checks', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'checks' }));
    await expect(
      sns.send(new SubscribeCommand({ TopicArn, Protocol: 'pigeon', Endpoint: 'x' })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    await expect(
      sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: 'not-an-arn' })),
    ).rejects.toMatchObject({
      message: 'Invalid parameter: SQS endpoint ARN',
    });
    await expect(
      sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'sqs',
          Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q.fifo`,
        }),
      ),
    ).rejects.toMatchObject({
      message: expect.stringContaining('FIFO SQS Queues can not be subscribed to standard SNS topics'),
    });
    await expect(
      sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'lambda',
          Endpoint: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:f`,
          Attributes: { RawMessageDelivery: 'true' },
        }),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('does not support raw message delivery') });
    await expect(
      sns.send(
        new SubscribeCommand({
          TopicArn: topicArn('none'),
          Protocol: 'sqs',
          Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q`,
        }),
      ),
    ).rejects.toMatchObject({ name: 'NotFoundException' });
  });

  test('ListSubscriptions pages by 100', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'wide' }));
    for (let i = 0; i < 102; i++)
      await sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'sqs',
          Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q${i}`,
        }),
      );
    const first = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn }));
    expect(first.Subscriptions).toHaveLength(100);
    const rest = await sns.send(
      new ListSubscriptionsByTopicCommand({ TopicArn, NextToken: first.NextToken }),
    );
    expect(rest.Subscriptions).toHaveLength(2);
    const all = await sns.send(new ListSubscriptionsCommand({}));
    expect(all.Subscriptions).toHaveLength(100);
    expect(all.NextToken).toBeDefined();
  });
});

describe('SNS Publish', () => {
  test('delivers to an SQS queue only when the queue policy allows the topic', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'news' }));
    const open = await queueFor(TopicArn!, 'allowed');
    const closed = (await sqs.send(new CreateQueueCommand({ QueueName: 'closed' }))).QueueUrl!;
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: open.arn }));
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:closed`,
      }),
    );
    const { MessageId } = await sns.send(
      new PublishCommand({
        TopicArn,
        Message: 'hello',
        Subject: 'greeting',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'hi' } },
      }),
    );
    const [message] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: open.QueueUrl }))).Messages!;
    const body = JSON.parse(message!.Body!);
    expect(body).toMatchObject({
      Type: 'Notification',
      MessageId,
      TopicArn,
      Subject: 'greeting',
      Message: 'hello',
      SignatureVersion: '1',
      MessageAttributes: { kind: { Type: 'String', Value: 'hi' } },
    });
    expect(Date.parse(body.Timestamp)).not.toBeNaN();
    expect(
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: closed, AttributeNames: ['All'] })))
        .Attributes,
    ).toMatchObject({ ApproximateNumberOfMessages: '0' });
    const log = await deliveries();
    expect(log.map((d) => d.status).sort()).toEqual(['delivered', 'failed']);
    expect(log.find((d) => d.status === 'failed')?.reason).toContain('does not allow sns.amazonaws.com');
  });

  test('raw delivery, filter policies on attributes and on the body', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'filtered' }));
    const byAttr = await queueFor(TopicArn!, 'by-attr');
    const byBody = await queueFor(TopicArn!, 'by-body');
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: byAttr.arn,
        Attributes: {
          RawMessageDelivery: 'true',
          FilterPolicy: JSON.stringify({ price: [{ numeric: ['>=', 100] }], kind: [{ prefix: 'ord' }] }),
        },
      }),
    );
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: byBody.arn,
        Attributes: {
          FilterPolicyScope: 'MessageBody',
          FilterPolicy: JSON.stringify({ order: { state: ['paid'] } }),
        },
      }),
    );
    const publish = (Message: string, price: string, kind: string) =>
      sns.send(
        new PublishCommand({
          TopicArn,
          Message,
          MessageAttributes: {
            price: { DataType: 'Number', StringValue: price },
            kind: { DataType: 'String', StringValue: kind },
          },
        }),
      );
    await publish(JSON.stringify({ order: { state: 'paid' } }), '150', 'order');
    await publish(JSON.stringify({ order: { state: 'open' } }), '50', 'order');
    await publish('plain text', '500', 'refund');

    const raw = (
      await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: byAttr.QueueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      )
    ).Messages!;
    expect(raw.map((m) => m.Body)).toEqual([JSON.stringify({ order: { state: 'paid' } })]);
    expect(raw[0]!.MessageAttributes).toMatchObject({ price: { DataType: 'Number', StringValue: '150' } });
    const enveloped = (
      await sqs.send(new ReceiveMessageCommand({ QueueUrl: byBody.QueueUrl, MaxNumberOfMessages: 10 }))
    ).Messages!;
    expect(enveloped.map((m) => JSON.parse(m.Body!).Message)).toEqual([
      JSON.stringify({ order: { state: 'paid' } }),
    ]);
    expect((await deliveries()).filter((d) => d.status === 'filtered')).toHaveLength(4);
  });

  test('FIFO topics: group and deduplication, delivered in order to a FIFO queue', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({ Name: 'ledger.fifo', Attributes: { FifoTopic: 'true' } }),
    );
    const queue = await queueFor(TopicArn!, 'ledger.fifo', true);
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    await expect(
      sns.send(new PublishCommand({ TopicArn, Message: 'a', MessageDeduplicationId: '1' })),
    ).rejects.toMatchObject({
      message: 'Invalid parameter: The MessageGroupId parameter is required for FIFO topics',
    });
    await expect(
      sns.send(new PublishCommand({ TopicArn, Message: 'a', MessageGroupId: 'g' })),
    ).rejects.toMatchObject({
      message: expect.stringContaining('ContentBasedDeduplication'),
    });
    const first = await sns.send(
      new PublishCommand({ TopicArn, Message: 'a', MessageGroupId: 'g', MessageDeduplicationId: '1' }),
    );
    const duplicate = await sns.send(
      new PublishCommand({ TopicArn, Message: 'a', MessageGroupId: 'g', MessageDeduplicationId: '1' }),
    );
    expect(duplicate.MessageId).toBe(first.MessageId);
    expect(first.SequenceNumber).toMatch(/^\d{20}$/);
    await sns.send(
      new PublishCommand({ TopicArn, Message: 'b', MessageGroupId: 'g', MessageDeduplicationId: '2' }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.QueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    expect(received.Messages!.map((m) => m.Body)).toEqual(['a', 'b']);
    expect(received.Messages![0]!.Attributes?.MessageGroupId).toBe('g');
  });

  test('per-protocol messages, validation, PublishBatch', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'multi' }));
    const queue = await queueFor(TopicArn!, 'multi-q');
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    await sns.send(
      new PublishCommand({
        TopicArn,
        MessageStructure: 'json',
        Message: JSON.stringify({ default: 'd', sqs: 'for sqs' }),
      }),
    );
    await expect(
      sns.send(
        new PublishCommand({ TopicArn, MessageStructure: 'json', Message: JSON.stringify({ sqs: 'x' }) }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(sns.send(new PublishCommand({ TopicArn, Message: '' }))).rejects.toMatchObject({
      message: 'Invalid parameter: Empty message',
    });
    await expect(
      sns.send(
        new PublishCommand({
          TopicArn,
          Message: 'x',
          MessageAttributes: { n: { DataType: 'Number', StringValue: 'abc' } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const batch = await sns.send(
      new PublishBatchCommand({
        TopicArn,
        PublishBatchRequestEntries: [
          { Id: 'ok', Message: 'batched' },
          { Id: 'bad', Message: '' },
        ],
      }),
    );
    expect(batch.Successful!.map((s) => s.Id)).toEqual(['ok']);
    expect(batch.Failed).toEqual([
      expect.objectContaining({ Id: 'bad', Code: 'InvalidParameter', SenderFault: true }),
    ]);
    const bodies = (
      await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, MaxNumberOfMessages: 10 }))
    ).Messages!.map((m) => m.Body);
    expect(bodies).toEqual(['for sqs', 'batched']);
  });

  test('Lambda subscriptions go through the Lambda service api with an SNS event', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'to-lambda' }));
    const functionArn = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:handler`;
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'lambda', Endpoint: functionArn }));
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'lambda',
        Endpoint: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:missing`,
      }),
    );
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn, Message: 'invoke me' }));
    expect(invocations).toHaveLength(1);
    expect(invocations[0]!.invoker).toEqual({
      servicePrincipal: 'sns.amazonaws.com',
      sourceArn: TopicArn,
      sourceAccount: ACCOUNT,
    });
    const event = JSON.parse(invocations[0]!.payload);
    expect(event.Records[0]).toMatchObject({
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      Sns: { Type: 'Notification', MessageId, TopicArn, Message: 'invoke me', Subject: null },
    });
    expect(event.Records[0].Sns.SigningCertUrl).toMatch(/^https:\/\//);
    expect((await deliveries()).map((d) => d.status).sort()).toEqual(['delivered', 'failed']);
  });
});

describe('SNS through Cloud Control', () => {
  test('a native topic and subscription are Cloud Control resources and inventory items', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({
        Name: 'shared',
        Attributes: { DisplayName: 'Shared' },
        Tags: [{ Key: 'k', Value: 'v' }],
      }),
    );
    const { arn } = await queueFor(TopicArn!, 'shared-q');
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    expect(await ccRead('AWS::SNS::Topic', TopicArn!)).toEqual({
      TopicName: 'shared',
      TopicArn,
      DisplayName: 'Shared',
      Subscription: [{ Endpoint: arn, Protocol: 'sqs' }],
      Tags: [{ Key: 'k', Value: 'v' }],
    });
    expect(await ccRead('AWS::SNS::Subscription', SubscriptionArn!)).toEqual({
      Arn: SubscriptionArn,
      TopicArn,
      Protocol: 'sqs',
      Endpoint: arn,
      Region: REGION,
      RawMessageDelivery: true,
    });
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual([TopicArn]);
    const inventory = await ctx.emulator.control.inventory();
    expect(
      inventory
        .filter((i) => i.type.startsWith('AWS::SNS::'))
        .map((i) => `${i.type} ${i.identifier}`)
        .sort(),
    ).toEqual([`AWS::SNS::Subscription ${SubscriptionArn}`, `AWS::SNS::Topic ${TopicArn}`]);

    // A policy set through the SNS API is listed as a topic policy of that topic.
    await sns.send(
      new AddPermissionCommand({
        TopicArn,
        Label: 'x',
        AWSAccountId: ['210987654321'],
        ActionName: ['Publish'],
      }),
    );
    expect(
      (await ctx.emulator.control.inventory())
        .filter((i) => i.type === 'AWS::SNS::TopicPolicy')
        .map((i) => i.identifier),
    ).toEqual([TopicArn]);
  });

  test('Cloud Control creates, updates and deletes topics, subscriptions and topic policies in SNS', async () => {
    const created = await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SNS::Topic',
          DesiredState: JSON.stringify({ TopicName: 'cc', DisplayName: 'By CC', TracingConfig: 'Active' }),
        }),
      ),
    );
    const TopicArn = created.Identifier!;
    expect(TopicArn).toBe(topicArn('cc'));
    expect(await attributes(TopicArn)).toMatchObject({ DisplayName: 'By CC', TracingConfig: 'Active' });
    await ccRun(
      await cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SNS::Topic',
          Identifier: TopicArn,
          PatchDocument: JSON.stringify([
            { op: 'remove', path: '/TracingConfig' },
            { op: 'replace', path: '/DisplayName', value: 'Renamed' },
          ]),
        }),
      ),
    );
    const updated = await attributes(TopicArn);
    expect(updated.DisplayName).toBe('Renamed');
    expect(updated.TracingConfig).toBeUndefined();

    const unnamedFifo = await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SNS::Topic',
          DesiredState: JSON.stringify({ FifoTopic: true }),
        }),
      ),
    );
    expect(unnamedFifo.Identifier).toMatch(/:Topic-[A-Z0-9]{12}\.fifo$/);

    const queue = await queueFor(TopicArn, 'cc-q');
    const sub = await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SNS::Subscription',
          DesiredState: JSON.stringify({
            TopicArn,
            Protocol: 'sqs',
            Endpoint: queue.arn,
            FilterPolicy: { a: ['b'] },
          }),
        }),
      ),
    );
    const native = (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: sub.Identifier })))
      .Attributes!;
    expect(native.FilterPolicy).toBe(JSON.stringify({ a: ['b'] }));

    const policyDocument = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sns:Publish',
          Resource: TopicArn,
        },
      ],
    };
    const policy = await ccRun(
      await cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SNS::TopicPolicy',
          DesiredState: JSON.stringify({ Topics: [TopicArn], PolicyDocument: policyDocument }),
        }),
      ),
    );
    expect(policy.Identifier).toMatch(/^snstopicpolicy-[a-z0-9]{12}$/);
    expect(JSON.parse((await attributes(TopicArn)).Policy!)).toEqual(policyDocument);
    await ccRun(
      await cc.send(
        new DeleteResourceCommand({ TypeName: 'AWS::SNS::TopicPolicy', Identifier: policy.Identifier }),
      ),
    );
    // Deleting a topic policy puts SNS's default policy back.
    expect(JSON.parse((await attributes(TopicArn)).Policy!).Id).toBe('__default_policy_ID');

    await ccRun(
      await cc.send(new DeleteResourceCommand({ TypeName: 'AWS::SNS::Topic', Identifier: TopicArn })),
    );
    await expect(sns.send(new GetTopicAttributesCommand({ TopicArn }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
  });

  test('a snapshot restores topics and subscriptions', () => {
    const store = new SnsStore();
    const { topic } = store.createTopic(ACCOUNT, REGION, 'kept', { DisplayName: 'Kept' }, { a: 'b' });
    const copy = new SnsStore();
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    expect(copy.topic(topicArn('kept'))).toEqual(topic);
  });
});
