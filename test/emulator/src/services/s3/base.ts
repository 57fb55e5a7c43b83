/**
 * What every S3 handler shares: the store, the access checks S3 makes
 * before an operation (the bucket exists, the caller may act on it, the
 * request reached the bucket's region), conditional-write checks, copy
 * sources, and XML answers.
 */
import { createHash } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import { s3RequestId } from '../../core/ids';
import type { CallContext } from '../../core/service';
import { xmlDocument, type XmlObject, type XmlValue } from '../../core/xml';
import { etagMatches } from './conditions';
import { s3Errors } from './errors';
import { evaluatePolicy } from './policy';
import { findVersion } from './versions';
import { liveObject, type Bucket, type ObjectVersion, type S3Store } from './store';

export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** The bucket and key a request addresses (the SDK's input members). */
export interface S3Target {
  Bucket?: string;
  Key?: string;
}

export abstract class S3Base {
  constructor(protected readonly store: S3Store) {}

  /** The bucket, checked for existence, region and access, as S3 checks them. */
  protected bucketFor(ctx: CallContext, name: string, action: string, checkRegion = true): Bucket {
    const bucket = this.store.buckets.get(name);
    if (!bucket) throw s3Errors.noSuchBucket(name);
    const decision = evaluatePolicy(bucket.policy, ctx.account, ctx.callerArn, action);
    if (decision === 'deny' || (bucket.account !== ctx.account && decision !== 'allow'))
      throw s3Errors.accessDenied();
    if (checkRegion && bucket.region !== ctx.region) {
      throw new AwsError(
        'PermanentRedirect',
        'The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.',
        301,
        { Endpoint: `${name}.s3.${bucket.region}.amazonaws.com`, Bucket: name },
        { 'x-amz-bucket-region': bucket.region },
      );
    }
    return bucket;
  }

  /**
   * True when the bucket's policy lets the caller take `action` (as {@link bucketFor} decides),
   * on object `key` when given (statements whose `Resource` does not match it do not apply).
   */
  protected mayAct(ctx: CallContext, bucket: Bucket, action: string, key?: string): boolean {
    const resource = key === undefined ? undefined : `arn:aws:s3:::${bucket.name}/${key}`;
    const decision = evaluatePolicy(bucket.policy, ctx.account, ctx.callerArn, action, resource);
    return !(decision === 'deny' || (bucket.account !== ctx.account && decision !== 'allow'));
  }

  /** If-None-Match / If-Match on a write, evaluated atomically against the current version. */
  protected checkWritePreconditions(req: EmulatorRequest, bucket: Bucket, key: string): void {
    const ifNoneMatch = header(req, 'if-none-match');
    const ifMatch = header(req, 'if-match');
    if (ifNoneMatch === undefined && ifMatch === undefined) return;
    if (ifNoneMatch !== undefined && ifNoneMatch !== '*') throw s3Errors.notImplemented('If-None-Match');
    // A delete that finished while this write was in flight is a conflicting operation.
    const deletedWhileInFlight = (bucket.lastDelete.get(key) ?? -1) > req.arrivedAt;
    const live = liveObject(bucket, key);
    if (ifNoneMatch === '*') {
      if (live) throw s3Errors.preconditionFailed('If-None-Match');
      if (deletedWhileInFlight) throw s3Errors.conditionalConflict();
    }
    if (ifMatch !== undefined) {
      if (!live) throw s3Errors.noSuchKey(key);
      if (!etagMatches(ifMatch, live.etag)) throw s3Errors.preconditionFailed('If-Match');
    }
  }

  /** Resolves `x-amz-copy-source` (`/bucket/key?versionId=...`, URL-encoded) and its conditions. */
  protected copySource(
    ctx: CallContext,
    req: EmulatorRequest,
  ): { bucket: string; object: ObjectVersion; versionId?: string } {
    const raw = header(req, 'x-amz-copy-source')!;
    const [pathPart, queryPart] = raw.split('?', 2) as [string, string | undefined];
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathPart).replace(/^\//, '');
    } catch {
      throw s3Errors.invalidArgument('Invalid copy source encoding', 'x-amz-copy-source', raw);
    }
    const slash = decoded.indexOf('/');
    if (slash <= 0 || slash === decoded.length - 1)
      throw s3Errors.invalidArgument(
        'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
        'x-amz-copy-source',
        raw,
      );
    const bucketName = decoded.slice(0, slash);
    const key = decoded.slice(slash + 1);
    const versionId = queryPart ? (new URLSearchParams(queryPart).get('versionId') ?? undefined) : undefined;
    const bucket = this.bucketFor(ctx, bucketName, versionId ? 's3:GetObjectVersion' : 's3:GetObject', false);
    let object: ObjectVersion | undefined;
    if (versionId) {
      object = findVersion(bucket, key, versionId);
      if (!object) throw s3Errors.noSuchVersion(key, versionId);
      if (object.deleteMarker)
        throw s3Errors.invalidRequest(
          'The source of a copy request may not specifically refer to a delete marker by version id.',
        );
    } else {
      object = liveObject(bucket, key);
      if (!object) throw s3Errors.noSuchKey(key);
    }
    const ifMatch = header(req, 'x-amz-copy-source-if-match');
    const ifNoneMatch = header(req, 'x-amz-copy-source-if-none-match');
    const ifUnmodified = header(req, 'x-amz-copy-source-if-unmodified-since');
    const ifModified = header(req, 'x-amz-copy-source-if-modified-since');
    const modified = Math.floor(object.lastModified.getTime() / 1000) * 1000;
    if (ifMatch !== undefined && !etagMatches(ifMatch, object.etag))
      throw s3Errors.preconditionFailed('x-amz-copy-source-If-Match');
    if (ifMatch === undefined && ifUnmodified && modified > Date.parse(ifUnmodified))
      throw s3Errors.preconditionFailed('x-amz-copy-source-If-Unmodified-Since');
    if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, object.etag))
      throw s3Errors.preconditionFailed('x-amz-copy-source-If-None-Match');
    if (ifNoneMatch === undefined && ifModified && modified <= Date.parse(ifModified))
      throw s3Errors.preconditionFailed('x-amz-copy-source-If-Modified-Since');
    return { bucket: bucketName, object, versionId };
  }

  protected xml(
    status: number,
    root: string,
    content: XmlValue,
    headers: Record<string, string> = {},
  ): EmulatorResponse {
    return {
      status,
      headers: { 'content-type': 'application/xml', ...headers },
      body: xmlDocument(root, content, S3_NS),
    };
  }
}

export function hostId(): string {
  return Buffer.from(s3RequestId() + s3RequestId() + s3RequestId()).toString('base64');
}

export function owner(account: string): XmlObject {
  return { ID: createHash('sha256').update(account).digest('hex'), DisplayName: account };
}

export function clampInt(text: string | null, fallback: number, min: number, max: number): number {
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw s3Errors.invalidArgument(
      'Provided max-keys not an integer or within integer range',
      'max-keys',
      text,
    );
  return Math.min(Math.max(n, min), max);
}
