/**
 * A value that cannot be known before deploy: an attribute or the physical id of
 * a resource that is being created or replaced. The plan resolves templates in a
 * mode where such references yield an {@link Unknown} instead of failing; it
 * propagates through the functions that consume it (`Fn::Join`, `Fn::Sub`...).
 */

const UNKNOWN_BRAND = Symbol.for('cdkd.unknown');

export class Unknown {
  /** What the value stands for, e.g. `MyBucket.Arn` or `MyQueue.Ref`. */
  readonly description: string;

  constructor(description: string) {
    this.description = description;
    Object.defineProperty(this, UNKNOWN_BRAND, { value: true });
  }

  toString(): string {
    return `(known after deploy: ${this.description})`;
  }

  /** How it appears in JSON (a plan printed with --json). */
  toJSON(): string {
    return this.toString();
  }
}

/** True for an {@link Unknown}, whichever copy of this module created it. */
export function isUnknown(value: unknown): value is Unknown {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[UNKNOWN_BRAND] === true
  );
}

/** True when `value` is, or (deeply) contains, an {@link Unknown}. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}

/** Every {@link Unknown} inside `value`, outermost first. */
export function unknownsIn(value: unknown): Unknown[] {
  if (isUnknown(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(unknownsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(unknownsIn);
  return [];
}

/** One {@link Unknown} standing for a value computed from the unknowns in `inputs`. */
export function unknownFrom(inputs: unknown): Unknown {
  const names = [...new Set(unknownsIn(inputs).map((u) => u.description))];
  return new Unknown(names.join(', '));
}
