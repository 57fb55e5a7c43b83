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

export const BUCKET_POLICY_HANDLED_PROPERTIES = ['Bucket', 'PolicyDocument'] as const;

/** Tag keys the core's ownership marker uses; an update keeps them. */
export const OWNERSHIP_TAG_PREFIX = 'cdkd:';
