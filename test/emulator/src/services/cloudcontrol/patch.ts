/** RFC 6902 JSON Patch, applied to a copy of a resource model. */

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

export class PatchError extends Error {}

function segmentsOf(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, segments: string[], pointer: string): { parent: Container; key: string } {
  let node = doc;
  for (const s of segments.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (node && typeof node === 'object') node = (node as Record<string, unknown>)[s];
    else node = undefined;
    if (node === undefined) throw new PatchError(`path "${pointer}" does not exist`);
  }
  if (!node || typeof node !== 'object') throw new PatchError(`path "${pointer}" does not exist`);
  return { parent: node as Container, key: segments[segments.length - 1]! };
}

function read(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const s of segmentsOf(pointer)) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (node && typeof node === 'object') node = (node as Record<string, unknown>)[s];
    else node = undefined;
    if (node === undefined) throw new PatchError(`path "${pointer}" does not exist`);
  }
  return node;
}

function add(doc: unknown, pointer: string, value: unknown): void {
  const segments = segmentsOf(pointer);
  if (!segments.length) throw new PatchError('cannot replace the whole document');
  const { parent, key } = parentOf(doc, segments, pointer);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length)
      throw new PatchError(`index "${key}" out of bounds in "${pointer}"`);
    parent.splice(index, 0, value);
  } else parent[key] = value;
}

function remove(doc: unknown, pointer: string): unknown {
  const segments = segmentsOf(pointer);
  const { parent, key } = parentOf(doc, segments, pointer);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length)
      throw new PatchError(`path "${pointer}" does not exist`);
    return parent.splice(index, 1)[0];
  }
  if (!(key in parent)) throw new PatchError(`path "${pointer}" does not exist`);
  const old = parent[key];
  delete parent[key];
  return old;
}

/** Applies a patch; throws {@link PatchError} when an operation cannot apply. */
export function applyPatch<T>(document: T, operations: PatchOperation[]): T {
  const doc = structuredClone(document);
  for (const op of operations) {
    if (!op || typeof op.path !== 'string') throw new PatchError('each operation needs "op" and "path"');
    switch (op.op) {
      case 'add':
        add(doc, op.path, structuredClone(op.value));
        break;
      case 'remove':
        remove(doc, op.path);
        break;
      case 'replace':
        remove(doc, op.path);
        add(doc, op.path, structuredClone(op.value));
        break;
      case 'move': {
        const value = remove(doc, op.from ?? '');
        add(doc, op.path, value);
        break;
      }
      case 'copy':
        add(doc, op.path, structuredClone(read(doc, op.from ?? '')));
        break;
      case 'test':
        if (JSON.stringify(read(doc, op.path)) !== JSON.stringify(op.value))
          throw new PatchError(`test failed at "${op.path}"`);
        break;
      default:
        throw new PatchError(`unknown operation "${String((op as { op: unknown }).op)}"`);
    }
  }
  return doc;
}
