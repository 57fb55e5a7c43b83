/**
 * Structural diff of resolved property values, and JSON-pointer matching of
 * the schema's create-only paths against it. Values are compared exactly as
 * resolved (no type coercion: `"300"` and `300` differ): CDK synthesizes the same
 * shape every time, and state records the resolved template values.
 */
import { containsUnknown, isUnknown } from '../template/unknown';
import { jsonEqual } from '../util/json-patch';

/** A path as segments: property names and list indexes. */
export type PathSegments = Array<string | number>;

export interface RawChange {
  segments: PathSegments;
  before: unknown;
  after: unknown;
  unknown: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isUnknown(value);
}

/** Deep equality of resolved values; an `Unknown` equals nothing, not even another one. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b, isUnknown);
}

/**
 * The leaf-level differences between two values. Objects are compared key by
 * key; lists of equal length element by element; a list whose length changed
 * is one change of the whole list.
 */
export function diffValues(before: unknown, after: unknown, segments: PathSegments = []): RawChange[] {
  if (isUnknown(after)) return [{ segments, before, after, unknown: true }];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [
      ...Object.keys(before),
      ...Object.keys(after).filter((k) => !Object.prototype.hasOwnProperty.call(before, k)),
    ];
    return keys.flatMap((k) => diffValues(before[k], after[k], [...segments, k]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return after.flatMap((v, i) => diffValues(before[i], v, [...segments, i]));
  }
  if (before === undefined && after === undefined) return [];
  if (valuesEqual(before, after)) return [];
  return [{ segments, before, after, unknown: containsUnknown(after) }];
}

/** `Properties.Tags[0].Value` from `['Properties', 'Tags', 0, 'Value']`. */
export function formatPath(segments: PathSegments): string {
  return segments.reduce<string>(
    (out, s) => (typeof s === 'number' ? `${out}[${s}]` : out === '' ? s : `${out}.${s}`),
    '',
  );
}

/** `/properties/A/*\/B` -> `['A', '*', 'B']` (RFC 6901 unescaping). */
export function pointerSegments(pointer: string): string[] {
  const parts = pointer.split('/').slice(1);
  if (parts[0] === 'properties') parts.shift();
  return parts.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Every value a pointer pattern (`*` = any list item or map value) selects, keyed by its concrete path. */
export function valuesAt(root: unknown, pattern: string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (node: unknown, i: number, path: PathSegments): void => {
    if (node === undefined) return;
    if (i === pattern.length) {
      out.set(JSON.stringify(path), node);
      return;
    }
    const seg = pattern[i];
    if (seg === '*') {
      if (Array.isArray(node)) node.forEach((v, j) => walk(v, i + 1, [...path, j]));
      else if (isPlainObject(node)) for (const [k, v] of Object.entries(node)) walk(v, i + 1, [...path, k]);
      return;
    }
    if (isPlainObject(node) && Object.prototype.hasOwnProperty.call(node, seg))
      walk(node[seg], i + 1, [...path, seg]);
  };
  walk(root, 0, []);
  return out;
}

/** How the values a pointer selects changed: not at all, for certain, or possibly (an unknown new value). */
export function pointerChange(
  before: unknown,
  after: unknown,
  pattern: string[],
): 'none' | 'changed' | 'unknown' {
  const a = valuesAt(before, pattern);
  const b = valuesAt(after, pattern);
  let unknown = false;
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const next = b.get(key);
    if (containsUnknown(next)) {
      unknown = true;
      continue;
    }
    if (!valuesEqual(a.get(key), next)) return 'changed';
  }
  // An unknown value above the pointer (the whole object unknown) may change it too.
  if (!unknown && b.size === 0 && a.size > 0 && unknownAbove(after, pattern)) unknown = true;
  return unknown ? 'unknown' : 'none';
}

/** True when following `pattern` into `root` meets an `Unknown` before reaching the end. */
function unknownAbove(root: unknown, pattern: string[]): boolean {
  let node = root;
  for (const seg of pattern) {
    if (isUnknown(node)) return true;
    if (seg === '*' || !isPlainObject(node)) return containsUnknown(node);
    node = node[seg];
  }
  return false;
}

/** True when a change at `change` touches what `pattern` selects (one is a prefix of the other; `*` matches anything). */
export function pathOverlaps(change: PathSegments, pattern: string[]): boolean {
  const n = Math.min(change.length, pattern.length);
  for (let i = 0; i < n; i++) {
    if (pattern[i] !== '*' && String(change[i]) !== pattern[i]) return false;
  }
  return true;
}
