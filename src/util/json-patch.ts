/**
 * Minimal RFC 6902 patch between two JSON documents: objects are diffed key by
 * key, anything else (scalars, arrays) that differs is replaced whole. Cloud
 * Control applies such patches to a resource's current model.
 */

import { isRecord as isPlainObject } from './objects';

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown };

/** RFC 6901 escaping of one path segment. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Deep structural equality of JSON values (key order ignored, undefined members
 * absent). A value `isOpaque` accepts equals nothing, not even itself (a value
 * not known yet, say).
 */
export function jsonEqual(a: unknown, b: unknown, isOpaque?: (value: unknown) => boolean): boolean {
  if (isOpaque && (isOpaque(a) || isOpaque(b))) return false;
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i], isOpaque));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return (
      ka.length === kb.length &&
      ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k], isOpaque))
    );
  }
  return false;
}

export function createJsonPatch(from: unknown, to: unknown, basePath = ''): JsonPatchOperation[] {
  if (jsonEqual(from, to)) return [];
  if (!isPlainObject(from) || !isPlainObject(to)) {
    return [{ op: 'replace', path: basePath, value: to }];
  }
  const ops: JsonPatchOperation[] = [];
  for (const key of Object.keys(from)) {
    if (
      from[key] !== undefined &&
      (!Object.prototype.hasOwnProperty.call(to, key) || to[key] === undefined)
    ) {
      ops.push({ op: 'remove', path: `${basePath}/${escapePointerSegment(key)}` });
    }
  }
  for (const key of Object.keys(to)) {
    if (to[key] === undefined) continue;
    const path = `${basePath}/${escapePointerSegment(key)}`;
    if (from[key] === undefined) {
      ops.push({ op: 'add', path, value: to[key] });
    } else {
      ops.push(...createJsonPatch(from[key], to[key], path));
    }
  }
  return ops;
}
