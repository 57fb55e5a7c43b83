/**
 * Classifying S3 errors as the SDK v3 reports them: `name` carries the S3 error
 * code (`PreconditionFailed`, `NoSuchKey`...) and `$metadata.httpStatusCode` the
 * status. A response without an XML body (HEAD, some 501s) only has the status.
 */

/** The S3 error code (`NoSuchKey`, `AccessDenied`...), or undefined for a non-AWS error. */
export function s3ErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { Code?: unknown; name?: unknown };
  if (typeof e.Code === 'string') return e.Code;
  if (typeof e.name === 'string') return e.name;
  return undefined;
}

/** The HTTP status of a failed AWS call, if it had one. */
export function httpStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const status = (err as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** 412: an `If-Match` / `If-None-Match` condition did not hold. */
export function isPreconditionFailed(err: unknown): boolean {
  return httpStatus(err) === 412 || s3ErrorCode(err) === 'PreconditionFailed';
}

/** 409 ConditionalRequestConflict: a concurrent conditional operation on the key; AWS says retry. */
export function isConditionalConflict(err: unknown): boolean {
  return s3ErrorCode(err) === 'ConditionalRequestConflict' || httpStatus(err) === 409;
}

/** The bucket does not exist. */
export function isNoSuchBucket(err: unknown): boolean {
  return s3ErrorCode(err) === 'NoSuchBucket';
}

/** The object (or version) does not exist; never true for a missing bucket. */
export function isNoSuchKey(err: unknown): boolean {
  if (isNoSuchBucket(err)) return false;
  const code = s3ErrorCode(err);
  return code === 'NoSuchKey' || code === 'NotFound' || (code !== 'NoSuchVersion' && httpStatus(err) === 404);
}

export function isAccessDenied(err: unknown): boolean {
  const code = s3ErrorCode(err);
  return code === 'AccessDenied' || code === 'Forbidden' || httpStatus(err) === 403;
}

/** `Code: message` of an AWS error, or the message of anything else. */
export function describeAwsError(err: unknown): string {
  const code = s3ErrorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  if (!code || code === 'Error' || message.startsWith(code)) return message || code || 'unknown error';
  return message ? `${code}: ${message}` : code;
}
