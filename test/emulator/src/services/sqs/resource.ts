/**
 * An SQS queue seen as the CloudFormation resource `AWS::SQS::Queue`, and the
 * provider that lets Cloud Control create, read, update and delete queues in
 * SQS's own store (identifier: the queue URL as served by the emulator).
 */
import { lowerAlnum, upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
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
import { parseQueueUrl, queueArn, queueUrl, SqsStore, type Queue, type QueuePolicyRecord } from './store';

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

/**
 * `AWS::SQS::QueuePolicy`: one policy document on some queues. A policy made
 * through Cloud Control is a record with a generated `Id`; a queue whose
 * `Policy` was set through the SQS API is listed (and readable) as a queue
 * policy identified by the queue URL.
 */
export class QueuePolicyProvider implements ResourceProvider {
  readonly typeName = 'AWS::SQS::QueuePolicy';

  constructor(private readonly sqs: SqsStore) {}

  private covered(): Set<string> {
    return new Set(
      [...this.sqs.policies.values()].flatMap((p) =>
        p.queues.map((q) => SqsStore.key(p.account, p.region, q)),
      ),
    );
  }

  private recordModel(baseUrl: string, p: QueuePolicyRecord): Record<string, unknown> {
    return {
      Id: p.id,
      Queues: p.queues.map((name) => `${baseUrl}/${p.account}/${name}`),
      PolicyDocument: parsePolicy(p.document),
    };
  }

  private attached(baseUrl: string, q: Queue): StoredResource {
    const url = queueUrl(baseUrl, q);
    return {
      identifier: url,
      model: { Id: url, Queues: [url], PolicyDocument: parsePolicy(q.attributes.Policy!) },
    };
  }

  private nativeAttachments(filter: (q: Queue) => boolean): Queue[] {
    const covered = this.covered();
    return [...this.sqs.queues.values()].filter(
      (q) => filter(q) && q.attributes.Policy && !covered.has(SqsStore.key(q.account, q.region, q.name)),
    );
  }

  inventory(view: InventoryView): InventoryItem[] {
    return [
      ...inventoryItems(this.typeName, this.sqs.policies.values(), (p) => ({
        identifier: p.id,
        model: this.recordModel(view.baseUrl, p),
      })),
      ...inventoryItems(
        this.typeName,
        this.nativeAttachments(() => true),
        (q) => this.attached(view.baseUrl, q),
      ),
    ];
  }

  private queues(scope: ResourceScope, desired: Record<string, unknown>): Queue[] {
    const urls = Array.isArray(desired.Queues) ? (desired.Queues as unknown[]).map(String) : [];
    if (!urls.length) throw new HandlerError('InvalidRequest', 'Queues must contain at least one queue URL');
    return urls.map((url) => {
      const parsed = parseQueueUrl(url);
      const queue =
        parsed && parsed.account === scope.account
          ? this.sqs.get(parsed.account, scope.region, parsed.name)
          : undefined;
      if (!queue)
        throw new HandlerError(
          'NotFound',
          `The specified queue does not exist (Service: Sqs, Status Code: 400): ${url}`,
        );
      return queue;
    });
  }

  private write(queues: Queue[], document: string): void {
    try {
      for (const q of queues) this.sqs.setAttributes(q, { Policy: document });
    } catch (err) {
      throw serviceFailure(err, 'Sqs');
    }
  }

  private clearPolicies(account: string, region: string, names: string[]): void {
    for (const name of names) {
      const q = this.sqs.get(account, region, name);
      if (q) this.sqs.setAttributes(q, { Policy: '' });
    }
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const queues = this.queues(scope, desired);
    const document = policyText(desired.PolicyDocument);
    this.write(queues, document);
    const record: QueuePolicyRecord = {
      id: `sqsqueuepolicy-${lowerAlnum(12)}`,
      account: scope.account,
      region: scope.region,
      queues: queues.map((q) => q.name),
      document,
    };
    this.sqs.policies.set(record.id, record);
    return { identifier: record.id, model: this.recordModel(scope.baseUrl, record) };
  }

  private record(scope: ResourceScope, identifier: string): QueuePolicyRecord | undefined {
    const p = this.sqs.policies.get(identifier);
    return p && p.account === scope.account && p.region === scope.region ? p : undefined;
  }

  private nativeAttachment(scope: ResourceScope, identifier: string): Queue | undefined {
    const parsed = parseQueueUrl(identifier);
    if (!parsed || parsed.account !== scope.account) return undefined;
    const q = this.sqs.get(parsed.account, scope.region, parsed.name);
    return q && q.attributes.Policy && !this.covered().has(SqsStore.key(q.account, q.region, q.name))
      ? q
      : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const p = this.record(scope, identifier);
    if (p) return { identifier, model: this.recordModel(scope.baseUrl, p) };
    const q = this.nativeAttachment(scope, identifier);
    return q ? this.attached(scope.baseUrl, q) : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const p = this.record(scope, identifier);
    if (!p) throw notFound(schema.typeName, identifier);
    const queues = this.queues(scope, desired);
    const document = policyText(desired.PolicyDocument);
    this.write(queues, document);
    const names = queues.map((q) => q.name);
    this.clearPolicies(
      p.account,
      p.region,
      p.queues.filter((n) => !names.includes(n)),
    );
    p.queues = names;
    p.document = document;
    return { identifier, model: this.recordModel(scope.baseUrl, p) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const p = this.record(scope, identifier);
    if (p) {
      this.clearPolicies(p.account, p.region, p.queues);
      this.sqs.policies.delete(identifier);
      return;
    }
    const q = this.nativeAttachment(scope, identifier);
    if (!q) throw notFound(schema.typeName, identifier);
    this.sqs.setAttributes(q, { Policy: '' });
  }

  list(scope: ResourceScope): StoredResource[] {
    const here = (x: { account: string; region: string }) =>
      x.account === scope.account && x.region === scope.region;
    return [
      ...[...this.sqs.policies.values()]
        .filter(here)
        .map((p) => ({ identifier: p.id, model: this.recordModel(scope.baseUrl, p) })),
      ...this.nativeAttachments(here).map((q) => this.attached(scope.baseUrl, q)),
    ];
  }
}

/** A policy document as SQS keeps it: a template's string as it is, an object as JSON. */
function policyText(document: unknown): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

function parsePolicy(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
