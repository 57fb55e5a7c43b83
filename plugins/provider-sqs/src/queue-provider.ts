/**
 * AWS::SQS::Queue through the SQS API. The physical id is the queue URL.
 *
 * Create is idempotent across processes, as the plugin API asks: a queue whose
 * template gives no name gets a name derived from the create's token
 * (`generatePhysicalName`), and every queue carries the ownership tags. SQS's
 * CreateQueue answers an existing queue of the same name and attributes with
 * its URL, so the queue's tags decide: made by this very create (an earlier
 * attempt whose reply was lost) is adopted; anything else is refused with
 * `ResourceExistsError`, never silently taken over.
 */
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueueTagsCommand,
  SQSClient,
  SetQueueAttributesCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from '@aws-sdk/client-sqs';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { errorName, isQueueNotFound } from './sqs-errors';
import {
  attributesForUpdate,
  attributesFromProperties,
  isTrue,
  propertiesFromAttributes,
  tagChanges,
  tagMap,
} from './queue-attributes';
import { MAX_QUEUE_NAME_LENGTH, accountFromUrl, generateQueueName, queueNameFromUrl } from './queue-name';

import { QUEUE_TYPE } from './resource-types';

export { QUEUE_TYPE };

/** The prefix of the plugin API's ownership tags (`cdkd:stack-name`, `cdkd:logical-id`, `cdkd:token`). */
const OWNERSHIP_TAG_PREFIX = 'cdkd:';

/** CreateQueue's answer for a name whose queue has other attributes (JSON and query protocol codes). */
const QUEUE_EXISTS = new Set([
  'QueueNameExists',
  'QueueAlreadyExists',
  'AWS.SimpleQueueService.QueueNameExists',
]);

/** SQS refuses a queue name for 60 s after a queue of that name is deleted; wait that out. */
const DELETED_RECENTLY_RETRY = { maxAttempts: 9, baseDelayMs: 4_000, maxDelayMs: 16_000 };

export class SqsQueueProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): SQSClient {
    return this.ctx.clients.get(SQSClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const fifo = isTrue(properties.FifoQueue);
    const queueName =
      typeof properties.QueueName === 'string' && properties.QueueName !== ''
        ? properties.QueueName
        : (context.generatePhysicalName?.({
            maxLength: MAX_QUEUE_NAME_LENGTH,
            extraCharacters: '-_',
            ...(fifo ? { suffix: '.fifo' } : {}),
          }) ?? generateQueueName(context.stackName, logicalId, context.idempotencyToken, fifo));
    const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    const input = {
      QueueName: queueName,
      Attributes: attributesFromProperties(properties),
      ...(Object.keys(tags).length > 0 ? { tags } : {}),
    };
    const signal = context.signal;
    let queueUrl: string;
    try {
      // The SDK retries transport errors; only SQS's "deleted recently" cooldown is waited out here.
      const out = await this.ctx.retry(
        () => this.client().send(new CreateQueueCommand(input), { abortSignal: signal }),
        {
          ...DELETED_RECENTLY_RETRY,
          isRetryable: (err) => errorName(err) === 'QueueDeletedRecently' && !signal?.aborted,
        },
      );
      queueUrl = out.QueueUrl ?? '';
    } catch (err) {
      if (QUEUE_EXISTS.has(errorName(err)))
        throw this.exists(queueName, logicalId, resourceType, 'with other attributes', err);
      throw this.wrap(err, `creating queue ${queueName}`, logicalId, resourceType);
    }
    if (!queueUrl)
      throw this.wrap(
        new Error('CreateQueue returned no QueueUrl'),
        `creating queue ${queueName}`,
        logicalId,
        resourceType,
      );
    if (context.ownership) {
      // CreateQueue returns an existing queue of the same name and attributes: adopt it only if this create made it.
      let found: Record<string, string> | undefined;
      try {
        found = (
          await this.client().send(new ListQueueTagsCommand({ QueueUrl: queueUrl }), { abortSignal: signal })
        ).Tags;
      } catch (err) {
        throw this.wrap(err, `reading the tags of queue ${queueUrl}`, logicalId, resourceType, queueUrl);
      }
      const verdict = context.ownership.classify(found);
      if (verdict !== 'same-intent')
        throw this.exists(
          queueName,
          logicalId,
          resourceType,
          verdict === 'same-resource'
            ? 'made by an earlier create of this resource'
            : 'not made by this stack',
        );
    }
    return { physicalId: queueUrl, attributes: this.attributesOf(queueUrl) };
  }

