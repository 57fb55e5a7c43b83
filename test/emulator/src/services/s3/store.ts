import { emulatorNow } from '../../core/clock';
import type { ServiceStore } from '../../core/service';

/**
 * S3 state: buckets (global names, each owned by one account in one region),
 * their configuration and their object versions.
 */

// A type alias (not an interface) so it fits XML content's index signature.
export type Tag = {
  Key: string;
  Value: string;
};

export interface ObjectChecksum {
  /** `CRC32`, `CRC32C`, `SHA1`, `SHA256`, `CRC64NVME`. */
  algorithm: string;
  /** Base64 value. */
  value: string;
}

export interface ObjectVersion {
  key: string;
  /** `null` (the string) for objects written while versioning was off or suspended. */
  versionId: string;
  deleteMarker: boolean;
  body: Buffer;
  /** Quoted: `"<md5 hex>"` or `"<hex>-<parts>"`. */
  etag: string;
  lastModified: Date;
  contentType: string;
  metadata: Record<string, string>;
  /** cache-control, content-disposition, content-encoding, content-language, expires. */
  systemHeaders: Record<string, string>;
  checksum?: ObjectChecksum;
  /** Server-side encryption requested for this object (else the bucket default applies). */
  sse?: ObjectEncryption;
  storageClass: string;
  tags: Tag[];
  partsCount?: number;
}

export interface ObjectEncryption {
  /** `AES256`, `aws:kms` or `aws:kms:dsse`. */
  algorithm: string;
  kmsKeyId?: string;
}

export interface EncryptionRule {
  SSEAlgorithm: string;
  KMSMasterKeyID?: string;
  BucketKeyEnabled?: boolean;
}

export interface PublicAccessBlock {
  BlockPublicAcls: boolean;
  IgnorePublicAcls: boolean;
  BlockPublicPolicy: boolean;
  RestrictPublicBuckets: boolean;
}

/** S3 Object Ownership: who owns objects written by other accounts, and whether ACLs apply. */
export type ObjectOwnership = 'BucketOwnerEnforced' | 'BucketOwnerPreferred' | 'ObjectWriter';
export const OBJECT_OWNERSHIPS: readonly string[] = [
  'BucketOwnerEnforced',
  'BucketOwnerPreferred',
  'ObjectWriter',
];

/** A lifecycle rule's object filter; several conditions are S3's `<And>`. */
export interface LifecycleFilter {
  Prefix?: string;
  Tags: Tag[];
  ObjectSizeGreaterThan?: number;
  ObjectSizeLessThan?: number;
}

/** One rule of a bucket lifecycle configuration, in S3's own terms. */
export interface LifecycleRule {
  ID: string;
  Status: 'Enabled' | 'Disabled';
  /** The deprecated rule-level `<Prefix>` (instead of a filter). */
  Prefix?: string;
  Filter?: LifecycleFilter;
  Expiration?: { Days?: number; Date?: string; ExpiredObjectDeleteMarker?: boolean };
  Transitions: Array<{ Days?: number; Date?: string; StorageClass: string }>;
  NoncurrentVersionExpiration?: { NoncurrentDays?: number; NewerNoncurrentVersions?: number };
  NoncurrentVersionTransitions: Array<{
    NoncurrentDays?: number;
    StorageClass: string;
    NewerNoncurrentVersions?: number;
  }>;
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation: number };
}

export interface BucketLifecycle {
  rules: LifecycleRule[];
  /** `x-amz-transition-default-minimum-object-size`. */
  transitionDefaultMinimumObjectSize: string;
}

/** One destination of a bucket's event notifications. */
export interface NotificationTarget {
  kind: 'queue' | 'topic' | 'function';
  /** Set by S3 when the request has none. */
  id?: string;
  arn: string;
  /** `s3:ObjectCreated:*`, `s3:ObjectRemoved:Delete`, ... */
  events: string[];
  prefix?: string;
  suffix?: string;
}

export interface NotificationConfiguration {
  targets: NotificationTarget[];
  eventBridge: boolean;
}

export interface CorsRule {
  ID?: string;
  AllowedHeaders: string[];
  AllowedMethods: string[];
  AllowedOrigins: string[];
  ExposeHeaders: string[];
  MaxAgeSeconds?: number;
}

export interface RoutingRule {
  Condition?: { HttpErrorCodeReturnedEquals?: string; KeyPrefixEquals?: string };
  Redirect: {
    HostName?: string;
    HttpRedirectCode?: string;
    Protocol?: string;
    ReplaceKeyPrefixWith?: string;
    ReplaceKeyWith?: string;
  };
}

export interface WebsiteConfiguration {
  IndexDocument?: { Suffix: string };
  ErrorDocument?: { Key: string };
  RedirectAllRequestsTo?: { HostName: string; Protocol?: string };
  RoutingRules: RoutingRule[];
}

export interface UploadPart {
  partNumber: number;
  body: Buffer;
  etag: string;
  lastModified: Date;
}

export interface MultipartUpload {
  uploadId: string;
  key: string;
  sse?: ObjectEncryption;
  initiated: Date;
  contentType: string;
  metadata: Record<string, string>;
  systemHeaders: Record<string, string>;
  tags: Tag[];
  storageClass: string;
  parts: Map<number, UploadPart>;
}

