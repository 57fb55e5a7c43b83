/**
 * Policy documents: the template gives an object (or a JSON string), IAM
 * takes a JSON string and returns it URL-encoded. Two documents are the same
 * when they are the same JSON, whatever the key order and spacing.
 */

/** The text sent to IAM. */
export function documentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/** A document as IAM returns it (URL-encoded JSON), parsed. */
export function decodeDocument(encoded: string | undefined): unknown {
  if (encoded === undefined) return undefined;
  const text = decodeURIComponent(encoded);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** True when both are the same JSON document (objects or JSON strings). */
export function sameDocument(a: unknown, b: unknown): boolean {
  return canonical(parsed(a)) === canonical(parsed(b));
}
