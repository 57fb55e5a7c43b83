/**
 * An SQS queue seen as the CloudFormation resource `AWS::SQS::Queue`, and the
 * provider that lets Cloud Control create, read, update and delete queues in
 * SQS's own store (identifier: the queue URL as served by the emulator).
 */
import { upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  inventoryItems,
  notFound,
  serviceFailure,
  writable,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem, InventoryView } from '../../core/service';
import { parseQueueUrl, queueArn, queueUrl, type Queue, type SqsStore } from './store';

const INTEGER_PROPERTIES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'KmsDataKeyReusePeriodSeconds',
];
const BOOLEAN_PROPERTIES = ['SqsManagedSseEnabled', 'FifoQueue', 'ContentBasedDeduplication'];
const JSON_PROPERTIES = ['RedrivePolicy', 'RedriveAllowPolicy'];
const STRING_PROPERTIES = ['KmsMasterKeyId', 'DeduplicationScope', 'FifoThroughputLimit'];

/** The queue's CloudFormation properties (read-only ones included). */
export function queueProperties(queue: Queue, baseUrl: string): Record<string, unknown> {
  const props: Record<string, unknown> = {
    QueueName: queue.name,
    QueueUrl: queueUrl(baseUrl, queue),
    Arn: queueArn(queue),
  };
  for (const name of INTEGER_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = Number(queue.attributes[name]);
  for (const name of BOOLEAN_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = queue.attributes[name] === 'true';
  for (const name of JSON_PROPERTIES)
    if (queue.attributes[name]) props[name] = JSON.parse(queue.attributes[name]!) as unknown;
  for (const name of STRING_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = queue.attributes[name];
  const tags = Object.entries(queue.tags);
  if (tags.length) props.Tags = tags.map(([Key, Value]) => ({ Key, Value }));
  return props;
}

/** SQS attributes from CloudFormation properties (QueueName, Tags and read-only ones left out). */
export function attributesFromProperties(props: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(props)) {
    if (
      name === 'QueueName' ||
      name === 'Tags' ||
      name === 'QueueUrl' ||
      name === 'Arn' ||
      value === undefined ||
      value === null
    )
      continue;
    attributes[name] =
      JSON_PROPERTIES.includes(name) && typeof value !== 'string' ? JSON.stringify(value) : String(value);
  }
  return attributes;
}

export function tagsFromProperties(props: Record<string, unknown>): Record<string, string> {
  const tags: Record<string, string> = {};
  if (Array.isArray(props.Tags))
    for (const t of props.Tags as Array<{ Key: string; Value: string }>) tags[t.Key] = t.Value;
  return tags;
}

/** A queue as Cloud Control names it: by its URL. */
function queueResource(baseUrl: string, queue: Queue): StoredResource {
  return { identifier: queueUrl(baseUrl, queue), model: queueProperties(queue, baseUrl) };
}

export class QueueProvider implements ResourceProvider {
  readonly typeName = 'AWS::SQS::Queue';

  constructor(private readonly sqs: SqsStore) {}

  inventory(view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.sqs.queues.values(), (q) => queueResource(view.baseUrl, q));
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const fifo = desired.FifoQueue === true;
    const name =
      typeof desired.QueueName === 'string'
        ? desired.QueueName
        : `Queue-${upperAlnum(12)}${fifo ? '.fifo' : ''}`;
    if (this.sqs.get(scope.account, scope.region, name))
      throw alreadyExists(schema.typeName, `${scope.baseUrl}/${scope.account}/${name}`);
    let queue;
    try {
      queue = this.sqs.create(
        scope.account,
        scope.region,
        name,
        attributesFromProperties(writable(schema, desired)),
        tagsFromProperties(desired),
      ).queue;
    } catch (err) {
      throw serviceFailure(err, 'Sqs');
    }
    return queueResource(scope.baseUrl, queue);
  }

  private queue(scope: ResourceScope, identifier: string) {
    const parsed = parseQueueUrl(identifier);
    if (!parsed || parsed.account !== scope.account) return undefined;
    return this.sqs.get(parsed.account, scope.region, parsed.name);
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const queue = this.queue(scope, identifier);
    return queue ? queueResource(scope.baseUrl, queue) : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const queue = this.queue(scope, identifier);
    if (!queue) throw notFound(schema.typeName, identifier);
    const attributes = attributesFromProperties(writable(schema, desired));
    delete attributes.FifoQueue;
    // Attributes the new model leaves out go back to their defaults, as the handler does.
    const resets: Record<string, string> = {
      DelaySeconds: '0',
      MaximumMessageSize: '262144',
      MessageRetentionPeriod: '345600',
      ReceiveMessageWaitTimeSeconds: '0',
      VisibilityTimeout: '30',
    };
    for (const [name, value] of Object.entries(resets)) attributes[name] ??= value;
    if (queue.attributes.RedrivePolicy && !('RedrivePolicy' in attributes)) attributes.RedrivePolicy = '';
    try {
      this.sqs.setAttributes(queue, attributes);
    } catch (err) {
      throw serviceFailure(err, 'Sqs');
    }
    queue.tags = tagsFromProperties(desired);
    return queueResource(scope.baseUrl, queue);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const queue = this.queue(scope, identifier);
    if (!queue) throw notFound(schema.typeName, identifier);
    this.sqs.delete(queue);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.sqs.queues.values()]
      .filter((q) => q.account === scope.account && q.region === scope.region)
      .map((q) => queueResource(scope.baseUrl, q));
  }
}
