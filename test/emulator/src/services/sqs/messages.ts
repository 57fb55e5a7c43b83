/**
 * The messages of SQS queues: send (delay, FIFO groups and deduplication),
 * receive (visibility timeout, receive counts, long polling), delete, change
 * visibility and purge, with the validation the SQS API reference documents.
 * Kept per queue beside the queue store; SNS and EventBridge deliver through
 * {@link MessageStore.send} too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { Queue } from './store';

/** A message attribute as the SQS API carries it. */
export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: Buffer;
}

export interface StoredMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  attributes: Record<string, MessageAttribute>;
  md5OfAttributes?: string;
  senderId: string;
  /** Epoch ms. */
  sentAt: number;
  /** Epoch ms before which the message is not received (delay, or in flight). */
  visibleAt: number;
  /** True while the message has been received and not deleted or made visible again. */
  inFlight: boolean;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
  groupId?: string;
  deduplicationId?: string;
  sequenceNumber?: string;
}

export interface SendInput {
  body: string;
  delaySeconds?: number;
  attributes?: Record<string, MessageAttribute>;
  groupId?: string;
  deduplicationId?: string;
  senderId: string;
}

export interface SendResult {
  messageId: string;
  md5OfBody: string;
  md5OfAttributes?: string;
  sequenceNumber?: string;
}

interface QueueMessages {
  messages: StoredMessage[];
  /** FIFO deduplication: key → the message it stood for, until `expires` (ms). */
  dedup: Map<string, { messageId: string; sequenceNumber: string; expires: number }>;
  lastPurge?: number;
  waiters: Set<() => void>;
}

/** FIFO deduplication interval (SQS Developer Guide: 5 minutes). */
const DEDUP_WINDOW_MS = 5 * 60_000;
/** PurgeQueue may run once every 60 seconds (SQS API reference, PurgeQueue). */
const PURGE_COOLDOWN_MS = 60_000;
const MAX_ATTRIBUTES = 10;
const VALID_BODY = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

export function invalidParameter(message: string): AwsError {
  return new AwsError('InvalidParameterValue', message, 400);
}

function md5(data: string | Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

/**
 * MD5 of message attributes as SQS computes it (and the SDKs check): per
 * attribute sorted by name, the length-prefixed name, data type, a transport
 * byte (1 string/number, 2 binary) and the length-prefixed value.
 */
export function md5OfMessageAttributes(attributes: Record<string, MessageAttribute>): string | undefined {
  const names = Object.keys(attributes).sort();
  if (!names.length) return undefined;
  const parts: Buffer[] = [];
  const lengthPrefixed = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    parts.push(len, b);
  };
  for (const name of names) {
    const a = attributes[name]!;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(a.DataType, 'utf8'));
    if (a.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]));
      lengthPrefixed(Buffer.from(a.BinaryValue));
    } else {
      parts.push(Buffer.from([1]));
      lengthPrefixed(Buffer.from(a.StringValue ?? '', 'utf8'));
    }
  }
  return md5(Buffer.concat(parts));
}

/** Checks and normalizes the message attributes of a send. */
export function readMessageAttributes(value: unknown): Record<string, MessageAttribute> {
  if (!value || typeof value !== 'object') return {};
  const entries = Object.entries(value as Record<string, Record<string, unknown>>);
  if (entries.length > MAX_ATTRIBUTES)
    throw invalidParameter(
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`,
    );
  const out: Record<string, MessageAttribute> = {};
  for (const [name, raw] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || /^(aws\.|amazon\.)/i.test(name) || /\.\.|^\.|\.$/.test(name))
      throw invalidParameter(`Message (user) attribute name '${name}' is invalid.`);
    const dataType = typeof raw?.DataType === 'string' ? raw.DataType : '';
    if (!dataType)
      throw invalidParameter(
        `The message attribute '${name}' must contain non-empty message attribute type.`,
      );
    const kind = /^(String|Number|Binary)(\..+)?$/.exec(dataType)?.[1];
    if (!kind)
      throw invalidParameter(
        `The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`,
      );
    if (kind === 'Binary') {
      const bin = raw.BinaryValue;
      if (!(bin instanceof Uint8Array) || bin.length === 0)
        throw invalidParameter(
          `The message (user) attribute '${name}' must contain a non-empty value of message attribute type '${dataType}'.`,
        );
      out[name] = { DataType: dataType, BinaryValue: Buffer.from(bin) };
    } else {
      const str = raw.StringValue;
      if (typeof str !== 'string' || str === '')
        throw invalidParameter(
          `The message (user) attribute '${name}' must contain a non-empty value of message attribute type '${dataType}'.`,
        );
      if (kind === 'Number' && !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(str))
        throw invalidParameter(`Can't cast the value of message (user) attribute '${name}' to a number.`);
      out[name] = { DataType: dataType, StringValue: str };
    }
  }
  return out;
}

