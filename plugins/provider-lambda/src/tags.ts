/** Template tags (`[{ Key, Value }]`) and the changes that take a resource from one set to another. */
import { isOwnershipTag } from './ownership';

export function tagMap(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(tags))
    for (const t of tags as Array<{ Key?: unknown; Value?: unknown }>)
      if (typeof t?.Key === 'string') out[t.Key] = t.Value === undefined ? '' : String(t.Value);
  return out;
}

/**
 * Tags to set and keys to remove. Keys the template never set are left
 * alone, cdkd's ownership tags and AWS's own (`aws:`) among them.
 */
export function tagChanges(
  desired: Record<string, string>,
  previous: Record<string, string>,
): { toSet: Record<string, string>; toRemove: string[] } {
  const toSet: Record<string, string> = {};
  for (const [key, value] of Object.entries(desired)) if (previous[key] !== value) toSet[key] = value;
  const toRemove = Object.keys(previous).filter((key) => !(key in desired) && !isOwnershipTag(key));
  return { toSet, toRemove };
}

/** Tags read from AWS, as the template writes them (cdkd's and AWS's own left out), sorted. */
export function templateTags(
  tags: Record<string, string> | undefined,
): Array<{ Key: string; Value: string }> {
  return Object.entries(tags ?? {})
    .filter(([key]) => !isOwnershipTag(key) && !key.startsWith('aws:'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([Key, Value]) => ({ Key, Value }));
}
