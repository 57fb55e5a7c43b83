/**
 * Plans the selected stacks without changing anything: no lock (diff only
 * reads state), no asset upload (the template is rewritten to where the assets
 * would go, so asset locations do not show up as changes).
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { prepareStackAssets } from '../assets/prepare';
import { planStack } from '../plan/plan-stack';
import { propertyViolations } from '../plan/property-validation';
import type { PropertyViolation } from '../plan/property-validation';
import { securityChangesOf } from '../plan/security-changes';
import type { SecurityChanges } from '../plan/security-changes';
import type { StackPlan } from '../plan/types';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StateStore } from '../state/state-store';
import type { ResourceState } from '../state/types';
import { readStackStateView, viewState } from '../state/wal-replay';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { parameterValuesForStack } from '../template/parameters';
import type { ParameterAssignment } from '../template/parameters';
import { StateCrossStackResolver } from './cross-stack';
import { assetModes, assertStackAccounts, deployableTemplate, stackRegion } from './deploy-app';
import type { IoHost } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { planNestedStacks } from './nested-plan';
import { assemblyTemplateFiles, nestedTemplateSource } from './nested-template';
import { unprovisionableResources } from './provisionable';
import type { Unprovisionable } from './provisionable';
import { stackResolverEnv } from './resolver-env';

export interface DiffAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  parameters?: readonly ParameterAssignment[];
  /** Stack tags, as for deploy. */
  tags?: Record<string, string>;
  /** True when an installed pack or a Cloud Control schema can provision the type. */
  canProvision: (resourceType: string) => boolean;
  /** Whether an installed pack can snapshot a record (`DeletionPolicy: Snapshot`); default no. */
  canSnapshot?: (record: ResourceState) => boolean;
  ioHost: IoHost;
}

/** What a deploy of one stack would do. */
export interface StackDiff {
  plan: StackPlan;
  /** Resources the deploy would refuse: cdkd cannot provision them. */
  unprovisionable: Unprovisionable[];
  /** Permission and network-access changes (`--require-approval` judges these). */
  security: SecurityChanges;
  /** Schema violations deploy's preflight would refuse the stack for, by the same rule. */
  violations: PropertyViolation[];
}

export async function diffApp(options: DiffAppOptions): Promise<StackDiff[]> {
  const { stacks, store, schemas, factory } = options;
  await assertStackAccounts(stacks, factory);
  const withAssets = stacks.filter((s) => s.assetManifests.length > 0);
  const modes = withAssets.length > 0 ? await assetModes(withAssets, store, factory) : new Map();
  const diffs: StackDiff[] = [];
  for (const stack of stacks) {
    const region = stackRegion(stack, factory);
    const prepared =
      stack.assetManifests.length > 0 ? prepareStackAssets(stack, modes.get(region)!) : undefined;
    const raw = prepared?.template ?? stack.template;
    const template = deployableTemplate(stack, raw, options.tags, schemas, options.ioHost);
    // The state an interrupted run left counts: state.json with its write-ahead log replayed.
    const view = await readStackStateView(store.backend, store.wal, stack.stackName, region);
    const state = viewState(view);
    const plan = await planStack({
      template,
      state,
      schemas: { has: (t) => schemas.has(t), get: (t) => schemas.get(t) },
      resolverEnv: stackResolverEnv({
        stackName: stack.stackName,
        region,
        factory,
        parameterValues: parameterValuesForStack(options.parameters ?? [], stack.stackName, template),
        crossStack: new StateCrossStackResolver(store, factory),
      }),
      ...(options.canSnapshot ? { canSnapshot: options.canSnapshot } : {}),
    });
    const lookup = { has: (t: string) => schemas.has(t), get: (t: string) => schemas.get(t) };
    await planNestedStacks(plan, {
      region,
      store,
      factory,
      schemas: lookup,
      templates: nestedTemplateSource({
        factory,
        region,
        replacements: prepared?.replacements ?? [],
        localFiles: assemblyTemplateFiles(stack.assetManifests),
        taggingOf: (type) => schemas.tryGet(type)?.tagging,
      }),
      stackTags: options.tags ?? stack.tags,
      logger: createLogger(options.ioHost),
      ...(options.canSnapshot ? { canSnapshot: options.canSnapshot } : {}),
    });
    diffs.push({
      plan,
      unprovisionable: unprovisionableResources(plan, options.canProvision),
      security: securityChangesOf(plan, state),
      violations: propertyViolations(plan, schemas),
    });
  }
  return diffs;
}
