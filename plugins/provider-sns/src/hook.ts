/**
 * The pack's `cdkd:providers` hook: registers AWS::SNS::Topic,
 * AWS::SNS::Subscription and AWS::SNS::TopicPolicy. Only types come from
 * cdkd; everything at run time arrives through the provider context. The
 * providers (and the SNS client with them) load when a provider is first
 * made, so listing packs costs nothing.
 */
import type { ProviderContext, ProviderPack, ProvidersHook, ResourceProvider } from '@cdkd/plugin-api';
import { SUBSCRIPTION_HANDLED_PROPERTIES } from './subscription-properties';
import type * as SubscriptionModule from './subscription-provider';
import type * as TopicPolicyModule from './topic-policy-provider';
import { TOPIC_HANDLED_PROPERTIES } from './topic-properties';
import type * as TopicModule from './topic-provider';

export const PACK_NAME = '@cdkd/provider-sns';

const providers = {
  topic: (ctx: ProviderContext): ResourceProvider =>
    new (require('./topic-provider') as typeof TopicModule).SnsTopicProvider(ctx),
  subscription: (ctx: ProviderContext): ResourceProvider =>
    new (require('./subscription-provider') as typeof SubscriptionModule).SnsSubscriptionProvider(ctx),
  policy: (ctx: ProviderContext): ResourceProvider =>
    new (require('./topic-policy-provider') as typeof TopicPolicyModule).SnsTopicPolicyProvider(ctx),
};

/** The pack this hook returns (exported for tests). */
export function snsProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: 'AWS::SNS::Topic',
        handledProperties: [...TOPIC_HANDLED_PROPERTIES],
        // The topic ARN is the physical id, and Cloud Control's identifier of a topic.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: providers.topic,
      },
      {
        resourceType: 'AWS::SNS::Subscription',
        handledProperties: [...SUBSCRIPTION_HANDLED_PROPERTIES],
        // The subscription ARN is the physical id, and Cloud Control's identifier (Arn).
        physicalIdIsPrimaryIdentifier: true,
        createProvider: providers.subscription,
      },
      {
        resourceType: 'AWS::SNS::TopicPolicy',
        handledProperties: ['PolicyDocument', 'Topics'],
        createProvider: providers.policy,
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return snsProviderPack();
};

export default hook;
