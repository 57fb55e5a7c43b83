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
