/**
 * Amazon SQS message operations: SendMessage(Batch), ReceiveMessage (long
 * polling), DeleteMessage(Batch), ChangeMessageVisibility and PurgeQueue,
 * and the delivery other services (SNS, EventBridge) use to put a message
 * into a queue as their service principal, gated by the queue's policy.
 */
import { AwsError } from '../../core/errors';
import { evaluateResourcePolicy } from '../../core/resource-policy';
import type { CallContext, Operations } from '../../core/service';
import {
  invalidParameter,
  md5OfMessageAttributes,
  readMessageAttributes,
  type MessageAttribute,
  type SendResult,
  type StoredMessage,
} from './messages';
import { queueFromUrl } from './service';
import { queueArn, type Queue, type SqsStore } from './store';

type Input = Record<string, unknown>;

const SYSTEM_ATTRIBUTES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageDeduplicationId',
  'MessageGroupId',
] as const;
const MAX_BATCH_ENTRIES = 10;
/** The total payload of a batch (SQS API reference, SendMessageBatch: 1 MiB). */
const MAX_BATCH_BYTES = 1_048_576;

/** A message another service delivers to a queue. */
export interface ServiceDelivery {
  /** The service principal that sends (`sns.amazonaws.com`). */
  servicePrincipal: string;
  /** The ARN of the topic, rule or bus on whose behalf it sends (`aws:SourceArn`). */
  sourceArn: string;
  sourceAccount: string;
  body: string;
  attributes?: Record<string, MessageAttribute>;
  groupId?: string;
  deduplicationId?: string;
}

/** What SQS lends other services (`platform.api('sqs')`). */
export interface SqsDeliveryApi {
  /**
   * Sends a message to the queue `queueArn` names as a service would: refused (with the
   * reason) when the queue does not exist or its policy does not allow the service principal
   * `sqs:SendMessage` (AWS then drops the delivery).
   */
  deliver(
    queueArn: string,
    delivery: ServiceDelivery,
  ): { delivered: true; messageId: string } | { delivered: false; reason: string };
}

/** `arn:<partition>:sqs:<region>:<account>:<name>` → its parts. */
export function parseQueueArn(arn: string): { region: string; account: string; name: string } | undefined {
  const m = /^arn:aws[a-z-]*:sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]+)$/.exec(arn);
  return m ? { region: m[1]!, account: m[2]!, name: m[3]! } : undefined;
}

/** SenderId of a message a service principal sent (an opaque id, as AWS shows for SNS). */
const SERVICE_SENDER_ID = 'AIDAIT2UOQQY3AUEKVGXU';

export class SqsMessageOperations {
  readonly operations: Operations = {
    SendMessage: (ctx, input) => this.sendMessage(ctx, input),
    SendMessageBatch: (ctx, input) => this.sendMessageBatch(ctx, input),
    ReceiveMessage: (ctx, input) => this.receiveMessage(ctx, input),
    DeleteMessage: (ctx, input) => this.deleteMessage(ctx, input),
    DeleteMessageBatch: (ctx, input) => this.deleteMessageBatch(ctx, input),
    ChangeMessageVisibility: (ctx, input) => this.changeMessageVisibility(ctx, input),
    PurgeQueue: (ctx, input) => this.purgeQueue(ctx, input),
  };

  readonly api: SqsDeliveryApi = { deliver: (arn, delivery) => this.deliver(arn, delivery) };

  constructor(private readonly store: SqsStore) {}

  private send(queue: Queue, ctx: CallContext, entry: Input): SendResult {
    if (typeof entry.MessageBody !== 'string' || entry.MessageBody === '')
      throw new AwsError('MissingParameter', 'The request must contain the parameter MessageBody.', 400);
    return this.store.messages.send(queue, {
      body: entry.MessageBody,
      ...(typeof entry.DelaySeconds === 'number' ? { delaySeconds: entry.DelaySeconds } : {}),
      attributes: readMessageAttributes(entry.MessageAttributes),
      ...(typeof entry.MessageGroupId === 'string' ? { groupId: entry.MessageGroupId } : {}),
      ...(typeof entry.MessageDeduplicationId === 'string'
        ? { deduplicationId: entry.MessageDeduplicationId }
        : {}),
      senderId: ctx.callerUserId,
    });
  }

