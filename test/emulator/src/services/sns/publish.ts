/**
 * Publish and PublishBatch, and delivery to a topic's subscriptions: filter
 * policies (attributes or body scope), raw or JSON-enveloped messages,
 * per-protocol messages (`MessageStructure: json`), FIFO groups and
 * deduplication. SQS subscriptions receive the message in the emulator's
 * queue (sent as `sns.amazonaws.com`, so the queue policy must allow it, as
 * on AWS); Lambda subscriptions are invoked through the Lambda service's
 * api when the emulator has one. Endpoints outside the emulator (HTTP,
 * email, SMS) are not contacted. Every attempt is in the delivery log.
 */
import { createHash } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { matchesPattern } from '../../core/event-patterns';
import { uuid } from '../../core/ids';
import { lambdaInvoker } from '../../core/lambda-invoke';
import type { CallContext, Operations, Platform } from '../../core/service';
import type { MessageAttribute } from '../sqs/messages';
import type { SqsDeliveryApi } from '../sqs/message-operations';
import { topicAllows } from './policy';
import { topicArn, type SnsStore, type Subscription, type Topic } from './store';
import type { SnsOperations } from './service';

type Input = Record<string, unknown>;

/** A message attribute as SNS carries it. */
export interface SnsMessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: Buffer;
}

export interface Notification {
  messageId: string;
  sequenceNumber?: string;
  topic: Topic;
  message: string;
  subject?: string;
  structure?: 'json';
  attributes: Record<string, SnsMessageAttribute>;
  groupId?: string;
  deduplicationId?: string;
  timestamp: Date;
}

/** One delivery attempt, as the control API's delivery log shows it. */
export interface DeliveryRecord {
  topicArn: string;
  subscriptionArn: string;
  protocol: string;
  endpoint: string;
  messageId: string;
  status: 'delivered' | 'filtered' | 'failed' | 'dead-lettered' | 'not-delivered';
  reason?: string;
}

/** A message another service publishes (EventBridge targets). */
export interface ServicePublish {
  servicePrincipal: string;
  sourceArn: string;
  sourceAccount: string;
  message: string;
  subject?: string;
  groupId?: string;
  deduplicationId?: string;
}

/** What SNS lends other services (`platform.api('sns')`). */
export interface SnsPublishApi {
  /** Publishes as a service principal: refused unless the topic policy allows it `sns:Publish`. */
  publish(
    topicArn: string,
    publish: ServicePublish,
  ): Promise<{ published: true; messageId: string } | { published: false; reason: string }>;
}

const DEDUP_WINDOW_MS = 5 * 60_000;
const DEFAULT_MAX_MESSAGE_SIZE = 262_144;
const MAX_LOG = 1000;
const invalid = (message: string) => new AwsError('InvalidParameter', message);
// Subjects: "UTF-8 text with no line breaks or control characters, and less than 100 characters long".

function readAttributes(value: unknown): Record<string, SnsMessageAttribute> {
  if (!value || typeof value !== 'object') return {};
  const entries = Object.entries(value as Record<string, Record<string, unknown>>);
  if (entries.length > 10)
    throw invalid(
      `Invalid parameter: Number of message attributes [${entries.length}] exceeds the allowed maximum [10].`,
    );
  const out: Record<string, SnsMessageAttribute> = {};
  for (const [name, raw] of entries) {
    const type = typeof raw?.DataType === 'string' ? raw.DataType : '';
    const kind = /^(String\.Array|String|Number|Binary)(\..+)?$/.exec(type)?.[1];
    if (!kind)
      throw invalid(
        `Invalid parameter: The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    if (kind === 'Binary') {
      if (!(raw.BinaryValue instanceof Uint8Array) || !raw.BinaryValue.length)
        throw invalid(
          `Invalid parameter: The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${type}'.`,
        );
      out[name] = { DataType: type, BinaryValue: Buffer.from(raw.BinaryValue) };
      continue;
    }
    const str = raw.StringValue;
    if (typeof str !== 'string' || str === '')
      throw invalid(
        `Invalid parameter: The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${type}'.`,
      );
    if (kind === 'Number' && !Number.isFinite(Number(str)))
      throw invalid(`Invalid parameter: Could not cast message attribute '${name}' value to number.`);
    if (kind === 'String.Array') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(str);
      } catch {
        parsed = undefined;
      }
      if (!Array.isArray(parsed))
        throw invalid(
          `Invalid parameter: Message attribute '${name}' with type 'String.Array' must be an array.`,
        );
    }
    out[name] = { DataType: type, StringValue: str };
  }
  return out;
}

