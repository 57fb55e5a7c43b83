/**
 * S3's own restXml codec. S3 opts out of the generic restXml codec: its hot
 * path (PutObject, GetObject, HeadObject) is routed by hand in a few
 * comparisons, bucket and key come from the Host header or the path, errors
 * are a bare `<Error>` with S3's request ids, and each handler reads the raw
 * request and writes its response itself. The contract is the same: the
 * codec names the operation and decodes `{ Bucket, Key }`; handlers return
 * the response.
 */
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import { s3RequestId } from '../../core/ids';
import type { ProtocolCodec, ReplyContext } from '../../core/protocols/codec';
import { xmlDocument } from '../../core/xml';
import { hostId, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import type { S3Store } from './store';

const TARGET = Symbol('s3-target');
type Addressed = EmulatorRequest & { [TARGET]?: Target };

export class S3Codec implements ProtocolCodec {
  readonly protocol = 'restXml';

  constructor(private readonly store: S3Store) {}

  operation(req: EmulatorRequest): string {
    const target = parseTarget(req);
    (req as Addressed)[TARGET] = target;
    return operationOf(req, target);
  }

  /** `{ Bucket, Key }`, after the checks every S3 operation makes (pre-signed expiry, expected owners). */
  decode(_operation: string, req: EmulatorRequest): Target {
    const target = (req as Addressed)[TARGET] ?? parseTarget(req);
    if (!header(req, 'authorization') && req.query.has('X-Amz-Credential')) checkPresignedExpiry(req);
    checkExpectedOwners(this.store, req, target);
    return target;
  }

  encode(_operation: string, output: unknown, _reply: ReplyContext): EmulatorResponse {
    return output as EmulatorResponse;
  }

  encodeError(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse {
    return this.errorResponse(err, req, requestId);
  }

  private errorResponse(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse {
    const headers: Record<string, string> = {
      'x-amz-request-id': requestId,
      'x-amz-id-2': hostId(),
      ...err.headers,
    };
    if (req.method === 'HEAD' || err.status === 304) return { status: err.status, headers };
    const target = safeTarget(req);
    const resource = target ? `/${[target.Bucket, target.Key].filter(Boolean).join('/')}` : undefined;
    headers['content-type'] = 'application/xml';
    return {
      status: err.status,
      headers,
      body: xmlDocument('Error', {
        Code: err.code,
        Message: err.message,
        ...err.extra,
        Resource: resource,
        RequestId: requestId,
        HostId: headers['x-amz-id-2'],
      }),
    };
  }

  unsignedError(): AwsError {
    return s3Errors.accessDenied();
  }

  faultFor(status: number): { code: string; status: number } {
    if (status === 503) return { code: 'SlowDown', status };
    if (status === 429) return { code: 'SlowDown', status: 503 };
    if (status >= 500) return { code: 'InternalError', status };
    return { code: 'InvalidRequest', status };
  }

  /** Bucket and key from the Host header (virtual-host style) or the path. */
  unknownOperation(operation: string): AwsError {
    return new AwsError('NotImplemented', `The emulator does not implement ${operation}`, 501);
  }

  newRequestId(): string {
    return s3RequestId();
  }

  responseHeaders(requestId: string): Record<string, string> {
    return { 'x-amz-request-id': requestId, 'x-amz-id-2': s3HostId(requestId), server: 'AmazonS3' };
  }
}

function s3HostId(requestId: string): string {
  return Buffer.from(`${requestId}${requestId}`).toString('base64');
}

function operationOf(req: EmulatorRequest, target: Target): string {
  const q = req.query;
  const m = req.method;
  if (!target.Bucket) {
    if (m === 'GET') return 'ListBuckets';
    throw s3Errors.methodNotAllowed(m, 'SERVICE');
  }
  if (target.Key === undefined) {
    if (m === 'GET') {
      if (q.has('versioning')) return 'GetBucketVersioning';
      if (q.has('encryption')) return 'GetBucketEncryption';
      if (q.has('policy')) return 'GetBucketPolicy';
      if (q.has('publicAccessBlock')) return 'GetPublicAccessBlock';
      if (q.has('tagging')) return 'GetBucketTagging';
      if (q.has('location')) return 'GetBucketLocation';
      if (q.has('ownershipControls')) return 'GetBucketOwnershipControls';
      if (q.has('lifecycle')) return 'GetBucketLifecycleConfiguration';
      if (q.has('cors')) return 'GetBucketCors';
      if (q.has('website')) return 'GetBucketWebsite';
      if (q.has('notification')) return 'GetBucketNotificationConfiguration';
      if (q.has('versions')) return 'ListObjectVersions';
      if (q.has('uploads')) return 'ListMultipartUploads';
      refuseUnmodelled(q);
      if (q.get('list-type') === '2') return 'ListObjectsV2';
      return 'ListObjects';
    }
    if (m === 'PUT') {
      if (q.has('versioning')) return 'PutBucketVersioning';
      if (q.has('encryption')) return 'PutBucketEncryption';
      if (q.has('policy')) return 'PutBucketPolicy';
      if (q.has('publicAccessBlock')) return 'PutPublicAccessBlock';
      if (q.has('tagging')) return 'PutBucketTagging';
      if (q.has('ownershipControls')) return 'PutBucketOwnershipControls';
      if (q.has('lifecycle')) return 'PutBucketLifecycleConfiguration';
      if (q.has('cors')) return 'PutBucketCors';
      if (q.has('website')) return 'PutBucketWebsite';
      if (q.has('notification')) return 'PutBucketNotificationConfiguration';
      refuseUnmodelled(q);
      return 'CreateBucket';
    }
    if (m === 'HEAD') return 'HeadBucket';
    if (m === 'DELETE') {
      if (q.has('encryption')) return 'DeleteBucketEncryption';
      if (q.has('policy')) return 'DeleteBucketPolicy';
      if (q.has('publicAccessBlock')) return 'DeletePublicAccessBlock';
      if (q.has('tagging')) return 'DeleteBucketTagging';
      if (q.has('ownershipControls')) return 'DeleteBucketOwnershipControls';
      if (q.has('lifecycle')) return 'DeleteBucketLifecycle';
      if (q.has('cors')) return 'DeleteBucketCors';
      if (q.has('website')) return 'DeleteBucketWebsite';
      refuseUnmodelled(q);
      return 'DeleteBucket';
    }
    if (m === 'POST' && q.has('delete')) return 'DeleteObjects';
    throw s3Errors.methodNotAllowed(m, 'BUCKET');
  }
  if (m === 'PUT') {
    if (q.has('uploadId') && q.has('partNumber')) {
      if (header(req, 'x-amz-copy-source')) return 'UploadPartCopy';
      return 'UploadPart';
    }
    if (q.has('tagging')) return 'PutObjectTagging';
    if (header(req, 'x-amz-copy-source')) return 'CopyObject';
    return 'PutObject';
  }
  if (m === 'GET') {
    if (q.has('uploadId')) return 'ListParts';
    if (q.has('tagging')) return 'GetObjectTagging';
    return 'GetObject';
  }
  if (m === 'HEAD') return 'HeadObject';
  if (m === 'DELETE') {
    if (q.has('uploadId')) return 'AbortMultipartUpload';
    if (q.has('tagging')) return 'DeleteObjectTagging';
    return 'DeleteObject';
  }
  if (m === 'POST') {
    if (q.has('uploads')) return 'CreateMultipartUpload';
    if (q.has('uploadId')) return 'CompleteMultipartUpload';
  }
  throw s3Errors.methodNotAllowed(m, 'OBJECT');
}

function refuseUnmodelled(q: URLSearchParams): void {
  for (const name of UNMODELLED_BUCKET_SUBRESOURCES) {
    if (q.has(name)) throw s3Errors.notImplemented();
  }
}

/** `x-amz-expected-bucket-owner` (and the copy source's): a different owner is 403 AccessDenied. */
export function checkExpectedOwners(store: S3Store, req: EmulatorRequest, target: Target): void {
  const expected = header(req, 'x-amz-expected-bucket-owner');
  const bucket = target.Bucket ? store.buckets.get(target.Bucket) : undefined;
  if (expected !== undefined && bucket && bucket.account !== expected) throw s3Errors.accessDenied();
  const expectedSource = header(req, 'x-amz-source-expected-bucket-owner');
  const source = header(req, 'x-amz-copy-source');
  if (expectedSource !== undefined && source) {
    const sourceBucket = store.buckets.get(decodeURIComponent(source.replace(/^\//, '').split('/')[0] ?? ''));
    if (sourceBucket && sourceBucket.account !== expectedSource) throw s3Errors.accessDenied();
  }
}

export function parseTarget(req: EmulatorRequest): Target {
  const hostname = req.host.replace(/:\d+$/, '').toLowerCase();
  let bucket: string | undefined;
  const vhost = /^(.+)\.s3[.-]/.exec(hostname);
  if (vhost) bucket = vhost[1];
  else if (hostname.endsWith('.localhost') && !hostname.startsWith('s3.'))
    bucket = hostname.slice(0, -'.localhost'.length);
  const path = req.rawPath;
  try {
    if (bucket) {
      const key = path.length > 1 ? decodeURIComponent(path.slice(1)) : undefined;
      return { Bucket: bucket, Key: key };
    }
    const rest = path.slice(1);
    if (!rest) return {};
    const slash = rest.indexOf('/');
    if (slash < 0) return { Bucket: decodeURIComponent(rest) };
    const key = rest.slice(slash + 1);
    return {
      Bucket: decodeURIComponent(rest.slice(0, slash)),
      Key: key ? decodeURIComponent(key) : undefined,
    };
  } catch {
    throw new AwsError('InvalidURI', "Couldn't parse the specified URI.", 400);
  }
}

function safeTarget(req: EmulatorRequest): Target | undefined {
  try {
    return parseTarget(req);
  } catch {
    return undefined;
  }
}

function checkPresignedExpiry(req: EmulatorRequest): void {
  const date = req.query.get('X-Amz-Date') ?? '';
  const expires = Number(req.query.get('X-Amz-Expires') ?? '900');
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  if (!m) throw s3Errors.accessDenied('X-Amz-Date must be in the ISO8601 Long Format');
  if (!(expires >= 1 && expires <= 604800))
    throw s3Errors.accessDenied('X-Amz-Expires must be less than a week (in seconds) that is 604800');
  const signed = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  const expiresAt = new Date(signed + expires * 1000);
  const now = new Date();
  if (now > expiresAt) {
    throw new AwsError('AccessDenied', 'Request has expired', 403, {
      'X-Amz-Expires': String(expires),
      Expires: expiresAt.toISOString(),
      ServerTime: now.toISOString(),
    });
  }
}

/** Bucket-level subresources S3 has but the emulator does not model. */
const UNMODELLED_BUCKET_SUBRESOURCES = [
  'acl',
  'logging',
  'replication',
  'accelerate',
  'analytics',
  'inventory',
  'metrics',
  'intelligent-tiering',
  'object-lock',
  'requestPayment',
  'policyStatus',
];