function attributesSize(attributes: Record<string, MessageAttribute>): number {
  let size = 0;
  for (const [name, a] of Object.entries(attributes))
    size +=
      Buffer.byteLength(name) +
      Buffer.byteLength(a.DataType) +
      (a.BinaryValue ? a.BinaryValue.length : Buffer.byteLength(a.StringValue ?? ''));
  return size;
}

/** Names the queue a receipt handle belongs to. */
const queueTag = (queue: Queue) => `${queue.account}/${queue.region}/${queue.name}`;

/** Queue, message id and a random part, base64: opaque to callers as AWS's are. */
function newReceiptHandle(queue: Queue, messageId: string): string {
  return Buffer.from(`${queueTag(queue)}#${messageId}#${randomBytes(24).toString('hex')}`).toString('base64');
}

function parseReceiptHandle(handle: string): { queue: string; messageId: string } | undefined {
  const parts = Buffer.from(handle, 'base64').toString('utf8').split('#');
  if (parts.length !== 3 || !parts[0] || !parts[1]) return undefined;
  return { queue: parts[0], messageId: parts[1] };
}

function receiptHandleInvalid(handle: string): AwsError {
  return new AwsError(
    'ReceiptHandleIsInvalid',
    `The input receipt handle "${handle}" is not a valid receipt handle.`,
  );
}

const isFifo = (queue: Queue) => queue.name.endsWith('.fifo');
const attribute = (queue: Queue, name: string, fallback: number) =>
  queue.attributes[name] !== undefined ? Number(queue.attributes[name]) : fallback;

export class MessageStore {
  private readonly byQueue = new Map<Queue, QueueMessages>();
  private sequence = 10_000_000_000_000_000_000n;

  private of(queue: Queue): QueueMessages {
    let q = this.byQueue.get(queue);
    if (!q) {
      q = { messages: [], dedup: new Map(), waiters: new Set() };
      this.byQueue.set(queue, q);
    }
    return q;
  }

  /** Drops messages older than the queue's retention period. */
  private expire(queue: Queue, q: QueueMessages, now: number): void {
    const retentionMs = attribute(queue, 'MessageRetentionPeriod', 345_600) * 1000;
    q.messages = q.messages.filter((m) => now - m.sentAt < retentionMs);
    for (const [key, d] of q.dedup) if (d.expires <= now) q.dedup.delete(key);
  }

