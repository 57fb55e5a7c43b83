/**
 * SQS queues per account and region, with the attribute rules of CreateQueue
 * and SetQueueAttributes. Shared with Cloud Control (`AWS::SQS::Queue`).
 */
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';

export interface Queue {
  account: string;
  region: string;
  name: string;
  /** Epoch seconds. */
  created: number;
  lastModified: number;
  /** Settable attributes, as SQS strings. */
  attributes: Record<string, string>;
  tags: Record<string, string>;
}

/** Settable attribute → valid integer range, or undefined for non-integer attributes. */
const INTEGER_RANGES: Record<string, [number, number]> = {
  DelaySeconds: [0, 900],
  MaximumMessageSize: [1024, 1048576],
  MessageRetentionPeriod: [60, 1209600],
  ReceiveMessageWaitTimeSeconds: [0, 20],
  VisibilityTimeout: [0, 43200],
  KmsDataKeyReusePeriodSeconds: [60, 86400],
};
const BOOLEAN_ATTRIBUTES = new Set(['SqsManagedSseEnabled', 'FifoQueue', 'ContentBasedDeduplication']);
const FIFO_ONLY = new Set([
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
]);
const SETTABLE = new Set([
  ...Object.keys(INTEGER_RANGES),
  ...BOOLEAN_ATTRIBUTES,
  'Policy',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'DeduplicationScope',
  'FifoThroughputLimit',
]);
/** Attributes GetQueueAttributes computes. */
export const READ_ONLY_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesDelayed',
  'ApproximateNumberOfMessagesNotVisible',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
];

export const DEFAULT_ATTRIBUTES: Record<string, string> = {
  DelaySeconds: '0',
  MaximumMessageSize: '262144',
  MessageRetentionPeriod: '345600',
  ReceiveMessageWaitTimeSeconds: '0',
  VisibilityTimeout: '30',
  SqsManagedSseEnabled: 'true',
};

const FIFO_DEFAULTS: Record<string, string> = {
  FifoQueue: 'true',
  ContentBasedDeduplication: 'false',
  DeduplicationScope: 'queue',
  FifoThroughputLimit: 'perQueue',
};

export const sqsErrors = {
  queueDoesNotExist: () => new AwsError('QueueDoesNotExist', 'The specified queue does not exist.', 400),
  invalidAttributeName: (name: string) =>
    new AwsError('InvalidAttributeName', `Unknown Attribute ${name}.`, 400),
  invalidAttributeValue: (name: string) =>
    new AwsError('InvalidAttributeValue', `Invalid value for the parameter ${name}.`, 400),
};

export class SqsStore implements ServiceStore {
  readonly queues = new Map<string, Queue>();
  /** When each queue name was last deleted (ms), for QueueDeletedRecently. */
  private readonly deleted = new Map<string, number>();
  /** How long a deleted queue's name stays unavailable (AWS: 60 s). */
  deleteCooldownMs = 60_000;

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  get(account: string, region: string, name: string): Queue | undefined {
    return this.queues.get(SqsStore.key(account, region, name));
  }

  /**
   * CreateQueue: a new queue, or the existing one when every given attribute
   * matches it (QueueNameExists otherwise).
   */
  create(
    account: string,
    region: string,
    name: string,
    attributes: Record<string, string>,
    tags: Record<string, string>,
  ): { queue: Queue; created: boolean } {
    validateQueueName(name, attributes.FifoQueue === 'true');
    const isFifo = name.endsWith('.fifo');
    const normalized = normalizeAttributes(attributes, isFifo);
    const key = SqsStore.key(account, region, name);
    const existing = this.queues.get(key);
    if (existing) {
      for (const [attr, value] of Object.entries(normalized)) {
        const current = existing.attributes[attr] ?? DEFAULT_ATTRIBUTES[attr];
        if (current !== value) {
          throw new AwsError(
            'QueueNameExists',
            `A queue already exists with the same name and a different value for attribute ${attr}`,
            400,
          );
        }
      }
      return { queue: existing, created: false };
    }
    const deletedAt = this.deleted.get(key);
    if (deletedAt !== undefined && Date.now() - deletedAt < this.deleteCooldownMs) {
      throw new AwsError(
        'QueueDeletedRecently',
        'You must wait 60 seconds after deleting a queue before you can create another with the same name.',
        400,
      );
    }
    const now = Math.floor(Date.now() / 1000);
    const queue: Queue = {
      account,
      region,
      name,
      created: now,
      lastModified: now,
      attributes: { ...DEFAULT_ATTRIBUTES, ...(isFifo ? FIFO_DEFAULTS : {}), ...normalized },
      tags: { ...tags },
    };
    if (queue.attributes.KmsMasterKeyId) {
      delete queue.attributes.SqsManagedSseEnabled;
      queue.attributes.KmsDataKeyReusePeriodSeconds ??= '300';
    }
    this.queues.set(key, queue);
    return { queue, created: true };
  }

