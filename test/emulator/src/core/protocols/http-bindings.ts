/**
 * The HTTP bindings shared by restJson1 and restXml: an operation is found by
 * its `http` trait (method, URI pattern with `{Label}` / `{Greedy+}` and a
 * static query), and each input member comes from a label, a query parameter
 * (`httpQuery`, `httpQueryParams`), a header (`httpHeader`,
 * `httpPrefixHeaders`), the payload (`httpPayload`) or the body. Output
 * members go the other way, `httpResponseCode` setting the status.
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { AwsError } from '../errors';
import type { EmulatorRequest } from '../http';
import type { OperationModel, ServiceModel } from './model';
import { scalarFromString, scalarToString, timestampFormat, toBuffer } from './values';

interface CompiledRoute {
  operation: string;
  method: string;
  pattern: RegExp;
  labels: string[];
  query: Array<[string, string | undefined]>;
  score: number;
}

function compile(op: OperationModel): CompiledRoute | undefined {
  if (!op.http) return undefined;
  const [path, queryText] = op.http.uri.split('?', 2) as [string, string | undefined];
  const labels: string[] = [];
  let literal = 0;
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}+]+)(\+)?\}$/.exec(part);
      if (!m) {
        literal += part.length;
        return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      labels.push(m[1]!);
      return m[2] ? '(.+)' : '([^/]+)';
    })
    .join('');
  const query = (queryText ? queryText.split('&') : []).map((pair) => {
    const eq = pair.indexOf('=');
    return (eq < 0 ? [pair, undefined] : [pair.slice(0, eq), pair.slice(eq + 1)]) as [
      string,
      string | undefined,
    ];
  });
  return {
    operation: op.name,
    method: op.http.method,
    pattern: new RegExp(`^${source}/?$`),
    labels,
    query,
    score: literal + query.length * 100,
  };
}

/** Finds operations by method, path and static query; the most specific match wins. */
export class HttpRouter {
  private routes?: Map<string, CompiledRoute[]>;

  constructor(private readonly model: ServiceModel) {}

  private table(): Map<string, CompiledRoute[]> {
    if (this.routes) return this.routes;
    const byMethod = new Map<string, CompiledRoute[]>();
    for (const op of this.model.operations()) {
      const route = compile(op);
      if (!route) continue;
      const list = byMethod.get(route.method) ?? [];
      list.push(route);
      byMethod.set(route.method, list);
    }
    for (const list of byMethod.values()) list.sort((a, b) => b.score - a.score);
    this.routes = byMethod;
    return byMethod;
  }

  match(req: EmulatorRequest): { operation: string; labels: Record<string, string> } | undefined {
    for (const route of this.table().get(req.method) ?? []) {
      const m = route.pattern.exec(req.rawPath);
      if (!m) continue;
      if (!route.query.every(([k, v]) => req.query.has(k) && (v === undefined || req.query.get(k) === v)))
        continue;
      const labels: Record<string, string> = {};
      route.labels.forEach((name, i) => {
        labels[name] = decodeURIComponent(m[i + 1]!);
      });
      return { operation: route.operation, labels };
    }
    return undefined;
  }
}

interface BindingTraits {
  httpLabel?: number;
  httpQuery?: string;
  httpQueryParams?: number;
  httpHeader?: string;
  httpPrefixHeaders?: string;
  httpPayload?: number;
  httpResponseCode?: number;
}

function bindingOf(member: NormalizedSchema): BindingTraits {
  return member.getMergedTraits() as BindingTraits;
}

