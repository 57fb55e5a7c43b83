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
import { nestedStackName } from '../state/keys';
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