  private sendMessage(ctx: CallContext, input: Input): unknown {
    const queue = queueFromUrl(this.store, ctx, input);
    const r = this.send(queue, ctx, input);
    return {
      MessageId: r.messageId,
      MD5OfMessageBody: r.md5OfBody,
      MD5OfMessageAttributes: r.md5OfAttributes,
      SequenceNumber: r.sequenceNumber,
    };
  }

  private sendMessageBatch(ctx: CallContext, input: Input): unknown {
    const queue = queueFromUrl(this.store, ctx, input);
    const entries = batchEntries(input);
    const total = entries.reduce(
      (n, e) => n + (typeof e.MessageBody === 'string' ? Buffer.byteLength(e.MessageBody) : 0),
      0,
    );
    if (total > MAX_BATCH_BYTES)
      throw new AwsError(
        'BatchRequestTooLong',
        `Batch requests cannot be longer than ${MAX_BATCH_BYTES} bytes. You have sent ${total} bytes.`,
      );
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of entries) {
      try {
        const r = this.send(queue, ctx, entry);
        Successful.push({
          Id: entry.Id,
          MessageId: r.messageId,
          MD5OfMessageBody: r.md5OfBody,
          MD5OfMessageAttributes: r.md5OfAttributes,
          SequenceNumber: r.sequenceNumber,
        });
      } catch (err) {
        if (!(err instanceof AwsError)) throw err;
        Failed.push({ Id: entry.Id, SenderFault: true, Code: err.code, Message: err.message });
      }
    }
    return { Successful, Failed };
  }

  private async receiveMessage(ctx: CallContext, input: Input): Promise<unknown> {
    const queue = queueFromUrl(this.store, ctx, input);
    const max = integerParameter(input, 'MaxNumberOfMessages', 1, 10, 1);
    const wait = integerParameter(
      input,
      'WaitTimeSeconds',
      0,
      20,
      Number(queue.attributes.ReceiveMessageWaitTimeSeconds ?? 0),
    );
    const visibility =
      input.VisibilityTimeout === undefined
        ? undefined
        : integerParameter(input, 'VisibilityTimeout', 0, 43_200, 0);
    const deadline = Date.now() + wait * 1000;
    let messages = this.store.messages.receive(queue, max, visibility);
    while (
      !messages.length &&
      Date.now() < deadline &&
      this.store.get(queue.account, queue.region, queue.name)
    ) {
      await this.store.messages.waitForMessage(queue, deadline - Date.now());
      messages = this.store.messages.receive(queue, max, visibility);
    }
    if (!messages.length) return {};
    const systemNames = [...asStrings(input.MessageSystemAttributeNames), ...asStrings(input.AttributeNames)];
    const attributeNames = asStrings(input.MessageAttributeNames);
    return { Messages: messages.map((m) => renderMessage(m, systemNames, attributeNames)) };
  }

  private deleteMessage(ctx: CallContext, input: Input): unknown {
    const queue = queueFromUrl(this.store, ctx, input);
    if (typeof input.ReceiptHandle !== 'string' || input.ReceiptHandle === '')
      throw new AwsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.', 400);
    this.store.messages.delete(queue, input.ReceiptHandle);
    return {};
  }

  private deleteMessageBatch(ctx: CallContext, input: Input): unknown {
    const queue = queueFromUrl(this.store, ctx, input);
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of batchEntries(input)) {
      try {
        this.store.messages.delete(queue, String(entry.ReceiptHandle ?? ''));
        Successful.push({ Id: entry.Id });
      } catch (err) {
        if (!(err instanceof AwsError)) throw err;
        Failed.push({ Id: entry.Id, SenderFault: true, Code: err.code, Message: err.message });
      }
    }
    return { Successful, Failed };
  }

  private changeMessageVisibility(ctx: CallContext, input: Input): unknown {
    const queue = queueFromUrl(this.store, ctx, input);
    if (typeof input.ReceiptHandle !== 'string' || input.ReceiptHandle === '')
      throw new AwsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.', 400);
    if (typeof input.VisibilityTimeout !== 'number')
      throw new AwsError(
        'MissingParameter',
        'The request must contain the parameter VisibilityTimeout.',
        400,
      );
    this.store.messages.changeVisibility(queue, input.ReceiptHandle, input.VisibilityTimeout);
    return {};
  }

  private purgeQueue(ctx: CallContext, input: Input): unknown {
    this.store.messages.purge(queueFromUrl(this.store, ctx, input));
    return {};
  }

  private deliver(
    arn: string,
    delivery: ServiceDelivery,
  ): { delivered: true; messageId: string } | { delivered: false; reason: string } {
    const parsed = parseQueueArn(arn);
    const queue = parsed && this.store.get(parsed.account, parsed.region, parsed.name);
    if (!queue) return { delivered: false, reason: `queue ${arn} does not exist` };
    const verdict = evaluateResourcePolicy(queue.attributes.Policy, {
      principal: { service: delivery.servicePrincipal },
      action: 'sqs:SendMessage',
      resource: queueArn(queue),
      context: { 'aws:SourceArn': delivery.sourceArn, 'aws:SourceAccount': delivery.sourceAccount },
    });
    if (verdict !== 'allow')
      return {
        delivered: false,
        reason: `the policy of queue ${arn} does not allow ${delivery.servicePrincipal} sqs:SendMessage`,
      };
    try {
      const r = this.store.messages.send(queue, {
        body: delivery.body,
        attributes: delivery.attributes ?? {},
        ...(delivery.groupId !== undefined ? { groupId: delivery.groupId } : {}),
        ...(delivery.deduplicationId !== undefined ? { deduplicationId: delivery.deduplicationId } : {}),
        senderId: SERVICE_SENDER_ID,
      });
      return { delivered: true, messageId: r.messageId };
    } catch (err) {
      if (err instanceof AwsError) return { delivered: false, reason: `${err.code}: ${err.message}` };
      throw err;
    }
  }
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function integerParameter(input: Input, name: string, min: number, max: number, fallback: number): number {
  const value = input[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalidParameter(
      `Value ${String(value)} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}, if provided.`,
    );
  return value;
}

/** The `Entries` of a batch request, checked as SQS checks them. */
function batchEntries(input: Input): Input[] {
  const entries = Array.isArray(input.Entries) ? (input.Entries as Input[]) : [];
  if (!entries.length)
    throw new AwsError(
      'EmptyBatchRequest',
      'There should be at least one SendMessageBatchRequestEntry in the request.',
    );
  if (entries.length > MAX_BATCH_ENTRIES)
    throw new AwsError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
    );
  const ids = new Set<string>();
  for (const e of entries) {
    const id = typeof e.Id === 'string' ? e.Id : '';
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(id))
      throw new AwsError(
        'InvalidBatchEntryId',
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
      );
    if (ids.has(id)) throw new AwsError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    ids.add(id);
  }
  return entries;
}

