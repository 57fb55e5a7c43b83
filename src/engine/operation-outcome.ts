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
export function createdPhysicalIdOf(err: unknown): string | undefined {
  return createdResourceOf(err)?.physicalId;
}

/**
 * What the provider proved its create made before failing: the physical id and,
 * when the same error reports one, its identity (`createdIdentity`, plugin API
 * 1.3). An identity that is not a map of strings is ignored, as if absent.
 */
export function createdResourceOf(
  err: unknown,
  depth = 0,
): { physicalId: string; identity?: Record<string, string> } | undefined {
  if (typeof err !== 'object' || err === null || depth > 5) return undefined;
  const id = (err as { createdPhysicalId?: unknown }).createdPhysicalId;
  if (typeof id === 'string' && id !== '') {
    const identity = identityOf((err as { createdIdentity?: unknown }).createdIdentity);
    return { physicalId: id, ...(identity ? { identity } : {}) };
  }
  return createdResourceOf((err as { cause?: unknown }).cause, depth + 1);
}

/** A provider's identity (plugin API `ResourceIdentity`) as state stores it, or undefined when malformed or empty. */
export function identityOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || entries.some(([, v]) => typeof v !== 'string')) return undefined;
  return Object.fromEntries(entries) as Record<string, string>;
}
