import type { ProviderContext, ProviderErrorResource } from '@cdkd/plugin-api';

/** S3 error names as the SDK reports them. */

/** The AWS error name of an SDK error (`NoSuchBucket`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; Code?: unknown };
  return typeof e.Code === 'string' ? e.Code : typeof e.name === 'string' ? e.name : '';
}

export function isNoSuchBucket(err: unknown): boolean {
  const name = errorName(err);
  return name === 'NoSuchBucket' || name === 'NotFound';
}

/** A response header of a failed call (`x-amz-bucket-region` on a 409 or 301). */
export function responseHeader(err: unknown, name: string): string | undefined {
  const headers = (err as { $response?: { headers?: Record<string, string> } } | null)?.$response?.headers;
  if (!headers) return undefined;
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
  return found?.[1];
}

/** S3 answers a conflicting configuration call on the same bucket with OperationAborted; retrying is documented. */
export function isRetryableBucketConflict(err: unknown): boolean {
  return errorName(err) === 'OperationAborted';
}

/** An S3 error as cdkd's provisioning error: the AWS error name, what was being done, and the remedy. */
export function s3Failure(
  ctx: ProviderContext,
  err: unknown,
  doing: string,
  resource: ProviderErrorResource,
  remedy?: string,
): Error {
  if (ctx.errors.isCdkdError(err)) return err as Error;
  const name = errorName(err);
  const message = err instanceof Error ? err.message : String(err);
  return new ctx.errors.ProvisioningError(`S3 ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
    cause: err,
    resource,
    retryable: ctx.isTransientError(err),
    ...(remedy ? { remedy } : {}),
  });
}

/** A name or identity collision: ResourceExistsError (ProvisioningError in cdkd versions without it). */
export function alreadyExists(
  ctx: ProviderContext,
  message: string,
  resource: ProviderErrorResource,
  remedy: string,
  cause?: unknown,
): Error {
  const ErrorClass = ctx.errors.ResourceExistsError ?? ctx.errors.ProvisioningError;
  return new ErrorClass(message, { cause, resource, remedy });
}