function wantsAttribute(requested: string[], name: string): boolean {
  return requested.some(
    (r) => r === 'All' || r === '.*' || r === name || (r.endsWith('.*') && name.startsWith(r.slice(0, -1))),
  );
}

function renderMessage(m: StoredMessage, systemNames: string[], attributeNames: string[]): unknown {
  const system: Record<string, string | undefined> = {
    SenderId: m.senderId,
    SentTimestamp: String(m.sentAt),
    ApproximateReceiveCount: String(m.receiveCount),
    ApproximateFirstReceiveTimestamp: m.firstReceivedAt !== undefined ? String(m.firstReceivedAt) : undefined,
    SequenceNumber: m.sequenceNumber,
    MessageDeduplicationId: m.deduplicationId,
    MessageGroupId: m.groupId,
  };
  const Attributes: Record<string, string> = {};
  for (const name of SYSTEM_ATTRIBUTES)
    if ((systemNames.includes('All') || systemNames.includes(name)) && system[name] !== undefined)
      Attributes[name] = system[name]!;
  const MessageAttributes: Record<string, MessageAttribute> = {};
  for (const [name, a] of Object.entries(m.attributes))
    if (wantsAttribute(attributeNames, name)) MessageAttributes[name] = a;
  const md5OfSelected = md5OfMessageAttributes(MessageAttributes);
  return {
    MessageId: m.messageId,
    ReceiptHandle: m.receiptHandle,
    MD5OfBody: m.md5OfBody,
    Body: m.body,
    ...(Object.keys(Attributes).length ? { Attributes } : {}),
    ...(md5OfSelected ? { MessageAttributes, MD5OfMessageAttributes: md5OfSelected } : {}),
  };
}
