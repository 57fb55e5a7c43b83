/**
 * AWS::SNS::Topic through the SNS API. The physical id is the topic ARN.
 *
 * Create is idempotent across processes: a topic whose template gives no name
 * gets one derived from the create's token (`generatePhysicalName`), and every
 * topic carries the ownership tags. Topic names are regional and CreateTopic
 * returns an existing topic of the same name only when it has the requested
 * attributes and carries every requested tag, the create's token among them:
 * such a topic was made by this very create (an earlier attempt whose reply was
 * lost) and is adopted without reading its tags. A topic that differs is
 * refused by SNS; then its tags decide: this create's own (changed since) is
 * brought back and adopted, any other is refused with `ResourceExistsError`,
 * never taken over.
 */
import { createHash } from 'node:crypto';
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetDataProtectionPolicyCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTagsForResourceCommand,
  PutDataProtectionPolicyCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
  TagResourceCommand,
  UnsubscribeCommand,
  UntagResourceCommand,
  type Subscription,
} from '@aws-sdk/client-sns';
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
import { errorMessage, existsError, isNotFound, isTopicExists, provisioningError } from './sns-errors';
import { tagChanges, tagList, tagMap, templateTags } from './tags';
import {
  attributeChanges,
  attributeValue,
  inlineSubscriptions,
  isTrue,
  propertiesFromAttributes,
  topicAttributes,
  topicNameOf,
  unknownLoggingProtocols,
} from './topic-properties';

export const TOPIC_TYPE = 'AWS::SNS::Topic';

/** SNS allows 256 characters of `[A-Za-z0-9_-]`, `.fifo` included. */
const MAX_NAME_LENGTH = 256;
const FIFO_SUFFIX = '.fifo';

export class SnsTopicProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): SNSClient {
    return this.ctx.clients.get(SNSClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const fifo = isTrue(properties.FifoTopic);
    const name =
      typeof properties.TopicName === 'string' && properties.TopicName !== ''
        ? properties.TopicName
        : (context.generatePhysicalName?.({
            maxLength: MAX_NAME_LENGTH,
            extraCharacters: '-_',
            ...(fifo ? { suffix: FIFO_SUFFIX } : {}),
          }) ?? fallbackName(context.stackName, logicalId, context.idempotencyToken, fifo));
    this.refuseUnknownLogging(properties, logicalId, resourceType);
    const ownership = context.ownership;
    const tags = { ...tagMap(properties.Tags), ...(ownership?.tags ?? {}) };
    const signal = context.signal;
    const arn = `arn:${this.ctx.partition}:sns:${this.ctx.region}:${await this.ctx.accountId()}:${name}`;
    try {
      await this.client().send(
        new CreateTopicCommand({
          Name: name,
          Attributes: topicAttributes(properties),
          ...(Object.keys(tags).length ? { Tags: tagList(tags) } : {}),
          ...(properties.DataProtectionPolicy !== undefined
            ? { DataProtectionPolicy: attributeValue(properties.DataProtectionPolicy) }
            : {}),
        }),
        { abortSignal: signal },
      );
    } catch (err) {
      // The name is taken by a topic with other attributes or tags: only this create's own may be adopted.
      if (!isTopicExists(err) || !ownership)
        throw this.wrap(err, `creating topic ${name}`, logicalId, resourceType);
      await this.adoptOwn(arn, name, properties, logicalId, resourceType, context);
      return { physicalId: arn, attributes: attributesOf(arn) };
    }
    // CreateTopic also answers an existing topic of that name, but only when the topic already
    // carries every tag the request names (else InvalidParameter "Topic already exists with
    // different tags", handled above). The request named this create's ownership tags, token
    // included, so a topic it answered is this create's own: no tag read needed to know it.
    try {
      await this.subscribeInline(arn, inlineSubscriptions(properties).values(), signal);
    } catch (err) {
      // Retire the topic this create made rather than leave it untracked.
      await this.deleteQuietly(arn, logicalId);
      throw this.wrap(err, `subscribing the endpoints of topic ${name}`, logicalId, resourceType);
    }
    return { physicalId: arn, attributes: attributesOf(arn) };
  }

