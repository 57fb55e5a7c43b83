/**
 * Tags of event buses and rules: the template's tags as a map, their
 * reconciliation on update (one place for both types), and tags read back.
 */
import {
  TagResourceCommand,
  UntagResourceCommand,
  type EventBridgeClient,
} from '@aws-sdk/client-eventbridge';

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

/**
 * Brings a bus's or rule's tags from the previous template's to the new one's:
 * UntagResource for removed keys, TagResource for added or changed ones, no call
 * when nothing changed. cdkd's ownership tags are in neither map, so they stay.
 */
export async function reconcileTags(
  client: EventBridgeClient,
  arn: string,
  tags: unknown,
  previousTags: unknown,
  abortSignal: AbortSignal | undefined,
): Promise<void> {
  const { set, remove } = tagUpdates(tagMap(tags), tagMap(previousTags));
  if (remove.length)
    await client.send(new UntagResourceCommand({ ResourceARN: arn, TagKeys: remove }), { abortSignal });
  if (set.length) await client.send(new TagResourceCommand({ ResourceARN: arn, Tags: set }), { abortSignal });
}
