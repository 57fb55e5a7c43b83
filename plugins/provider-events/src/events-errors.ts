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

/** A template's `Tags` (`[{ Key, Value }]`) as a map. */
export function tagMap(tags: unknown): Record<string, string> {
  const map: Record<string, string> = {};
  for (const tag of Array.isArray(tags) ? tags : []) {
    const { Key, Value } = (tag ?? {}) as { Key?: unknown; Value?: unknown };
    if (typeof Key === 'string') map[Key] = Value === undefined || Value === null ? '' : String(Value);
  }
  return map;
}

/** TagResource / UntagResource inputs between two template tag maps (cdkd's ownership tags are never in either). */
export function tagUpdates(desired: Record<string, string>, previous: Record<string, string>) {
  const set = Object.entries(desired)
    .filter(([k, v]) => previous[k] !== v)
    .map(([Key, Value]) => ({ Key, Value }));
  return { set, remove: Object.keys(previous).filter((k) => !(k in desired)) };
}

/** Tags read from AWS, sorted, without cdkd's ownership tags (`cdkd:*`). */
export function readTags(tags: ReadonlyArray<{ Key?: string; Value?: string }> | undefined) {
  return (tags ?? [])
    .filter((t) => t.Key && !t.Key.startsWith('cdkd:'))
    .map((t) => ({ Key: t.Key!, Value: t.Value ?? '' }))
    .sort((a, b) => a.Key.localeCompare(b.Key));
}
