/** Objects: put, get, head, delete (one or many) and copy, with conditions, ranges and versions. */
import { emulatorDate } from '../../core/clock';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml, xmlDocument, XmlSeq, type XmlValue } from '../../core/xml';
import { S3_NS, S3Base, type S3Target as Target } from './base';
import { checkReadPreconditions, etagMatches } from './conditions';
import { s3Errors } from './errors';
import {
  CHECKSUM_ALGORITHMS,
  encryptionHeaders,
  md5ETag,
  parseRange,
  readPayload,
  requestedEncryption,
  systemHeaders,
  userMetadata,
} from './payload';
import { currentVersion, liveObject, type Bucket, type ObjectVersion } from './store';
import { parseTaggingHeader } from './tags';
import { deleteCurrent, deleteVersion, findVersion, putVersion } from './versions';

export class ObjectHandlers extends S3Base {
  putObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const key = target.Key!;
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

  getObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    return this.readObject(ctx, req, target, true);
  }

  headObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    return this.readObject(ctx, req, target, false);
  }

  private readObject(
    ctx: CallContext,
    req: EmulatorRequest,
    target: Target,
    withBody: boolean,
  ): EmulatorResponse {
    const versionId = req.query.get('versionId');
    const bucket = this.bucketFor(ctx, target.Bucket!, versionId ? 's3:GetObjectVersion' : 's3:GetObject');
    const key = target.Key!;
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

  deleteObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const versionId = req.query.get('versionId');
    // Deleting a version for good is its own permission (s3:DeleteObjectVersion).
    const bucket = this.bucketFor(
      ctx,
      target.Bucket!,
      versionId !== null ? 's3:DeleteObjectVersion' : 's3:DeleteObject',
    );
    const key = target.Key!;
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

  deleteObjects(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:DeleteObject');
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
      // Permissions are per object: a version needs s3:DeleteObjectVersion, and a refusal is
      // reported for that key while the call as a whole succeeds.
      if (versionId !== undefined && !this.mayAct(ctx, bucket, 's3:DeleteObjectVersion', key)) {
        items.push([
          'Error',
          { Key: key, VersionId: versionId, Code: 'AccessDenied', Message: 'Access Denied' },
        ]);
        continue;
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

  copyObject(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const source = this.copySource(ctx, req);
    const directive = header(req, 'x-amz-metadata-directive') ?? 'COPY';
    if (directive !== 'COPY' && directive !== 'REPLACE')
      throw s3Errors.invalidArgument('Unknown metadata directive.', 'x-amz-metadata-directive', directive);
    if (
      source.bucket === bucket.name &&
      source.object.key === target.Key &&
      directive === 'COPY' &&
      !source.versionId &&
      !header(req, 'x-amz-storage-class')
    ) {
      throw s3Errors.invalidRequest(
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    this.checkWritePreconditions(req, bucket, target.Key!);
    const src = source.object;
    const tagDirective = header(req, 'x-amz-tagging-directive') ?? 'COPY';
    const version = putVersion(bucket, {
      key: target.Key!,
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
