import type { ProviderContext, ProviderErrorResource } from '@cdkd/plugin-api';

/** The AWS error name of an SDK error (`ResourceNotFoundException`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const name = (err as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

export function isNotFound(err: unknown): boolean {
  return errorName(err) === 'ResourceNotFoundException';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An EventBridge failure as the provisioning error cdkd reports. Not retryable:
 * the SDK has already retried transport errors, throttling and 5xx answers.
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
    `EventBridge ${name ? `${name} ` : ''}while ${doing}: ${errorMessage(err)}`,
    {
      cause: err,
      resource,
    },
  );
}

/** The name is taken by a resource this create did not provably make. */
export function existsError(
  ctx: ProviderContext,
  what: string,
  logicalId: string,
  resourceType: string,
  verdict: 'same-resource' | 'foreign',
  remedy: string,
): Error {
  const whose =
    verdict === 'same-resource' ? 'made by an earlier create of this resource' : 'not made by this stack';
  const Exists = ctx.errors.ResourceExistsError ?? ctx.errors.ProvisioningError;
  return new Exists(`${logicalId}: ${what} already exists in ${ctx.region}, ${whose}.`, {
    resource: { logicalId, resourceType },
    remedy,
  });
}
