/** Amazon SQS operations: queue management (messages are not emulated). */
import type { ConsistencySwitches } from '../../core/consistency';
import { AwsError } from '../../core/errors';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import {
  parseQueueUrl,
  queueArn,
  queueUrl,
  READ_ONLY_ATTRIBUTES,
  sqsErrors,
  type Queue,
  type SqsStore,
} from './store';

type Input = Record<string, unknown>;

/** ListQueues leaves out queues younger than this lag while the switch is on. */
export const LIST_AFTER_CREATE = 'sqs.list-after-create';

export class SqsOperations {
  readonly operations: Operations = {
    CreateQueue: (ctx, input) => this.createQueue(ctx, input),
    GetQueueUrl: (ctx, input) => this.getQueueUrl(ctx, input),
    GetQueueAttributes: (ctx, input) => this.getQueueAttributes(ctx, input),
    SetQueueAttributes: (ctx, input) => this.setQueueAttributes(ctx, input),
    DeleteQueue: (ctx, input) => this.deleteQueue(ctx, input),
    ListQueues: (ctx, input) => this.listQueues(ctx, input),
    TagQueue: (ctx, input) => this.tagQueue(ctx, input),
    UntagQueue: (ctx, input) => this.untagQueue(ctx, input),
    ListQueueTags: (ctx, input) => this.listQueueTags(ctx, input),
  };

  constructor(
    private readonly store: SqsStore,
    private readonly consistency: ConsistencySwitches,
  ) {}

  private queueFromUrl(ctx: CallContext, input: Input): Queue {
    const url = requireString(input, 'QueueUrl', 'MissingParameter');
    const parsed = parseQueueUrl(url);
    if (!parsed) throw new AwsError('InvalidAddress', 'The address is not valid for this endpoint.', 404);
    const queue = this.store.get(parsed.account, ctx.region, parsed.name);
    if (!queue || parsed.account !== ctx.account) throw sqsErrors.queueDoesNotExist();
    return queue;
  }

  private createQueue(ctx: CallContext, input: Input): unknown {
    const name = requireString(input, 'QueueName', 'MissingParameter');
    const { queue } = this.store.create(
      ctx.account,
      ctx.region,
      name,
      stringMap(input.Attributes),
      stringMap(input.tags),
    );
    return { QueueUrl: queueUrl(ctx.baseUrl, queue) };
  }

  private getQueueUrl(ctx: CallContext, input: Input): unknown {
    const name = requireString(input, 'QueueName', 'MissingParameter');
    const owner =
      typeof input.QueueOwnerAWSAccountId === 'string' ? input.QueueOwnerAWSAccountId : ctx.account;
    const queue = this.store.get(owner, ctx.region, name);
    if (!queue || owner !== ctx.account) throw sqsErrors.queueDoesNotExist();
    return { QueueUrl: queueUrl(ctx.baseUrl, queue) };
  }

  private getQueueAttributes(ctx: CallContext, input: Input): unknown {
    const queue = this.queueFromUrl(ctx, input);
    const requested = Array.isArray(input.AttributeNames) ? (input.AttributeNames as string[]) : [];
    const all = queueAttributes(queue);
    const attributes: Record<string, string> = {};
    const wantsAll = requested.includes('All');
    for (const name of requested) {
      if (name === 'All') continue;
      if (!(name in all) && !READ_ONLY_ATTRIBUTES.includes(name) && !KNOWN_ATTRIBUTE_NAMES.has(name))
        throw sqsErrors.invalidAttributeName(name);
    }
    for (const [name, value] of Object.entries(all)) {
      if (wantsAll || requested.includes(name)) attributes[name] = value;
    }
    return Object.keys(attributes).length ? { Attributes: attributes } : {};
  }

  private setQueueAttributes(ctx: CallContext, input: Input): unknown {
    const queue = this.queueFromUrl(ctx, input);
    if (!input.Attributes || typeof input.Attributes !== 'object')
      throw new AwsError('MissingParameter', 'The request must contain the parameter Attributes.', 400);
    this.store.setAttributes(queue, stringMap(input.Attributes));
    return {};
  }

  private deleteQueue(ctx: CallContext, input: Input): unknown {
    this.store.delete(this.queueFromUrl(ctx, input));
    return {};
  }

  private listQueues(ctx: CallContext, input: Input): unknown {
    const prefix = typeof input.QueueNamePrefix === 'string' ? input.QueueNamePrefix : '';
    const max = input.MaxResults;
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 1000)) {
      throw new AwsError(
        'InvalidParameterValue',
        'Value for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.',
        400,
      );
    }
    const lag = this.consistency.delayFor(LIST_AFTER_CREATE);
    const now = Date.now() / 1000;
    const names = [...this.store.queues.values()]
      .filter((q) => q.account === ctx.account && q.region === ctx.region && q.name.startsWith(prefix))
      .filter((q) => !lag || now - q.created >= lag / 1000)
      .map((q) => q.name)
      .sort();
    let start = 0;
    if (typeof input.NextToken === 'string') {
      const after = Buffer.from(input.NextToken, 'base64').toString('utf8');
      start = names.findIndex((n) => n > after);
      if (start < 0) start = names.length;
    }
    const limit = typeof max === 'number' ? max : 1000;
    const page = names.slice(start, start + limit);
    const out: Record<string, unknown> = {};
    if (page.length)
      out.QueueUrls = page.map((n) => queueUrl(ctx.baseUrl, this.store.get(ctx.account, ctx.region, n)!));
    if (typeof max === 'number' && start + limit < names.length)
      out.NextToken = Buffer.from(page[page.length - 1]!).toString('base64');
    return out;
  }

  private tagQueue(ctx: CallContext, input: Input): unknown {
    const queue = this.queueFromUrl(ctx, input);
    const tags = stringMap(input.Tags);
    if (!Object.keys(tags).length)
      throw new AwsError('MissingParameter', 'The request must contain the parameter Tags.', 400);
    const merged = { ...queue.tags, ...tags };
    if (Object.keys(merged).length > 50)
      throw new AwsError(
        'InvalidParameterValue',
        'Too many tags added for queue. A queue can have at most 50 tags.',
        400,
      );
    queue.tags = merged;
    return {};
  }

  private untagQueue(ctx: CallContext, input: Input): unknown {
    const queue = this.queueFromUrl(ctx, input);
    const keys = Array.isArray(input.TagKeys) ? (input.TagKeys as string[]) : [];
    for (const key of keys) delete queue.tags[key];
    return {};
  }

  private listQueueTags(ctx: CallContext, input: Input): unknown {
    const queue = this.queueFromUrl(ctx, input);
    return Object.keys(queue.tags).length ? { Tags: { ...queue.tags } } : {};
  }
}

const KNOWN_ATTRIBUTE_NAMES = new Set([
  'Policy',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
]);

/** Every attribute GetQueueAttributes reports for `All`. */
export function queueAttributes(queue: Queue): Record<string, string> {
  return {
    QueueArn: queueArn(queue),
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '0',
    ApproximateNumberOfMessagesDelayed: '0',
    CreatedTimestamp: String(queue.created),
    LastModifiedTimestamp: String(queue.lastModified),
    ...queue.attributes,
  };
}

function stringMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] = typeof v === 'string' ? v : String(v);
  return out;
}
