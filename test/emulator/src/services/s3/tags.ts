/** Tag sets: the `x-amz-tagging` header and `<Tagging>` documents. */
import { AwsError } from '../../core/errors';
import { parseXml } from '../../core/xml';
import { s3Errors } from './errors';
import type { Tag } from './store';

export function parseTaggingHeader(value: string | undefined): Tag[] {
  if (!value) return [];
  return [...new URLSearchParams(value)].map(([Key, Value]) => ({ Key, Value }));
}

export function parseTagging(body: Buffer): Tag[] {
  const doc = parseXml(body)?.Tagging as Record<string, unknown> | undefined;
  if (!doc) throw s3Errors.malformedXml();
  const tagSet = doc.TagSet as Record<string, unknown> | string | undefined;
  const tags =
    (tagSet && typeof tagSet === 'object'
      ? (tagSet.Tag as Array<Record<string, unknown>> | undefined)
      : undefined) ?? [];
  const seen = new Set<string>();
  return tags.map((t) => {
    const Key = String(t.Key ?? '');
    if (seen.has(Key))
      throw new AwsError('InvalidTag', 'Cannot provide multiple Tags with the same key', 400, {
        TagKey: Key,
      });
    seen.add(Key);
    return { Key, Value: String(t.Value ?? '') };
  });
}
