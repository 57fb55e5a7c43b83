/**
 * EC2's `Filters` and pagination, as the Describe* calls document them:
 * filters are ANDed, the values of one filter ORed, values may hold the `*`
 * and `?` wildcards, `tag:<key>` matches a tag's value and `tag-key` a tag's
 * presence. An unknown filter name is an `InvalidParameterValue`.
 */
import { AwsError } from '../../core/errors';

export interface Filter {
  Name?: string;
  Values?: string[];
}

export interface Tag {
  Key?: string;
  Value?: string;
}

/** What a filter reads from an item: one value, several (any may match), or none. */
export type FilterValue =
  string | boolean | number | undefined | readonly (string | boolean | number | undefined)[];

/** Filter name → what it reads from an item. */
export type FilterFields<T> = Record<string, (item: T) => FilterValue>;

function wildcard(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 's');
}

function matches(value: FilterValue, patterns: RegExp[]): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => v !== undefined && patterns.some((p) => p.test(String(v))));
}

/** Keeps the items every filter matches; tags are read through `tags`. */
export function applyFilters<T>(
  items: T[],
  filters: Filter[] | undefined,
  fields: FilterFields<T>,
  tags: (item: T) => Tag[] | undefined,
): T[] {
  let out = items;
  for (const filter of filters ?? []) {
    const name = filter.Name ?? '';
    const patterns = (filter.Values ?? []).map(wildcard);
    let read: (item: T) => FilterValue;
    if (name.startsWith('tag:')) {
      const key = name.slice(4);
      read = (item) => (tags(item) ?? []).filter((t) => t.Key === key).map((t) => t.Value);
    } else if (name === 'tag-key') read = (item) => (tags(item) ?? []).map((t) => t.Key);
    else if (name === 'tag-value') read = (item) => (tags(item) ?? []).map((t) => t.Value);
    else {
      const field = fields[name];
      if (!field) throw new AwsError('InvalidParameterValue', `The filter '${name}' is invalid`, 400);
      read = field;
    }
    out = out.filter((item) => matches(read(item), patterns));
  }
  return out;
}

/** Items asked for by id; an id that does not exist is the call's `<Code>.NotFound` error. */
export function selectIds<T>(
  items: T[],
  ids: string[] | undefined,
  idOf: (item: T) => string,
  notFound: { code: string; noun: string },
): T[] {
  if (!ids?.length) return items;
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length)
    throw new AwsError(
      notFound.code,
      missing.length === 1
        ? `The ${notFound.noun} ID '${missing[0]}' does not exist`
        : `The ${notFound.noun} IDs '${missing.join(', ')}' do not exist`,
      400,
    );
  return [...new Set(ids)].map((id) => byId.get(id)!);
}

/**
 * One page of `items` (already in a stable order). The token is opaque to
 * callers; here it carries the offset of the next page.
 */
export function page<T>(
  items: T[],
  input: { MaxResults?: number; NextToken?: string },
  limits: { min: number; max: number },
): { items: T[]; nextToken?: string } {
  let start = 0;
  if (input.NextToken !== undefined) {
    const decoded = /^o(\d+)$/.exec(Buffer.from(input.NextToken, 'base64url').toString('utf8'));
    if (!decoded)
      throw new AwsError('InvalidParameterValue', `The token '${input.NextToken}' is invalid.`, 400);
    start = Number(decoded[1]);
  }
  const size = input.MaxResults;
  if (size === undefined) return { items: items.slice(start) };
  if (size < limits.min || size > limits.max)
    throw new AwsError(
      'InvalidParameterValue',
      `Value ( ${size} ) for parameter maxResults is invalid. Parameter must be between ${limits.min} and ${limits.max}.`,
      400,
    );
  const end = start + size;
  return {
    items: items.slice(start, end),
    nextToken: end < items.length ? Buffer.from(`o${end}`, 'utf8').toString('base64url') : undefined,
  };
}
