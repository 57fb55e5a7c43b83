import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ListQueueTagsCommand,
  SetQueueAttributesCommand,
  SQSClient,
  TagQueueCommand,
  UntagQueueCommand,
} from '@aws-sdk/client-sqs';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let sqs: SQSClient;

beforeAll(() => {
  sqs = new SQSClient(clientConfig(ctx.emulator));
});
afterAll(() => sqs.destroy());
beforeEach(() => ctx.emulator.control.reset());

describe('SQS', () => {
  test('create, get URL, attributes, list, delete', async () => {
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: 'orders',
        Attributes: { VisibilityTimeout: '60' },
        tags: { team: 'core' },
      }),
    );
    expect(QueueUrl).toBe(`${ctx.emulator.url}/123456789012/orders`);
    expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders' }))).QueueUrl).toBe(QueueUrl);
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect(attrs.Attributes).toMatchObject({
      QueueArn: 'arn:aws:sqs:us-east-1:123456789012:orders',
      VisibilityTimeout: '60',
      DelaySeconds: '0',
      MessageRetentionPeriod: '345600',
      SqsManagedSseEnabled: 'true',
    });
    expect(attrs.Attributes?.FifoQueue).toBeUndefined();
    const some = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    expect(Object.keys(some.Attributes ?? {})).toEqual(['QueueArn']);

    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: {
          DelaySeconds: '5',
          RedrivePolicy:
            '{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":3}',
        },
      }),
    );
    const updated = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['DelaySeconds', 'RedrivePolicy'] }),
    );
    expect(updated.Attributes?.DelaySeconds).toBe('5');
    expect(JSON.parse(updated.Attributes!.RedrivePolicy!)).toEqual({
      deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:dlq',
      maxReceiveCount: 3,
    });

    await sqs.send(new CreateQueueCommand({ QueueName: 'orders-dlq' }));
    expect((await sqs.send(new ListQueuesCommand({}))).QueueUrls).toEqual([
      QueueUrl,
      `${ctx.emulator.url}/123456789012/orders-dlq`,
    ]);
    expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'orders-' }))).QueueUrls).toHaveLength(1);

    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'orders' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(
      sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  test('CreateQueue is idempotent for identical attributes and refuses differing ones', async () => {
    const first = await sqs.send(
      new CreateQueueCommand({ QueueName: 'idem', Attributes: { DelaySeconds: '10' } }),
    );
    const again = await sqs.send(
      new CreateQueueCommand({ QueueName: 'idem', Attributes: { DelaySeconds: '10' } }),
    );
    expect(again.QueueUrl).toBe(first.QueueUrl);
    const err = await sqs
      .send(new CreateQueueCommand({ QueueName: 'idem', Attributes: { DelaySeconds: '20' } }))
      .catch((e: unknown) => e as { name: string; Code?: string });
    expect(err).toMatchObject({ name: 'QueueNameExists' });
  });

  test('a deleted queue name cannot be reused for 60 seconds (QueueDeletedRecently)', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'recycled' }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    await expect(sqs.send(new CreateQueueCommand({ QueueName: 'recycled' }))).rejects.toMatchObject({
      name: 'QueueDeletedRecently',
    });
  });

  test('FIFO queues and attribute validation', async () => {
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: 'jobs.fifo',
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect(attrs.Attributes).toMatchObject({
      FifoQueue: 'true',
      ContentBasedDeduplication: 'true',
      DeduplicationScope: 'queue',
    });
    await expect(
      sqs.send(new CreateQueueCommand({ QueueName: 'plain', Attributes: { FifoQueue: 'true' } })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      sqs.send(new CreateQueueCommand({ QueueName: 'slow', Attributes: { DelaySeconds: '901' } })),
    ).rejects.toMatchObject({ name: 'InvalidAttributeValue' });
    await expect(
      sqs.send(new CreateQueueCommand({ QueueName: 'odd', Attributes: { Colour: 'blue' } as never })),
    ).rejects.toMatchObject({ name: 'InvalidAttributeName' });
  });

  test('tags: tag, untag, list', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'tagged', tags: { a: '1' } }));
    await sqs.send(new TagQueueCommand({ QueueUrl, Tags: { b: '2', c: '3' } }));
    await sqs.send(new UntagQueueCommand({ QueueUrl, TagKeys: ['a'] }));
    expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl }))).Tags).toEqual({ b: '2', c: '3' });
  });

  test('ListQueues paginates with MaxResults', async () => {
    for (let i = 0; i < 5; i++) await sqs.send(new CreateQueueCommand({ QueueName: `q${i}` }));
    const urls: string[] = [];
    let NextToken: string | undefined;
    do {
      const page = await sqs.send(new ListQueuesCommand({ MaxResults: 2, NextToken }));
      urls.push(...(page.QueueUrls ?? []));
      NextToken = page.NextToken;
    } while (NextToken);
    expect(urls.map((u) => u.split('/').pop())).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
  });

  test('queues are kept per account and region and listed in the inventory', async () => {
    const west = new SQSClient(clientConfig(ctx.emulator, 'us-west-2'));
    await west.send(new CreateQueueCommand({ QueueName: 'regional' }));
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'regional' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory).toEqual([
      expect.objectContaining({
        account: '123456789012',
        region: 'us-west-2',
        type: 'AWS::SQS::Queue',
        identifier: `${ctx.emulator.url}/123456789012/regional`,
      }),
    ]);
    expect(inventory[0]!.properties).toMatchObject({
      QueueName: 'regional',
      Arn: 'arn:aws:sqs:us-west-2:123456789012:regional',
      VisibilityTimeout: 30,
    });
    west.destroy();
  });
});
