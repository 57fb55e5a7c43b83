/**
 * Tags: the CloudFormation `Tags` list as a map, the calls that turn one tag
 * set into another, and the ownership tags (`cdkd:*`) a template never
 * carries and an update must keep.
 */

const OWNERSHIP_PREFIX = 'cdkd:';

/** CloudFormation `Tags` (`[{ Key, Value }]`) as a map. */
export function tagMap(tags: unknown): Record<string, string> {
  const map: Record<string, string> = {};
  if (!Array.isArray(tags)) return map;
  for (const tag of tags) {
    if (tag && typeof tag === 'object' && typeof (tag as { Key?: unknown }).Key === 'string') {
      const { Key, Value } = tag as { Key: string; Value?: unknown };
      map[Key] = Value === undefined || Value === null ? '' : String(Value);
    }
  }
  return map;
}

/** A map as the `[{ Key, Value }]` list SNS and EventBridge take. */
export function tagList(tags: Record<string, string>): Array<{ Key: string; Value: string }> {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

/** What to tag and untag to go from the previous template tags to the desired ones (others are left alone). */
export function tagChanges(
  desired: Record<string, string>,
  previous: Record<string, string>,
): { toSet: Record<string, string>; toRemove: string[] } {
  const toSet: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired)) if (previous[k] !== v) toSet[k] = v;
  return { toSet, toRemove: Object.keys(previous).filter((k) => !(k in desired)) };
}

/** Tags read from AWS as a sorted CloudFormation list, without cdkd's ownership tags. */
export function templateTags(tags: ReadonlyArray<{ Key?: string; Value?: string }> | undefined) {
  return (tags ?? [])
    .filter((t) => t.Key !== undefined && !t.Key.startsWith(OWNERSHIP_PREFIX))
    .map((t) => ({ Key: t.Key!, Value: t.Value ?? '' }))
    .sort((a, b) => (a.Key < b.Key ? -1 : a.Key > b.Key ? 1 : 0));
}
