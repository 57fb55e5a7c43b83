/**
 * Which provider created or updated each resource of a run: the deploy's
 * closing "N by SDK packs, M by Cloud Control" line and its `--json` figures.
 */
import type { RoutedProvider } from './provisioner';

/** How a run's created and updated resources were provisioned. */
export interface ProvisioningRoutes {
  /** Resources per provider pack (npm package name). */
  sdk: Record<string, number>;
  /** Resources per type that went to Cloud Control. */
  cloudControl: Record<string, number>;
}

export class RouteTally {
  /** The last provider per resource: a resource created then updated in one run counts once. */
  private readonly byResource = new Map<string, { resourceType: string; pack?: string }>();

  record(stackName: string, logicalId: string, resourceType: string, routed: RoutedProvider): void {
    // A nested stack is no provider's resource: its child's resources are counted one by one.
    if (routed.decision.route === 'engine') return;
    this.byResource.set(`${stackName}\u0000${logicalId}`, {
      resourceType,
      pack: routed.decision.route === 'sdk' ? routed.decision.packName : undefined,
    });
  }

  routes(): ProvisioningRoutes {
    const sdk: Record<string, number> = {};
    const cloudControl: Record<string, number> = {};
    for (const { resourceType, pack } of this.byResource.values()) {
      if (pack) sdk[pack] = (sdk[pack] ?? 0) + 1;
      else cloudControl[resourceType] = (cloudControl[resourceType] ?? 0) + 1;
    }
    return { sdk, cloudControl };
  }
}
