/**
 * AWS::SQS::QueuePolicy: writes one policy document as the `Policy` attribute
 * of each listed queue. The physical id is the first queue's URL (so it
 * changes, in place, when the first queue changes); `Id` resolves to it.
 */
import { GetQueueAttributesCommand, SQSClient, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type {
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { parsePolicy, policiesEquivalent } from './policy-equivalence';
import { errorName, isQueueNotFound } from './sqs-errors';

import { QUEUE_POLICY_TYPE } from './resource-types';

export { QUEUE_POLICY_TYPE };

/** The policy document as the string SQS stores. */
function policyText(document: unknown): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

function queuesOf(properties: Record<string, unknown> | undefined): string[] {
  const queues = properties?.Queues;
  return Array.isArray(queues) ? queues.filter((q): q is string => typeof q === 'string' && q !== '') : [];
}

export class SqsQueuePolicyProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): SQSClient {
    return this.ctx.clients.get(SQSClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
  ): Promise<ResourceCreateResult> {
    const queues = this.requireQueues(properties, logicalId, resourceType);
    await this.writePolicy(queues, policyText(properties.PolicyDocument), logicalId, resourceType);
    return { physicalId: queues[0], attributes: { Id: queues[0] } };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const queues = this.requireQueues(properties, logicalId, resourceType);
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    await this.writePolicy(queues, policyText(properties.PolicyDocument), logicalId, resourceType);
    // Queues no longer listed lose the policy this resource wrote there.
    const dropped = queuesOf(previousProperties).filter((q) => !queues.includes(q));
    await this.clearPolicy(dropped, previousProperties.PolicyDocument, logicalId, resourceType);
    return { physicalId: queues[0], wasReplaced: false, attributes: { Id: queues[0] } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    if (!properties || parsePolicy(properties.PolicyDocument) === undefined) {
      return {
        outcome: 'skipped',
        reason: `the policy document of ${logicalId} is not known, so cdkd cannot tell whether the policy on ${physicalId} is still its own; remove it by hand if it is`,
      };
    }
    const queues = queuesOf(properties);
    await this.clearPolicy(
      queues.length > 0 ? queues : [physicalId],
      properties.PolicyDocument,
      logicalId,
      resourceType,
      context?.expectedRegion,
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? physicalId : undefined;
  }

  /** The policy on the first queue, with the recorded queue list; `undefined` when that queue or its policy is gone. */
  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const queues = queuesOf(properties);
    const current = await this.currentPolicy(queues[0] ?? physicalId);
    if (current === 'not-found' || current === undefined) return undefined;
    return {
      PolicyDocument: parsePolicy(current) ?? current,
      Queues: queues.length > 0 ? queues : [physicalId],
    };
  }

  // -------------------------------------------------------------------------

  private requireQueues(
    properties: Record<string, unknown>,
    logicalId: string,
    resourceType: string,
  ): string[] {
    const queues = queuesOf(properties);
    if (queues.length === 0) {
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: Queues must list at least one queue URL.`, {
        resource: { logicalId, resourceType },
        remedy: 'Set Queues to the URLs of the queues the policy applies to.',
      });
    }
    return queues;
  }

  private async writePolicy(
    queues: string[],
    policy: string,
    logicalId: string,
    resourceType: string,
  ): Promise<void> {
    const written: string[] = [];
    for (const queueUrl of queues) {
      try {
        await this.client().send(
          new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { Policy: policy } }),
        );
        written.push(queueUrl);
      } catch (err) {
        const already = written.length > 0 ? ` (already written to ${written.join(', ')})` : '';
        throw new this.ctx.errors.ProvisioningError(
          `SQS ${errorName(err) || 'error'} while setting the policy of ${queueUrl}${already}: ${err instanceof Error ? err.message : String(err)}`,
          {
            cause: err,
            resource: { logicalId, resourceType, physicalId: queues[0] },
            retryable: this.ctx.isTransientError(err),
          },
        );
      }
    }
  }

  /**
   * Removes the policy from each queue while it is still `document` (by
   * meaning); a policy someone else has since written is left, with a warning.
   */
  private async clearPolicy(
    queues: string[],
    document: unknown,
    logicalId: string,
    resourceType: string,
    expectedRegion?: string,
  ): Promise<void> {
    for (const queueUrl of queues) {
      const current = await this.currentPolicy(queueUrl, logicalId, resourceType);
      if (current === 'not-found') {
        this.ctx.assertRegionMatch(
          await this.client().config.region(),
          expectedRegion,
          resourceType,
          logicalId,
          queueUrl,
        );
        continue;
      }
      if (current === undefined) continue;
      if (!policiesEquivalent(current, document, this.ctx.partition)) {
        this.ctx.logger.warn(
          `${logicalId}: the policy on ${queueUrl} is no longer the one cdkd wrote; leaving it in place. Check it and remove it by hand if it should go.`,
        );
        continue;
      }
      try {
        await this.client().send(
          new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { Policy: '' } }),
        );
      } catch (err) {
        if (isQueueNotFound(err)) continue;
        throw new this.ctx.errors.ProvisioningError(
          `SQS ${errorName(err) || 'error'} while removing the policy of ${queueUrl}: ${err instanceof Error ? err.message : String(err)}`,
          {
            cause: err,
            resource: { logicalId, resourceType, physicalId: queueUrl },
            retryable: this.ctx.isTransientError(err),
          },
        );
      }
    }
  }

  /** The queue's policy text, `undefined` when it has none, `'not-found'` when the queue is gone. */
  private async currentPolicy(
    queueUrl: string,
    logicalId?: string,
    resourceType = QUEUE_POLICY_TYPE,
  ): Promise<string | undefined | 'not-found'> {
    try {
      const out = await this.client().send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['Policy'] }),
      );
      const policy = out.Attributes?.Policy;
      return policy === undefined || policy === '' ? undefined : policy;
    } catch (err) {
      if (isQueueNotFound(err)) return 'not-found';
      throw new this.ctx.errors.ProvisioningError(
        `SQS ${errorName(err) || 'error'} while reading the policy of ${queueUrl}: ${err instanceof Error ? err.message : String(err)}`,
        {
          cause: err,
          resource: { logicalId, resourceType, physicalId: queueUrl },
          retryable: this.ctx.isTransientError(err),
        },
      );
    }
  }
}
