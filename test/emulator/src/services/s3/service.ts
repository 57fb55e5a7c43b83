/**
 * Amazon S3 (REST-XML), path-style and virtual-host-style. Operation names
 * follow the S3 API reference; behaviour follows its documentation.
 */
import { emulatorDate } from '../../core/clock';
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { AwsError } from '../../core/errors';
import { decodeAwsChunked, header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import { s3RequestId, upperAlnum, uuid } from '../../core/ids';
import type { CallContext, RoutedCall, ServiceHandler } from '../../core/service';
import { parseXml, xmlDocument, XmlSeq, type XmlObject, type XmlValue } from '../../core/xml';
import { s3Errors } from './errors';
import { compareKeys, deleteCurrent, deleteVersion, findVersion, putVersion, sortedKeys } from './objects';
import { evaluatePolicy } from './policy';
import {
  currentVersion,
  DEFAULT_ENCRYPTION,
  liveObject,
  type Bucket,
  type EncryptionRule,
  type MultipartUpload,
  type ObjectChecksum,
  type ObjectEncryption,
  type ObjectVersion,
  type S3Store,
  type Tag,
} from './store';

const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const MIN_PART_SIZE = 5 * 1024 * 1024;
const SYSTEM_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
];
const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'];

/** Bucket-level subresources S3 has but the emulator does not model. */
const UNMODELLED_BUCKET_SUBRESOURCES = [
  'acl',
  'cors',
  'lifecycle',
  'logging',
  'notification',
  'ownershipControls',
  'replication',
  'website',
  'accelerate',
  'analytics',
  'inventory',
  'metrics',
  'intelligent-tiering',
  'object-lock',
  'requestPayment',
  'policyStatus',
];

interface Target {
  bucket?: string;
  key?: string;
}

interface S3Call {
  operation: string;
  handler: (ctx: CallContext, req: EmulatorRequest, target: Target) => EmulatorResponse;
}

export class S3Service implements ServiceHandler {
  readonly name = 's3';

  constructor(private readonly store: S3Store) {}

  route(req: EmulatorRequest): RoutedCall {
    const target = parseTarget(req);
    const call = this.resolve(req, target);
    return {
      operation: call.operation,
      input: {
        ...(target.bucket ? { Bucket: target.bucket } : {}),
        ...(target.key ? { Key: target.key } : {}),
      },
      run: (ctx) => {
        if (ctx.presigned) checkPresignedExpiry(req);
        this.checkExpectedOwners(req, target);
        return call.handler.call(this, ctx, req, target);
      },
    };
  }

