/**
 * IAM's input validation, worded as IAM words it: a member that breaks its
 * model constraint is `ValidationError` ("1 validation error detected: ..."),
 * a semantic problem is `InvalidInput`, and list paging follows IAM's
 * `Marker` / `MaxItems` / `IsTruncated` convention.
 */
import { AwsError } from '../../core/errors';
import type { Tag } from './store';

export type Input = Record<string, unknown>;

/** `[\w+=,.@-]+`: the characters of role, user, group, instance profile and policy names. */
const NAME = /^[\w+=,.@-]+$/;
/** IAM's path: `/` or `/a/b/` of printable ASCII. */
const PATH = /^(\/|\/[\u0021-\u007e]+\/)$/;

export function validationError(member: string, value: unknown, constraint: string): AwsError {
  return new AwsError(
    'ValidationError',
    `1 validation error detected: Value '${String(value)}' at '${member}' failed to satisfy constraint: ${constraint}`,
    400,
  );
}

/** A required string member. */
export function required(input: Input, name: string, member = lowerFirst(name)): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw new AwsError(
      'ValidationError',
      `1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`,
      400,
    );
  }
  return value;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/** A name member: `[\w+=,.@-]+` within `max` characters. */
export function checkName(value: string, member: string, max: number): string {
  if (value.length > max)
    throw validationError(member, value, `Member must have length less than or equal to ${max}`);
  if (!NAME.test(value))
    throw validationError(member, value, 'Member must satisfy regular expression pattern: [\\w+=,.@-]+');
  return value;
}

/** The `Path` member (default `/`). */
export function checkPath(value: unknown, member = 'path'): string {
  if (value === undefined) return '/';
  const path = String(value);
  if (path.length > 512)
    throw validationError(member, path, 'Member must have length less than or equal to 512');
  if (!PATH.test(path))
    throw validationError(
      member,
      path,
      'Member must satisfy regular expression pattern: (\\u002F)|(\\u002F[\\u0021-\\u007E]+\\u002F)',
    );
  return path;
}

/** A description: at most 1000 characters. */
export function checkDescription(value: unknown, member = 'description'): string | undefined {
  if (value === undefined) return undefined;
  const description = String(value);
  if (description.length > 1000)
    throw validationError(member, description, 'Member must have length less than or equal to 1000');
  return description;
}

const TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/** Tags of a create or a Tag* call: at most 50, keys 1–128, values 0–256, no `aws:` prefix, no duplicates. */
export function checkTags(value: unknown, existing: Tag[] = []): Tag[] {
  if (value === undefined) return [];
  const tags = (value as Array<{ Key?: unknown; Value?: unknown }>).map((t) => ({
    Key: String(t.Key ?? ''),
    Value: String(t.Value ?? ''),
  }));
  const seen = new Set<string>();
  for (const tag of tags) {
    if (tag.Key.length < 1 || tag.Key.length > 128 || !TAG_CHARS.test(tag.Key))
      throw validationError(
        'tags.member.key',
        tag.Key,
        'Member must satisfy regular expression pattern: [\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]+',
      );
    if (tag.Value.length > 256 || !TAG_CHARS.test(tag.Value))
      throw validationError(
        'tags.member.value',
        tag.Value,
        'Member must satisfy regular expression pattern: [\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*',
      );
    if (tag.Key.toLowerCase().startsWith('aws:'))
      throw new AwsError('InvalidInput', `User-defined tags cannot start with "aws:" (tag key ${tag.Key}).`);
    if (seen.has(tag.Key))
      throw new AwsError(
        'InvalidInput',
        'Duplicate tag keys found. Please note that Tag keys are case insensitive.',
      );
    seen.add(tag.Key);
  }
  const merged = mergeTags(existing, tags);
  if (merged.length > 50)
    throw new AwsError('LimitExceeded', 'The number of tags has reached the maximum limit.');
  return tags;
}

/** `existing` with `added` applied (a key is replaced in place). */
export function mergeTags(existing: Tag[], added: Tag[]): Tag[] {
  const out = existing.map((t) => ({ ...t }));
  for (const tag of added) {
    const same = out.find((t) => t.Key === tag.Key);
    if (same) same.Value = tag.Value;
    else out.push({ ...tag });
  }
  return out;
}

/** `existing` without the keys of an Untag* call. */
export function removeTags(existing: Tag[], keys: unknown): Tag[] {
  const drop = new Set((keys as string[] | undefined) ?? []);
  return existing.filter((t) => !drop.has(t.Key));
}

/** A page of a list in IAM's convention. */
export interface Page<T> {
  items: T[];
  IsTruncated: boolean;
  Marker?: string;
}

/** Pages `items` by `Marker` (an opaque offset) and `MaxItems` (1–1000, default 100). */
export function paginate<T>(items: T[], input: Input): Page<T> {
  const maxItems = input.MaxItems === undefined ? 100 : Number(input.MaxItems);
  if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > 1000)
    throw validationError(
      'maxItems',
      input.MaxItems,
      maxItems < 1
        ? 'Member must have value greater than or equal to 1'
        : 'Member must have value less than or equal to 1000',
    );
  let start = 0;
  if (input.Marker !== undefined) {
    const decoded = /^m(\d+)$/.exec(Buffer.from(String(input.Marker), 'base64url').toString('utf8'));
    if (!decoded) throw new AwsError('InvalidInput', 'Invalid Marker.');
    start = Number(decoded[1]);
  }
  const end = start + maxItems;
  const truncated = end < items.length;
  return {
    items: items.slice(start, end),
    IsTruncated: truncated,
    Marker: truncated ? Buffer.from(`m${end}`, 'utf8').toString('base64url') : undefined,
  };
}

/** Items under `PathPrefix` (default `/`). */
export function underPath<T extends { path: string }>(items: T[], prefix: unknown): T[] {
  const p = prefix === undefined ? '/' : String(prefix);
  return items.filter((i) => i.path.startsWith(p));
}

/** Sorted the way IAM lists entities: by name, case-insensitively. */
export function byName<T extends { name: string }>(items: T[]): T[] {
  return [...items].sort((a, b) =>
    a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0,
  );
}

/** Dates are kept as ISO strings; the codec wants `Date`s. */
export function date(iso: string): Date {
  return new Date(iso);
}
