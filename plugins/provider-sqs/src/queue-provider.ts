/**
 * AWS::SQS::Queue through the SQS API. The physical id is the queue URL.
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
import { accountFromUrl, generateQueueName, queueNameFromUrl } from './queue-name';

import { QUEUE_TYPE } from './resource-types';

export { QUEUE_TYPE };

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
        : generateQueueName(context.stackName, logicalId, context.idempotencyToken, fifo);
    const tags = tagMap(properties.Tags);
    const input = {
      QueueName: queueName,
      Attributes: attributesFromProperties(properties),
      ...(Object.keys(tags).length > 0 ? { tags } : {}),
    };
    let queueUrl: string;
    try {
      // CreateQueue returns the existing queue for the same name and attributes, so a retry is safe.
      const out = await this.ctx.retry(() => this.client().send(new CreateQueueCommand(input)), {
        ...DELETED_RECENTLY_RETRY,
        isRetryable: (err) => errorName(err) === 'QueueDeletedRecently' || this.ctx.isTransientError(err),
      });
      queueUrl = out.QueueUrl ?? '';
    } catch (err) {
      throw this.wrap(err, `creating queue ${queueName}`, logicalId, resourceType);
    }
    if (!queueUrl)
      throw this.wrap(
        new Error('CreateQueue returned no QueueUrl'),
        `creating queue ${queueName}`,
        logicalId,
        resourceType,
      );
    return { physicalId: queueUrl, attributes: this.attributesOf(queueUrl) };
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
      if (Object.keys(attributes).length > 0) {
        await client.send(new SetQueueAttributesCommand({ QueueUrl: physicalId, Attributes: attributes }));
      }
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      if (toRemove.length > 0)
        await client.send(new UntagQueueCommand({ QueueUrl: physicalId, TagKeys: toRemove }));
      if (Object.keys(toSet).length > 0)
        await client.send(new TagQueueCommand({ QueueUrl: physicalId, Tags: toSet }));
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
      await client.send(new DeleteQueueCommand({ QueueUrl: physicalId }));
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
    return new this.ctx.errors.ProvisioningError(`SQS ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
      cause: err,
      resource: { logicalId, resourceType, physicalId },
      retryable: this.ctx.isTransientError(err),
    });
  }
}