  setAttributes(queue: Queue, attributes: Record<string, string>): void {
    const normalized = normalizeAttributes(attributes, queue.name.endsWith('.fifo'), true);
    for (const [name, value] of Object.entries(normalized)) {
      if (
        value === '' &&
        (name === 'RedrivePolicy' ||
          name === 'Policy' ||
          name === 'RedriveAllowPolicy' ||
          name === 'KmsMasterKeyId')
      )
        delete queue.attributes[name];
      else queue.attributes[name] = value;
    }
    if (normalized.KmsMasterKeyId) {
      delete queue.attributes.SqsManagedSseEnabled;
      queue.attributes.KmsDataKeyReusePeriodSeconds ??= '300';
    } else if (normalized.SqsManagedSseEnabled === 'true') {
      delete queue.attributes.KmsMasterKeyId;
      delete queue.attributes.KmsDataKeyReusePeriodSeconds;
    }
    queue.lastModified = Math.floor(Date.now() / 1000);
  }

  delete(queue: Queue): void {
    const key = SqsStore.key(queue.account, queue.region, queue.name);
    this.queues.delete(key);
    this.deleted.set(key, Date.now());
  }

  clear(): void {
    this.queues.clear();
    this.deleted.clear();
  }

  snapshot(): { queues: Queue[] } {
    return { queues: [...this.queues.values()] };
  }

  restore(saved: unknown): void {
    for (const q of (saved as { queues?: Queue[] }).queues ?? [])
      this.queues.set(SqsStore.key(q.account, q.region, q.name), q);
  }
}

export function queueArn(queue: Queue): string {
  return `arn:aws:sqs:${queue.region}:${queue.account}:${queue.name}`;
}

/** `http://<host>/<account>/<name>`: the queue URL as seen through the endpoint the client used. */
export function queueUrl(baseUrl: string, queue: Queue): string {
  return `${baseUrl}/${queue.account}/${queue.name}`;
}

/** Account and queue name from a queue URL (any host). */
export function parseQueueUrl(url: string): { account: string; name: string } | undefined {
  const m = /^(?:https?:\/\/[^/]+)?\/(\d{12})\/([^/?#]+)\/?$/.exec(url);
  return m ? { account: m[1]!, name: m[2]! } : undefined;
}

function validateQueueName(name: string, fifoAttribute: boolean): void {
  const fifo = name.endsWith('.fifo');
  const base = fifo ? name.slice(0, -5) : name;
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(base) || name.length > 80) {
    throw new AwsError(
      'InvalidParameterValue',
      'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
      400,
    );
  }
  if (fifoAttribute && !fifo) {
    throw new AwsError(
      'InvalidParameterValue',
      'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
      400,
    );
  }
  if (fifo && !fifoAttribute) {
    throw new AwsError(
      'InvalidParameterValue',
      'The name of a FIFO queue must have the FifoQueue attribute set to true.',
      400,
    );
  }
}

function normalizeAttributes(
  attributes: Record<string, string>,
  isFifo: boolean,
  forUpdate = false,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(attributes)) {
    if (!SETTABLE.has(name)) throw sqsErrors.invalidAttributeName(name);
    if (FIFO_ONLY.has(name) && !isFifo) throw sqsErrors.invalidAttributeName(name);
    if (forUpdate && name === 'FifoQueue') throw sqsErrors.invalidAttributeName(name);
    const value = String(raw);
    const range = INTEGER_RANGES[name];
    if (range) {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < range[0] || n > range[1]) throw sqsErrors.invalidAttributeValue(name);
    } else if (BOOLEAN_ATTRIBUTES.has(name)) {
      if (!/^(true|false)$/i.test(value)) throw sqsErrors.invalidAttributeValue(name);
      out[name] = value.toLowerCase();
      continue;
    } else if (
      (name === 'RedrivePolicy' || name === 'RedriveAllowPolicy' || name === 'Policy') &&
      value !== ''
    ) {
      try {
        JSON.parse(value);
      } catch {
        throw sqsErrors.invalidAttributeValue(name);
      }
    } else if (name === 'DeduplicationScope' && !['queue', 'messageGroup'].includes(value)) {
      throw sqsErrors.invalidAttributeValue(name);
    } else if (name === 'FifoThroughputLimit' && !['perQueue', 'perMessageGroupId'].includes(value)) {
      throw sqsErrors.invalidAttributeValue(name);
    }
    out[name] = value;
  }
  return out;
}