  /**
   * An earlier attempt of this create made the topic (its tags carry this create's token)
   * and then something changed it: bring it to the template's attributes and adopt it.
   */
  private async adoptOwn(
    arn: string,
    name: string,
    properties: Record<string, unknown>,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
  ): Promise<void> {
    const verdict = context.ownership!.classify(
      await this.tagsOf(arn, logicalId, resourceType, context.signal),
    );
    if (verdict !== 'same-intent') throw this.exists(name, logicalId, resourceType, verdict);
    const client = this.client();
    try {
      for (const [AttributeName, AttributeValue] of Object.entries(topicAttributes(properties))) {
        if (AttributeName === 'FifoTopic') continue;
        await client.send(new SetTopicAttributesCommand({ TopicArn: arn, AttributeName, AttributeValue }), {
          abortSignal: context.signal,
        });
      }
      const subscribed = await this.subscriptionKeys(arn, context.signal);
      const missing = [...inlineSubscriptions(properties)]
        .filter(([k]) => !subscribed.has(k))
        .map(([, s]) => s);
      await this.subscribeInline(arn, missing, context.signal);
    } catch (err) {
      throw this.wrap(err, `adopting topic ${name}`, logicalId, resourceType, arn);
    }
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
    this.refuseUnknownLogging(properties, logicalId, resourceType);
    const signal = context?.signal;
    const fifo = isTrue(properties.FifoTopic) || physicalId.endsWith(FIFO_SUFFIX);
    try {
      for (const [AttributeName, AttributeValue] of Object.entries(
        attributeChanges(properties, previousProperties, fifo),
      ))
        await client.send(
          new SetTopicAttributesCommand({ TopicArn: physicalId, AttributeName, AttributeValue }),
          {
            abortSignal: signal,
          },
        );
      const policy = properties.DataProtectionPolicy;
      const previousPolicy = previousProperties.DataProtectionPolicy;
      if (JSON.stringify(policy) !== JSON.stringify(previousPolicy))
        await client.send(
          new PutDataProtectionPolicyCommand({
            ResourceArn: physicalId,
            // An empty policy removes it.
            DataProtectionPolicy: policy === undefined || policy === null ? '' : attributeValue(policy),
          }),
          { abortSignal: signal },
        );
      await this.reconcileSubscriptions(physicalId, properties, previousProperties, signal);
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      if (toRemove.length)
        await client.send(new UntagResourceCommand({ ResourceArn: physicalId, TagKeys: toRemove }), {
          abortSignal: signal,
        });
      if (Object.keys(toSet).length)
        await client.send(new TagResourceCommand({ ResourceArn: physicalId, Tags: tagList(toSet) }), {
          abortSignal: signal,
        });
    } catch (err) {
      throw this.wrap(err, `updating topic ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return { physicalId, wasReplaced: false, attributes: attributesOf(physicalId) };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    // DeleteTopic succeeds for a topic that does not exist, so check the region before, not after.
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await client.send(new DeleteTopicCommand({ TopicArn: physicalId }), { abortSignal: context?.signal });
    } catch (err) {
      if (isNotFound(err)) {
        this.ctx.logger.debug(`${logicalId}: topic ${physicalId} does not exist; nothing to delete`);
        return;
      }
      throw this.wrap(err, `deleting topic ${physicalId}`, logicalId, resourceType, physicalId);
    }
  }

  /** TopicArn and TopicName derive from the ARN: no AWS call. */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributesOf(physicalId)[attributeName];
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const [attributes, tags, dataProtection, subscriptions] = await Promise.all([
        client.send(new GetTopicAttributesCommand({ TopicArn: physicalId })),
        client.send(new ListTagsForResourceCommand({ ResourceArn: physicalId })),
        client.send(new GetDataProtectionPolicyCommand({ ResourceArn: physicalId })),
        this.subscriptionsOf(physicalId),
      ]);
      const properties = propertiesFromAttributes(attributes.Attributes ?? {});
      properties.TopicName = topicNameOf(physicalId);
      properties.DataProtectionPolicy = dataProtection.DataProtectionPolicy
        ? (JSON.parse(dataProtection.DataProtectionPolicy) as unknown)
        : {};
      properties.Subscription = subscriptions.map((s) => ({ Endpoint: s.Endpoint, Protocol: s.Protocol }));
      properties.Tags = templateTags(tags.Tags);
      return properties;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw this.wrap(err, `reading topic ${physicalId}`, undefined, TOPIC_TYPE, physicalId);
    }
  }

  /** Adopts the topic the user names (its ARN or name) or the template's TopicName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const known =
      input.knownPhysicalId ??
      (typeof input.properties.TopicName === 'string' ? input.properties.TopicName : undefined);
    if (!known) return null;
    const arn = known.startsWith('arn:')
      ? known
      : `arn:${this.ctx.partition}:sns:${this.ctx.region}:${await this.ctx.accountId()}:${known}`;
    try {
      await this.client().send(new GetTopicAttributesCommand({ TopicArn: arn }));
      return { physicalId: arn, attributes: attributesOf(arn) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw this.wrap(err, `looking up topic ${arn}`, input.logicalId, input.resourceType);
    }
  }

  // -------------------------------------------------------------------------

  /** A delivery-status protocol SNS does not know would be dropped silently: refuse it by name instead. */
  private refuseUnknownLogging(
    properties: Record<string, unknown>,
    logicalId: string,
    resourceType: string,
  ): void {
    const unknown = unknownLoggingProtocols(properties);
    if (unknown.length)
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: DeliveryStatusLogging names protocol(s) ${unknown.join(', ')}, which SNS does not log.`,
        {
          resource: { logicalId, resourceType },
          remedy:
            'Use http/s, sqs, lambda, firehose or application as the Protocol of each DeliveryStatusLogging entry.',
        },
      );
  }

  private async tagsOf(arn: string, logicalId: string, resourceType: string, signal?: AbortSignal) {
    try {
      return (
        await this.client().send(new ListTagsForResourceCommand({ ResourceArn: arn }), {
          abortSignal: signal,
        })
      ).Tags;
    } catch (err) {
      throw this.wrap(err, `reading the tags of topic ${arn}`, logicalId, resourceType, arn);
    }
  }

  private async subscriptionsOf(arn: string, signal?: AbortSignal): Promise<Subscription[]> {
    const out: Subscription[] = [];
    let NextToken: string | undefined;
    do {
      const page = await this.client().send(
        new ListSubscriptionsByTopicCommand({ TopicArn: arn, NextToken }),
        {
          abortSignal: signal,
        },
      );
      out.push(...(page.Subscriptions ?? []));
      NextToken = page.NextToken;
    } while (NextToken);
    return out;
  }

  private async subscriptionKeys(arn: string, signal?: AbortSignal): Promise<Set<string>> {
    return new Set((await this.subscriptionsOf(arn, signal)).map((s) => `${s.Protocol} ${s.Endpoint}`));
  }

  private async subscribeInline(
    arn: string,
    subscriptions: Iterable<{ Protocol: string; Endpoint: string }>,
    signal?: AbortSignal,
  ): Promise<void> {
    for (const s of subscriptions)
      await this.client().send(
        new SubscribeCommand({ TopicArn: arn, Protocol: s.Protocol, Endpoint: s.Endpoint }),
        {
          abortSignal: signal,
        },
      );
  }

  /** The `Subscription` list: endpoints the template added are subscribed, those it dropped unsubscribed. */
  private async reconcileSubscriptions(
    arn: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const desired = inlineSubscriptions(properties);
    const before = inlineSubscriptions(previous);
    const dropped = [...before.keys()].filter((k) => !desired.has(k));
    if (dropped.length) {
      for (const s of await this.subscriptionsOf(arn, signal)) {
        if (!dropped.includes(`${s.Protocol} ${s.Endpoint}`) || !s.SubscriptionArn?.startsWith('arn:'))
          continue;
        await this.client().send(new UnsubscribeCommand({ SubscriptionArn: s.SubscriptionArn }), {
          abortSignal: signal,
        });
      }
    }
    await this.subscribeInline(
      arn,
      [...desired].filter(([k]) => !before.has(k)).map(([, s]) => s),
      signal,
    );
  }

  private async deleteQuietly(arn: string, logicalId: string): Promise<void> {
    try {
      await this.client().send(new DeleteTopicCommand({ TopicArn: arn }));
    } catch (err) {
      this.ctx.logger.warn(
        `${logicalId}: could not delete topic ${arn} after the failed create (${errorMessage(err)}); delete it by hand.`,
      );
    }
  }

  private exists(
    name: string,
    logicalId: string,
    resourceType: string,
    verdict: 'same-resource' | 'foreign',
  ): Error {
    const whose =
      verdict === 'same-resource' ? 'made by an earlier create of this resource' : 'not made by this stack';
    return existsError(
      this.ctx,
      `${logicalId}: a topic named ${name} already exists in ${this.ctx.region}, ${whose}.`,
      `Give ${logicalId} another TopicName, or delete or import the existing topic.`,
      { logicalId, resourceType },
    );
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
  ) {
    return provisioningError(this.ctx, err, doing, { logicalId, resourceType, physicalId });
  }
}

/** `Fn::GetAtt` values of a topic, from its ARN. */
function attributesOf(arn: string): Record<string, string> {
  return { TopicArn: arn, TopicName: topicNameOf(arn) };
}

/**
 * A CloudFormation-style name for a cdkd without `generatePhysicalName`:
 * `<stack>-<logicalId>-<suffix>` within 256 characters, the suffix from the
 * create's token so a repeated create names the same topic.
 */
function fallbackName(stackName: string, logicalId: string, token: string, fifo: boolean): string {
  const suffix = createHash('sha256').update(token).digest('hex').slice(0, 12).toUpperCase();
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '');
  const room = MAX_NAME_LENGTH - suffix.length - 1 - (fifo ? FIFO_SUFFIX.length : 0);
  return `${`${clean(stackName)}-${clean(logicalId)}`.slice(0, room)}-${suffix}${fifo ? FIFO_SUFFIX : ''}`;
}