/** Message attributes as filter policies see them: strings, numbers, arrays (String.Array). */
function attributesForFilter(attributes: Record<string, SnsMessageAttribute>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, a] of Object.entries(attributes)) {
    if (a.DataType.startsWith('String.Array')) out[name] = JSON.parse(a.StringValue!) as unknown;
    else if (a.DataType.startsWith('Number')) out[name] = Number(a.StringValue);
    else if (a.DataType.startsWith('String')) out[name] = a.StringValue;
  }
  return out;
}

function filterAccepts(
  subscription: Subscription,
  message: string,
  attributes: Record<string, SnsMessageAttribute>,
) {
  const policy = subscription.attributes.FilterPolicy;
  if (!policy) return true;
  const pattern = JSON.parse(policy) as Record<string, unknown>;
  if (subscription.attributes.FilterPolicyScope === 'MessageBody') {
    let body: unknown;
    try {
      body = JSON.parse(message);
    } catch {
      return false;
    }
    return matchesPattern(pattern, body);
  }
  return matchesPattern(pattern, attributesForFilter(attributes));
}

/** The message text a protocol receives (`MessageStructure: json` picks its key, else `default`). */
function messageFor(n: Notification, protocol: string): string {
  if (n.structure !== 'json') return n.message;
  const doc = JSON.parse(n.message) as Record<string, unknown>;
  const own = doc[protocol];
  return typeof own === 'string' ? own : String(doc.default);
}

function signature(n: Notification): string {
  return createHash('sha256').update(`${n.messageId}${n.message}`).digest('base64');
}

/** The JSON notification SNS delivers unless raw delivery is on. */
function envelope(
  n: Notification,
  subscription: Subscription,
  message: string,
  lambda: boolean,
): Record<string, unknown> {
  const region = n.topic.region;
  const certUrl = `https://sns.${region}.amazonaws.com/SimpleNotificationService-emulator.pem`;
  const unsubscribeUrl = `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${subscription.arn}`;
  const attributes = Object.fromEntries(
    Object.entries(n.attributes).map(([name, a]) => [
      name,
      { Type: a.DataType, Value: a.BinaryValue ? a.BinaryValue.toString('base64') : a.StringValue },
    ]),
  );
  return {
    Type: 'Notification',
    MessageId: n.messageId,
    ...(n.sequenceNumber ? { SequenceNumber: n.sequenceNumber } : {}),
    TopicArn: topicArn(n.topic),
    ...(lambda ? { Subject: n.subject ?? null } : n.subject !== undefined ? { Subject: n.subject } : {}),
    Message: message,
    Timestamp: n.timestamp.toISOString(),
    SignatureVersion: n.topic.attributes.SignatureVersion ?? '1',
    Signature: signature(n),
    // Lambda events spell these two with "Url" (Lambda Developer Guide, "Using Lambda with Amazon SNS").
    ...(lambda
      ? { SigningCertUrl: certUrl, UnsubscribeUrl: unsubscribeUrl }
      : { SigningCertURL: certUrl, UnsubscribeURL: unsubscribeUrl }),
    ...(Object.keys(attributes).length ? { MessageAttributes: attributes } : {}),
  };
}

export class SnsPublisher {
  readonly operations: Operations = {
    Publish: (ctx, input) => this.publishOperation(ctx, input),
    PublishBatch: (ctx, input) => this.publishBatch(ctx, input),
  };

  readonly api: SnsPublishApi = { publish: (arn, p) => this.publishFromService(arn, p) };

