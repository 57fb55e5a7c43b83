/**
 * Resources nothing installed can provision (types only CloudFormation runs,
 * misspelt types, org-internal types without their pack): one rule for which types can be
 * provisioned, why the others cannot and what to do, used by the deploy
 * preflight ({@link ResourceProvisioner.assertProvisionable}) and by diff to
 * flag them.
 */
import { nestedResourceName, planLevels } from '../plan/nested-plans';
import type { StackPlan } from '../plan/types';
import { CLOUD_CONTROL_CANNOT_PROVISION } from '../provisioning/cloud-control-types';

/** A nested stack: cdkd deploys it as a child stack (src/engine/nested-stack.ts). */
export const NESTED_STACK_TYPE = 'AWS::CloudFormation::Stack';

/**
 * True when cdkd can provision `type`: the engine does it itself (nested stacks,
 * never sent to a pack or Cloud Control), or `registry` can route it.
 */
export function canProvisionType(type: string, registry: { canProvision(type: string): boolean }): boolean {
  return type === NESTED_STACK_TYPE || registry.canProvision(type);
}

export interface Unprovisionable {
  logicalId: string;
  resourceType: string;
  /** Why cdkd cannot deploy it. */
  reason: string;
  /** What to do about it. */
  remedy: string;
}

/**
 * The resources of `plan` (and of its nested stacks' children, named
 * `Parent > Child > Resource`) that would be created or updated and that cdkd
 * cannot provision.
 */
export function unprovisionableResources(
  plan: StackPlan,
  canProvision: (resourceType: string) => boolean,
): Unprovisionable[] {
  return [...planLevels(plan, undefined)].flatMap((level) =>
    level.plan.resources
      .filter((r) => r.action !== 'NO_CHANGE' && r.action !== 'DELETE' && !canProvision(r.resourceType))
      .map((r) => {
        const [reason, remedy] = unprovisionableReason(r.resourceType);
        return {
          logicalId: nestedResourceName(plan.stackName, level, r.logicalId),
          resourceType: r.resourceType,
          reason,
          remedy,
        };
      }),
  );
}

/** Why a type nothing can provision is refused, and the remedy. */
export function unprovisionableReason(type: string): [reason: string, remedy: string] {
  if (CLOUD_CONTROL_CANNOT_PROVISION.has(type)) {
    return [
      'CloudFormation runs this type itself: Cloud Control cannot provision it, and no provider pack registers it',
      `Remove it from the stack (a ${type.split('::')[2]} has no meaning outside CloudFormation), or deploy this stack with the CDK CLI.`,
    ];
  }
  if (/^(AWS|Alexa)::/.test(type)) {
    return [
      "it is not a type in AWS's CloudFormation catalogue that cdkd knows, and no provider pack registers it",
      'Check the spelling; a type newer than cdkd needs a newer cdkd, or a provider pack that registers it.',
    ];
  }
  return [
    "it is not in AWS's CloudFormation catalogue, so only a provider pack that brings its schema can provision it, and none registers it",
    'Declare the pack that provides this type under packs in cdk.json (or the cdkd config file) and run `cdkd packs install`; `cdkd providers` lists what is registered.',
  ];
}
