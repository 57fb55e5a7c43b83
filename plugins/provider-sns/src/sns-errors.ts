import type { ProviderContext, ProviderErrorResource } from '@cdkd/plugin-api';

/** The AWS error code of an SDK error (`NotFound`, `InvalidParameter`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; Code?: unknown };
  // The query protocol's code (`NotFound`) is `Code`; `name` is the modelled class (`NotFoundException`).
  if (typeof e.Code === 'string') return e.Code;
  return typeof e.name === 'string' ? e.name.replace(/Exception$/, '') : '';
}

/** The topic or subscription does not exist. */
export function isNotFound(err: unknown): boolean {
  const name = errorName(err);
  return name === 'NotFound' || name === 'ResourceNotFound';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** CreateTopic's answer for a name whose topic has other attributes or tags (SNS API reference). */
export function isTopicExists(err: unknown): boolean {
  return errorName(err) === 'InvalidParameter' && /already exists with different/.test(errorMessage(err));
}

/**
 * An SNS failure as the provisioning error cdkd reports: the AWS code, what was
 * being done, the resource. Not retryable: the SDK has already retried transport
 * errors, throttling and 5xx answers.
 */
export function provisioningError(
  ctx: ProviderContext,
  err: unknown,
  doing: string,
  resource: ProviderErrorResource,
): Error {
  if (ctx.errors.isCdkdError(err)) return err as Error;
  const name = errorName(err);
  return new ctx.errors.ProvisioningError(
    `SNS ${name ? `${name} ` : ''}while ${doing}: ${errorMessage(err)}`,
    {
      cause: err,
      resource,
    },
  );
}

/** A resource exists that this create did not provably make (`ResourceExistsError`, or the generic error in an older cdkd). */
export function existsError(
  ctx: ProviderContext,
  message: string,
  remedy: string,
  resource: ProviderErrorResource,
): Error {
  const Exists = ctx.errors.ResourceExistsError ?? ctx.errors.ProvisioningError;
  return new Exists(message, { resource, remedy });
}
