/**
 * Plans the children of a plan's nested stacks before anything changes: each
 * `AWS::CloudFormation::Stack` the deploy creates or updates gets its child's
 * plan ({@link ResourcePlan.nested}), made against the child's own state record
 * with the template its TemplateURL names and the Parameters the parent passes.
 * A Parameter whose value is known only after deploy stays Unknown in the child
 * plan. Grandchildren are planned the same way, down the tree.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { planStack } from '../plan/plan-stack';
import type { StackPlan } from '../plan/types';
import { NESTED_STACK_SEPARATOR, displayStackName, nestedStackName } from '../state/keys';
import type { StateStore } from '../state/state-store';
import type { ResourceState } from '../state/types';
import { readStackStateView, viewState } from '../state/wal-replay';
import type { ResourceSchemaLookup } from '../template/environment';
import { containsUnknown } from '../template/unknown';
import { formatError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { StateCrossStackResolver } from './cross-stack';
import { childStackTags, parameterValues } from './nested-template';
import type { NestedTemplateSource } from './nested-template';
import { NESTED_STACK_TYPE } from './provisionable';
import { stackResolverEnv } from './resolver-env';

export interface NestedPlanContext {
  region: string;
  store: StateStore;
  factory: AwsClientFactory;
  schemas: ResourceSchemaLookup;
  templates: NestedTemplateSource;
  /** The stack tags of the plan's stack (its children get them, with their own `Tags`). */
  stackTags: Readonly<Record<string, string>>;
  logger: Logger;
  force?: boolean;
  resolveSecrets?: (properties: Record<string, unknown>) => Promise<Record<string, unknown>>;
  canSnapshot?: (record: ResourceState) => boolean;
}

/** Fills {@link ResourcePlan.nested} on the nested stacks of `plan` that change, recursively. */
export async function planNestedStacks(plan: StackPlan, context: NestedPlanContext): Promise<void> {
  for (const r of plan.resources) {
    if (r.resourceType !== NESTED_STACK_TYPE || !r.desired) continue;
    if (r.action === 'NO_CHANGE' || r.action === 'DELETE' || r.policyOnly) continue;
    const { TemplateURL: templateUrl, Parameters: parameters } = r.desired.properties;
    const childName = nestedStackName(plan.stackName, r.logicalId);
    if (containsUnknown(templateUrl)) {
      context.logger.debug(`${childName}: its TemplateURL is known only after deploy; not planned ahead.`);
      continue;
    }
    const known: Record<string, unknown> = {};
    const unknownParameters: string[] = [];
    if (parameters && typeof parameters === 'object' && !Array.isArray(parameters)) {
      for (const [name, value] of Object.entries(parameters)) {
        if (containsUnknown(value)) unknownParameters.push(name);
        else known[name] = value;
      }
    }
    const tags = childStackTags(context.stackTags, r.desired.properties.Tags);
    const template = await context.templates(templateUrl, childName, tags);
    const view = await readStackStateView(
      context.store.backend,
      context.store.wal,
      childName,
      context.region,
    );
    const state = viewState(view);
    let child: StackPlan;
    try {
      child = await planStack({
        template,
        state,
        schemas: context.schemas,
        resolverEnv: {
          ...stackResolverEnv({
            stackName: childName,
            region: context.region,
            factory: context.factory,
            parameterValues: parameterValues(known),
            crossStack: new StateCrossStackResolver(context.store, context.factory),
          }),
          unknownParameters,
        },
        force: context.force,
        resolveSecrets: context.resolveSecrets,
        canSnapshot: context.canSnapshot,
      });
    } catch (err) {
      // A value known only after deploy can stop the plan (a condition on it): the child's deploy plans it then.
      if (unknownParameters.length === 0) throw err;
      context.logger.debug(
        `${childName}: not planned ahead (${unknownParameters.join(', ')} known only after deploy): ${formatError(err)}`,
      );
      continue;
    }
    await planNestedStacks(child, { ...context, stackTags: tags });
    r.nested = { plan: child, state };
  }
}

/**
 * The nested stacks `plan` leaves unchanged whose child, or a stack below it,
 * holds a rollback journal an earlier deploy left (a `--no-rollback` failure,
 * a failed auto-rollback): each becomes a forced UPDATE, so its child is
 * deployed again and converges on its template, and that successful deploy
 * settles the journal as a top-level stack's next successful deploy settles its
 * own ("a top-level deploy does the same for each nested stack's journal").
 * Left unchanged, a child that such a failure left half-updated would be
 * reported as having no changes. Each is named in a warning; returns their
 * logical ids. A journal that cannot be read counts as one.
 */
export async function redeployNestedStacksWithJournals(
  plan: StackPlan,
  context: Pick<NestedPlanContext, 'store' | 'region' | 'logger'>,
): Promise<Set<string>> {
  const promoted = new Set<string>();
  const unchanged = plan.resources.filter(
    (r) => r.resourceType === NESTED_STACK_TYPE && r.action === 'NO_CHANGE',
  );
  if (unchanged.length === 0) return promoted;
  const { store, region, logger } = context;
  const stacks = (await store.backend.listStacks())
    .filter((s) => s.region === region)
    .map((s) => s.stackName);
  for (const r of unchanged) {
    const childName = nestedStackName(plan.stackName, r.logicalId);
    const tree = stacks.filter(
      (n) => n === childName || n.startsWith(`${childName}${NESTED_STACK_SEPARATOR}`),
    );
    const withJournal: string[] = [];
    for (const name of [...new Set(tree)].sort()) {
      if (await store.journals.read(name, region).then(Boolean, () => true)) withJournal.push(name);
    }
    if (withJournal.length === 0) continue;
    promoted.add(r.logicalId);
    Object.assign(r, { action: 'UPDATE', forced: true });
    plan.hasChanges = true;
    const named = withJournal.map(displayStackName);
    logger.warn(
      `${named.join(', ')}: a rollback journal left by an earlier deploy that did not finish; the nested stack ${r.logicalId} is unchanged in the template but is deployed again, so it matches its template and the journal is settled as after any successful deploy (to revert that deploy instead, run cdkd rollback ${plan.stackName.split(NESTED_STACK_SEPARATOR)[0]} first).`,
    );
  }
  return promoted;
}