  errorResponse(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse {
    const headers: Record<string, string> = {
      'x-amz-request-id': requestId,
      'x-amz-id-2': hostId(),
      ...err.headers,
    };
    if (req.method === 'HEAD' || err.status === 304) return { status: err.status, headers };
    const target = safeTarget(req);
    const resource = target ? `/${[target.bucket, target.key].filter(Boolean).join('/')}` : undefined;
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

  // ---------------------------------------------------------------- routing

  private resolve(req: EmulatorRequest, target: Target): S3Call {
    const q = req.query;
    const m = req.method;
    if (!target.bucket) {
      if (m === 'GET') return { operation: 'ListBuckets', handler: this.listBuckets };
      throw s3Errors.methodNotAllowed(m, 'SERVICE');
    }
    if (target.key === undefined) {
      if (m === 'GET') {
        if (q.has('versioning'))
          return { operation: 'GetBucketVersioning', handler: this.getBucketVersioning };
        if (q.has('encryption'))
          return { operation: 'GetBucketEncryption', handler: this.getBucketEncryption };
        if (q.has('policy')) return { operation: 'GetBucketPolicy', handler: this.getBucketPolicy };
        if (q.has('publicAccessBlock'))
          return { operation: 'GetPublicAccessBlock', handler: this.getPublicAccessBlock };
        if (q.has('tagging')) return { operation: 'GetBucketTagging', handler: this.getBucketTagging };
        if (q.has('location')) return { operation: 'GetBucketLocation', handler: this.getBucketLocation };
        if (q.has('versions')) return { operation: 'ListObjectVersions', handler: this.listObjectVersions };
        if (q.has('uploads'))
          return { operation: 'ListMultipartUploads', handler: this.listMultipartUploads };
        this.refuseUnmodelled(q);
        if (q.get('list-type') === '2') return { operation: 'ListObjectsV2', handler: this.listObjectsV2 };
        return { operation: 'ListObjects', handler: this.listObjectsV1 };
      }
      if (m === 'PUT') {
        if (q.has('versioning'))
          return { operation: 'PutBucketVersioning', handler: this.putBucketVersioning };
        if (q.has('encryption'))
          return { operation: 'PutBucketEncryption', handler: this.putBucketEncryption };
        if (q.has('policy')) return { operation: 'PutBucketPolicy', handler: this.putBucketPolicy };
        if (q.has('publicAccessBlock'))
          return { operation: 'PutPublicAccessBlock', handler: this.putPublicAccessBlock };
        if (q.has('tagging')) return { operation: 'PutBucketTagging', handler: this.putBucketTagging };
        this.refuseUnmodelled(q);
        return { operation: 'CreateBucket', handler: this.createBucket };
      }
      if (m === 'HEAD') return { operation: 'HeadBucket', handler: this.headBucket };
      if (m === 'DELETE') {
        if (q.has('encryption'))
          return { operation: 'DeleteBucketEncryption', handler: this.deleteBucketEncryption };
        if (q.has('policy')) return { operation: 'DeleteBucketPolicy', handler: this.deleteBucketPolicy };
        if (q.has('publicAccessBlock'))
          return { operation: 'DeletePublicAccessBlock', handler: this.deletePublicAccessBlock };
        if (q.has('tagging')) return { operation: 'DeleteBucketTagging', handler: this.deleteBucketTagging };
        this.refuseUnmodelled(q);
        return { operation: 'DeleteBucket', handler: this.deleteBucket };
      }
      if (m === 'POST' && q.has('delete')) return { operation: 'DeleteObjects', handler: this.deleteObjects };
      throw s3Errors.methodNotAllowed(m, 'BUCKET');
    }
    if (m === 'PUT') {
      if (q.has('uploadId') && q.has('partNumber')) {
        if (header(req, 'x-amz-copy-source'))
          return { operation: 'UploadPartCopy', handler: this.uploadPartCopy };
        return { operation: 'UploadPart', handler: this.uploadPart };
      }
      if (q.has('tagging')) return { operation: 'PutObjectTagging', handler: this.putObjectTagging };
      if (header(req, 'x-amz-copy-source')) return { operation: 'CopyObject', handler: this.copyObject };
      return { operation: 'PutObject', handler: this.putObject };
    }
    if (m === 'GET') {
      if (q.has('uploadId')) return { operation: 'ListParts', handler: this.listParts };
      if (q.has('tagging')) return { operation: 'GetObjectTagging', handler: this.getObjectTagging };
      return { operation: 'GetObject', handler: this.getObject };
    }
    if (m === 'HEAD') return { operation: 'HeadObject', handler: this.headObject };
    if (m === 'DELETE') {
      if (q.has('uploadId')) return { operation: 'AbortMultipartUpload', handler: this.abortMultipartUpload };
      if (q.has('tagging')) return { operation: 'DeleteObjectTagging', handler: this.deleteObjectTagging };
      return { operation: 'DeleteObject', handler: this.deleteObject };
    }
    if (m === 'POST') {
      if (q.has('uploads'))
        return { operation: 'CreateMultipartUpload', handler: this.createMultipartUpload };
      if (q.has('uploadId'))
        return { operation: 'CompleteMultipartUpload', handler: this.completeMultipartUpload };
    }
    throw s3Errors.methodNotAllowed(m, 'OBJECT');
  }

  private refuseUnmodelled(q: URLSearchParams): void {
    for (const name of UNMODELLED_BUCKET_SUBRESOURCES) {
      if (q.has(name)) throw s3Errors.notImplemented();
    }
  }

  // ------------------------------------------------------------ access rules

  /** `x-amz-expected-bucket-owner` (and the copy source's): a different owner is 403 AccessDenied. */
  private checkExpectedOwners(req: EmulatorRequest, target: Target): void {
    const expected = header(req, 'x-amz-expected-bucket-owner');
    const bucket = target.bucket ? this.store.buckets.get(target.bucket) : undefined;
    if (expected !== undefined && bucket && bucket.account !== expected) throw s3Errors.accessDenied();
    const expectedSource = header(req, 'x-amz-source-expected-bucket-owner');
    const source = header(req, 'x-amz-copy-source');
    if (expectedSource !== undefined && source) {
      const sourceBucket = this.store.buckets.get(
        decodeURIComponent(source.replace(/^\//, '').split('/')[0] ?? ''),
      );
      if (sourceBucket && sourceBucket.account !== expectedSource) throw s3Errors.accessDenied();
    }
  }

  /** The bucket, checked for existence, region and access, as S3 checks them. */
  private bucketFor(ctx: CallContext, name: string, action: string, checkRegion = true): Bucket {
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

  // ---------------------------------------------------------------- buckets

  private listBuckets(ctx: CallContext, req: EmulatorRequest): EmulatorResponse {
    const prefix = req.query.get('prefix') ?? '';
    const regionFilter = req.query.get('bucket-region');
    const max = clampInt(req.query.get('max-buckets'), 10000, 1, 10000);
    const after = req.query.get('continuation-token') ?? '';
    const owned = [...this.store.buckets.values()]
      .filter(
        (b) =>
          b.account === ctx.account &&
          b.name.startsWith(prefix) &&
          (!regionFilter || b.region === regionFilter),
      )
      .sort((a, b) => compareKeys(a.name, b.name))
      .filter((b) => !after || b.name > after);
    const page = owned.slice(0, max);
    const truncated = owned.length > page.length;
    return this.xml(200, 'ListAllMyBucketsResult', {
      Owner: owner(ctx.account),
      Buckets: {
        Bucket: page.map((b) => ({ Name: b.name, CreationDate: b.creationDate, BucketRegion: b.region })),
      },
      ContinuationToken: truncated ? page[page.length - 1]!.name : undefined,
      Prefix: req.query.has('prefix') ? prefix : undefined,
    });
  }

  private createBucket(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const name = target.bucket!;
    validateBucketName(name);
    let constraint = '';
    if (req.body.length) {
      const doc = parseXml(req.body);
      const config = doc?.CreateBucketConfiguration as Record<string, unknown> | undefined;
      if (!doc || (doc && !('CreateBucketConfiguration' in doc))) throw s3Errors.malformedXml();
      constraint = typeof config?.LocationConstraint === 'string' ? config.LocationConstraint : '';
    }
    if (constraint === 'us-east-1') {
      throw new AwsError('InvalidLocationConstraint', 'The specified location-constraint is not valid', 400, {
        LocationConstraint: constraint,
      });
    }
    const region = constraint || 'us-east-1';
    if (region !== ctx.region) {
      if (!constraint) {
        throw new AwsError(
          'IllegalLocationConstraintException',
          'The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.',
          400,
        );
      }
      throw new AwsError(
        'IllegalLocationConstraintException',
        `The ${constraint} location constraint is incompatible for the region specific endpoint this request was sent to.`,
        400,
      );
    }
    const existing = this.store.buckets.get(name);
    if (existing) {
      if (existing.account !== ctx.account) {
        throw new AwsError(
          'BucketAlreadyExists',
          'The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.',
          409,
          { BucketName: name },
        );
      }
      // Legacy behaviour of us-east-1: re-creating your own bucket there succeeds.
      if (!(existing.region === 'us-east-1' && ctx.region === 'us-east-1')) {
        throw new AwsError(
          'BucketAlreadyOwnedByYou',
          'Your previous request to create the named bucket succeeded and you already own it.',
          409,
          { BucketName: name },
        );
      }
    } else {
      this.store.createBucket(name, ctx.account, region);
    }
    return { status: 200, headers: { location: `/${name}` } };
  }

  private headBucket(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.store.buckets.get(target.bucket!);
    if (bucket && bucket.region !== ctx.region && bucket.account === ctx.account) {
      return { status: 301, headers: { 'x-amz-bucket-region': bucket.region } };
    }
    const found = this.bucketFor(ctx, target.bucket!, 's3:ListBucket');
    return {
      status: 200,
      headers: { 'x-amz-bucket-region': found.region, 'x-amz-access-point-alias': 'false' },
    };
  }

  private getBucketLocation(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetBucketLocation', false);
    return this.xml(200, 'LocationConstraint', bucket.region === 'us-east-1' ? '' : bucket.region);
  }

  private deleteBucket(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:DeleteBucket');
    if (bucket.objects.size > 0) {
      throw new AwsError('BucketNotEmpty', 'The bucket you tried to delete is not empty', 409, {
        BucketName: bucket.name,
      });
    }
    this.store.buckets.delete(bucket.name);
    return { status: 204 };
  }

  private getBucketVersioning(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetBucketVersioning');
    return this.xml(200, 'VersioningConfiguration', bucket.versioning ? { Status: bucket.versioning } : {});
  }

  private putBucketVersioning(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketVersioning');
    const config = parseXml(req.body)?.VersioningConfiguration as Record<string, unknown> | undefined;
    if (!config || typeof config !== 'object') throw s3Errors.malformedXml();
    const status = config.Status;
    if (status !== undefined && status !== 'Enabled' && status !== 'Suspended') throw s3Errors.malformedXml();
    if (status) bucket.versioning = status;
    return { status: 200 };
  }

  private getBucketEncryption(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetEncryptionConfiguration');
    return this.xml(200, 'ServerSideEncryptionConfiguration', {
      Rule: bucket.encryption.map((r) => ({
        ApplyServerSideEncryptionByDefault: {
          SSEAlgorithm: r.SSEAlgorithm,
          KMSMasterKeyID: r.KMSMasterKeyID,
        },
        BucketKeyEnabled: r.BucketKeyEnabled ?? false,
      })),
    });
  }

  private putBucketEncryption(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutEncryptionConfiguration');
    const config = parseXml(req.body)?.ServerSideEncryptionConfiguration as
      Record<string, unknown> | undefined;
    const rules = config?.Rule as Array<Record<string, unknown>> | undefined;
    if (!rules?.length) throw s3Errors.malformedXml();
    const parsed: EncryptionRule[] = rules.map((rule) => {
      const d = rule.ApplyServerSideEncryptionByDefault as Record<string, string> | undefined;
      if (!d?.SSEAlgorithm || !['AES256', 'aws:kms', 'aws:kms:dsse'].includes(d.SSEAlgorithm))
        throw s3Errors.malformedXml();
      if (d.KMSMasterKeyID && d.SSEAlgorithm === 'AES256') {
        throw s3Errors.invalidArgument(
          'a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse',
          'ApplyServerSideEncryptionByDefault',
        );
      }
      return {
        SSEAlgorithm: d.SSEAlgorithm,
        KMSMasterKeyID: d.KMSMasterKeyID,
        BucketKeyEnabled: rule.BucketKeyEnabled === 'true',
      };
    });
    bucket.encryption = parsed;
    return { status: 200 };
  }

  private deleteBucketEncryption(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutEncryptionConfiguration');
    // Every bucket keeps SSE-S3 as its default encryption.
    bucket.encryption = DEFAULT_ENCRYPTION.map((r) => ({ ...r }));
    return { status: 204 };
  }

  private getBucketPolicy(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetBucketPolicy');
    if (!bucket.policy)
      throw new AwsError('NoSuchBucketPolicy', 'The bucket policy does not exist', 404, {
        BucketName: bucket.name,
      });
    return { status: 200, headers: { 'content-type': 'application/json' }, body: bucket.policy };
  }

  private putBucketPolicy(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketPolicy');
    const text = req.body.toString('utf8');
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new AwsError(
        'MalformedPolicy',
        "Policies must be valid JSON and the first byte must be '{'",
        400,
      );
    }
    if (!doc || typeof doc !== 'object' || !('Statement' in doc))
      throw new AwsError('MalformedPolicy', 'Missing required field Statement', 400);
    if (bucket.publicAccessBlock?.BlockPublicPolicy && grantsPublicAccess(doc)) {
      throw s3Errors.accessDenied(
        'User is not authorized to perform: s3:PutBucketPolicy on resource because public policies are blocked by the BlockPublicPolicy block public access setting.',
      );
    }
    bucket.policy = text;
    return { status: 204 };
  }

  private deleteBucketPolicy(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:DeleteBucketPolicy');
    bucket.policy = undefined;
    return { status: 204 };
  }

  private getPublicAccessBlock(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetBucketPublicAccessBlock');
    if (!bucket.publicAccessBlock) {
      throw new AwsError(
        'NoSuchPublicAccessBlockConfiguration',
        'The public access block configuration was not found',
        404,
        { BucketName: bucket.name },
      );
    }
    return this.xml(200, 'PublicAccessBlockConfiguration', { ...bucket.publicAccessBlock });
  }

  private putPublicAccessBlock(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketPublicAccessBlock');
    const config = parseXml(req.body)?.PublicAccessBlockConfiguration as Record<string, unknown> | undefined;
    if (!config || typeof config !== 'object') throw s3Errors.malformedXml();
    const flag = (name: string) => config[name] === 'true';
    bucket.publicAccessBlock = {
      BlockPublicAcls: flag('BlockPublicAcls'),
      IgnorePublicAcls: flag('IgnorePublicAcls'),
      BlockPublicPolicy: flag('BlockPublicPolicy'),
      RestrictPublicBuckets: flag('RestrictPublicBuckets'),
    };
    return { status: 200 };
  }

  private deletePublicAccessBlock(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketPublicAccessBlock');
    bucket.publicAccessBlock = undefined;
    return { status: 204 };
  }

  private getBucketTagging(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:GetBucketTagging');
    if (!bucket.tags)
      throw new AwsError('NoSuchTagSet', 'The TagSet does not exist', 404, { BucketName: bucket.name });
    return this.xml(200, 'Tagging', { TagSet: { Tag: bucket.tags } });
  }

  private putBucketTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketTagging');
    bucket.tags = parseTagging(req.body);
    return { status: 204 };
  }

  private deleteBucketTagging(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutBucketTagging');
    bucket.tags = undefined;
    return { status: 204 };
  }

  // ---------------------------------------------------------------- listing

  private listObjectsV2(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:ListBucket');
    const q = req.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = clampInt(q.get('max-keys'), 1000, 0, 1000);
    const token = q.get('continuation-token');
    let marker = q.get('start-after') ?? '';
    if (token !== null) {
      const decoded = decodeToken(token);
      if (decoded === undefined)
        throw s3Errors.invalidArgument(
          'The continuation token provided is incorrect',
          'continuation-token',
          token,
        );
      marker = decoded;
    }
    const encode = q.get('encoding-type') === 'url';
    const page = listKeys(bucket, prefix, delimiter, marker, maxKeys);
    const fetchOwner = q.get('fetch-owner') === 'true';
    return this.xml(200, 'ListBucketResult', {
      Name: bucket.name,
      Prefix: encodeKey(prefix, encode),
      Delimiter: delimiter ? encodeKey(delimiter, encode) : undefined,
      MaxKeys: maxKeys,
      EncodingType: encode ? 'url' : undefined,
      KeyCount: page.contents.length + page.prefixes.length,
      IsTruncated: page.truncated,
      ContinuationToken: token ?? undefined,
      NextContinuationToken: page.truncated ? encodeToken(page.last) : undefined,
      StartAfter: q.has('start-after') ? encodeKey(q.get('start-after')!, encode) : undefined,
      Contents: page.contents.map((o) => objectEntry(o, encode, fetchOwner ? bucket.account : undefined)),
      CommonPrefixes: page.prefixes.map((p) => ({ Prefix: encodeKey(p, encode) })),
    });
  }

  private listObjectsV1(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:ListBucket');
    const q = req.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = clampInt(q.get('max-keys'), 1000, 0, 1000);
    const marker = q.get('marker') ?? '';
    const encode = q.get('encoding-type') === 'url';
    const page = listKeys(bucket, prefix, delimiter, marker, maxKeys);
    return this.xml(200, 'ListBucketResult', {
      Name: bucket.name,
      Prefix: encodeKey(prefix, encode),
      Marker: encodeKey(marker, encode),
      NextMarker: page.truncated && delimiter ? encodeKey(page.last, encode) : undefined,
      MaxKeys: maxKeys,
      Delimiter: delimiter ? encodeKey(delimiter, encode) : undefined,
      EncodingType: encode ? 'url' : undefined,
      IsTruncated: page.truncated,
      Contents: page.contents.map((o) => objectEntry(o, encode, bucket.account)),
      CommonPrefixes: page.prefixes.map((p) => ({ Prefix: encodeKey(p, encode) })),
    });
  }

  private listObjectVersions(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:ListBucketVersions');
    const q = req.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = clampInt(q.get('max-keys'), 1000, 0, 1000);
    const keyMarker = q.get('key-marker') ?? '';
    const versionIdMarker = q.get('version-id-marker') ?? '';
    if (versionIdMarker && !keyMarker) {
      throw s3Errors.invalidArgument(
        'A version-id marker cannot be specified without a key marker.',
        'version-id-marker',
        versionIdMarker,
      );
    }
    const encode = q.get('encoding-type') === 'url';
    const items: Array<[string, XmlValue]> = [];
    const prefixes: string[] = [];
    let count = 0;
    let truncated = false;
    let nextKeyMarker: string | undefined;
    let nextVersionIdMarker: string | undefined;
    let lastPrefix: string | undefined;
    outer: for (const key of sortedKeys(bucket)) {
      if (!key.startsWith(prefix)) continue;
      if (keyMarker && compareKeys(key, keyMarker) < 0) continue;
      if (keyMarker && key === keyMarker && !versionIdMarker) continue;
      if (delimiter) {
        const at = key.indexOf(delimiter, prefix.length);
        if (at >= 0) {
          const common = key.slice(0, at + delimiter.length);
          if (common === lastPrefix || common === keyMarker) continue;
          if (count >= maxKeys) {
            truncated = true;
            break;
          }
          prefixes.push(common);
          lastPrefix = common;
          nextKeyMarker = common;
          nextVersionIdMarker = undefined;
          count++;
          continue;
        }
      }
      const versions = bucket.objects.get(key)!;
      let start = 0;
      if (keyMarker && key === keyMarker && versionIdMarker) {
        const at = versions.findIndex((v) => v.versionId === versionIdMarker);
        if (at < 0)
          throw s3Errors.invalidArgument(
            'Invalid version id specified',
            'version-id-marker',
            versionIdMarker,
          );
        start = at + 1;
      }
      for (let i = start; i < versions.length; i++) {
        if (count >= maxKeys) {
          truncated = true;
          break outer;
        }
        const v = versions[i]!;
        const entry: XmlObject = v.deleteMarker
          ? {
              Owner: owner(bucket.account),
              Key: encodeKey(v.key, encode),
              VersionId: v.versionId,
              IsLatest: i === 0,
              LastModified: v.lastModified,
            }
          : {
              ETag: v.etag,
              Size: v.body.length,
              Owner: owner(bucket.account),
              Key: encodeKey(v.key, encode),
              VersionId: v.versionId,
              IsLatest: i === 0,
              LastModified: v.lastModified,
              StorageClass: v.storageClass,
              ChecksumAlgorithm: v.checksum?.algorithm,
            };
        items.push([v.deleteMarker ? 'DeleteMarker' : 'Version', entry]);
        nextKeyMarker = key;
        nextVersionIdMarker = v.versionId;
        count++;
      }
    }
    return this.xml(
      200,
      'ListVersionsResult',
      new XmlSeq([
        ['IsTruncated', truncated],
        ['KeyMarker', encodeKey(keyMarker, encode)],
        ['VersionIdMarker', versionIdMarker],
        ['NextKeyMarker', truncated ? encodeKey(nextKeyMarker ?? '', encode) : undefined],
        ['NextVersionIdMarker', truncated ? nextVersionIdMarker : undefined],
        ...items,
        ['Name', bucket.name],
        ['Prefix', encodeKey(prefix, encode)],
        ['Delimiter', delimiter ? encodeKey(delimiter, encode) : undefined],
        ['MaxKeys', maxKeys],
        ['EncodingType', encode ? 'url' : undefined],
        ['CommonPrefixes', prefixes.map((p) => ({ Prefix: encodeKey(p, encode) }))],
      ]),
    );
  }

  // ---------------------------------------------------------------- objects

  private putObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const key = target.key!;
    const { data, checksum } = readPayload(req);
    const sse = requestedEncryption(req);
    this.checkWritePreconditions(req, bucket, key);
    const version = putVersion(bucket, {
      key,
      versionId: 'null',
      deleteMarker: false,
      body: data,
      etag: md5ETag(data),
      lastModified: emulatorDate(),
      contentType: header(req, 'content-type') ?? 'binary/octet-stream',
      metadata: userMetadata(req),
      systemHeaders: systemHeaders(req),
      checksum,
      sse,
      storageClass: header(req, 'x-amz-storage-class') ?? 'STANDARD',
      tags: parseTaggingHeader(header(req, 'x-amz-tagging')),
    });
    const headers: Record<string, string> = { etag: version.etag, ...encryptionHeaders(bucket, sse) };
    if (bucket.versioning) headers['x-amz-version-id'] = version.versionId;
    if (checksum) {
      headers[`x-amz-checksum-${checksum.algorithm.toLowerCase()}`] = checksum.value;
      headers['x-amz-checksum-type'] = 'FULL_OBJECT';
    }
    return { status: 200, headers };
  }

  /** If-None-Match / If-Match on a write, evaluated atomically against the current version. */
  private checkWritePreconditions(req: EmulatorRequest, bucket: Bucket, key: string): void {
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

  private getObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    return this.readObject(ctx, req, target, true);
  }

  private headObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    return this.readObject(ctx, req, target, false);
  }

  private readObject(
    ctx: CallContext,
    req: EmulatorRequest,
    target: Target,
    withBody: boolean,
  ): EmulatorResponse {
    const versionId = req.query.get('versionId');
    const bucket = this.bucketFor(ctx, target.bucket!, versionId ? 's3:GetObjectVersion' : 's3:GetObject');
    const key = target.key!;
    let object: ObjectVersion | undefined;
    if (versionId !== null) {
      object = findVersion(bucket, key, versionId);
      if (!object) {
        if (versionId !== 'null' && !/^[A-Za-z0-9._]{32}$/.test(versionId)) {
          throw s3Errors.invalidArgument('Invalid version id specified', 'versionId', versionId);
        }
        throw s3Errors.noSuchVersion(key, versionId);
      }
      if (object.deleteMarker) {
        throw s3Errors.methodNotAllowed(req.method, 'DeleteMarker', {
          'x-amz-delete-marker': 'true',
          'x-amz-version-id': versionId,
          'last-modified': object.lastModified.toUTCString(),
        });
      }
    } else {
      const current = currentVersion(bucket, key);
      if (!current) throw s3Errors.noSuchKey(key);
      if (current.deleteMarker)
        throw s3Errors.noSuchKey(key, {
          'x-amz-delete-marker': 'true',
          'x-amz-version-id': current.versionId,
        });
      object = current;
    }
    checkReadPreconditions(req, object);
    const headers = objectHeaders(object, bucket);
    applyResponseOverrides(req, headers);
    const partNumber = req.query.get('partNumber');
    if (partNumber !== null && object.partsCount) headers['x-amz-mp-parts-count'] = object.partsCount;
    const range = header(req, 'range');
    if (range) {
      const r = parseRange(range, object.body.length);
      if (r) {
        headers['content-range'] = `bytes ${r.start}-${r.end}/${object.body.length}`;
        headers['content-length'] = r.end - r.start + 1;
        return {
          status: 206,
          headers,
          body: withBody ? object.body.subarray(r.start, r.end + 1) : undefined,
        };
      }
    }
    if (object.checksum && header(req, 'x-amz-checksum-mode') === 'ENABLED') {
      headers[`x-amz-checksum-${object.checksum.algorithm.toLowerCase()}`] = object.checksum.value;
      headers['x-amz-checksum-type'] = 'FULL_OBJECT';
    }
    return { status: 200, headers, body: withBody ? object.body : undefined };
  }

  private deleteObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:DeleteObject');
    const key = target.key!;
    const versionId = req.query.get('versionId');
    const ifMatch = header(req, 'if-match');
    const headers: Record<string, string> = {};
    if (ifMatch !== undefined) {
      const live = liveObject(bucket, key);
      if (!live) throw s3Errors.noSuchKey(key);
      if (!etagMatches(ifMatch, live.etag)) throw s3Errors.preconditionFailed('If-Match');
    }
    const outcome =
      versionId !== null ? deleteVersion(bucket, key, versionId) : deleteCurrent(bucket, key, emulatorDate());
    if (outcome.deleteMarker) headers['x-amz-delete-marker'] = 'true';
    if (outcome.versionId && (bucket.versioning || versionId !== null))
      headers['x-amz-version-id'] = outcome.versionId;
    return { status: 204, headers };
  }

