/**
 * The region guard every provider runs before treating `*NotFound` as "already
 * deleted" (and, optionally, before an update or delete call): a run pointed at
 * the wrong region would otherwise get `NotFound` for every resource and
 * silently drop them all from state while they live on in the real region.
 */
import type { RegionCheckPhase } from '../plugin-api';
import { ProvisioningError } from '../util/errors';

/**
 * Throws a {@link ProvisioningError} when `clientRegion` differs from
 * `expectedRegion` (the region recorded in state). A no-op when
 * `expectedRegion` is undefined. The phase only changes the wording.
 */
export function assertRegionMatch(
  clientRegion: string | undefined,
  expectedRegion: string | undefined,
  resourceType: string,
  logicalId: string,
  physicalId: string,
  phase: RegionCheckPhase = 'not-found',
): void {
  if (expectedRegion === undefined) return;
  if (clientRegion === expectedRegion) return;
  const where = clientRegion ? `region ${clientRegion}` : 'an unknown region';
  const what = `${logicalId} (${resourceType}, ${physicalId})`;
  const message =
    phase === 'not-found'
      ? `${what} was not found in ${where}, but state records it in ${expectedRegion}; refusing to treat it as already deleted.`
      : `Refusing to ${phase === 'pre-delete' ? 'delete' : 'update'} ${what} through ${where}: state records it in ${expectedRegion}.`;
  throw new ProvisioningError(message, {
    code: 'REGION_MISMATCH',
    remedy: `Re-run with --region ${expectedRegion} (or the matching AWS_REGION / profile).`,
    resource: { logicalId, resourceType, physicalId },
    retryable: false,
  });
}
