import type { S3ServiceException } from '@aws-sdk/client-s3';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetBucketNotificationConfigurationCommand,
  PutBucketNotificationConfigurationCommand,
  PutObjectCommand,
  S3Client,
  type LambdaFunctionConfiguration,
  type NotificationConfiguration,
} from '@aws-sdk/client-s3';
import { AddPermissionCommand, CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  CreateTopicCommand,
  SNSClient,
  SetTopicAttributesCommand,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { clientConfig, useEmulator } from './helpers';
import { zipOf } from './support/zip';

// Bucket event notifications (CDK's Custom::S3BucketNotifications handler calls these):
// the configuration round-trips, destinations are validated as S3 validates them, and
// object events reach SQS, SNS and Lambda.
const ctx = useEmulator();
const ACCOUNT = '123456789012';
const BUCKET = 'notified-bucket';
let s3: S3Client;
let sqs: SQSClient;
let sns: SNSClient;
let lambda: LambdaClient;
let ssm: SSMClient;

beforeAll(() => {
  const config = { ...clientConfig(ctx.emulator), maxAttempts: 1 };
  s3 = new S3Client(config);
  sqs = new SQSClient(config);
  sns = new SNSClient(config);
  lambda = new LambdaClient(config);
  ssm = new SSMClient(config);
});
afterAll(() => [s3, sqs, sns, lambda, ssm].forEach((c) => c.destroy()));
beforeEach(async () => {
  await ctx.emulator.control.reset();
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

async function failure(promise: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as S3ServiceException;
  }
  throw new Error('expected the call to fail');
}

const allowS3 = (action: string, resource: string) =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 's3.amazonaws.com' },
        Action: action,
        Resource: resource,
        Condition: { ArnLike: { 'aws:SourceArn': `arn:aws:s3:::${BUCKET}` } },
      },
    ],
  });

async function queue(name: string, allow: boolean): Promise<{ url: string; arn: string }> {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  const arn = `arn:aws:sqs:us-east-1:${ACCOUNT}:${name}`;
  if (allow)
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: url,
        Attributes: { Policy: allowS3('sqs:SendMessage', arn) },
      }),
    );
  return { url, arn };
}

async function receive(url: string): Promise<Array<Record<string, unknown>>> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
  for (const m of out.Messages ?? [])
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
  return (out.Messages ?? []).map((m) => JSON.parse(m.Body!) as Record<string, unknown>);
}

const put = (NotificationConfiguration: NotificationConfiguration, skip?: boolean) =>
  s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: BUCKET,
      NotificationConfiguration,
      SkipDestinationValidation: skip,
    }),
  );

test('an empty bucket has an empty configuration; Get returns what was Put, an empty Put clears it', async () => {
  const empty = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: BUCKET }));
  expect(empty.QueueConfigurations ?? []).toEqual([]);
  const { arn } = await queue('events', true);
  const config: NotificationConfiguration = {
    QueueConfigurations: [
      {
        Id: 'external-one',
        QueueArn: arn,
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'in/' }] } },
      },
      { QueueArn: arn, Events: ['s3:ObjectRemoved:Delete'] },
    ],
    EventBridgeConfiguration: {},
  };
  await put(config);
  const got = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: BUCKET }));
  expect(got.QueueConfigurations).toEqual([
    {
      Id: 'external-one',
      QueueArn: arn,
      Events: ['s3:ObjectCreated:*'],
      Filter: { Key: { FilterRules: [{ Name: 'Prefix' as 'prefix', Value: 'in/' }] } },
    },
    { Id: expect.stringMatching(/\S/), QueueArn: arn, Events: ['s3:ObjectRemoved:Delete'] },
  ]);
  expect(got.EventBridgeConfiguration).toEqual({});
  await put({});
  const cleared = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: BUCKET }));
  expect(cleared.QueueConfigurations ?? []).toEqual([]);
  expect(cleared.EventBridgeConfiguration).toBeUndefined();
});

test('destinations are validated: a test event to each queue; a destination S3 may not use fails the Put', async () => {
  const open = await queue('open', true);
  const closed = await queue('closed', false);
  const err = await failure(
    put({
      QueueConfigurations: [
        { QueueArn: open.arn, Events: ['s3:ObjectCreated:*'] },
        { QueueArn: closed.arn, Events: ['s3:ObjectRemoved:*'] },
        { QueueArn: `arn:aws:sqs:us-east-1:${ACCOUNT}:missing`, Events: ['s3:ObjectRestore:*'] },
      ],
    }),
  );
  expect(err.name).toBe('InvalidArgument');
  expect(err.message).toBe('Unable to validate the following destination configurations');
  expect(err.$metadata.httpStatusCode).toBe(400);
  // Nothing was stored.
  const got = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: BUCKET }));
  expect(got.QueueConfigurations ?? []).toEqual([]);
  // The open queue got S3's test event.
  const [test] = await receive(open.url);
  expect(test).toMatchObject({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: BUCKET });
  // SkipDestinationValidation stores it unchecked.
  await put({ QueueConfigurations: [{ QueueArn: closed.arn, Events: ['s3:ObjectCreated:*'] }] }, true);
  const skipped = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: BUCKET }));
  expect(skipped.QueueConfigurations?.map((c) => c.QueueArn)).toEqual([closed.arn]);
});

