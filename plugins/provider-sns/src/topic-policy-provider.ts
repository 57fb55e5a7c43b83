/**
 * AWS::SNS::TopicPolicy: writes one policy document as the `Policy` attribute
 * of each listed topic. The physical id is the first topic's ARN (so it
 * changes, in place, when the first topic changes); `Id` resolves to it.
 * A topic always has a policy, so removing one puts back the default policy
 * SNS gives a new topic, and only while the policy there is still the one
 * this resource wrote (someone else's is left, with a warning).
 */
import { GetTopicAttributesCommand, SetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import type {
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { policyObject, samePolicy } from './policy-match';
import { isNotFound, provisioningError } from './sns-errors';
import { attributeValue, regionOf } from './topic-properties';

export const TOPIC_POLICY_TYPE = 'AWS::SNS::TopicPolicy';

/**
 * The policy SNS attaches to a new topic: its owner may do everything (SNS
 * writes the actions `SNS:...`), as GetTopicAttributes shows it.
 */
export function defaultTopicPolicy(topicArn: string): string {
  const owner = topicArn.split(':')[4] ?? '';
  return JSON.stringify({
    Version: '2008-10-17',
    Id: '__default_policy_ID',
    Statement: [
      {
        Sid: '__default_statement_ID',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: [
          'SNS:GetTopicAttributes',
          'SNS:SetTopicAttributes',
          'SNS:AddPermission',
          'SNS:RemovePermission',
          'SNS:DeleteTopic',
          'SNS:Subscribe',
          'SNS:ListSubscriptionsByTopic',
          'SNS:Publish',
        ],
        Resource: topicArn,
        Condition: { StringEquals: { 'AWS:SourceOwner': owner } },
      },
    ],
  });
}

function topicsOf(properties: Record<string, unknown> | undefined): string[] {
  const topics = properties?.Topics;
  return Array.isArray(topics) ? topics.filter((t): t is string => typeof t === 'string' && t !== '') : [];
}

export class SnsTopicPolicyProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  /** The client of a topic's region. */
  private client(topicArn?: string): SNSClient {
    const region = topicArn ? regionOf(topicArn) : '';
    return this.ctx.clients.get(SNSClient, region && region !== this.ctx.region ? { region } : undefined);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
  ): Promise<ResourceCreateResult> {
    const topics = this.requireTopics(properties, logicalId, resourceType);
    await this.write(topics, attributeValue(properties.PolicyDocument), logicalId, resourceType);
    return { physicalId: topics[0]!, attributes: { Id: topics[0] } };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const topics = this.requireTopics(properties, logicalId, resourceType);
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    await this.write(topics, attributeValue(properties.PolicyDocument), logicalId, resourceType);
    // Topics no longer listed get SNS's default policy back, if the policy there is still this one.
    const dropped = topicsOf(previousProperties).filter((t) => !topics.includes(t));
    await this.reset(
      dropped,
      previousProperties.PolicyDocument,
      logicalId,
      resourceType,
      context?.expectedRegion,
    );
    return { physicalId: topics[0]!, wasReplaced: false, attributes: { Id: topics[0] } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    if (!properties || policyObject(properties.PolicyDocument) === undefined)
      return {
        outcome: 'skipped',
        reason: `the policy document of ${logicalId} is not known, so cdkd cannot tell whether the policy on ${physicalId} is still its own; put the topic's default policy back by hand if it is`,
      };
    const topics = topicsOf(properties);
    await this.reset(
      topics.length ? topics : [physicalId],
      properties.PolicyDocument,
      logicalId,
      resourceType,
      context?.expectedRegion,
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? physicalId : undefined;
  }

  /** The policy on the first topic, with the recorded topic list; `undefined` when that topic is gone. */
  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const topics = topicsOf(properties);
    const current = await this.policyOf(topics[0] ?? physicalId);
    if (current === 'not-found') return undefined;
    return {
      PolicyDocument: policyObject(current) ?? current,
      Topics: topics.length ? topics : [physicalId],
    };
  }

  // -------------------------------------------------------------------------

  private requireTopics(
    properties: Record<string, unknown>,
    logicalId: string,
    resourceType: string,
  ): string[] {
    const topics = topicsOf(properties);
    if (!topics.length)
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: Topics must list at least one topic ARN.`, {
        resource: { logicalId, resourceType },
        remedy: 'Set Topics to the ARNs of the topics the policy applies to.',
      });
    return topics;
  }

  private async write(
    topics: string[],
    policy: string,
    logicalId: string,
    resourceType: string,
  ): Promise<void> {
    const written: string[] = [];
    for (const topic of topics) {
      try {
        await this.client(topic).send(
          new SetTopicAttributesCommand({ TopicArn: topic, AttributeName: 'Policy', AttributeValue: policy }),
        );
        written.push(topic);
      } catch (err) {
        const already = written.length ? ` (already written to ${written.join(', ')})` : '';
        throw provisioningError(this.ctx, err, `setting the policy of ${topic}${already}`, {
          logicalId,
          resourceType,
          physicalId: topics[0],
        });
      }
    }
  }

  /** The topic's policy text, or `not-found`. */
  private async policyOf(topic: string, logicalId?: string): Promise<string | 'not-found'> {
    try {
      const out = await this.client(topic).send(new GetTopicAttributesCommand({ TopicArn: topic }));
      return out.Attributes?.Policy ?? '';
    } catch (err) {
      if (isNotFound(err)) return 'not-found';
      throw provisioningError(this.ctx, err, `reading the policy of ${topic}`, {
        logicalId,
        resourceType: TOPIC_POLICY_TYPE,
        physicalId: topic,
      });
    }
  }

  /** Puts SNS's default policy back on each topic whose policy is still `document` (by meaning). */
  private async reset(
    topics: string[],
    document: unknown,
    logicalId: string,
    resourceType: string,
    expectedRegion?: string,
  ): Promise<void> {
    for (const topic of topics) {
      const current = await this.policyOf(topic, logicalId);
      if (current === 'not-found') {
        // Gone counts only where the record says the topic was.
        this.ctx.assertRegionMatch(
          await this.client().config.region(),
          expectedRegion,
          resourceType,
          logicalId,
          topic,
        );
        continue;
      }
      if (samePolicy(current, defaultTopicPolicy(topic), this.ctx.partition)) continue;
      if (!samePolicy(current, document, this.ctx.partition)) {
        this.ctx.logger.warn(
          `${logicalId}: the policy on ${topic} is no longer the one cdkd wrote; leaving it in place. Check it and put the default policy back by hand if it should go.`,
        );
        continue;
      }
      try {
        await this.client(topic).send(
          new SetTopicAttributesCommand({
            TopicArn: topic,
            AttributeName: 'Policy',
            AttributeValue: defaultTopicPolicy(topic),
          }),
        );
      } catch (err) {
        if (isNotFound(err)) continue;
        throw provisioningError(this.ctx, err, `putting the default policy back on ${topic}`, {
          logicalId,
          resourceType,
          physicalId: topic,
        });
      }
    }
  }
}
