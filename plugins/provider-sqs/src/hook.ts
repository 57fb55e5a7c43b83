/**
 * The pack's `cdkd:providers` hook: registers AWS::SQS::Queue and
 * AWS::SQS::QueuePolicy. Only types come from cdkd; everything at run time
 * arrives through the provider context. The providers, and the SQS client with
 * them, load when a provider is first made: listing packs, `cdkd --version`
 * and a deploy without queues never pay for @aws-sdk/client-sqs.
 */
import type { ProviderContext, ProviderPack, ProvidersHook, ResourceProvider } from '@cdkd/plugin-api';
import { QUEUE_HANDLED_PROPERTIES } from './queue-attributes';
import type * as QueuePolicyModule from './queue-policy-provider';
import type * as QueueModule from './queue-provider';
import { QUEUE_POLICY_TYPE, QUEUE_TYPE } from './resource-types';

export const PACK_NAME = '@cdkd/provider-sqs';

const providers = {
  queue: (ctx: ProviderContext): ResourceProvider =>
    new (require('./queue-provider') as typeof QueueModule).SqsQueueProvider(ctx),
  policy: (ctx: ProviderContext): ResourceProvider =>
    new (require('./queue-policy-provider') as typeof QueuePolicyModule).SqsQueuePolicyProvider(ctx),
};

/** The pack this hook returns (exported for tests). */
export function sqsProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: QUEUE_TYPE,
        handledProperties: [...QUEUE_HANDLED_PROPERTIES],
        // The queue URL is the physical id, and Cloud Control's identifier of a queue.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: providers.queue,
      },
      {
        resourceType: QUEUE_POLICY_TYPE,
        handledProperties: ['PolicyDocument', 'Queues'],
        createProvider: providers.policy,
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return sqsProviderPack();
};

export default hook;
