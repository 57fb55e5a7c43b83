/** Writing and deleting object versions with S3's versioning rules. */
import { versionId as newVersionId } from '../../core/ids';
import type { Bucket, ObjectVersion } from './store';

/** Adds a new current version of a key, following the bucket's versioning state. */
export function putVersion(bucket: Bucket, version: ObjectVersion): ObjectVersion {
  const versions = bucket.objects.get(version.key);
  if (bucket.versioning === 'Enabled') {
    version.versionId = newVersionId();
    if (versions) versions.unshift(version);
    else bucket.objects.set(version.key, [version]);
  } else {
    version.versionId = 'null';
    if (!versions || bucket.versioning === undefined) {
      bucket.objects.set(version.key, [version]);
    } else {
      // Suspended: the new object replaces the "null" version, other versions stay.
      const kept = versions.filter((v) => v.versionId !== 'null');
      kept.unshift(version);
      bucket.objects.set(version.key, kept);
    }
  }
  return version;
}

export interface DeleteOutcome {
  /** Version id of the created delete marker, or of the removed version. */
  versionId?: string;
  deleteMarker: boolean;
}

/** DeleteObject without a version id: removes the object or adds a delete marker. */
export function deleteCurrent(bucket: Bucket, key: string, now: Date): DeleteOutcome {
  bucket.lastDelete.set(key, performance.now());
  if (bucket.versioning === undefined) {
    bucket.objects.delete(key);
    return { deleteMarker: false };
  }
  const marker: ObjectVersion = {
    key,
    versionId: 'null',
    deleteMarker: true,
    body: Buffer.alloc(0),
    etag: '',
    lastModified: now,
    contentType: '',
    metadata: {},
    systemHeaders: {},
    storageClass: 'STANDARD',
    tags: [],
  };
  putVersion(bucket, marker);
  return { deleteMarker: true, versionId: marker.versionId };
}

/** DeleteObject with a version id: removes that version for good. */
export function deleteVersion(bucket: Bucket, key: string, versionId: string): DeleteOutcome {
  const versions = bucket.objects.get(key);
  const index = versions ? versions.findIndex((v) => v.versionId === versionId) : -1;
  if (!versions || index < 0) return { deleteMarker: false, versionId };
  const [removed] = versions.splice(index, 1);
  if (!versions.length) bucket.objects.delete(key);
  bucket.lastDelete.set(key, performance.now());
  return { deleteMarker: removed!.deleteMarker, versionId };
}

export function findVersion(bucket: Bucket, key: string, versionId: string): ObjectVersion | undefined {
  return bucket.objects.get(key)?.find((v) => v.versionId === versionId);
}

/** Keys in lexicographic (UTF-8 byte) order, as S3 lists them. */
export function sortedKeys(bucket: Bucket): string[] {
  const keys = [...bucket.objects.keys()];
  keys.sort(compareKeys);
  return keys;
}

/** UTF-16 order, which equals S3's UTF-8 byte order outside rare astral/private-use mixes. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
