/** Reading S3 request documents: element text and numbers, with S3's refusals. */
import { s3Errors } from './errors';

/** An element's text, `undefined` when absent (an empty element is `''`). */
export function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An element that must be a non-negative integer; anything else is malformed XML. */
export function integerOf(value: unknown): number | undefined {
  const text = textOf(value);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw s3Errors.malformedXml();
  return Number(text);
}

/** A nested element, `undefined` when absent or not an element. */
export function elementOf(value: unknown): Record<string, unknown> | undefined {
  if (value === '') return {};
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A repeated element as a list (the parser already lists the known ones). */
export function listOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