export interface Bucket {
  name: string;
  account: string;
  region: string;
  creationDate: Date;
  versioning?: 'Enabled' | 'Suspended';
  encryption: EncryptionRule[];
  policy?: string;
  /** Undefined once deleted (new buckets block public access by default). */
  publicAccessBlock?: PublicAccessBlock;
  tags?: Tag[];
  /** Undefined once deleted (new buckets get `BucketOwnerEnforced`). */
  ownership?: ObjectOwnership;
  lifecycle?: BucketLifecycle;
  cors?: CorsRule[];
  website?: WebsiteConfiguration;
  notification?: NotificationConfiguration;
  /** Versions of each key, newest first; the first is the current one. */
  objects: Map<string, ObjectVersion[]>;
  uploads: Map<string, MultipartUpload>;
  /** When (performance.now()) each key was last deleted: conditional writes in flight then conflict. */
  lastDelete: Map<string, number>;
  /** CloudFormation properties set through Cloud Control that S3 itself does not model. */
  extraProperties: Record<string, unknown>;
}

export const DEFAULT_ENCRYPTION: EncryptionRule[] = [{ SSEAlgorithm: 'AES256', BucketKeyEnabled: false }];

export const DEFAULT_PUBLIC_ACCESS_BLOCK: PublicAccessBlock = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
};

/** A bucket as `--state-dir` keeps it (bodies base64, dates ISO). */
interface SavedBucket extends Omit<Bucket, 'objects' | 'uploads' | 'lastDelete' | 'creationDate'> {
  creationDate: string;
  objects: Array<
    Array<Omit<ObjectVersion, 'body' | 'lastModified'> & { body: string; lastModified: string }>
  >;
  uploads: Array<
    Omit<MultipartUpload, 'parts' | 'initiated'> & {
      initiated: string;
      parts: Array<{ partNumber: number; body: string; etag: string; lastModified: string }>;
    }
  >;
}

export class S3Store implements ServiceStore {
  /** Bucket names are global across accounts and regions, as in AWS. */
  readonly buckets = new Map<string, Bucket>();

  createBucket(
    name: string,
    account: string,
    region: string,
    ownership: ObjectOwnership = 'BucketOwnerEnforced',
  ): Bucket {
    const bucket: Bucket = {
      ownership,
      name,
      account,
      region,
      // On the emulator's clock, and to the second as ListBuckets reports it on AWS.
      creationDate: new Date(Math.floor(emulatorNow() / 1000) * 1000),
      encryption: DEFAULT_ENCRYPTION.map((r) => ({ ...r })),
      publicAccessBlock: { ...DEFAULT_PUBLIC_ACCESS_BLOCK },
      objects: new Map(),
      uploads: new Map(),
      lastDelete: new Map(),
      extraProperties: {},
    };
    this.buckets.set(name, bucket);
    return bucket;
  }

  clear(): void {
    this.buckets.clear();
  }

  snapshot(): { buckets: SavedBucket[] } {
    return {
      buckets: [...this.buckets.values()].map(
        ({ objects, uploads, lastDelete: _lastDelete, creationDate, ...rest }) => ({
          ...rest,
          creationDate: creationDate.toISOString(),
          objects: [...objects.values()].map((versions) =>
            versions.map((o) => ({
              ...o,
              body: o.body.toString('base64'),
              lastModified: o.lastModified.toISOString(),
            })),
          ),
          uploads: [...uploads.values()].map(({ parts, initiated, ...upload }) => ({
            ...upload,
            initiated: initiated.toISOString(),
            parts: [...parts.values()].map((p) => ({
              ...p,
              body: p.body.toString('base64'),
              lastModified: p.lastModified.toISOString(),
            })),
          })),
        }),
      ),
    };
  }

  restore(saved: unknown): void {
    for (const b of (saved as { buckets?: SavedBucket[] }).buckets ?? []) {
      this.buckets.set(b.name, {
        ...b,
        creationDate: new Date(b.creationDate),
        objects: new Map(
          b.objects
            .filter((v) => v.length)
            .map((versions) => [
              versions[0]!.key,
              versions.map((o) => ({
                ...o,
                body: Buffer.from(o.body, 'base64'),
                lastModified: new Date(o.lastModified),
              })),
            ]),
        ),
        uploads: new Map(
          b.uploads.map((u) => [
            u.uploadId,
            {
              ...u,
              initiated: new Date(u.initiated),
              parts: new Map(
                u.parts.map((p) => [
                  p.partNumber,
                  { ...p, body: Buffer.from(p.body, 'base64'), lastModified: new Date(p.lastModified) },
                ]),
              ),
            },
          ]),
        ),
        lastDelete: new Map(),
      });
    }
  }
}

/** The current version of a key (possibly a delete marker). */
export function currentVersion(bucket: Bucket, key: string): ObjectVersion | undefined {
  return bucket.objects.get(key)?.[0];
}

/** The live object for a key: its current version unless that is a delete marker. */
export function liveObject(bucket: Bucket, key: string): ObjectVersion | undefined {
  const current = currentVersion(bucket, key);
  return current && !current.deleteMarker ? current : undefined;
}
