/**
 * The pack's `cdkd:providers` hook: registers AWS::SQS::Queue and
 * AWS::SQS::QueuePolicy. Only types come from cdkd; everything at run time
 * arrives through the provider context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { QUEUE_HANDLED_PROPERTIES } from './queue-attributes';
import { QUEUE_POLICY_TYPE, SqsQueuePolicyProvider } from './queue-policy-provider';
import { QUEUE_TYPE, SqsQueueProvider } from './queue-provider';

export const PACK_NAME = '@cdkd/provider-sqs';

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
        createProvider: (ctx) => new SqsQueueProvider(ctx),
      },
      {
        resourceType: QUEUE_POLICY_TYPE,
        handledProperties: ['PolicyDocument', 'Queues'],
        createProvider: (ctx) => new SqsQueuePolicyProvider(ctx),
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return sqsProviderPack();
};

export default hook;
