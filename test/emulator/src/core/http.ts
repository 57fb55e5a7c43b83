/** The emulator's view of one HTTP request and response. */
import type { IncomingHttpHeaders } from 'node:http';

export interface EmulatorRequest {
  method: string;
  /** Path as sent (still percent-encoded), without the query string. */
  rawPath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The Host header (with port). */
  host: string;
  /** `http://<Host>`: the base URL the client used to reach the emulator. */
  baseUrl: string;
  /** performance.now() when the request's headers arrived (before its body). */
  arrivedAt: number;
}

export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
}

/** A single header value (first one when repeated). */
export function header(req: EmulatorRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON response body. */
export function jsonResponse(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): EmulatorResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(value),
  };
}

/**
 * Decodes an `aws-chunked` body (streaming uploads): `<hex size>[;ext]\r\n<data>\r\n`
 * repeated, a zero-size chunk, then trailing headers such as `x-amz-checksum-crc32`.
 */
export function decodeAwsChunked(body: Buffer): { data: Buffer; trailers: Record<string, string> } {
  const parts: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let pos = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', pos);
    if (lineEnd < 0) break;
    const sizeText = body.toString('latin1', pos, lineEnd).split(';')[0]!.trim();
    const size = parseInt(sizeText, 16);
    pos = lineEnd + 2;
    if (!Number.isFinite(size)) break;
    if (size === 0) {
      // Trailing headers until an empty line (or the end).
      for (;;) {
        const end = body.indexOf('\r\n', pos);
        const line = body.toString('latin1', pos, end < 0 ? body.length : end);
        if (!line) break;
        const colon = line.indexOf(':');
        if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        if (end < 0) break;
        pos = end + 2;
      }
      break;
    }
    parts.push(body.subarray(pos, pos + size));
    pos += size + 2;
  }
  return { data: parts.length === 1 ? parts[0]! : Buffer.concat(parts), trailers };
}
