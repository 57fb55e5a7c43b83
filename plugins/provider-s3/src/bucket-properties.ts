/** What the pack registers for its types. No SDK here: the hook loads this module. */

export const BUCKET_TYPE = 'AWS::S3::Bucket';
export const BUCKET_POLICY_TYPE = 'AWS::S3::BucketPolicy';

/**
 * The `AWS::S3::Bucket` properties the provider wires to S3. Every other
 * writable property (logging, notifications, replication, object lock,
 * analytics, inventory, metrics, intelligent tiering, acceleration, ACLs,
 * metadata tables, ABAC, name prefixes and namespaces) is left unaccounted on
 * purpose: a template setting one goes to Cloud Control, which wires it,
 * instead of this provider dropping it.
 */
export const BUCKET_HANDLED_PROPERTIES = [
  'BucketName',
  'Tags',
  'VersioningConfiguration',
  'BucketEncryption',
  'PublicAccessBlockConfiguration',
  'OwnershipControls',
  'LifecycleConfiguration',
  'CorsConfiguration',
  'WebsiteConfiguration',
] as const;

/**
 * Bucket properties this pack does not wire, each with why: a bucket setting
 * one goes to Cloud Control (which applies it) instead of this pack dropping
 * it. Wiring one means moving it to {@link BUCKET_HANDLED_PROPERTIES}.
 */
export const BUCKET_CLOUD_CONTROL_PROPERTIES: Readonly<Record<string, string>> = {
  AbacStatus: 'attribute-based access control: not wired (PutBucketAbac); Cloud Control applies it',
  AccelerateConfiguration:
    'transfer acceleration: not wired (PutBucketAccelerateConfiguration); Cloud Control applies it',
  AccessControl:
    'legacy canned ACL: not wired (PutBucketAcl, refused under BucketOwnerEnforced); Cloud Control applies it',
  AnalyticsConfigurations:
    'storage class analysis: not wired (PutBucketAnalyticsConfiguration); Cloud Control applies it',
  BucketNamePrefix: 'a generated name from a prefix: not wired; Cloud Control names the bucket',
  BucketNamespace: 'account-regional bucket namespace: not wired; Cloud Control applies it',
  IntelligentTieringConfigurations:
    'Intelligent-Tiering archive tiers: not wired (PutBucketIntelligentTieringConfiguration); Cloud Control applies it',
  InventoryConfigurations:
    'inventory reports: not wired (PutBucketInventoryConfiguration); Cloud Control applies it',
  LoggingConfiguration: 'server access logging: not wired (PutBucketLogging); Cloud Control applies it',
  MetadataConfiguration:
    'S3 Metadata tables: not wired (CreateBucketMetadataConfiguration); Cloud Control applies it',
  MetadataTableConfiguration:
    'S3 Metadata tables (legacy form): not wired (CreateBucketMetadataTableConfiguration); Cloud Control applies it',
  MetricsConfigurations:
    'request metrics: not wired (PutBucketMetricsConfiguration); Cloud Control applies it',
  NotificationConfiguration:
    'event notifications: not wired (PutBucketNotificationConfiguration; aws-cdk-lib uses a custom resource instead); Cloud Control applies it',
  ObjectLockConfiguration:
    'Object Lock retention: not wired (PutObjectLockConfiguration); Cloud Control applies it',
  ObjectLockEnabled:
    'Object Lock at create: not wired (CreateBucket ObjectLockEnabledForBucket); Cloud Control applies it',
  ReplicationConfiguration: 'replication: not wired (PutBucketReplication); Cloud Control applies it',
};

export const BUCKET_POLICY_HANDLED_PROPERTIES = ['Bucket', 'PolicyDocument'] as const;

/** Tag keys the core's ownership marker uses; an update keeps them. */
export const OWNERSHIP_TAG_PREFIX = 'cdkd:';
