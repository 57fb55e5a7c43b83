/** Listing: ListObjectsV2, ListObjects (v1) and ListObjectVersions, with delimiters and markers. */
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { XmlSeq, type XmlObject, type XmlValue } from '../../core/xml';
import { clampInt, owner, S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import { liveObject, type Bucket, type ObjectVersion } from './store';
import { compareKeys, sortedKeys } from './versions';

export class ListingHandlers extends S3Base {
  listObjectsV2(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:ListBucket');
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

  listObjectsV1(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:ListBucket');
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

  listObjectVersions(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:ListBucketVersions');
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
