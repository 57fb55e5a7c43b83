/** Multipart uploads: create, upload (and copy) parts, complete, abort, list parts and uploads. */
import { emulatorDate } from '../../core/clock';
import { createHash } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import { upperAlnum, uuid } from '../../core/ids';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { clampInt, owner, S3Base, type S3Target as Target } from './base';
import { etagMatches } from './conditions';
import { s3Errors } from './errors';
import {
  encryptionHeaders,
  md5ETag,
  parseRange,
  readPayload,
  requestedEncryption,
  systemHeaders,
  userMetadata,
} from './payload';
import type { Bucket, MultipartUpload } from './store';
import { parseTaggingHeader } from './tags';
import { compareKeys, putVersion } from './versions';

const MIN_PART_SIZE = 5 * 1024 * 1024;

export class MultipartHandlers extends S3Base {
  createMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const uploadId = Buffer.from(`${uuid()}${upperAlnum(8)}`).toString('base64url');
    const sse = requestedEncryption(req);
    bucket.uploads.set(uploadId, {
      uploadId,
      key: target.Key!,
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
      { Bucket: bucket.name, Key: target.Key!, UploadId: uploadId },
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

  uploadPart(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.Key!);
    const partNumber = this.partNumber(req);
    const { data, checksum } = readPayload(req);
    const etag = md5ETag(data);
    upload.parts.set(partNumber, { partNumber, body: data, etag, lastModified: new Date() });
    const headers: Record<string, string> = { etag, ...encryptionHeaders(bucket, upload.sse) };
    if (checksum) headers[`x-amz-checksum-${checksum.algorithm.toLowerCase()}`] = checksum.value;
    return { status: 200, headers };
  }

  uploadPartCopy(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.Key!);
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

  completeMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutObject');
    const upload = this.uploadFor(bucket, req, target.Key!);
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

  abortMultipartUpload(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:AbortMultipartUpload');
    const upload = this.uploadFor(bucket, req, target.Key!);
    bucket.uploads.delete(upload.uploadId);
    return { status: 204 };
  }

  listParts(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:ListMultipartUploadParts');
    const upload = this.uploadFor(bucket, req, target.Key!);
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

  listMultipartUploads(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:ListBucketMultipartUploads');
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
}
