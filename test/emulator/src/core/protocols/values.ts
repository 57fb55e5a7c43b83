/**
 * Scalar values on the wire: timestamps in the formats Smithy names
 * (date-time, http-date, epoch-seconds), blobs as base64, numbers and
 * booleans from strings. Shared by every codec.
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { AwsError } from '../errors';

export type TimestampFormat = 'date-time' | 'http-date' | 'epoch-seconds';

/** The sentinel numbers of @smithy/core's timestamp schemas. */
const FORMAT_OF_SCHEMA: Record<number, TimestampFormat> = {
  5: 'date-time',
  6: 'http-date',
  7: 'epoch-seconds',
};

/** A timestamp member's format: its `timestampFormat` trait, else the protocol's (or location's) default. */
export function timestampFormat(ns: NormalizedSchema, fallback: TimestampFormat): TimestampFormat {
  const traits = ns.getMergedTraits() as { timestampFormat?: string };
  if (traits.timestampFormat) return traits.timestampFormat as TimestampFormat;
  const sc = ns.getSchema();
  return (typeof sc === 'number' && FORMAT_OF_SCHEMA[sc]) || fallback;
}

/** A Date from what a handler returned (Date, epoch seconds or an ISO/HTTP date string). */
export function toDate(value: unknown): Date | undefined {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value * 1000);
  if (typeof value === 'string') {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

export function formatTimestamp(value: unknown, format: TimestampFormat): string | number | undefined {
  const date = toDate(value);
  if (!date) return undefined;
  if (format === 'epoch-seconds') return date.getTime() / 1000;
  if (format === 'http-date') return date.toUTCString();
  return date.toISOString().replace('.000Z', 'Z');
}

/** A timestamp read off the wire (number or string, whatever the format). */
export function parseTimestamp(raw: unknown, member: string): Date {
  const n =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw)
        ? Number(raw)
        : NaN;
  const date = Number.isNaN(n) ? new Date(String(raw)) : new Date(n * 1000);
  if (Number.isNaN(date.getTime()))
    throw new AwsError('SerializationException', `Invalid timestamp for ${member}: ${String(raw)}`);
  return date;
}

export function toBase64(value: unknown): string | undefined {
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (typeof value === 'string') return Buffer.from(value).toString('base64');
  return undefined;
}

export function toBuffer(value: unknown): Buffer | undefined {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') return Buffer.from(value);
  return undefined;
}

/** A scalar read from a string (query parameter, header, label, XML text) by its schema. */
export function scalarFromString(ns: NormalizedSchema, text: string, member: string): unknown {
  if (ns.isBooleanSchema()) {
    if (text !== 'true' && text !== 'false')
      throw new AwsError('SerializationException', `Invalid boolean for ${member}: ${text}`);
    return text === 'true';
  }
  if (ns.isNumericSchema() || ns.isBigIntegerSchema() || ns.isBigDecimalSchema()) {
    const n = Number(text);
    if (text === '' || (Number.isNaN(n) && text !== 'NaN'))
      throw new AwsError('SerializationException', `Invalid number for ${member}: ${text}`);
    return n;
  }
  if (ns.isTimestampSchema()) return parseTimestamp(text, member);
  if (ns.isBlobSchema()) return Buffer.from(text, 'base64');
  return text;
}

/** A scalar as text (query string, header, XML). */
export function scalarToString(
  ns: NormalizedSchema,
  value: unknown,
  format: TimestampFormat,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (ns.isTimestampSchema()) {
    const formatted = formatTimestamp(value, format);
    return formatted === undefined ? undefined : String(formatted);
  }
  if (ns.isBlobSchema()) return toBase64(value);
  return String(value);
}
