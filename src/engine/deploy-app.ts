/**
 * Deploys the selected stacks of a synthesized app: assets first, then the
 * stacks in dependency order (the manifest's and the cross-stack references',
 * assembly order among the ready ones), independent stacks in parallel (stack
 * concurrency), each through {@link deployStack}. A failed stack's dependents
 * are skipped with the reason; stacks that do not depend on it still deploy.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { publishAssets } from '../assets/publish';
import type { NameReplacement } from '../assets/template-rewrite';
import type { AssetMode } from '../assets/asset-mode';
import { assertRegionName, assertStackName } from '../config/aws-names';
import { executeDag } from '../graph/executor';
import type { StackPlan } from '../plan/types';
import type { SchemaStore } from '../provisioning/schema-store';
import { readBootstrapMarker } from '../state/bootstrap-marker';
import type { StateStore } from '../state/state-store';
import type { StackState } from '../state/types';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { UNKNOWN_REGION } from '../synth/cloud-assembly';
import { parameterValuesForStack } from '../template/parameters';
import type { ParameterAssignment } from '../template/parameters';
import { applyStackTags } from '../template/stack-tags';
import { parseTemplate } from '../template/types';
import type { CfnTemplate } from '../template/types';
import { CdkdError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { deployStack } from './deploy-stack';
import { assemblyTemplateFiles, nestedTemplateSource } from './nested-template';
import type { DeployStackResult } from './deploy-stack';
import type { ResourceProvisioner } from './provisioner';
import { stackGraph } from './stack-graph';

export interface DeployAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  provisioner: ResourceProvisioner;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  stackConcurrency: number;
  parameters?: readonly ParameterAssignment[];
  signal?: AbortSignal;
  /** Cancels operations in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
  /** Stack tags (`--tags`, configuration); when given they replace each stack's own (the assembly's). */
  tags?: Record<string, string>;
  /** `--force`: re-apply every resource, changed or not. */
  force?: boolean;
  /** False (`--no-rollback`): a failed stack keeps its partial state and journal. Default true. */
  rollback?: boolean;
  /**
   * Asked before a stack with changes is locked or changed (`--require-approval`);
   * throwing refuses that stack (its dependents are skipped, other stacks go on).
   */
  approve?: (stack: SynthesizedStack, plan: StackPlan, state: StackState | undefined) => Promise<void>;
}

export interface DeployAppResult {
  /** Stacks that ran, in assembly order. */
  stacks: DeployStackResult[];
  /** Stacks that failed before they changed anything: a lock held, a template error, an approval refused. */
  failedStacks: Array<{ stackName: string; error: unknown }>;
  /** Stacks not deployed because a stack they depend on was not, or because the run was interrupted. */
  skippedStacks: Array<{ stackName: string; reason: string }>;
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

/** Refuses stack names and regions CloudFormation would reject, before anything is called. */
export function assertStackNames(stacks: readonly SynthesizedStack[]): void {
  for (const s of stacks) {
    assertStackName(s.stackName, `stack ${s.displayPath} of the app`);
    if (s.environment.regionFromApp)
      assertRegionName(s.environment.region, `the region of stack ${s.displayPath}`);
  }
}

/** The template a stack deploys with: assets rewritten, stack tags on its taggable resources. */
export function deployableTemplate(
  stack: SynthesizedStack,
  raw: Record<string, unknown>,
  tags: Record<string, string> | undefined,
  schemas: SchemaStore,
  ioHost: IoHost,
): CfnTemplate {
  const tagged = applyStackTags(raw, tags ?? stack.tags, (type) => schemas.tryGet(type)?.tagging);
  if (tagged.skipped.length > 0) {
    createLogger(ioHost).debug(
      `${stack.stackName}: stack tags not applied to ${tagged.skipped.join(', ')} (their tags are an expression).`,
    );
  }
  return parseTemplate(tagged.template, `template of ${stack.displayPath}`);
}

export async function deployApp(options: DeployAppOptions): Promise<DeployAppResult> {
  const { stacks, store, factory, ioHost } = options;
  assertStackNames(stacks);
  await assertStackAccounts(stacks, factory);
  const regionOf = (s: SynthesizedStack): string => stackRegion(s, factory);
  const dag = stackGraph(stacks, regionOf);

  const needAssets = stacks.filter((s) => s.assetManifests.length > 0);
  let templates = new Map<string, Record<string, unknown>>();
  let replacements = new Map<string, NameReplacement[]>();
  if (needAssets.length > 0) {
    const modes = await assetModes(needAssets, store, factory);
    const published = await publishAssets({
      targets: needAssets.map((stack) => ({ stack, mode: modes.get(regionOf(stack))! })),
      aws: factory,
      ioHost,
    });
    templates = published.templates;
    replacements = published.replacements;
  }

  const byId = new Map(stacks.map((s) => [s.artifactId, s]));
  const order = new Map(stacks.map((s, i) => [s.artifactId, i]));
  const name = (id: string): string => byId.get(id)!.stackName;
  const results = new Map<string, DeployStackResult>();
  const skippedStacks: DeployAppResult['skippedStacks'] = [];
  const execution = await executeDag(dag, {
    concurrency: options.stackConcurrency,
    signal: options.signal,
    stopOnFailure: false,
    priority: (id) => order.get(id)!,
    onEvent: (e) => {
      if (e.type !== 'skipped') return;
      const why =
        e.blockedBy === e.cause
          ? `it depends on ${name(e.cause)}, which failed`
          : `it depends on ${name(e.blockedBy)}, which was not deployed because ${name(e.cause)} failed`;
      skippedStacks.push({ stackName: name(e.id), reason: why });
    },
    run: async (id) => {
      const stack = byId.get(id)!;
      const template = deployableTemplate(
        stack,
        templates.get(id) ?? stack.template,
        options.tags,
        options.schemas,
        ioHost,
      );
      const result = await deployStack(
        {
          stackName: stack.stackName,
          region: regionOf(stack),
          template,
          parameterValues: parameterValuesForStack(options.parameters ?? [], stack.stackName, template),
          replacements: replacements.get(id) ?? [],
          stackTags: options.tags ?? stack.tags,
          nestedTemplates: nestedTemplateSource({
            factory,
            region: regionOf(stack),
            replacements: replacements.get(id) ?? [],
            localFiles: assemblyTemplateFiles(stack.assetManifests),
            taggingOf: (type) => options.schemas.tryGet(type)?.tagging,
          }),
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
          force: options.force,
          rollback: options.rollback,
          beforeChanges: options.approve ? (plan, state) => options.approve!(stack, plan, state) : undefined,
        },
      );
      results.set(id, result);
      if (!result.ok)
        throw new CdkdError(`${stack.stackName} did not deploy completely`, { code: 'STACK_FAILED' });
    },
  });
  for (const id of execution.notStarted)
    skippedStacks.push({ stackName: name(id), reason: 'the deploy was interrupted before it started' });
  // A stack that threw before it had a result (a lock held, a template error, a refused approval).
  const failedStacks = execution.failed
    .filter((f) => (f.error as CdkdError)?.code !== 'STACK_FAILED')
    .map((f) => ({ stackName: name(f.id), error: f.error }));
  return {
    stacks: stacks.filter((s) => results.has(s.artifactId)).map((s) => results.get(s.artifactId)!),
    failedStacks,
    skippedStacks,
    ok: execution.ok,
  };
}
