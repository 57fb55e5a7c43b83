/**
 * AWS::SNS::Subscription through the SNS API. The physical id is the
 * subscription ARN. Protocol, Endpoint and TopicArn are create-only (a change
 * is a replacement, decided by cdkd); the attributes change in place through
 * SetSubscriptionAttributes, and one the template drops goes back to SNS's
 * default.
 *
 * Subscriptions carry no tags, so nothing on one proves who made it, and
 * Subscribe answers an existing subscription of the same topic, protocol and
 * endpoint with that subscription. A create therefore looks first: an
 * existing subscription is never adopted (unless this very provider made it
 * for this create earlier in the same process), and the create is refused
 * with `ResourceExistsError` naming it.
 */
import {
  GetSubscriptionAttributesCommand,
  ListSubscriptionsByTopicCommand,
  SetSubscriptionAttributesCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
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
import { existsError, isNotFound, provisioningError } from './sns-errors';
import {
  propertiesFromSubscriptionAttributes,
  subscriptionAttributeChanges,
  subscriptionAttributes,
} from './subscription-properties';
import { regionOf } from './topic-properties';

export const SUBSCRIPTION_TYPE = 'AWS::SNS::Subscription';

export class SnsSubscriptionProvider implements ResourceProvider {
  /** Subscriptions this provider made, by create token: a retry of the same create in this process finds its own. */
  private readonly madeByToken = new Map<string, string>();

  constructor(private readonly ctx: ProviderContext) {}

  /** The client of the topic's region (a subscription lives where its topic is). */
  private client(arn?: string): SNSClient {
    const region = arn ? regionOf(arn) : '';
    return this.ctx.clients.get(SNSClient, region && region !== this.ctx.region ? { region } : undefined);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const topicArn = typeof properties.TopicArn === 'string' ? properties.TopicArn : '';
    const protocol = typeof properties.Protocol === 'string' ? properties.Protocol : '';
    const endpoint = typeof properties.Endpoint === 'string' ? properties.Endpoint : undefined;
    if (!topicArn || !protocol)
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: TopicArn and Protocol are required.`, {
        resource: { logicalId, resourceType },
        remedy: 'Set TopicArn to the topic to subscribe to and Protocol to the delivery protocol.',
      });
    this.refuseRegionMismatch(properties, topicArn, logicalId, resourceType);
    const signal = context.signal;
    const own = this.madeByToken.get(context.idempotencyToken);
    const client = this.client(topicArn);
    try {
      // One subscription per topic, protocol and endpoint: if this create made it here, Subscribe returns it.
      const existing = own ? undefined : await this.find(topicArn, protocol, endpoint, signal);
      if (existing)
        throw existsError(
          this.ctx,
          `${logicalId}: ${topicArn} already has a ${protocol} subscription of ${endpoint ?? 'that endpoint'} (${existing}).`,
          `SNS subscriptions carry no tags, so cdkd cannot tell whether an interrupted deploy of this stack made it or someone else did. If it is this stack's, unsubscribe it (aws sns unsubscribe --subscription-arn ${existing}) and deploy again; otherwise remove ${logicalId} from the template or subscribe another endpoint.`,
          { logicalId, resourceType, physicalId: existing },
        );
      const attributes = subscriptionAttributes(properties);
      const out = await client.send(
        new SubscribeCommand({
          TopicArn: topicArn,
          Protocol: protocol,
          Endpoint: endpoint,
          ...(Object.keys(attributes).length ? { Attributes: attributes } : {}),
          ReturnSubscriptionArn: true,
        }),
        { abortSignal: signal },
      );
      const arn = out.SubscriptionArn ?? '';
      if (!arn.startsWith('arn:'))
        throw new Error(`Subscribe returned no subscription ARN (${arn || 'none'})`);
      this.madeByToken.set(context.idempotencyToken, arn);
      return { physicalId: arn, attributes: { Arn: arn } };
    } catch (err) {
      throw provisioningError(this.ctx, err, `subscribing ${endpoint ?? protocol} to ${topicArn}`, {
        logicalId,
        resourceType,
      });
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
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const client = this.client(physicalId);
    try {
      for (const [AttributeName, AttributeValue] of subscriptionAttributeChanges(
        properties,
        previousProperties,
      ))
        await client.send(
          new SetSubscriptionAttributesCommand({
            SubscriptionArn: physicalId,
            AttributeName,
            AttributeValue,
          }),
          { abortSignal: context?.signal },
        );
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating subscription ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
    return { physicalId, wasReplaced: false, attributes: { Arn: physicalId } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    // Unsubscribe succeeds for a subscription that is gone, so check the stack's region before.
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await this.client(physicalId).send(new UnsubscribeCommand({ SubscriptionArn: physicalId }), {
        abortSignal: context?.signal,
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw provisioningError(this.ctx, err, `unsubscribing ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Arn' ? physicalId : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    try {
      const out = await this.client(physicalId).send(
        new GetSubscriptionAttributesCommand({ SubscriptionArn: physicalId }),
      );
      return propertiesFromSubscriptionAttributes(out.Attributes ?? {}, regionOf(physicalId));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading subscription ${physicalId}`, {
        resourceType: SUBSCRIPTION_TYPE,
        physicalId,
      });
    }
  }

  /** Only a subscription the user names by ARN: a template names none. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    if (!input.knownPhysicalId) return null;
    return (await this.readCurrentState(input.knownPhysicalId))
      ? { physicalId: input.knownPhysicalId, attributes: { Arn: input.knownPhysicalId } }
      : null;
  }

  // -------------------------------------------------------------------------

  /** A subscription lives in its topic's region; a `Region` naming another is a template error AWS would not catch here. */
  private refuseRegionMismatch(
    properties: Record<string, unknown>,
    topicArn: string,
    logicalId: string,
    resourceType: string,
  ): void {
    const region = properties.Region;
    if (typeof region === 'string' && region !== '' && region !== regionOf(topicArn))
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: Region ${region} is not the region of topic ${topicArn}.`,
        {
          resource: { logicalId, resourceType },
          remedy: `Set Region to ${regionOf(topicArn)} or leave it out.`,
        },
      );
  }

  /** The ARN of the topic's subscription of that protocol and endpoint, if there is one. */
  private async find(
    topicArn: string,
    protocol: string,
    endpoint: string | undefined,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    let NextToken: string | undefined;
    do {
      const page = await this.client(topicArn).send(
        new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken }),
        {
          abortSignal: signal,
        },
      );
      const match = page.Subscriptions?.find(
        (s) => s.Protocol === protocol.toLowerCase() && (endpoint === undefined || s.Endpoint === endpoint),
      );
      if (match) return match.SubscriptionArn;
      NextToken = page.NextToken;
    } while (NextToken);
    return undefined;
  }
}