  private deleteObjects(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:DeleteObject');
    if (!header(req, 'content-md5') && !CHECKSUM_ALGORITHMS.some((a) => header(req, `x-amz-checksum-${a}`))) {
      throw s3Errors.invalidRequest(
        'Missing required header for this request: Content-MD5 OR x-amz-checksum-*',
      );
    }
    const { data } = readPayload(req);
    const doc = parseXml(data)?.Delete as Record<string, unknown> | undefined;
    const objects = (doc?.Object as Array<Record<string, unknown>> | undefined) ?? [];
    if (!doc || objects.length === 0 || objects.length > 1000) throw s3Errors.malformedXml();
    const quiet = doc.Quiet === 'true';
    const items: Array<[string, XmlValue]> = [];
    for (const entry of objects) {
      const key = typeof entry.Key === 'string' ? entry.Key : '';
      const versionId = typeof entry.VersionId === 'string' ? entry.VersionId : undefined;
      const etag = typeof entry.ETag === 'string' ? entry.ETag : undefined;
      if (etag !== undefined) {
        const live = liveObject(bucket, key);
        if (!live) {
          items.push([
            'Error',
            {
              Key: key,
              VersionId: versionId,
              Code: 'NoSuchKey',
              Message: 'The specified key does not exist.',
            },
          ]);
          continue;
        }
        if (!etagMatches(etag, live.etag)) {
          items.push([
            'Error',
            {
              Key: key,
              VersionId: versionId,
              Code: 'PreconditionFailed',
              Message: 'At least one of the pre-conditions you specified did not hold',
            },
          ]);
          continue;
        }
      }
      if (versionId !== undefined && versionId !== 'null' && !/^[A-Za-z0-9._]{32}$/.test(versionId)) {
        items.push([
          'Error',
          {
            Key: key,
            VersionId: versionId,
            Code: 'NoSuchVersion',
            Message: 'The specified version does not exist.',
          },
        ]);
        continue;
      }
      const outcome =
        versionId !== undefined
          ? deleteVersion(bucket, key, versionId)
          : deleteCurrent(bucket, key, emulatorDate());
      if (quiet) continue;
      items.push([
        'Deleted',
        versionId !== undefined
          ? {
              Key: key,
              VersionId: versionId,
              DeleteMarker: outcome.deleteMarker || undefined,
              DeleteMarkerVersionId: outcome.deleteMarker ? versionId : undefined,
            }
          : {
              Key: key,
              DeleteMarker: outcome.deleteMarker || undefined,
              DeleteMarkerVersionId: outcome.deleteMarker ? outcome.versionId : undefined,
            },
      ]);
    }
    return this.xml(200, 'DeleteResult', new XmlSeq(items));
  }