  /** Deliveries since the last reset (newest last), for the control API. */
  readonly log: DeliveryRecord[] = [];
  private readonly dedup = new Map<string, { messageId: string; sequenceNumber: string; expires: number }>();
  private sequence = 10_000_000_000_000_000_000n;

  constructor(
    private readonly store: SnsStore,
    private readonly topics: SnsOperations,
    private readonly platform: Platform,
  ) {}

  clear(): void {
    this.log.length = 0;
    this.dedup.clear();
  }

  private record(entry: DeliveryRecord): void {
    this.log.push(entry);
    if (this.log.length > MAX_LOG) this.log.shift();
  }

  /** Builds the notification of one publish (validated as Publish validates), or a duplicate's ids. */
  private prepare(topic: Topic, entry: Input): { notification: Notification; duplicate: boolean } {
    const message = entry.Message;
    if (typeof message !== 'string' || message === '') throw invalid('Invalid parameter: Empty message');
    const subject = typeof entry.Subject === 'string' ? entry.Subject : undefined;
    if (
      subject !== undefined &&
      (subject.length >= 100 || [...subject].some((c) => c.charCodeAt(0) < 0x20) || subject === '')
    )
      throw invalid('Invalid parameter: Subject');
    let structure: 'json' | undefined;
    if (entry.MessageStructure !== undefined) {
      if (entry.MessageStructure !== 'json') throw invalid('Invalid parameter: MessageStructure');
      let doc: unknown;
      try {
        doc = JSON.parse(message);
      } catch {
        throw invalid('Invalid parameter: Message Structure - JSON message body failed to parse');
      }
      if (!doc || typeof doc !== 'object' || typeof (doc as Record<string, unknown>).default !== 'string')
        throw invalid('Invalid parameter: Message Structure - No default entry in JSON message body');
      structure = 'json';
    }
    const attributes = readAttributes(entry.MessageAttributes);
    const size =
      Buffer.byteLength(message) +
      Object.entries(attributes).reduce(
        (n, [k, a]) =>
          n +
          Buffer.byteLength(k) +
          Buffer.byteLength(a.DataType) +
          (a.BinaryValue?.length ?? Buffer.byteLength(a.StringValue ?? '')),
        0,
      );
    const max = Number(topic.attributes.MaximumMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE);
    if (size > max) throw invalid('Invalid parameter: Message too long');
    const fifo = topic.attributes.FifoTopic === 'true';
    const groupId = typeof entry.MessageGroupId === 'string' ? entry.MessageGroupId : undefined;
    let deduplicationId =
      typeof entry.MessageDeduplicationId === 'string' ? entry.MessageDeduplicationId : undefined;
    if (!fifo && deduplicationId !== undefined)
      throw invalid(
        'Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type',
      );
    const notification: Notification = {
      messageId: uuid(),
      topic,
      message,
      ...(subject !== undefined ? { subject } : {}),
      ...(structure ? { structure } : {}),
      attributes,
      ...(groupId !== undefined ? { groupId } : {}),
      timestamp: new Date(),
    };
    if (!fifo) return { notification, duplicate: false };
    if (!groupId)
      throw invalid('Invalid parameter: The MessageGroupId parameter is required for FIFO topics');
    if (deduplicationId === undefined) {
      if (topic.attributes.ContentBasedDeduplication !== 'true')
        throw invalid(
          'Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      deduplicationId = createHash('sha256').update(message).digest('hex');
    }
    notification.deduplicationId = deduplicationId;
    const now = Date.now();
    for (const [k, d] of this.dedup) if (d.expires <= now) this.dedup.delete(k);
    const scope = topic.attributes.FifoThroughputScope === 'MessageGroup' ? `${groupId}#` : '';
    const key = `${topicArn(topic)}#${scope}${deduplicationId}`;
    const seen = this.dedup.get(key);
    if (seen) {
      notification.messageId = seen.messageId;
      notification.sequenceNumber = seen.sequenceNumber;
      return { notification, duplicate: true };
    }
    notification.sequenceNumber = String(++this.sequence);
    this.dedup.set(key, {
      messageId: notification.messageId,
      sequenceNumber: notification.sequenceNumber,
      expires: now + DEDUP_WINDOW_MS,
    });
    return { notification, duplicate: false };
  }

  private async publishOperation(ctx: CallContext, input: Input): Promise<unknown> {
    const target = typeof input.TopicArn === 'string' ? input.TopicArn : input.TargetArn;
    if (typeof target !== 'string' || target === '') {
      if (typeof input.PhoneNumber === 'string' && input.PhoneNumber !== '') {
        // SMS is not sent anywhere; the message id is all AWS returns.
        if (typeof input.Message !== 'string' || input.Message === '')
          throw invalid('Invalid parameter: Empty message');
        return { MessageId: uuid() };
      }
      throw invalid('Invalid parameter: TopicArn or TargetArn Reason: no value for required parameter');
    }
    if (/:endpoint\//.test(target)) throw new AwsError('NotFound', 'Endpoint does not exist');
    const topic = this.topics.topic(ctx, { TopicArn: target }, 'Publish');
    const { notification, duplicate } = this.prepare(topic, input);
    if (!duplicate) await this.deliver(notification);
    return { MessageId: notification.messageId, SequenceNumber: notification.sequenceNumber };
  }

  private async publishBatch(ctx: CallContext, input: Input): Promise<unknown> {
    const topic = this.topics.topic(ctx, input, 'Publish');
    const entries = Array.isArray(input.PublishBatchRequestEntries)
      ? (input.PublishBatchRequestEntries as Input[])
      : [];
    if (!entries.length)
      throw new AwsError('EmptyBatchRequest', "The batch request doesn't contain any entries.");
    if (entries.length > 10)
      throw new AwsError(
        'TooManyEntriesInBatchRequest',
        'The batch request contains more entries than permissible.',
      );
    const ids = new Set<string>();
    for (const e of entries) {
      const id = typeof e.Id === 'string' ? e.Id : '';
      if (!/^[A-Za-z0-9_-]{1,80}$/.test(id))
        throw new AwsError(
          'InvalidBatchEntryId',
          "The Id of a batch entry in a batch request doesn't abide by the specification.",
        );
      if (ids.has(id))
        throw new AwsError(
          'BatchEntryIdsNotDistinct',
          'Two or more batch entries in the request have the same Id.',
        );
      ids.add(id);
    }
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of entries) {
      try {
        const { notification, duplicate } = this.prepare(topic, entry);
        if (!duplicate) await this.deliver(notification);
        Successful.push({
          Id: entry.Id,
          MessageId: notification.messageId,
          SequenceNumber: notification.sequenceNumber,
        });
      } catch (err) {
        if (!(err instanceof AwsError)) throw err;
        Failed.push({ Id: entry.Id, Code: err.code, Message: err.message, SenderFault: err.status < 500 });
      }
    }
    return { Successful, Failed };
  }

  private async publishFromService(
    arn: string,
    p: ServicePublish,
  ): Promise<{ published: true; messageId: string } | { published: false; reason: string }> {
    const topic = this.store.topic(arn);
    if (!topic) return { published: false, reason: `topic ${arn} does not exist` };
    const allowed = topicAllows(
      topic.attributes.Policy,
      arn,
      topic.account,
      { service: p.servicePrincipal },
      'sns:Publish',
      { 'aws:SourceArn': p.sourceArn, 'aws:SourceAccount': p.sourceAccount },
    );
    if (!allowed)
      return {
        published: false,
        reason: `the policy of topic ${arn} does not allow ${p.servicePrincipal} sns:Publish`,
      };
    try {
      const { notification, duplicate } = this.prepare(topic, {
        Message: p.message,
        ...(p.subject !== undefined ? { Subject: p.subject } : {}),
        ...(p.groupId !== undefined ? { MessageGroupId: p.groupId } : {}),
        ...(p.deduplicationId !== undefined ? { MessageDeduplicationId: p.deduplicationId } : {}),
      });
      if (!duplicate) await this.deliver(notification);
      return { published: true, messageId: notification.messageId };
    } catch (err) {
      if (err instanceof AwsError) return { published: false, reason: `${err.code}: ${err.message}` };
      throw err;
    }
  }

  /** Delivers a notification to every confirmed subscription of its topic whose filter accepts it. */
  private async deliver(n: Notification): Promise<void> {
    const arn = topicArn(n.topic);
    for (const s of this.store.subscriptionsOf(arn)) {
      const base = {
        topicArn: arn,
        subscriptionArn: s.arn,
        protocol: s.protocol,
        endpoint: s.endpoint,
        messageId: n.messageId,
      };
      if (s.pendingConfirmation) {
        this.record({ ...base, status: 'not-delivered', reason: 'the subscription is pending confirmation' });
        continue;
      }
      const message = messageFor(n, s.protocol);
      if (!filterAccepts(s, message, n.attributes)) {
        this.record({ ...base, status: 'filtered' });
        continue;
      }
      if (s.protocol === 'sqs') this.deliverToQueue(n, s, message, base);
      else if (s.protocol === 'lambda') await this.deliverToFunction(n, s, message, base);
      else
        this.record({
          ...base,
          status: 'not-delivered',
          reason: `the emulator does not deliver to ${s.protocol} endpoints`,
        });
    }
  }

  private sqs(): SqsDeliveryApi {
    return this.platform.api<SqsDeliveryApi>('sqs');
  }

  private deliverToQueue(
    n: Notification,
    s: Subscription,
    message: string,
    base: Omit<DeliveryRecord, 'status'>,
  ): void {
    const raw = s.attributes.RawMessageDelivery === 'true';
    const body = raw ? message : JSON.stringify(envelope(n, s, message, false));
    const attributes: Record<string, MessageAttribute> = {};
    if (raw)
      for (const [name, a] of Object.entries(n.attributes))
        attributes[name] = a.BinaryValue
          ? { DataType: 'Binary', BinaryValue: a.BinaryValue }
          : { DataType: a.DataType.startsWith('Number') ? 'Number' : 'String', StringValue: a.StringValue! };
    const delivery = {
      servicePrincipal: 'sns.amazonaws.com',
      sourceArn: base.topicArn,
      sourceAccount: n.topic.account,
      body,
      attributes,
      ...(n.groupId !== undefined ? { groupId: n.groupId } : {}),
      ...(n.deduplicationId !== undefined && s.endpoint.endsWith('.fifo')
        ? { deduplicationId: n.deduplicationId }
        : {}),
    };
    const outcome = this.sqs().deliver(s.endpoint, delivery);
    if (outcome.delivered) {
      this.record({ ...base, status: 'delivered' });
      return;
    }
    const dlq = s.attributes.RedrivePolicy
      ? (JSON.parse(s.attributes.RedrivePolicy) as { deadLetterTargetArn?: string }).deadLetterTargetArn
      : undefined;
    const { groupId: _group, deduplicationId: _dedup, ...plain } = delivery;
    if (dlq && this.sqs().deliver(dlq, plain).delivered) {
      this.record({ ...base, status: 'dead-lettered', reason: outcome.reason });
      return;
    }
    this.record({ ...base, status: 'failed', reason: outcome.reason });
  }

  private async deliverToFunction(
    n: Notification,
    s: Subscription,
    message: string,
    base: Omit<DeliveryRecord, 'status'>,
  ): Promise<void> {
    const lambda = lambdaInvoker(this.platform);
    if (!lambda) {
      this.record({
        ...base,
        status: 'not-delivered',
        reason: 'the emulator has no Lambda service to invoke',
      });
      return;
    }
    const event = {
      Records: [
        {
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          EventSubscriptionArn: s.arn,
          Sns: envelope(n, s, message, true),
        },
      ],
    };
    const outcome = await lambda.invokeAsync(s.endpoint, JSON.stringify(event), {
      servicePrincipal: 'sns.amazonaws.com',
      sourceArn: base.topicArn,
      sourceAccount: n.topic.account,
    });
    this.record(
      outcome.accepted
        ? { ...base, status: 'delivered' }
        : { ...base, status: 'failed', reason: outcome.reason },
    );
  }
}
