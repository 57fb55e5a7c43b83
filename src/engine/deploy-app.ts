/**
 * Deploys the selected stacks of a synthesized app: assets first, then the
 * stacks in dependency order, independent stacks in parallel (stack
 * concurrency), each through {@link deployStack}. A failed stack's dependents
 * are skipped.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { publishAssets } from '../assets/publish';
import type { AssetMode } from '../assets/asset-mode';
import { Dag } from '../graph/dag';
import { executeDag } from '../graph/executor';
import type { SchemaStore } from '../provisioning/schema-store';
import { readBootstrapMarker } from '../state/bootstrap-marker';
import type { StateStore } from '../state/state-store';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { UNKNOWN_REGION } from '../synth/cloud-assembly';
import { parameterValuesForStack } from '../template/parameters';
import type { ParameterAssignment } from '../template/parameters';
import { parseTemplate } from '../template/types';
import { CdkdError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { deployStack } from './deploy-stack';
import type { DeployStackResult } from './deploy-stack';
import type { ResourceProvisioner } from './provisioner';

export interface DeployAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  provisioner: ResourceProvisioner;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  ioHost: IoHost;
  concurrency: number;
  stackConcurrency: number;
  parameters?: readonly ParameterAssignment[];
  signal?: AbortSignal;
  /** Cancels operations in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
}

export interface DeployAppResult {
  stacks: DeployStackResult[];
  /** Stacks not deployed because a stack they depend on failed (or the run was interrupted). */
  skippedStacks: string[];
  ok: boolean;
}

/** The region a stack deploys to: its own, else the caller's. */
export function stackRegion(stack: SynthesizedStack, factory: AwsClientFactory): string {
  return stack.environment.region === UNKNOWN_REGION ? factory.region : stack.environment.region;
}

/** Refuses stacks bound to another account: cdkd deploys with the caller's credentials. */
export async function assertStackAccounts(
  stacks: readonly SynthesizedStack[],
  factory: AwsClientFactory,
): Promise<void> {
  const fixed = stacks.filter((s) => s.environment.accountFromApp);
  if (fixed.length === 0) return;
  const { account } = await factory.callerIdentity();
  for (const s of fixed) {
    if (s.environment.account !== account) {
      throw new CdkdError(
        `Stack ${s.displayPath} is bound to account ${s.environment.account}, but the credentials in use belong to ${account}.`,
        {
          code: 'ACCOUNT_MISMATCH',
          remedy: `Use credentials (--profile) for account ${s.environment.account}, or remove the stack's explicit env.account.`,
        },
      );
    }
  }
}

/** Asset storage per region: cdkd's when the region's bootstrap marker exists, else CDK's bootstrap destinations. */
export async function assetModes(
  stacks: readonly SynthesizedStack[],
  store: StateStore,
  factory: AwsClientFactory,
): Promise<Map<string, AssetMode>> {
  const modes = new Map<string, AssetMode>();
  for (const region of new Set(stacks.map((s) => stackRegion(s, factory)))) {
    const marker = await readBootstrapMarker(store.bucket, region);
    modes.set(
      region,
      marker
        ? { mode: 'cdkd', assetBucket: marker.assetBucket, containerRepository: marker.containerRepository }
        : { mode: 'cdk-bootstrap' },
    );
  }
  return modes;
}

export async function deployApp(options: DeployAppOptions): Promise<DeployAppResult> {
  const { stacks, store, factory, ioHost } = options;
  await assertStackAccounts(stacks, factory);

  const needAssets = stacks.filter((s) => s.assetManifests.length > 0);
  let templates = new Map<string, Record<string, unknown>>();
  if (needAssets.length > 0) {
    const modes = await assetModes(needAssets, store, factory);
    const published = await publishAssets({
      targets: needAssets.map((stack) => ({ stack, mode: modes.get(stackRegion(stack, factory))! })),
      aws: factory,
      ioHost,
    });
    templates = published.templates;
  }

  const byId = new Map(stacks.map((s) => [s.artifactId, s]));
  const dag = new Dag<SynthesizedStack>();
  for (const s of stacks) dag.addNode(s.artifactId, s);
  for (const s of stacks)
    for (const dep of s.dependencies) if (byId.has(dep)) dag.addDependency(s.artifactId, dep);

  const results: DeployStackResult[] = [];
  const execution = await executeDag(dag, {
    concurrency: options.stackConcurrency,
    signal: options.signal,
    run: async (id) => {
      const stack = byId.get(id)!;
      const template = parseTemplate(templates.get(id) ?? stack.template, `template of ${stack.displayPath}`);
      const result = await deployStack(
        {
          stackName: stack.stackName,
          region: stackRegion(stack, factory),
          template,
          parameterValues: parameterValuesForStack(options.parameters ?? [], stack.stackName, template),
        },
        {
          store,
          provisioner: options.provisioner,
          schemas: options.schemas,
          factory,
          ioHost,
          concurrency: options.concurrency,
          signal: options.signal,
          cancelSignal: options.cancelSignal,
        },
      );
      results.push(result);
      if (!result.ok)
        throw new CdkdError(`${stack.stackName} did not deploy completely`, { code: 'STACK_FAILED' });
    },
  });
  const skippedStacks = [...execution.skipped, ...execution.notStarted].map((id) => byId.get(id)!.stackName);
  // A stack that threw before it had a result (synth-level or lock error) is reported by its error.
  for (const f of execution.failed) {
    if ((f.error as CdkdError)?.code !== 'STACK_FAILED') throw f.error;
  }
  return { stacks: results, skippedStacks, ok: execution.ok };
}
