/** Reading IAM's errors as the SDK surfaces them (query protocol: class name `...Exception`, `Code` the wire code). */

/** The AWS error name of an SDK error (`NoSuchEntityException`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; Code?: unknown };
  return typeof e.name === 'string' ? e.name : typeof e.Code === 'string' ? e.Code : '';
}

function is(err: unknown, code: string): boolean {
  const name = errorName(err);
  const wire = typeof err === 'object' && err !== null ? (err as { Code?: unknown }).Code : undefined;
  return name === code || name === `${code}Exception` || wire === code;
}

/** The entity (or the inline policy, key, membership) does not exist. */
export const isNoSuchEntity = (err: unknown): boolean => is(err, 'NoSuchEntity');
export const isEntityAlreadyExists = (err: unknown): boolean => is(err, 'EntityAlreadyExists');
/** IAM's answer to simultaneous changes of one entity; documented as safe to retry. */
export const isConcurrentModification = (err: unknown): boolean => is(err, 'ConcurrentModification');
export const isDeleteConflict = (err: unknown): boolean => is(err, 'DeleteConflict');
export const isLimitExceeded = (err: unknown): boolean => is(err, 'LimitExceeded');

/** How many attempts the SDK made for the call that failed or answered (1 when unknown). */
export function sdkAttempts(value: unknown): number {
  const attempts = (value as { $metadata?: { attempts?: unknown } } | undefined)?.$metadata?.attempts;
  return typeof attempts === 'number' ? attempts : 1;
}
