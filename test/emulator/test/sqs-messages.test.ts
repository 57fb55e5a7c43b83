import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
} from '@aws-sdk/client-cloudcontrol';
import { createHash } from 'node:crypto';
import { md5OfMessageAttributes } from '../src/services/sqs/messages';
import { SqsStore } from '../src/services/sqs/store';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let sqs: SQSClient;
let cc: CloudControlClient;

beforeAll(() => {
  sqs = new SQSClient(clientConfig(ctx.emulator));
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  sqs.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

const createQueue = async (name: string, Attributes?: Record<string, string>) =>
  (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes }))).QueueUrl!;

const counts = async (QueueUrl: string) =>
  (
    await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    )
  ).Attributes;

describe('SQS messages', () => {
  test('send, receive, delete; the SDK checks the body MD5', async () => {
    const QueueUrl = await createQueue('work');
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'hello',
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'greeting' },
          size: { DataType: 'Number', StringValue: '5' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
        },
      }),
    );
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.MD5OfMessageBody).toBe(createHash('md5').update('hello').digest('hex'));
    expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(await counts(QueueUrl)).toMatchObject({ ApproximateNumberOfMessages: '1' });

    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    expect(received.Messages).toHaveLength(1);
    const [m] = received.Messages!;
    expect(m).toMatchObject({ MessageId: sent.MessageId, Body: 'hello' });
    expect(m!.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(m!.MessageAttributes?.kind).toEqual({ DataType: 'String', StringValue: 'greeting' });
    expect(Buffer.from(m!.MessageAttributes!.blob!.BinaryValue!)).toEqual(Buffer.from([1, 2, 3]));
    expect(m!.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: expect.any(String) });
    expect(await counts(QueueUrl)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
    // In flight: nothing more to receive.
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();

    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m!.ReceiptHandle }));
    expect(await counts(QueueUrl)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  test('the MD5 of message attributes follows the documented encoding', () => {
    // Worked by hand: one string attribute "a" = "b".
    const expected = createHash('md5')
      .update(
        Buffer.concat([
          Buffer.from([0, 0, 0, 1]),
          Buffer.from('a'),
          Buffer.from([0, 0, 0, 6]),
          Buffer.from('String'),
          Buffer.from([1]),
          Buffer.from([0, 0, 0, 1]),
          Buffer.from('b'),
        ]),
      )
      .digest('hex');
    expect(md5OfMessageAttributes({ a: { DataType: 'String', StringValue: 'b' } })).toBe(expected);
  });

  test('a visibility timeout of 0 makes a message receivable again; an old receipt handle deletes nothing', async () => {
    const QueueUrl = await createQueue('retry');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'job' }));
    const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 })))
      .Messages![0]!;
    const second = (
      await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
      )
    ).Messages![0]!;
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);
    expect(second.Attributes?.ApproximateReceiveCount).toBe('2');

    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle }));
    expect(await counts(QueueUrl)).toMatchObject({ ApproximateNumberOfMessagesNotVisible: '1' });

    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: second.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    expect(await counts(QueueUrl)).toMatchObject({ ApproximateNumberOfMessages: '1' });
    await expect(
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: second.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    ).rejects.toMatchObject({ name: 'MessageNotInflight' });
  });

  test('errors: invalid receipt handle, body characters, size, parameter ranges, missing body', async () => {
    const QueueUrl = await createQueue('strict', { MaximumMessageSize: '1024' });
    await expect(
      sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: 'garbage' })),
    ).rejects.toMatchObject({
      name: 'ReceiptHandleIsInvalid',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'bad\u0001' })),
    ).rejects.toMatchObject({
      name: 'InvalidMessageContents',
    });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(1025) })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('shorter than 1024 bytes'),
    });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', DelaySeconds: 901 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 11 })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(
      sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'x',
          MessageAttributes: { n: { DataType: 'Number', StringValue: 'abc' } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(
      sqs.send(
        new SendMessageCommand({ QueueUrl: `${ctx.emulator.url}/123456789012/nope`, MessageBody: 'x' }),
      ),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  test('delayed messages are counted as delayed and not received', async () => {
    const QueueUrl = await createQueue('later');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'soon', DelaySeconds: 600 }));
    expect(await counts(QueueUrl)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesDelayed: '1',
    });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  });

  test('FIFO: group id required, deduplication, per-group ordering', async () => {
    const QueueUrl = await createQueue('orders.fifo', { FifoQueue: 'true' });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageDeduplicationId: '1' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageGroupId: 'g' })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('ContentBasedDeduplication'),
    });
    await expect(
      sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'a',
          MessageGroupId: 'g',
          MessageDeduplicationId: '1',
          DelaySeconds: 5,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });

    const a = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'a',
        MessageGroupId: 'g',
        MessageDeduplicationId: '1',
      }),
    );
    const again = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'a',
        MessageGroupId: 'g',
        MessageDeduplicationId: '1',
      }),
    );
    expect(again.MessageId).toBe(a.MessageId);
    expect(again.SequenceNumber).toBe(a.SequenceNumber);
    const b = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'b',
        MessageGroupId: 'g',
        MessageDeduplicationId: '2',
      }),
    );
    expect(BigInt(b.SequenceNumber!)).toBeGreaterThan(BigInt(a.SequenceNumber!));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'c',
        MessageGroupId: 'h',
        MessageDeduplicationId: '3',
      }),
    );

    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));
    expect(first.Messages?.map((m) => m.Body)).toEqual(['a']);
    // Group g is busy while "a" is in flight: only h's message comes next.
    const next = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(next.Messages?.map((m) => m.Body)).toEqual(['c']);
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.Messages![0]!.ReceiptHandle }));
    const last = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }),
    );
    expect(last.Messages?.map((m) => m.Body)).toEqual(['b']);
    expect(last.Messages![0]!.Attributes).toMatchObject({ MessageGroupId: 'g', MessageDeduplicationId: '2' });
  });

  test('a long poll answers as soon as a message arrives', async () => {
    const QueueUrl = await createQueue('waiting');
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'ping' }));
    expect((await polling).Messages?.map((m) => m.Body)).toEqual(['ping']);
  });

  test('batches: per-entry results and batch-level errors', async () => {
    const QueueUrl = await createQueue('batch');
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'one', MessageBody: '1' },
          { Id: 'two', MessageBody: '2', DelaySeconds: 1000 },
        ],
      }),
    );
    expect(sent.Successful?.map((s) => s.Id)).toEqual(['one']);
    expect(sent.Failed).toEqual([
      expect.objectContaining({ Id: 'two', SenderFault: true, Code: 'InvalidParameterValue' }),
    ]);
    await expect(sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [] }))).rejects.toMatchObject({
      name: 'EmptyBatchRequest',
    });
    await expect(
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl,
          Entries: [
            { Id: 'x', MessageBody: '1' },
            { Id: 'x', MessageBody: '2' },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'BatchEntryIdsNotDistinct' });
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'a', ReceiptHandle: received.Messages![0]!.ReceiptHandle },
          { Id: 'b', ReceiptHandle: 'not-a-handle' },
        ],
      }),
    );
    expect(deleted.Successful).toEqual([{ Id: 'a' }]);
    expect(deleted.Failed).toEqual([expect.objectContaining({ Id: 'b', Code: 'ReceiptHandleIsInvalid' })]);
  });

  test('purge empties the queue once a minute; deleting the queue drops its messages', async () => {
    const QueueUrl = await createQueue('purge');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl }));
    expect(await counts(QueueUrl)).toMatchObject({ ApproximateNumberOfMessages: '0' });
    await expect(sqs.send(new PurgeQueueCommand({ QueueUrl }))).rejects.toMatchObject({
      name: 'PurgeQueueInProgress',
      $metadata: { httpStatusCode: 403 },
    });
    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    await expect(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
  });

  test('messages survive a snapshot and restore', () => {
    const store = new SqsStore();
    const { queue } = store.create('123456789012', 'us-east-1', 'kept', {}, {});
    store.messages.send(queue, {
      body: 'kept',
      attributes: { b: { DataType: 'Binary', BinaryValue: Buffer.from('hi') } },
      senderId: 'me',
    });
    const copy = new SqsStore();
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    const restored = copy.get('123456789012', 'us-east-1', 'kept')!;
    const [m] = copy.messages.receive(restored, 10);
    expect(m?.body).toBe('kept');
    expect(m?.attributes.b?.BinaryValue).toEqual(Buffer.from('hi'));
  });

  test('queue policies: Cloud Control writes the queue Policy and clears it on delete; a native policy is listed', async () => {
    const QueueUrl = await createQueue('guarded');
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: '*',
        },
      ],
    };
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SQS::QueuePolicy',
        DesiredState: JSON.stringify({ Queues: [QueueUrl], PolicyDocument: policy }),
      }),
    );
    const { ProgressEvent } = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: created.ProgressEvent!.RequestToken! }),
    );
    expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
    const id = ProgressEvent!.Identifier!;
    expect(id).toMatch(/^sqsqueuepolicy-[a-z0-9]{12}$/);
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['Policy'] }));
    expect(JSON.parse(attrs.Attributes!.Policy!)).toEqual(policy);
    const read = await cc.send(new GetResourceCommand({ TypeName: 'AWS::SQS::QueuePolicy', Identifier: id }));
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toEqual({
      Id: id,
      Queues: [QueueUrl],
      PolicyDocument: policy,
    });
    const deleted = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::SQS::QueuePolicy', Identifier: id }),
    );
    await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: deleted.ProgressEvent!.RequestToken! }),
    );
    expect(
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['Policy'] }))).Attributes
        ?.Policy,
    ).toBeUndefined();

    await sqs.send(
      new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: JSON.stringify(policy) } }),
    );
    const inventory = (await ctx.emulator.control.inventory()).filter(
      (i) => i.type === 'AWS::SQS::QueuePolicy',
    );
    expect(inventory.map((i) => i.identifier)).toEqual([QueueUrl]);
  });
});
