/** The AWS error name of an SDK error (`QueueDoesNotExist`), or `''`. */
export function errorName(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; Code?: unknown };
  return typeof e.name === 'string' ? e.name : typeof e.Code === 'string' ? e.Code : '';
}

/** The queue does not exist (the JSON protocol's name, or the query protocol's code). */
export function isQueueNotFound(err: unknown): boolean {
  const name = errorName(err);
  const code = typeof err === 'object' && err !== null ? (err as { Code?: unknown }).Code : undefined;
  return (
    name === 'QueueDoesNotExist' ||
    name === 'AWS.SimpleQueueService.NonExistentQueue' ||
    code === 'AWS.SimpleQueueService.NonExistentQueue'
  );
}