  private copyObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const source = this.copySource(ctx, req);
    const directive = header(req, 'x-amz-metadata-directive') ?? 'COPY';
    if (directive !== 'COPY' && directive !== 'REPLACE')
      throw s3Errors.invalidArgument('Unknown metadata directive.', 'x-amz-metadata-directive', directive);
    if (
      source.bucket === bucket.name &&
      source.object.key === target.key &&
      directive === 'COPY' &&
      !source.versionId &&
      !header(req, 'x-amz-storage-class')
    ) {
      throw s3Errors.invalidRequest(
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    this.checkWritePreconditions(req, bucket, target.key!);
    const src = source.object;
    const tagDirective = header(req, 'x-amz-tagging-directive') ?? 'COPY';
    const version = putVersion(bucket, {
      key: target.key!,
      versionId: 'null',
      deleteMarker: false,
      body: src.body,
      etag: src.partsCount ? md5ETag(src.body) : src.etag,
      lastModified: emulatorDate(),
      contentType:
        directive === 'REPLACE' ? (header(req, 'content-type') ?? 'binary/octet-stream') : src.contentType,
      metadata: directive === 'REPLACE' ? userMetadata(req) : { ...src.metadata },
      systemHeaders: directive === 'REPLACE' ? systemHeaders(req) : { ...src.systemHeaders },
      checksum: src.checksum,
      sse: requestedEncryption(req),
      storageClass: header(req, 'x-amz-storage-class') ?? src.storageClass,
      tags:
        tagDirective === 'REPLACE'
          ? parseTaggingHeader(header(req, 'x-amz-tagging'))
          : src.tags.map((t) => ({ ...t })),
    });
    const headers: Record<string, string> = {
      ...encryptionHeaders(bucket, version.sse),
      'content-type': 'application/xml',
    };
    if (bucket.versioning) headers['x-amz-version-id'] = version.versionId;
    if (source.versionId || this.store.buckets.get(source.bucket)?.versioning)
      headers['x-amz-copy-source-version-id'] = src.versionId;
    return {
      status: 200,
      headers: { ...headers, 'x-amz-request-charged': '' },
      body: xmlDocument(
        'CopyObjectResult',
        { ETag: version.etag, LastModified: version.lastModified },
        S3_NS,
      ),
    };
  }

  /** Resolves `x-amz-copy-source` (`/bucket/key?versionId=...`, URL-encoded) and its conditions. */
  private copySource(
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

  // ----------------------------------------------------------- object tags

  private getObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:GetObjectTagging');
    const headers: Record<string, string> =
      object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {};
    return this.xml(200, 'Tagging', { TagSet: { Tag: object.tags } }, headers);
  }

  private putObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:PutObjectTagging');
    object.tags = parseTagging(req.body);
    return {
      status: 200,
      headers: object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {},
    };
  }