test('S3 refuses unknown events, bad filter rules and overlapping configurations', async () => {
  const { arn } = await queue('events', true);
  const bad = [
    { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectMade:*'] }] },
    {
      QueueConfigurations: [
        {
          QueueArn: arn,
          Events: ['s3:ObjectCreated:*'],
          Filter: { Key: { FilterRules: [{ Name: 'middle', Value: 'x' }] } },
        },
      ],
    },
    {
      QueueConfigurations: [
        { QueueArn: arn, Events: ['s3:ObjectCreated:*'] },
        {
          QueueArn: arn,
          Events: ['s3:ObjectCreated:Put'],
          Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '.png' }] } },
        },
      ],
    },
    {
      QueueConfigurations: [
        { Id: 'same', QueueArn: arn, Events: ['s3:ObjectCreated:*'] },
        { Id: 'same', QueueArn: arn, Events: ['s3:ObjectRemoved:*'] },
      ],
    },
  ] as NotificationConfiguration[];
  for (const config of bad) expect((await failure(put(config))).name).toBe('InvalidArgument');
  // Disjoint prefixes on the same event do not overlap.
  await put({
    QueueConfigurations: [
      {
        QueueArn: arn,
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'a/' }] } },
      },
      {
        QueueArn: arn,
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'b/' }] } },
      },
    ],
  });
  expect(
    (await failure(s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: 'no-such-bucket' }))))
      .name,
  ).toBe('NoSuchBucket');
});

test('object events reach a queue, a topic (and its queue subscriber) and a function, filtered by key', async () => {
  const direct = await queue('direct', true);
  const viaTopic = await queue('via-topic', false);
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: 'bucket-events' }))).TopicArn!;
  // Without a policy that lets S3 publish, the topic is refused.
  const refused = await failure(
    put({ TopicConfigurations: [{ TopicArn: topicArn, Events: ['s3:ObjectCreated:*'] }] }),
  );
  expect(refused.name).toBe('InvalidArgument');
  await sns.send(
    new SetTopicAttributesCommand({
      TopicArn: topicArn,
      AttributeName: 'Policy',
      AttributeValue: allowS3('sns:Publish', topicArn),
    }),
  );
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: viaTopic.url,
      Attributes: {
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Resource: viaTopic.arn,
            },
          ],
        }),
      },
    }),
  );
  await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: viaTopic.arn,
      Attributes: { RawMessageDelivery: 'true' },
    }),
  );
  const fn = await lambda.send(
    new CreateFunctionCommand({
      FunctionName: 'on-object',
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: `arn:aws:iam::${ACCOUNT}:role/r`,
      Code: {
        ZipFile: await zipOf({
          'index.js': `const { SSMClient, PutParameterCommand } = require('@aws-sdk/client-ssm');
exports.handler = async (event) => {
  await new SSMClient({}).send(new PutParameterCommand({ Name: '/seen', Value: JSON.stringify(event), Type: 'String', Overwrite: true }));
};`,
        }),
      },
    }),
  );
  const lambdaConfig: LambdaFunctionConfiguration = {
    LambdaFunctionArn: fn.FunctionArn!,
    Events: ['s3:ObjectRemoved:*'],
  };
  expect((await failure(put({ LambdaFunctionConfigurations: [lambdaConfig] }))).name).toBe('InvalidArgument');
  await lambda.send(
    new AddPermissionCommand({
      FunctionName: 'on-object',
      StatementId: 's3',
      Action: 'lambda:InvokeFunction',
      Principal: 's3.amazonaws.com',
      SourceArn: `arn:aws:s3:::${BUCKET}`,
    }),
  );
  await put({
    QueueConfigurations: [
      {
        Id: 'q',
        QueueArn: direct.arn,
        Events: ['s3:ObjectCreated:Put'],
        Filter: {
          Key: {
            FilterRules: [
              { Name: 'prefix', Value: 'notes/' },
              { Name: 'suffix', Value: '.txt' },
            ],
          },
        },
      },
    ],
    TopicConfigurations: [
      {
        Id: 't',
        TopicArn: topicArn,
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'img/' }] } },
      },
    ],
    LambdaFunctionConfigurations: [{ Id: 'f', ...lambdaConfig }],
  });
  await receive(direct.url); // the test events
  await receive(viaTopic.url);
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'notes/a b.txt', Body: 'hello' }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'img/cat.png', Body: 'png' }));
  await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'img/cat.png' }));

  const [toQueue, ...more] = await receive(direct.url);
  expect(more).toEqual([]);
  expect(toQueue).toMatchObject({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventName: 'ObjectCreated:Put',
        s3: {
          configurationId: 'q',
          bucket: { name: BUCKET, arn: `arn:aws:s3:::${BUCKET}` },
          object: { key: 'notes/a+b.txt', size: 5, eTag: '5d41402abc4b2a76b9719d911017c592' },
        },
      },
    ],
  });
  const viaSns = await receive(viaTopic.url);
  expect(
    viaSns.map((m) => (m.Records as Array<{ s3: { object: { key: string } } }>)[0]!.s3.object.key),
  ).toEqual(['img/cat.png']);
  await ctx.emulator.control.waitForLambdaInvocations();
  const seen = JSON.parse((await ssm.send(new GetParameterCommand({ Name: '/seen' }))).Parameter!.Value!) as {
    Records: Array<{ eventName: string; s3: { configurationId: string; object: { key: string } } }>;
  };
  expect(seen.Records[0]).toMatchObject({
    eventName: 'ObjectRemoved:Delete',
    s3: { configurationId: 'f', object: { key: 'img/cat.png' } },
  });
});
