/**
 * Request payloads and the headers around them: aws-chunked bodies,
 * Content-MD5 and flexible checksums, user metadata and system headers,
 * server-side encryption, byte ranges.
 */
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { AwsError } from '../../core/errors';
import { decodeAwsChunked, header, type EmulatorRequest } from '../../core/http';
import { s3Errors } from './errors';
import type { Bucket, ObjectChecksum, ObjectEncryption } from './store';

const SYSTEM_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
];
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'];
const SSE_ALGORITHMS = ['AES256', 'aws:kms', 'aws:kms:dsse'];

export function md5ETag(data: Buffer): string {
  return `"${createHash('md5').update(data).digest('hex')}"`;
}

/** Body of a write: aws-chunked decoded, Content-MD5 and flexible checksums verified. */
export function readPayload(req: EmulatorRequest): { data: Buffer; checksum?: ObjectChecksum } {
  let data = req.body;
  let trailers: Record<string, string> = {};
  const sha = header(req, 'x-amz-content-sha256') ?? '';
  const encoding = header(req, 'content-encoding') ?? '';
  if (sha.startsWith('STREAMING-') || encoding.split(',').some((e) => e.trim() === 'aws-chunked')) {
    ({ data, trailers } = decodeAwsChunked(req.body));
  }
  const md5 = header(req, 'content-md5');
  if (md5 !== undefined) {
    const digest = createHash('md5').update(data).digest('base64');
    if (Buffer.from(md5, 'base64').length !== 16)
      throw new AwsError('InvalidDigest', 'The Content-MD5 you specified is not valid.', 400, {
        'Content-MD5': md5,
      });
    if (digest !== md5)
      throw new AwsError('BadDigest', 'The Content-MD5 you specified did not match what we received.', 400, {
        ExpectedDigest: md5,
        CalculatedDigest: digest,
      });
  }
  let checksum: ObjectChecksum | undefined;
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = trailers[`x-amz-checksum-${algorithm}`] ?? header(req, `x-amz-checksum-${algorithm}`);
    if (!value) continue;
    const computed = computeChecksum(algorithm, data);
    if (computed !== undefined && computed !== value) {
      throw new AwsError(
        'BadDigest',
        `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
        400,
      );
    }
    checksum = { algorithm: algorithm.toUpperCase(), value };
    break;
  }
  return { data, checksum };
}

/** Base64 checksum for the algorithms the emulator can verify; undefined for the others. */
export function computeChecksum(algorithm: string, data: Buffer): string | undefined {
  switch (algorithm) {
    case 'crc32': {
      const crc32 = (zlib as unknown as { crc32?: (d: Buffer) => number }).crc32;
      if (!crc32) return undefined;
      const out = Buffer.alloc(4);
      out.writeUInt32BE(crc32(data) >>> 0);
      return out.toString('base64');
    }
    case 'sha1':
      return createHash('sha1').update(data).digest('base64');
    case 'sha256':
      return createHash('sha256').update(data).digest('base64');
    default:
      return undefined;
  }
}

export function userMetadata(req: EmulatorRequest): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith('x-amz-meta-') && value !== undefined)
      metadata[name.slice(11)] = Array.isArray(value) ? value.join(',') : value;
  }
  return metadata;
}

export function systemHeaders(req: EmulatorRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SYSTEM_HEADERS) {
    let value = header(req, name);
    if (name === 'content-encoding' && value) {
      value = value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s && s !== 'aws-chunked')
        .join(',');
    }
    if (value) out[name] = value;
  }
  return out;
}

/** The server-side encryption a write asks for (`x-amz-server-side-encryption`, KMS key id). */
export function requestedEncryption(req: EmulatorRequest): ObjectEncryption | undefined {
  const algorithm = header(req, 'x-amz-server-side-encryption');
  const kmsKeyId = header(req, 'x-amz-server-side-encryption-aws-kms-key-id');
  if (algorithm === undefined) {
    if (kmsKeyId !== undefined) {
      throw s3Errors.invalidArgument(
        'Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
        'x-amz-server-side-encryption',
        'null',
      );
    }
    return undefined;
  }
  if (!SSE_ALGORITHMS.includes(algorithm)) {
    throw s3Errors.invalidArgument(
      'The encryption method specified is not supported',
      'x-amz-server-side-encryption',
      algorithm,
    );
  }
  if (kmsKeyId !== undefined && algorithm === 'AES256') {
    throw s3Errors.invalidArgument(
      'Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
      'x-amz-server-side-encryption',
      algorithm,
    );
  }
  return { algorithm, kmsKeyId };
}

/** Encryption headers of an answer: the object's own encryption, else the bucket default. */
export function encryptionHeaders(bucket: Bucket, sse: ObjectEncryption | undefined): Record<string, string> {
  const rule = bucket.encryption[0];
  const algorithm = sse?.algorithm ?? rule?.SSEAlgorithm ?? 'AES256';
  const headers: Record<string, string> = { 'x-amz-server-side-encryption': algorithm };
  const keyId = sse ? sse.kmsKeyId : rule?.KMSMasterKeyID;
  if (algorithm.startsWith('aws:kms') && keyId)
    headers['x-amz-server-side-encryption-aws-kms-key-id'] = keyId;
  return headers;
}

export function parseRange(text: string, size: number): { start: number; end: number } | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw invalidRange(text, size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size) throw invalidRange(text, size);
  return { start, end };
}

export function invalidRange(text: string, size: number): AwsError {
  return new AwsError(
    'InvalidRange',
    'The requested range is not satisfiable',
    416,
    { RangeRequested: text, ActualObjectSize: String(size) },
    { 'content-range': `bytes */${size}` },
  );
}
