/**
 * Destroys the selected stacks of a synthesized app: consumers before the
 * stacks they depend on, independent stacks in parallel, each from its state
 * record through {@link destroyStack}. A stack whose dependent failed to
 * destroy is kept.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { Dag } from '../graph/dag';
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

export interface DestroyAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  provisioner: ResourceProvisioner;
  factory: AwsClientFactory;
  ioHost: IoHost;
  concurrency: number;
  stackConcurrency: number;
  signal?: AbortSignal;
  /** Cancels deletes in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
}

export interface DestroyAppResult {
  stacks: DestroyStackResult[];
  /** Stacks kept because a stack depending on them was not destroyed. */
  keptStacks: string[];
  ok: boolean;
}

/** The selection plus every stack that depends on it, transitively (they must go first). */
export function withDependents(
  selected: readonly SynthesizedStack[],
  all: readonly SynthesizedStack[],
): SynthesizedStack[] {
  const chosen = new Set(selected.map((s) => s.artifactId));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of all) {
      if (!chosen.has(s.artifactId) && s.dependencies.some((d) => chosen.has(d))) {
        chosen.add(s.artifactId);
        grew = true;
      }
    }
  }
  return all.filter((s) => chosen.has(s.artifactId));
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
  // A stack is destroyed after every selected stack that depends on it.
  const dag = new Dag<SynthesizedStack>();
  for (const s of stacks) dag.addNode(s.artifactId, s);
  for (const s of stacks)
    for (const dep of s.dependencies) if (byId.has(dep)) dag.addDependency(dep, s.artifactId);

  const results: DestroyStackResult[] = [];
  const execution = await executeDag(dag, {
    concurrency: options.stackConcurrency,
    signal: options.signal,
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
        cancelSignal: options.cancelSignal,
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
