/**
 * Plans the selected stacks without changing anything: no lock (diff only
 * reads state), no asset upload (the template is rewritten to where the assets
 * would go, so asset locations do not show up as changes).
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { prepareStackAssets } from '../assets/prepare';
import { planStack } from '../plan/plan-stack';
import { readStackStateView, viewState } from '../state/wal-replay';
import type { StackPlan } from '../plan/types';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StateStore } from '../state/state-store';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { parameterValuesForStack } from '../template/parameters';
import type { ParameterAssignment } from '../template/parameters';
import { parseTemplate } from '../template/types';
import { StateCrossStackResolver } from './cross-stack';
import { assetModes, assertStackAccounts, stackRegion } from './deploy-app';
import { stackResolverEnv } from './resolver-env';

export interface DiffAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  parameters?: readonly ParameterAssignment[];
}

export async function diffApp(options: DiffAppOptions): Promise<StackPlan[]> {
  const { stacks, store, schemas, factory } = options;
  await assertStackAccounts(stacks, factory);
  const withAssets = stacks.filter((s) => s.assetManifests.length > 0);
  const modes = withAssets.length > 0 ? await assetModes(withAssets, store, factory) : new Map();
  const plans: StackPlan[] = [];
  for (const stack of stacks) {
    const region = stackRegion(stack, factory);
    const raw =
      stack.assetManifests.length > 0
        ? prepareStackAssets(stack, modes.get(region)!).template
        : stack.template;
    const template = parseTemplate(raw, `template of ${stack.displayPath}`);
    const view = await readStackStateView(store.backend, store.wal, stack.stackName, region);
    plans.push(
      await planStack({
        template,
        state: viewState(view),
        schemas: { has: (t) => schemas.has(t), get: (t) => schemas.get(t) },
        resolverEnv: stackResolverEnv({
          stackName: stack.stackName,
          region,
          factory,
          parameterValues: parameterValuesForStack(options.parameters ?? [], stack.stackName, template),
          crossStack: new StateCrossStackResolver(store, factory),
        }),
      }),
    );
  }
  return plans;
}