  send(queue: Queue, input: SendInput): SendResult {
    if (!VALID_BODY.test(input.body))
      throw new AwsError(
        'InvalidMessageContents',
        'Invalid characters found. Valid values are: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
      );
    const attributes = input.attributes ?? {};
    const max = attribute(queue, 'MaximumMessageSize', 262_144);
    if (Buffer.byteLength(input.body) + attributesSize(attributes) > max)
      throw invalidParameter(
        `One or more parameters are invalid. Reason: Message must be shorter than ${max} bytes.`,
      );
    const fifo = isFifo(queue);
    if (input.delaySeconds !== undefined) {
      if (!Number.isInteger(input.delaySeconds) || input.delaySeconds < 0 || input.delaySeconds > 900)
        throw invalidParameter(
          `Value ${input.delaySeconds} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.`,
        );
      if (fifo && input.delaySeconds > 0)
        throw invalidParameter(
          `Value ${input.delaySeconds} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
        );
    }
    if (fifo && !input.groupId)
      throw new AwsError('MissingParameter', 'The request must contain the parameter MessageGroupId.', 400);
    if (!fifo && input.deduplicationId !== undefined)
      throw invalidParameter(
        `Value ${input.deduplicationId} for parameter MessageDeduplicationId is invalid. Reason: The request includes a parameter that is not valid for this queue type.`,
      );
    const now = Date.now();
    const q = this.of(queue);
    this.expire(queue, q, now);
    const md5OfBody = md5(input.body);
    const md5OfAttributes = md5OfMessageAttributes(attributes);
    let dedupKey: string | undefined;
    if (fifo) {
      const id =
        input.deduplicationId ??
        (queue.attributes.ContentBasedDeduplication === 'true'
          ? createHash('sha256').update(input.body).digest('hex')
          : undefined);
      if (id === undefined)
        throw invalidParameter(
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      dedupKey = queue.attributes.DeduplicationScope === 'messageGroup' ? `${input.groupId}#${id}` : id;
      const seen = q.dedup.get(dedupKey);
      if (seen)
        return { messageId: seen.messageId, md5OfBody, md5OfAttributes, sequenceNumber: seen.sequenceNumber };
      input = { ...input, deduplicationId: id };
    }
    const delay = input.delaySeconds ?? (fifo ? 0 : attribute(queue, 'DelaySeconds', 0));
    const message: StoredMessage = {
      messageId: uuid(),
      body: input.body,
      md5OfBody,
      attributes,
      ...(md5OfAttributes ? { md5OfAttributes } : {}),
      senderId: input.senderId,
      sentAt: now,
      visibleAt: now + delay * 1000,
      inFlight: false,
      receiveCount: 0,
      ...(input.groupId !== undefined ? { groupId: input.groupId } : {}),
      ...(input.deduplicationId !== undefined ? { deduplicationId: input.deduplicationId } : {}),
    };
    if (fifo) {
      message.sequenceNumber = String(++this.sequence);
      q.dedup.set(dedupKey!, {
        messageId: message.messageId,
        sequenceNumber: message.sequenceNumber,
        expires: now + DEDUP_WINDOW_MS,
      });
    }
    q.messages.push(message);
    for (const wake of q.waiters) wake();
    return {
      messageId: message.messageId,
      md5OfBody,
      ...(md5OfAttributes ? { md5OfAttributes } : {}),
      ...(message.sequenceNumber ? { sequenceNumber: message.sequenceNumber } : {}),
    };
  }

  /** Receives up to `max` visible messages and hides them for the visibility timeout. */
  receive(queue: Queue, max: number, visibilityTimeout?: number): StoredMessage[] {
    const now = Date.now();
    const q = this.of(queue);
    this.expire(queue, q, now);
    const timeout = visibilityTimeout ?? attribute(queue, 'VisibilityTimeout', 30);
    const fifo = isFifo(queue);
    // A FIFO group with a message in flight delivers nothing more until it is settled.
    const busyGroups = new Set<string>();
    for (const m of q.messages) {
      if (m.inFlight && m.visibleAt <= now) m.inFlight = false;
      if (fifo && m.inFlight && m.groupId) busyGroups.add(m.groupId);
    }
    const out: StoredMessage[] = [];
    for (const m of q.messages) {
      if (out.length >= max) break;
      if (m.visibleAt > now) {
        if (fifo && m.groupId) busyGroups.add(m.groupId);
        continue;
      }
      if (fifo && m.groupId && busyGroups.has(m.groupId)) continue;
      m.inFlight = true;
      m.visibleAt = now + timeout * 1000;
      m.receiveCount++;
      m.firstReceivedAt ??= now;
      m.receiptHandle = newReceiptHandle(queue, m.messageId);
      out.push(m);
    }
    return out;
  }

  /**
   * Resolves when a message arrives on the queue or `ms` has passed (long polling);
   * also when a delayed or in-flight message may have become visible.
   */
  waitForMessage(queue: Queue, ms: number): Promise<void> {
    const q = this.of(queue);
    const now = Date.now();
    const nextVisible = q.messages.reduce(
      (t, m) => (m.visibleAt > now ? Math.min(t, m.visibleAt) : t),
      Infinity,
    );
    const wait = Math.max(0, Math.min(ms, nextVisible - now));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        q.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, wait);
      q.waiters.add(done);
    });
  }

  private byHandle(queue: Queue, handle: string): StoredMessage | undefined {
    const parsed = parseReceiptHandle(handle);
    if (!parsed) throw receiptHandleInvalid(handle);
    if (parsed.queue !== queueTag(queue)) throw receiptHandleInvalid(handle);
    return this.of(queue).messages.find((m) => m.messageId === parsed.messageId);
  }

  /**
   * Deletes the message the handle was issued for. A handle of a message that is gone, or
   * one superseded by a later receive, succeeds without deleting (SQS API reference).
   */
  delete(queue: Queue, handle: string): void {
    const message = this.byHandle(queue, handle);
    if (!message || message.receiptHandle !== handle) return;
    const q = this.of(queue);
    q.messages = q.messages.filter((m) => m !== message);
    for (const wake of q.waiters) wake();
  }

  changeVisibility(queue: Queue, handle: string, seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200)
      throw invalidParameter(
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200, if provided.`,
      );
    const message = this.byHandle(queue, handle);
    const now = Date.now();
    if (!message || message.receiptHandle !== handle || !message.inFlight || message.visibleAt <= now)
      throw new AwsError('MessageNotInflight', 'The message referred to is not in flight.');
    message.visibleAt = now + seconds * 1000;
    if (seconds === 0) {
      message.inFlight = false;
      for (const wake of this.of(queue).waiters) wake();
    }
  }

  purge(queue: Queue): void {
    const q = this.of(queue);
    const now = Date.now();
    if (q.lastPurge !== undefined && now - q.lastPurge < PURGE_COOLDOWN_MS)
      throw new AwsError(
        'PurgeQueueInProgress',
        `Only one PurgeQueue operation on ${queue.name} is allowed every 60 seconds.`,
      );
    q.lastPurge = now;
    q.messages = [];
  }

  /** ApproximateNumberOfMessages (visible), ...NotVisible (in flight) and ...Delayed. */
  counts(queue: Queue): { visible: number; notVisible: number; delayed: number } {
    const now = Date.now();
    const q = this.of(queue);
    this.expire(queue, q, now);
    let visible = 0;
    let notVisible = 0;
    let delayed = 0;
    for (const m of q.messages) {
      if (m.visibleAt <= now) visible++;
      else if (m.inFlight) notVisible++;
      else delayed++;
    }
    return { visible, notVisible, delayed };
  }

  /** Forgets a deleted queue's messages (and wakes its long polls). */
  drop(queue: Queue): void {
    const q = this.byQueue.get(queue);
    if (!q) return;
    for (const wake of q.waiters) wake();
    this.byQueue.delete(queue);
  }

  /** Wakes every long poll (the emulator stops). */
  wakeAll(): void {
    for (const q of this.byQueue.values()) for (const wake of q.waiters) wake();
  }

  clear(): void {
    this.wakeAll();
    this.byQueue.clear();
  }

  /** The queue's messages as JSON (binary attributes base64). */
  snapshotOf(queue: Queue): unknown[] {
    return (this.byQueue.get(queue)?.messages ?? []).map((m) => ({
      ...m,
      attributes: Object.fromEntries(
        Object.entries(m.attributes).map(([n, a]) => [
          n,
          a.BinaryValue ? { ...a, BinaryValue: a.BinaryValue.toString('base64') } : a,
        ]),
      ),
    }));
  }

  /** Reads {@link snapshotOf} back for a restored queue. */
  restoreFor(queue: Queue, saved: unknown[] | undefined): void {
    if (!saved?.length) return;
    const messages = (
      saved as Array<StoredMessage & { attributes: Record<string, { BinaryValue?: unknown }> }>
    ).map((m) => ({
      ...m,
      attributes: Object.fromEntries(
        Object.entries(m.attributes).map(([n, a]) => [
          n,
          typeof a.BinaryValue === 'string'
            ? { ...(a as MessageAttribute), BinaryValue: Buffer.from(a.BinaryValue, 'base64') }
            : (a as MessageAttribute),
        ]),
      ),
    }));
    this.byQueue.set(queue, { messages, dedup: new Map(), waiters: new Set() });
    for (const m of messages)
      if (m.sequenceNumber && BigInt(m.sequenceNumber) > this.sequence)
        this.sequence = BigInt(m.sequenceNumber);
  }
}
