/**
 * Destroys the selected stacks of a synthesized app: consumers before the
 * stacks they depend on (the manifest's dependencies and the cross-stack
 * references', so a producer's importer check never runs while its consumer is
 * still being destroyed), independent stacks in parallel, each from its state
 * record through {@link destroyStack}. A stack whose dependent failed to
 * destroy is kept; unrelated stacks are still destroyed.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { executeDag } from '../graph/executor';
import type { StateStore } from '../state/state-store';
import type { PolicyAttribute } from '../state/types';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { POLICY_ATTRIBUTES } from '../template/types';
import { CdkdError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { stackRegion } from './deploy-app';
import { destroyStack } from './destroy-stack';
import type { DestroyStackResult } from './destroy-stack';
import type { ResourceProvisioner } from './provisioner';
import { stackGraph } from './stack-graph';

export interface DestroyAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  provisioner: ResourceProvisioner;
  factory: AwsClientFactory;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  stackConcurrency: number;
  signal?: AbortSignal;
}

export interface DestroyAppResult {
  stacks: DestroyStackResult[];
  /** Stacks kept because a stack depending on them was not destroyed. */
  keptStacks: string[];
  ok: boolean;
}

function templateDeletionPolicies(stack: SynthesizedStack): Record<string, PolicyAttribute | undefined> {
  const out: Record<string, PolicyAttribute | undefined> = {};
  const resources = (stack.template.Resources ?? {}) as Record<string, { DeletionPolicy?: unknown }>;
  for (const [id, r] of Object.entries(resources)) {
    const policy = r?.DeletionPolicy;
    if (typeof policy === 'string' && (POLICY_ATTRIBUTES as readonly string[]).includes(policy))
      out[id] = policy as PolicyAttribute;
  }
  return out;
}

export async function destroyApp(options: DestroyAppOptions): Promise<DestroyAppResult> {
  const { stacks, factory } = options;
  const byId = new Map(stacks.map((s) => [s.artifactId, s]));
  const order = new Map(stacks.map((s, i) => [s.artifactId, i]));
  // A stack is destroyed after every selected stack that depends on it.
  const dag = stackGraph(stacks, (s) => stackRegion(s, factory), { reverse: true });

  const results: DestroyStackResult[] = [];
  const execution = await executeDag(dag, {
    concurrency: options.stackConcurrency,
    signal: options.signal,
    stopOnFailure: false,
    // Later stacks first among the ready ones, as the CDK CLI destroys in reverse assembly order.
    priority: (id) => -order.get(id)!,
    run: async (id) => {
      const stack = byId.get(id)!;
      const result = await destroyStack({
        stackName: stack.stackName,
        region: stackRegion(stack, factory),
        store: options.store,
        provisioner: options.provisioner,
        ioHost: options.ioHost,
        concurrency: options.concurrency,
        signal: options.signal,
        templateDeletionPolicies: templateDeletionPolicies(stack),
      });
      results.push(result);
      if (result.found && !result.complete)
        throw new CdkdError(`${stack.stackName} was not destroyed completely`, { code: 'STACK_FAILED' });
    },
  });
  for (const f of execution.failed) {
    if ((f.error as CdkdError)?.code !== 'STACK_FAILED') throw f.error;
  }
  const keptStacks = [...execution.skipped, ...execution.notStarted].map((id) => byId.get(id)!.stackName);
  return { stacks: results, keptStacks, ok: execution.ok };
}