  private deleteObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:DeleteObjectTagging');
    object.tags = [];
    return {
      status: 204,
      headers: object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {},
    };
  }

  private taggedObject(
    ctx: CallContext,
    req: EmulatorRequest,
    target: Target,
    action: string,
  ): ObjectVersion {
    const bucket = this.bucketFor(ctx, target.bucket!, action);
    const versionId = req.query.get('versionId');
    const object =
      versionId !== null ? findVersion(bucket, target.key!, versionId) : liveObject(bucket, target.key!);
    if (!object)
      throw versionId !== null
        ? s3Errors.noSuchVersion(target.key!, versionId)
        : s3Errors.noSuchKey(target.key!);
    if (object.deleteMarker) throw s3Errors.methodNotAllowed(req.method, 'DeleteMarker');
    return object;
  }

  // -------------------------------------------------------------- multipart

  private createMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const uploadId = Buffer.from(`${uuid()}${upperAlnum(8)}`).toString('base64url');
    const sse = requestedEncryption(req);
    bucket.uploads.set(uploadId, {
      uploadId,
      key: target.key!,
      sse,
      initiated: new Date(),
      contentType: header(req, 'content-type') ?? 'binary/octet-stream',
      metadata: userMetadata(req),
      systemHeaders: systemHeaders(req),
      tags: parseTaggingHeader(header(req, 'x-amz-tagging')),
      storageClass: header(req, 'x-amz-storage-class') ?? 'STANDARD',
      parts: new Map(),
    });
    return this.xml(
      200,
      'InitiateMultipartUploadResult',
      { Bucket: bucket.name, Key: target.key!, UploadId: uploadId },
      encryptionHeaders(bucket, sse),
    );
  }

  private uploadFor(bucket: Bucket, req: EmulatorRequest, key: string): MultipartUpload {
    const uploadId = req.query.get('uploadId') ?? '';
    const upload = bucket.uploads.get(uploadId);
    if (!upload || upload.key !== key) throw s3Errors.noSuchUpload(uploadId);
    return upload;
  }

  private partNumber(req: EmulatorRequest): number {
    const text = req.query.get('partNumber') ?? '';
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 10000) {
      throw s3Errors.invalidArgument(
        'Part number must be an integer between 1 and 10000, inclusive',
        'partNumber',
        text,
      );
    }
    return n;
  }

  private uploadPart(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.key!);
    const partNumber = this.partNumber(req);
    const { data, checksum } = readPayload(req);
    const etag = md5ETag(data);
    upload.parts.set(partNumber, { partNumber, body: data, etag, lastModified: new Date() });
    const headers: Record<string, string> = { etag, ...encryptionHeaders(bucket, upload.sse) };
    if (checksum) headers[`x-amz-checksum-${checksum.algorithm.toLowerCase()}`] = checksum.value;
    return { status: 200, headers };
  }

  private uploadPartCopy(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.key!);
    const partNumber = this.partNumber(req);
    const source = this.copySource(ctx, req);
    let data = source.object.body;
    const range = header(req, 'x-amz-copy-source-range');
    if (range) {
      const r = parseRange(range, data.length);
      if (!r)
        throw s3Errors.invalidArgument(
          'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
          'x-amz-copy-source-range',
          range,
        );
      data = data.subarray(r.start, r.end + 1);
    }
    const etag = md5ETag(data);
    const part = { partNumber, body: Buffer.from(data), etag, lastModified: new Date() };
    upload.parts.set(partNumber, part);
    return this.xml(200, 'CopyPartResult', { ETag: etag, LastModified: part.lastModified });
  }

  private completeMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.key!);
    const doc = parseXml(req.body)?.CompleteMultipartUpload as Record<string, unknown> | undefined;
    const listed = (doc?.Part as Array<Record<string, string>> | undefined) ?? [];
    if (!doc || !listed.length) throw s3Errors.malformedXml();
    const parts = listed.map((p) => ({ number: Number(p.PartNumber), etag: p.ETag ?? '' }));
    for (let i = 1; i < parts.length; i++) {
      if (parts[i]!.number <= parts[i - 1]!.number) {
        throw new AwsError(
          'InvalidPartOrder',
          'The list of parts was not in ascending order. Parts must be ordered by part number.',
          400,
          { UploadId: upload.uploadId },
        );
      }
    }
    const chosen = parts.map((p) => {
      const stored = upload.parts.get(p.number);
      if (!stored || !etagMatches(p.etag, stored.etag)) {
        throw new AwsError(
          'InvalidPart',
          "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
          400,
          { UploadId: upload.uploadId, PartNumber: String(p.number), ETag: p.etag },
        );
      }
      return stored;
    });
    chosen.slice(0, -1).forEach((part) => {
      if (part.body.length < MIN_PART_SIZE) {
        throw new AwsError(
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed object size.',
          400,
          {
            ProposedSize: String(part.body.length),
            MinSizeAllowed: String(MIN_PART_SIZE),
            PartNumber: String(part.partNumber),
            ETag: part.etag,
          },
        );
      }
    });
    this.checkWritePreconditions(req, bucket, upload.key);
    const digest = createHash('md5');
    for (const part of chosen) digest.update(Buffer.from(part.etag.replace(/"/g, ''), 'hex'));
    const etag = `"${digest.digest('hex')}-${chosen.length}"`;
    const version = putVersion(bucket, {
      key: upload.key,
      versionId: 'null',
      deleteMarker: false,
      body: Buffer.concat(chosen.map((p) => p.body)),
      etag,
      lastModified: emulatorDate(),
      contentType: upload.contentType,
      metadata: upload.metadata,
      systemHeaders: upload.systemHeaders,
      sse: upload.sse,
      storageClass: upload.storageClass,
      tags: upload.tags,
      partsCount: chosen.length,
    });
    bucket.uploads.delete(upload.uploadId);
    const headers: Record<string, string> = encryptionHeaders(bucket, upload.sse);
    if (bucket.versioning) headers['x-amz-version-id'] = version.versionId;
    return this.xml(
      200,
      'CompleteMultipartUploadResult',
      {
        Location: `${ctx.baseUrl}/${bucket.name}/${encodeURI(upload.key)}`,
        Bucket: bucket.name,
        Key: upload.key,
        ETag: etag,
      },
      headers,
    );
  }

  private abortMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:AbortMultipartUpload');
    const upload = this.uploadFor(bucket, req, target.key!);
    bucket.uploads.delete(upload.uploadId);
    return { status: 204 };
  }

  private listParts(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:ListMultipartUploadParts');
    const upload = this.uploadFor(bucket, req, target.key!);
    const maxParts = clampInt(req.query.get('max-parts'), 1000, 0, 1000);
    const marker = Number(req.query.get('part-number-marker') ?? '0') || 0;
    const all = [...upload.parts.values()]
      .filter((p) => p.partNumber > marker)
      .sort((a, b) => a.partNumber - b.partNumber);
    const page = all.slice(0, maxParts);
    const truncated = all.length > page.length;
    return this.xml(200, 'ListPartsResult', {
      Bucket: bucket.name,
      Key: upload.key,
      UploadId: upload.uploadId,
      PartNumberMarker: marker,
      NextPartNumberMarker: page.length ? page[page.length - 1]!.partNumber : marker,
      MaxParts: maxParts,
      IsTruncated: truncated,
      Part: page.map((p) => ({
        PartNumber: p.partNumber,
        LastModified: p.lastModified,
        ETag: p.etag,
        Size: p.body.length,
      })),
      Initiator: { ID: `arn:aws:iam::${ctx.account}:root`, DisplayName: ctx.account },
      Owner: owner(bucket.account),
      StorageClass: upload.storageClass,
    });
  }

  private listMultipartUploads(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.bucket!, 's3:ListBucketMultipartUploads');
    const prefix = req.query.get('prefix') ?? '';
    const maxUploads = clampInt(req.query.get('max-uploads'), 1000, 0, 1000);
    const keyMarker = req.query.get('key-marker') ?? '';
    const all = [...bucket.uploads.values()]
      .filter((u) => u.key.startsWith(prefix) && (!keyMarker || compareKeys(u.key, keyMarker) > 0))
      .sort((a, b) => compareKeys(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime());
    const page = all.slice(0, maxUploads);
    const truncated = all.length > page.length;
    const last = page[page.length - 1];
    return this.xml(200, 'ListMultipartUploadsResult', {
      Bucket: bucket.name,
      KeyMarker: keyMarker,
      UploadIdMarker: req.query.get('upload-id-marker') ?? '',
      NextKeyMarker: truncated && last ? last.key : undefined,
      NextUploadIdMarker: truncated && last ? last.uploadId : undefined,
      Prefix: prefix,
      MaxUploads: maxUploads,
      IsTruncated: truncated,
      Upload: page.map((u) => ({
        Key: u.key,
        UploadId: u.uploadId,
        Initiator: { ID: `arn:aws:iam::${bucket.account}:root`, DisplayName: bucket.account },
        Owner: owner(bucket.account),
        StorageClass: u.storageClass,
        Initiated: u.initiated,
      })),
    });
  }

  private xml(
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

// ------------------------------------------------------------------ helpers

function hostId(): string {
  return Buffer.from(s3RequestId() + s3RequestId() + s3RequestId()).toString('base64');
}

function owner(account: string): XmlObject {
  return { ID: createHash('sha256').update(account).digest('hex'), DisplayName: account };
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function validateBucketName(name: string): void {
  if (
    !BUCKET_NAME.test(name) ||
    name.includes('..') ||
    /^\d+\.\d+\.\d+\.\d+$/.test(name) ||
    name.startsWith('xn--') ||
    name.endsWith('-s3alias') ||
    name.includes('.-') ||
    name.includes('-.')
  ) {
    throw new AwsError('InvalidBucketName', 'The specified bucket is not valid.', 400, { BucketName: name });
  }
}

/** Bucket and key from the Host header (virtual-host style) or the path. */
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
      return { bucket, key };
    }
    const rest = path.slice(1);
    if (!rest) return {};
    const slash = rest.indexOf('/');
    if (slash < 0) return { bucket: decodeURIComponent(rest) };
    const key = rest.slice(slash + 1);
    return {
      bucket: decodeURIComponent(rest.slice(0, slash)),
      key: key ? decodeURIComponent(key) : undefined,
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

export function md5ETag(data: Buffer): string {
  return `"${createHash('md5').update(data).digest('hex')}"`;
}

/** `If-Match`-style comparison: `*` or one of a comma-separated list of (quoted or bare) ETags. */
function etagMatches(condition: string, etag: string): boolean {
  const bare = etag.replace(/"/g, '');
  return condition.split(',').some((c) => {
    const t = c.trim().replace(/^W\//, '').replace(/"/g, '');
    return t === '*' || t === bare;
  });
}

function checkReadPreconditions(req: EmulatorRequest, object: ObjectVersion): void {
  const ifMatch = header(req, 'if-match');
  const ifNoneMatch = header(req, 'if-none-match');
  const ifModifiedSince = header(req, 'if-modified-since');
  const ifUnmodifiedSince = header(req, 'if-unmodified-since');
  const modified = Math.floor(object.lastModified.getTime() / 1000) * 1000;
  if (ifMatch !== undefined && !etagMatches(ifMatch, object.etag))
    throw s3Errors.preconditionFailed('If-Match');
  if (ifMatch === undefined && ifUnmodifiedSince) {
    const t = Date.parse(ifUnmodifiedSince);
    if (!Number.isNaN(t) && modified > t) throw s3Errors.preconditionFailed('If-Unmodified-Since');
  }
  const notModified = () =>
    new AwsError(
      'NotModified',
      'Not Modified',
      304,
      {},
      { etag: object.etag, 'last-modified': object.lastModified.toUTCString() },
    );
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, object.etag)) throw notModified();
  if (ifNoneMatch === undefined && ifModifiedSince) {
    const t = Date.parse(ifModifiedSince);
    if (!Number.isNaN(t) && modified <= t) throw notModified();
  }
}

function objectHeaders(object: ObjectVersion, bucket: Bucket): Record<string, string | number> {
  const headers: Record<string, string | number> = {
    'content-type': object.contentType,
    'content-length': object.body.length,
    etag: object.etag,
    'last-modified': object.lastModified.toUTCString(),
    'accept-ranges': 'bytes',
    ...encryptionHeaders(bucket, object.sse),
  };
  if (bucket.versioning || object.versionId !== 'null') headers['x-amz-version-id'] = object.versionId;
  if (object.storageClass !== 'STANDARD') headers['x-amz-storage-class'] = object.storageClass;
  if (object.tags.length) headers['x-amz-tagging-count'] = object.tags.length;
  for (const [name, value] of Object.entries(object.systemHeaders)) headers[name] = value;
  for (const [name, value] of Object.entries(object.metadata)) headers[`x-amz-meta-${name}`] = value;
  return headers;
}

function applyResponseOverrides(req: EmulatorRequest, headers: Record<string, string | number>): void {
  const map: Record<string, string> = {
    'response-content-type': 'content-type',
    'response-content-language': 'content-language',
    'response-expires': 'expires',
    'response-cache-control': 'cache-control',
    'response-content-disposition': 'content-disposition',
    'response-content-encoding': 'content-encoding',
  };
  for (const [param, name] of Object.entries(map)) {
    const value = req.query.get(param);
    if (value !== null) headers[name] = value;
  }
}

const SSE_ALGORITHMS = ['AES256', 'aws:kms', 'aws:kms:dsse'];

/** The server-side encryption a write asks for (`x-amz-server-side-encryption`, KMS key id). */
function requestedEncryption(req: EmulatorRequest): ObjectEncryption | undefined {
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
function encryptionHeaders(bucket: Bucket, sse: ObjectEncryption | undefined): Record<string, string> {
  const rule = bucket.encryption[0];
  const algorithm = sse?.algorithm ?? rule?.SSEAlgorithm ?? 'AES256';
  const headers: Record<string, string> = { 'x-amz-server-side-encryption': algorithm };
  const keyId = sse ? sse.kmsKeyId : rule?.KMSMasterKeyID;
  if (algorithm.startsWith('aws:kms') && keyId)
    headers['x-amz-server-side-encryption-aws-kms-key-id'] = keyId;
  return headers;
}

function userMetadata(req: EmulatorRequest): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith('x-amz-meta-') && value !== undefined)
      metadata[name.slice(11)] = Array.isArray(value) ? value.join(',') : value;
  }
  return metadata;
}

function systemHeaders(req: EmulatorRequest): Record<string, string> {
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

function parseTaggingHeader(value: string | undefined): Tag[] {
  if (!value) return [];
  return [...new URLSearchParams(value)].map(([Key, Value]) => ({ Key, Value }));
}

function parseTagging(body: Buffer): Tag[] {
  const doc = parseXml(body)?.Tagging as Record<string, unknown> | undefined;
  if (!doc) throw s3Errors.malformedXml();
  const tagSet = doc.TagSet as Record<string, unknown> | string | undefined;
  const tags =
    (tagSet && typeof tagSet === 'object'
      ? (tagSet.Tag as Array<Record<string, unknown>> | undefined)
      : undefined) ?? [];
  const seen = new Set<string>();
  return tags.map((t) => {
    const Key = String(t.Key ?? '');
    if (seen.has(Key))
      throw new AwsError('InvalidTag', 'Cannot provide multiple Tags with the same key', 400, {
        TagKey: Key,
      });
    seen.add(Key);
    return { Key, Value: String(t.Value ?? '') };
  });
}

/** Body of a write: aws-chunked decoded, Content-MD5 and flexible checksums verified. */
function readPayload(req: EmulatorRequest): { data: Buffer; checksum?: ObjectChecksum } {
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
function computeChecksum(algorithm: string, data: Buffer): string | undefined {
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

function parseRange(text: string, size: number): { start: number; end: number } | undefined {
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

function invalidRange(text: string, size: number): AwsError {
  return new AwsError(
    'InvalidRange',
    'The requested range is not satisfiable',
    416,
    { RangeRequested: text, ActualObjectSize: String(size) },
    { 'content-range': `bytes */${size}` },
  );
}

function clampInt(text: string | null, fallback: number, min: number, max: number): number {
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

function encodeToken(marker: string): string {
  return Buffer.from(JSON.stringify({ m: marker })).toString('base64');
}

function decodeToken(token: string): string | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { m?: unknown };
    return typeof value.m === 'string' ? value.m : undefined;
  } catch {
    return undefined;
  }
}

function encodeKey(key: string, encode: boolean): string {
  return encode ? encodeURIComponent(key).replace(/%2F/g, '/') : key;
}

function objectEntry(o: ObjectVersion, encode: boolean, ownerAccount?: string): XmlObject {
  return {
    Key: encodeKey(o.key, encode),
    LastModified: o.lastModified,
    ETag: o.etag,
    ChecksumAlgorithm: o.checksum?.algorithm,
    ChecksumType: o.checksum ? 'FULL_OBJECT' : undefined,
    Size: o.body.length,
    Owner: ownerAccount ? owner(ownerAccount) : undefined,
    StorageClass: o.storageClass,
  };
}

interface KeyPage {
  contents: ObjectVersion[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or common prefix returned: where the next page starts. */
  last: string;
}

/** One page of live keys after `marker`, rolled up by delimiter. */
function listKeys(
  bucket: Bucket,
  prefix: string,
  delimiter: string,
  marker: string,
  maxKeys: number,
): KeyPage {
  const page: KeyPage = { contents: [], prefixes: [], truncated: false, last: '' };
  let lastPrefix: string | undefined;
  for (const key of sortedKeys(bucket)) {
    if (!key.startsWith(prefix)) continue;
    if (marker && compareKeys(key, marker) <= 0) continue;
    const object = liveObject(bucket, key);
    if (!object) continue;
    if (delimiter) {
      const at = key.indexOf(delimiter, prefix.length);
      if (at >= 0) {
        const common = key.slice(0, at + delimiter.length);
        if (common === lastPrefix) continue;
        // A marker that is itself a common prefix: its keys were already rolled up.
        if (marker && key.startsWith(marker) && marker === common) continue;
        if (page.contents.length + page.prefixes.length >= maxKeys) {
          page.truncated = true;
          break;
        }
        page.prefixes.push(common);
        lastPrefix = common;
        page.last = common;
        continue;
      }
    }
    if (page.contents.length + page.prefixes.length >= maxKeys) {
      page.truncated = true;
      break;
    }
    page.contents.push(object);
    page.last = key;
  }
  return page;
}

/**
 * S3's test of a public bucket policy, per statement: an Allow whose principal is
 * everyone (`*`, or `*` under `AWS`) and that no condition narrows. A Deny for
 * everyone, or an Allow to a named principal beside it, is not public.
 */
function grantsPublicAccess(doc: object): boolean {
  const raw = (doc as { Statement?: unknown }).Statement;
  const statements = Array.isArray(raw) ? raw : [raw];
  return statements.some((st) => {
    if (!st || typeof st !== 'object') return false;
    const { Effect, Principal, Condition } = st as {
      Effect?: unknown;
      Principal?: unknown;
      Condition?: unknown;
    };
    if (
      Effect !== 'Allow' ||
      (Condition && typeof Condition === 'object' && Object.keys(Condition).length > 0)
    )
      return false;
    if (Principal === '*') return true;
    const aws = Principal && typeof Principal === 'object' ? (Principal as { AWS?: unknown }).AWS : undefined;
    return aws === '*' || (Array.isArray(aws) && aws.includes('*'));
  });
}
