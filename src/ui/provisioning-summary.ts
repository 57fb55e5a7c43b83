/**
 * The deploy's closing line on how its resources were provisioned, and which
 * first-party packs, not installed, would have taken the Cloud Control ones.
 */
import type { ProvisioningRoutes } from '../engine/route-tally';
import { firstPartyInstallHint, firstPartyPackFor } from '../packs/first-party';
import type { FirstPartyPack } from '../packs/first-party';

export interface ProvisioningSummaryOptions {
  /** True when a pack registers the type in this invocation. */
  registered: (resourceType: string) => boolean;
  /** `--cloud-control-only`: no hints, the Cloud Control path was asked for. */
  cloudControlOnly: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

function listed(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}

/** The summary lines; none when the run provisioned nothing. */
export function renderProvisioningSummary(
  routes: ProvisioningRoutes,
  options: ProvisioningSummaryOptions,
): string[] {
  const bySdk = sum(routes.sdk);
  const byCloudControl = sum(routes.cloudControl);
  if (bySdk + byCloudControl === 0) return [];
  const parts = [
    `${bySdk} by SDK packs${bySdk ? ` (${listed(routes.sdk)})` : ''}`,
    `${byCloudControl} by Cloud Control${options.cloudControlOnly ? ' (--cloud-control-only)' : ''}`,
  ];
  const lines = [`Provisioned ${plural(bySdk + byCloudControl, 'resource')}: ${parts.join(', ')}.`];
  if (options.cloudControlOnly) return lines;
  const wouldTake = new Map<FirstPartyPack, Record<string, number>>();
  for (const [type, n] of Object.entries(routes.cloudControl)) {
    const pack = firstPartyPackFor(type);
    if (!pack || options.registered(type)) continue;
    const counts = wouldTake.get(pack) ?? {};
    counts[type] = n;
    wouldTake.set(pack, counts);
  }
  for (const [pack, counts] of [...wouldTake].sort(([a], [b]) => (a.name < b.name ? -1 : 1))) {
    lines.push(
      `${pack.name} would provision ${sum(counts)} of them faster (${Object.keys(counts).sort().join(', ')}): ${firstPartyInstallHint(pack)}`,
    );
  }
  return lines;
}
