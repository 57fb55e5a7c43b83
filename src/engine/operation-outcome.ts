/**
 * What a failed provider call says about AWS: a definitive failure (the service
 * refused the request, or the provider proved nothing was made) or an outcome in
 * doubt (the call may have taken effect: it was aborted, timed out, lost its
 * connection, or kept meeting throttling or 5xx answers after the SDK's
 * retries). An intent whose call failed in doubt stays pending, and the next run
 * settles it by re-sending it with the same token.
 */
import { CdkdError } from '../util/errors';
import { isTransientAwsError } from '../util/retry';

/** An abort from an AbortSignal (SDK calls and cdkd's sleeps throw these). */
export function isAbortError(err: unknown): boolean {
  const name = (err as { name?: unknown })?.name;
  return name === 'AbortError' || (err as { code?: unknown })?.code === 'ABORT_ERR';
}

/** True when a failed call may still have taken effect. */
export function isInDoubt(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  if (isAbortError(err)) return true;
  if (CdkdError.isCdkdError(err)) {
    if ((err as { code?: string }).code === 'RESOURCE_ALREADY_EXISTS') return false;
    if ((err as { inDoubt?: unknown }).inDoubt === true) return true;
    if ((err as { retryable?: unknown }).retryable === true) return true;
    return isInDoubt((err as { cause?: unknown }).cause, depth + 1);
  }
  if (isTransientAwsError(err)) return true;
  return (err as { $fault?: unknown }).$fault === 'server';
}

/** A physical id the provider proved its create made before failing (see `ProvisioningErrorOptions.createdPhysicalId`). */
export function createdPhysicalIdOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 5) return undefined;
  const id = (err as { createdPhysicalId?: unknown }).createdPhysicalId;
  if (typeof id === 'string' && id !== '') return id;
  return createdPhysicalIdOf((err as { cause?: unknown }).cause, depth + 1);
}
