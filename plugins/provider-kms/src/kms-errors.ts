/** KMS errors as cdkd provisioning errors, naming the AWS error, the resource and, where known, the remedy. */
import type { ProviderContext, ProviderErrorResource } from '@cdkd/plugin-api';

export function errorName(err: unknown): string {
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '';
}

const REMEDIES: Record<string, string> = {
  MalformedPolicyDocumentException:
    'Check the KeyPolicy: it must be valid JSON, and (unless BypassPolicyLockoutSafetyCheck is true) let the deploying principal manage the key.',
  KMSInvalidStateException:
    'The key is in a state that forbids this change (disabled, pending deletion or import): fix its state, then re-run.',
  UnsupportedOperationException:
    'Automatic rotation needs a symmetric key with Origin AWS_KMS; remove EnableKeyRotation for other keys.',
  AlreadyExistsException:
    'Give the alias another AliasName, delete the existing alias, or import it into the stack.',
};

export function kmsError(
  ctx: ProviderContext,
  err: unknown,
  doing: string,
  resource: ProviderErrorResource,
  createdPhysicalId?: string,
): Error {
  if (ctx.errors.isCdkdError(err)) return err as Error;
  const name = errorName(err);
  const message = err instanceof Error ? err.message : String(err);
  const remedy = REMEDIES[name];
  return new ctx.errors.ProvisioningError(`KMS ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
    cause: err,
    ...(remedy ? { remedy } : {}),
    resource,
    retryable: ctx.isTransientError(err),
    ...(createdPhysicalId ? { createdPhysicalId } : {}),
  });
}
