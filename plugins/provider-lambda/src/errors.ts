/** Lambda's errors as the SDK surfaces them, and the errors this pack throws. */
import type { ProviderContext } from '@cdkd/plugin-api';

/** The AWS error name of an SDK error (`ResourceNotFoundException`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; Code?: unknown };
  return typeof e.name === 'string' ? e.name : typeof e.Code === 'string' ? e.Code : '';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function isNotFound(err: unknown): boolean {
  return errorName(err) === 'ResourceNotFoundException';
}

/**
 * IAM is eventually consistent: right after a role (or a policy on it) is
 * made, Lambda may not yet be able to assume it or see its permissions, and
 * says so with these InvalidParameterValueException messages (Lambda
 * CreateFunction / UpdateFunctionConfiguration errors). Worth a few more tries.
 */
export function isIamPropagation(err: unknown): boolean {
  return (
    errorName(err) === 'InvalidParameterValueException' &&
    /cannot be assumed by Lambda|execution role does not have permissions to call/i.test(errorMessage(err))
  );
}

/** The bounded retry of IAM propagation: about a minute in all (AWS: usually seconds). */
export const IAM_PROPAGATION_RETRY = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 10_000 };

/** Lambda refuses a change while the function is still being created or updated. */
export function isUpdateInProgress(err: unknown): boolean {
  return (
    errorName(err) === 'ResourceConflictException' &&
    /update is in progress|in the following state: Pending/.test(errorMessage(err))
  );
}

/** An error about one resource, naming the AWS error and what was being done. */
export function provisioningError(
  ctx: ProviderContext,
  err: unknown,
  doing: string,
  resource: { logicalId?: string; resourceType: string; physicalId?: string },
): Error {
  if (ctx.errors.isCdkdError(err)) return err as Error;
  const name = errorName(err);
  return new ctx.errors.ProvisioningError(
    `Lambda ${name ? `${name} ` : ''}while ${doing}: ${errorMessage(err)}`,
    {
      cause: err,
      resource,
      retryable: ctx.isTransientError(err),
    },
  );
}

/** "Exists and is not provably this create's": ResourceExistsError where cdkd has it. */
export function resourceExists(
  ctx: ProviderContext,
  message: string,
  resource: { logicalId?: string; resourceType: string; physicalId?: string },
  cause?: unknown,
): Error {
  const Type = ctx.errors.ResourceExistsError ?? ctx.errors.ProvisioningError;
  return new Type(message, { cause, resource });
}
