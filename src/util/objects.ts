/**
 * Shape checks for values parsed from JSON or built by the engine. One place,
 * so every walker agrees on what counts as an object to descend into.
 */

/** A non-null object that is not an array (what a JSON object parses to). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A plain data object: one whose prototype is `Object.prototype` of any realm,
 * or none. `structuredClone` and a `vm` context build objects whose prototype
 * is another realm's `Object.prototype`, so comparing with this realm's would
 * treat them as opaque and walk past the secrets inside them. Class instances
 * (their prototype has a prototype of its own) are not plain.
 */
export function isPlainData(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
