/** An S3 bucket seen as the CloudFormation resource `AWS::S3::Bucket`. */
import { DEFAULT_PUBLIC_ACCESS_BLOCK, type Bucket } from './store';

/** Region-specific website endpoint separator, as AWS documents it. */
const DASH_WEBSITE_REGIONS = new Set([
  'us-east-1',
  'us-west-1',
  'us-west-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'eu-west-1',
  'sa-east-1',
  'us-gov-west-1',
]);

/** The bucket's CloudFormation properties, read-only attributes included. */
export function bucketProperties(bucket: Bucket): Record<string, unknown> {
  const r = bucket.region;
  const props: Record<string, unknown> = {
    ...bucket.extraProperties,
    BucketName: bucket.name,
    Arn: `arn:aws:s3:::${bucket.name}`,
    DomainName: `${bucket.name}.s3.amazonaws.com`,
    RegionalDomainName: `${bucket.name}.s3.${r}.amazonaws.com`,
    DualStackDomainName: `${bucket.name}.s3.dualstack.${r}.amazonaws.com`,
    WebsiteURL: `http://${bucket.name}.s3-website${DASH_WEBSITE_REGIONS.has(r) ? '-' : '.'}${r}.amazonaws.com`,
  };
  if (bucket.versioning) props.VersioningConfiguration = { Status: bucket.versioning };
  props.BucketEncryption = {
    ServerSideEncryptionConfiguration: bucket.encryption.map((rule) => ({
      ServerSideEncryptionByDefault: {
        SSEAlgorithm: rule.SSEAlgorithm,
        ...(rule.KMSMasterKeyID ? { KMSMasterKeyID: rule.KMSMasterKeyID } : {}),
      },
      BucketKeyEnabled: rule.BucketKeyEnabled ?? false,
    })),
  };
  if (bucket.publicAccessBlock) props.PublicAccessBlockConfiguration = { ...bucket.publicAccessBlock };
  if (bucket.tags?.length) props.Tags = bucket.tags.map((t) => ({ ...t }));
  return props;
}

/** Applies writable CloudFormation properties to a bucket (create or update). */
export function applyBucketProperties(bucket: Bucket, props: Record<string, unknown>): void {
  const extra: Record<string, unknown> = {};
  const derived = new Set([
    'BucketName',
    'Arn',
    'DomainName',
    'RegionalDomainName',
    'DualStackDomainName',
    'WebsiteURL',
    'MetadataTableConfiguration',
  ]);
  for (const [name, value] of Object.entries(props)) {
    if (derived.has(name)) continue;
    switch (name) {
      case 'VersioningConfiguration': {
        const status = (value as { Status?: string } | undefined)?.Status;
        if (status === 'Enabled' || status === 'Suspended') bucket.versioning = status;
        break;
      }
      case 'BucketEncryption': {
        const rules =
          (value as { ServerSideEncryptionConfiguration?: Array<Record<string, unknown>> })
            .ServerSideEncryptionConfiguration ?? [];
        bucket.encryption = rules.map((rule) => {
          const d = (rule.ServerSideEncryptionByDefault ?? {}) as {
            SSEAlgorithm?: string;
            KMSMasterKeyID?: string;
          };
          return {
            SSEAlgorithm: d.SSEAlgorithm ?? 'AES256',
            KMSMasterKeyID: d.KMSMasterKeyID,
            BucketKeyEnabled: rule.BucketKeyEnabled === true,
          };
        });
        break;
      }
      case 'PublicAccessBlockConfiguration': {
        const v = (value ?? {}) as Record<string, unknown>;
        bucket.publicAccessBlock = {
          BlockPublicAcls: v.BlockPublicAcls === true,
          IgnorePublicAcls: v.IgnorePublicAcls === true,
          BlockPublicPolicy: v.BlockPublicPolicy === true,
          RestrictPublicBuckets: v.RestrictPublicBuckets === true,
        };
        break;
      }
      case 'Tags':
        bucket.tags = Array.isArray(value)
          ? (value as Array<{ Key: string; Value: string }>).map((t) => ({ Key: t.Key, Value: t.Value }))
          : undefined;
        break;
      default:
        extra[name] = value;
    }
  }
  if (!('PublicAccessBlockConfiguration' in props) && !bucket.publicAccessBlock)
    bucket.publicAccessBlock = { ...DEFAULT_PUBLIC_ACCESS_BLOCK };
  bucket.extraProperties = extra;
}