/** Reads the bound (non-body) members of an input and says which members come from the body. */
export function readBindings(
  input: NormalizedSchema,
  req: EmulatorRequest,
  labels: Record<string, string>,
): { bound: Record<string, unknown>; payload?: [string, NormalizedSchema]; bodyMembers: boolean } {
  const bound: Record<string, unknown> = {};
  let payload: [string, NormalizedSchema] | undefined;
  let bodyMembers = false;
  const usedQuery = new Set<string>();
  if (!input.isStructSchema()) return { bound, bodyMembers };
  for (const [name, member] of input.structIterator()) {
    const t = bindingOf(member);
    if (t.httpLabel) {
      if (labels[name] !== undefined) bound[name] = scalarFromString(member, labels[name]!, name);
    } else if (t.httpQuery) {
      usedQuery.add(t.httpQuery);
      if (!req.query.has(t.httpQuery)) continue;
      if (member.isListSchema()) {
        const item = member.getValueSchema();
        bound[name] = req.query.getAll(t.httpQuery).map((v) => scalarFromString(item, v, name));
      } else bound[name] = scalarFromString(member, req.query.get(t.httpQuery)!, name);
    } else if (t.httpHeader) {
      const value = req.headers[t.httpHeader.toLowerCase()];
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(',') : value;
      if (member.isListSchema()) {
        const item = member.getValueSchema();
        bound[name] = text.split(',').map((v) => scalarFromString(item, v.trim(), name));
      } else if (member.isTimestampSchema()) bound[name] = new Date(text);
      else bound[name] = scalarFromString(member, text, name);
    } else if (t.httpPrefixHeaders !== undefined) {
      const prefix = t.httpPrefixHeaders.toLowerCase();
      const map: Record<string, string> = {};
      for (const [h, v] of Object.entries(req.headers))
        if (h.startsWith(prefix) && v !== undefined)
          map[h.slice(prefix.length)] = Array.isArray(v) ? v.join(',') : v;
      if (Object.keys(map).length) bound[name] = map;
    } else if (t.httpPayload) {
      payload = [name, member];
    } else if (t.httpQueryParams) {
      // Filled below, from the parameters no other member binds.
      bound[name] = undefined;
    } else bodyMembers = true;
  }
  for (const [name, member] of input.structIterator()) {
    if (!bindingOf(member).httpQueryParams) continue;
    const map: Record<string, unknown> = {};
    for (const [k, v] of req.query) if (!usedQuery.has(k)) map[k] = v;
    if (Object.keys(map).length) bound[name] = map;
    else delete bound[name];
  }
  return { bound, payload, bodyMembers };
}

/** The raw payload member value (blob or string), or undefined when it is a structure. */
export function rawPayload(member: NormalizedSchema, body: Buffer): unknown {
  if (member.isBlobSchema()) return body;
  if (member.isStringSchema()) return body.toString('utf8');
  return undefined;
}

/** Output members bound to the status, headers and payload; the rest go in the body. */
export function writeBindings(
  output: NormalizedSchema,
  value: Record<string, unknown>,
): {
  status?: number;
  headers: Record<string, string>;
  payload?: [NormalizedSchema, unknown];
  body: Record<string, unknown>;
  hasBody: boolean;
} {
  const headers: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  let status: number | undefined;
  let payload: [NormalizedSchema, unknown] | undefined;
  let hasBody = false;
  if (!output.isStructSchema()) return { headers, body, hasBody };
  for (const [name, member] of output.structIterator()) {
    const t = bindingOf(member);
    const v = value[name];
    if (t.httpResponseCode) {
      if (typeof v === 'number') status = v;
    } else if (t.httpHeader) {
      const text = member.isListSchema()
        ? Array.isArray(v)
          ? v.map((item) => scalarToString(member.getValueSchema(), item, 'http-date')).join(', ')
          : undefined
        : scalarToString(member, v, timestampFormat(member, 'http-date'));
      if (text !== undefined) headers[t.httpHeader.toLowerCase()] = text;
    } else if (t.httpPrefixHeaders !== undefined) {
      for (const [k, item] of Object.entries((v ?? {}) as Record<string, unknown>))
        headers[`${t.httpPrefixHeaders.toLowerCase()}${k}`] = String(item);
    } else if (t.httpPayload) {
      payload = [member, v];
    } else {
      hasBody = true;
      if (v !== undefined) body[name] = v;
    }
  }
  return { status, headers, payload, body, hasBody };
}

/** A blob or string payload as bytes; undefined for structures (the codec serializes those). */
export function payloadBytes(member: NormalizedSchema, value: unknown): Buffer | string | undefined {
  if (member.isBlobSchema()) return toBuffer(value);
  if (member.isStringSchema()) return value === undefined ? undefined : String(value);
  return undefined;
}

export function unknownRoute(req: EmulatorRequest): AwsError {
  return new AwsError('UnknownOperationException', `No operation matches ${req.method} ${req.rawPath}`, 404);
}
