/**
 * Resources no installed provider pack and no Cloud Control schema can
 * provision (custom resources, nested stacks, misspelt types): one rule, used
 * by deploy to refuse a stack before anything is locked or changed, and by diff
 * to flag them.
 */
import type { StackPlan } from '../plan/types';
import type { ProviderRegistry } from '../provisioning/provider-registry';
import type { SchemaStore } from '../provisioning/schema-store';
import { CdkdError } from '../util/errors';

export interface Unprovisionable {
  logicalId: string;
  resourceType: string;
  /** Why cdkd cannot deploy it. */
  reason: string;
}

/** The remedy for every {@link Unprovisionable} resource. */
export const UNPROVISIONABLE_REMEDY =
  'Remove these resources from the stack, install a provider pack that registers their types (cdkd plugins install), or deploy this stack with the CDK CLI.';

/** True when an installed pack registers the type, or Cloud Control can be asked to (the type has a schema). */
export function canProvisionWith(
  registry: Pick<ProviderRegistry, 'registrationFor'>,
  schemas: Pick<SchemaStore, 'has'>,
): (resourceType: string) => boolean {
  return (type) => registry.registrationFor(type) !== undefined || schemas.has(type);
}

/** The resources of `plan` that would be created or updated and that cdkd cannot provision. */
export function unprovisionableResources(
  plan: StackPlan,
  canProvision: (resourceType: string) => boolean,
): Unprovisionable[] {
  return plan.resources
    .filter((r) => r.action !== 'NO_CHANGE' && r.action !== 'DELETE' && !canProvision(r.resourceType))
    .map((r) => ({ logicalId: r.logicalId, resourceType: r.resourceType, reason: whyNot(r.resourceType) }));
}

function whyNot(type: string): string {
  if (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource')
    return 'custom resources are not supported by this version of cdkd yet';
  if (type === 'AWS::CloudFormation::Stack')
    return 'nested stacks are not supported by this version of cdkd yet';
  return 'no provider pack handles it and it is not a CloudFormation resource type cdkd knows';
}

/** Refuses, before anything is locked or changed, a stack with resources cdkd cannot provision. */
export function assertProvisionable(
  plan: StackPlan,
  canProvision: (resourceType: string) => boolean,
  stackName: string,
): void {
  const missing = unprovisionableResources(plan, canProvision);
  if (missing.length === 0) return;
  throw new CdkdError(
    `${stackName} cannot be deployed: ${missing.map((r) => `${r.logicalId} (${r.resourceType}): ${r.reason}`).join('; ')}. Nothing was changed.`,
    { code: 'UNSUPPORTED_RESOURCE_TYPE', remedy: UNPROVISIONABLE_REMEDY },
  );
}
