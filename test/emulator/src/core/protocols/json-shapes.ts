/**
 * JSON bodies by schema, as the awsJson and restJson protocols carry them:
 * reading turns a request body into the SDK-shaped input (Dates, Buffers,
 * member names), writing turns a handler's output into the wire shape
 * (epoch-seconds timestamps, base64 blobs, `jsonName` members, no nulls).
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { formatTimestamp, parseTimestamp, timestampFormat, toBase64, type TimestampFormat } from './values';

export interface JsonSettings {
  /** restJson1 honours `jsonName`; awsJson does not. */
  jsonName: boolean;
  /** Default timestamp format of bodies: epoch-seconds for both JSON protocols. */
  timestamps: TimestampFormat;
}

/** Whether a schema's values differ between the wire and the SDK shape (cached per schema). */
const needsConversion = new WeakMap<object, boolean>();

function converts(ns: NormalizedSchema, settings: JsonSettings, depth = 0): boolean {
  if (ns.isTimestampSchema() || ns.isBlobSchema()) return true;
  if (depth > 20) return true;
  const key = ns.getSchema() as object;
  if (typeof key !== 'object' || key === null) return false;
  const cached = needsConversion.get(key);
  if (cached !== undefined) return cached;
  needsConversion.set(key, true); // recursive shapes: assume conversion while computing
  let result = false;
  if (ns.isListSchema() || ns.isMapSchema()) result = converts(ns.getValueSchema(), settings, depth + 1);
  else if (ns.isStructSchema()) {
    for (const [name, member] of ns.structIterator()) {
      const traits = member.getMergedTraits() as { jsonName?: string };
      if (
        (settings.jsonName && traits.jsonName && traits.jsonName !== name) ||
        converts(member, settings, depth + 1)
      ) {
        result = true;
        break;
      }
    }
  }
  needsConversion.set(key, result);
  return result;
}

/** A parsed JSON value read into the SDK shape. */
export function readJson(ns: NormalizedSchema, value: unknown, settings: JsonSettings, path = ''): unknown {
  if (value === null || value === undefined) return value;
  if (!converts(ns, settings)) return value;
  if (ns.isTimestampSchema()) return parseTimestamp(value, path);
  if (ns.isBlobSchema()) return typeof value === 'string' ? Buffer.from(value, 'base64') : value;
  if (ns.isListSchema() && Array.isArray(value)) {
    const item = ns.getValueSchema();
    return value.map((v, i) => readJson(item, v, settings, `${path}[${i}]`));
  }
  if (ns.isMapSchema() && typeof value === 'object') {
    const item = ns.getValueSchema();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = readJson(item, v, settings, `${path}.${k}`);
    return out;
  }
  if (ns.isStructSchema() && typeof value === 'object') {
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, member] of ns.structIterator()) {
      const traits = member.getMergedTraits() as { jsonName?: string };
      const wire = settings.jsonName && traits.jsonName ? traits.jsonName : name;
      if (source[wire] !== undefined)
        out[name] = readJson(member, source[wire], settings, path ? `${path}.${name}` : name);
    }
    return out;
  }
  return value;
}

/** A handler's output value in its wire shape (undefined members dropped). */
export function writeJson(ns: NormalizedSchema, value: unknown, settings: JsonSettings): unknown {
  if (value === null || value === undefined) return undefined;
  if (ns.isTimestampSchema()) return formatTimestamp(value, timestampFormat(ns, settings.timestamps));
  if (ns.isBlobSchema()) return toBase64(value);
  if (ns.isDocumentSchema()) return value;
  if (ns.isListSchema()) {
    if (!Array.isArray(value)) return undefined;
    const item = ns.getValueSchema();
    return value.map((v) => writeJson(item, v, settings) ?? null);
  }
  if (ns.isMapSchema()) {
    if (typeof value !== 'object') return undefined;
    const item = ns.getValueSchema();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const written = writeJson(item, v, settings);
      if (written !== undefined) out[k] = written;
    }
    return out;
  }
  if (ns.isStructSchema()) {
    if (typeof value !== 'object') return undefined;
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, member] of ns.structIterator()) {
      if (source[name] === undefined || source[name] === null) continue;
      const traits = member.getMergedTraits() as { jsonName?: string };
      const written = writeJson(member, source[name], settings);
      if (written !== undefined) out[settings.jsonName && traits.jsonName ? traits.jsonName : name] = written;
    }
    return out;
  }
  if (ns.isNumericSchema() && typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  return value;
}