  /** The queue name is taken by a queue this create did not make. */
  private exists(
    queueName: string,
    logicalId: string,
    resourceType: string,
    whose: string,
    cause?: unknown,
  ): Error {
    const ExistsError = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    return new ExistsError(
      `A queue named ${queueName} already exists (${whose}); cdkd does not take it over.`,
      {
        ...(cause ? { cause } : {}),
        resource: { logicalId, resourceType },
        remedy: `Give ${logicalId} another QueueName, delete the existing queue, or import it into this stack.`,
      },
    );
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const fifo = isTrue(properties.FifoQueue) || queueNameFromUrl(physicalId).endsWith('.fifo');
    const attributes = attributesForUpdate(properties, previousProperties, fifo);
    try {
      const abortSignal = context?.signal;
      if (Object.keys(attributes).length > 0) {
        await client.send(new SetQueueAttributesCommand({ QueueUrl: physicalId, Attributes: attributes }), {
          abortSignal,
        });
      }
      // The ownership tags are never in the template's tags, so they are kept.
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      if (toRemove.length > 0)
        await client.send(new UntagQueueCommand({ QueueUrl: physicalId, TagKeys: toRemove }), {
          abortSignal,
        });
      if (Object.keys(toSet).length > 0)
        await client.send(new TagQueueCommand({ QueueUrl: physicalId, Tags: toSet }), { abortSignal });
    } catch (err) {
      throw this.wrap(err, `updating queue ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return { physicalId, wasReplaced: false, attributes: this.attributesOf(physicalId) };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    try {
      await client.send(new DeleteQueueCommand({ QueueUrl: physicalId }), { abortSignal: context?.signal });
    } catch (err) {
      if (isQueueNotFound(err)) {
        // Only "gone" when we looked in the region the queue was created in.
        this.ctx.assertRegionMatch(
          await client.config.region(),
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        this.ctx.logger.debug(`${logicalId}: queue ${physicalId} does not exist; nothing to delete`);
        return;
      }
      throw this.wrap(err, `deleting queue ${physicalId}`, logicalId, resourceType, physicalId);
    }
  }

  /** Arn, QueueName and QueueUrl all derive from the URL: no AWS call. */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return this.attributesOf(physicalId)[attributeName];
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const [attrs, tags] = await Promise.all([
        client.send(new GetQueueAttributesCommand({ QueueUrl: physicalId, AttributeNames: ['All'] })),
        client.send(new ListQueueTagsCommand({ QueueUrl: physicalId })),
      ]);
      const properties = propertiesFromAttributes(attrs.Attributes ?? {});
      properties.QueueName = queueNameFromUrl(physicalId);
      properties.Tags = Object.entries(tags.Tags ?? {})
        .filter(([key]) => !key.startsWith(OWNERSHIP_TAG_PREFIX))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([Key, Value]) => ({ Key, Value }));
      return properties;
    } catch (err) {
      if (isQueueNotFound(err)) return undefined;
      throw this.wrap(err, `reading queue ${physicalId}`, undefined, QUEUE_TYPE, physicalId);
    }
  }

  /** Adopts the queue named by the user's physical id (a URL or a name), or by the template's QueueName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const known =
      input.knownPhysicalId ??
      (typeof input.properties.QueueName === 'string' ? input.properties.QueueName : undefined);
    if (!known) return null;
    const queueName = known.includes('/') ? queueNameFromUrl(known) : known;
    try {
      const out = await this.client().send(new GetQueueUrlCommand({ QueueName: queueName }));
      if (!out.QueueUrl) return null;
      return { physicalId: out.QueueUrl, attributes: this.attributesOf(out.QueueUrl) };
    } catch (err) {
      if (isQueueNotFound(err)) return null;
      throw this.wrap(err, `looking up queue ${queueName}`, input.logicalId, input.resourceType);
    }
  }

  /** `Fn::GetAtt` values of a queue, from its URL. */
  private attributesOf(queueUrl: string): Record<string, string> {
    const name = queueNameFromUrl(queueUrl);
    return {
      Arn: `arn:${this.ctx.partition}:sqs:${this.ctx.region}:${accountFromUrl(queueUrl)}:${name}`,
      QueueName: name,
      QueueUrl: queueUrl,
    };
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
  ): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    const message = err instanceof Error ? err.message : String(err);
    // Not retryable: the SDK has already retried transport errors, throttling and 5xx answers.
    return new this.ctx.errors.ProvisioningError(`SQS ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
      cause: err,
      resource: { logicalId, resourceType, physicalId },
    });
  }
}
