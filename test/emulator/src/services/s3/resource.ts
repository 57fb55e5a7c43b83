/**
 * S3 buckets and their policies seen as the CloudFormation resources
 * `AWS::S3::Bucket` and `AWS::S3::BucketPolicy`, and the providers that keep
 * Cloud Control's buckets in S3's own store.
 */
import { upperAlnum, uuid } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  writable,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import { DEFAULT_PUBLIC_ACCESS_BLOCK, type Bucket, type S3Store } from './store';

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

export class BucketProvider implements ResourceProvider {
  readonly typeName = 'AWS::S3::Bucket';

  constructor(private readonly s3: S3Store) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.s3.buckets.values(), (b) => ({
      identifier: b.name,
      model: bucketProperties(b),
    }));
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name =
      typeof desired.BucketName === 'string' ? desired.BucketName : `bucket-${upperAlnum(12).toLowerCase()}`;
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) || name.includes('..')) {
      throw new HandlerError(
        'InvalidRequest',
        `Bucket name should not contain uppercase characters or be shorter than 3 or longer than 63 characters (Bucket: ${name})`,
      );
    }
    const existing = this.s3.buckets.get(name);
    if (existing) {
      if (existing.account === scope.account) throw alreadyExists(schema.typeName, name);
      throw new HandlerError(
        'AlreadyExists',
        `${name} already exists in another account (Service: S3, Status Code: 409, Error Code: BucketAlreadyExists)`,
      );
    }
    const bucket = this.s3.createBucket(name, scope.account, scope.region);
    applyBucketProperties(bucket, writable(schema, desired));
    return { identifier: name, model: bucketProperties(bucket) };
  }

  private bucket(scope: ResourceScope, name: string) {
    const bucket = this.s3.buckets.get(name);
    return bucket && bucket.account === scope.account && bucket.region === scope.region ? bucket : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const bucket = this.bucket(scope, identifier);
    return bucket ? { identifier, model: bucketProperties(bucket) } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const bucket = this.bucket(scope, identifier);
    if (!bucket) throw notFound(schema.typeName, identifier);
    const props = writable(schema, desired);
    if (!('Tags' in props)) bucket.tags = undefined;
    if (!('VersioningConfiguration' in props) && bucket.versioning) bucket.versioning = 'Suspended';
    applyBucketProperties(bucket, props);
    return { identifier, model: bucketProperties(bucket) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const bucket = this.bucket(scope, identifier);
    if (!bucket) throw notFound(schema.typeName, identifier);
    if (bucket.objects.size) {
      throw new HandlerError(
        'GeneralServiceException',
        `The bucket you tried to delete is not empty (Service: S3, Status Code: 409, Request ID: ${uuid()})`,
      );
    }
    this.s3.buckets.delete(identifier);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.s3.buckets.values()]
      .filter((b) => b.account === scope.account && b.region === scope.region)
      .map((b) => ({ identifier: b.name, model: bucketProperties(b) }));
  }
}

/** A policy document as S3 keeps it: a template's string as it is, an object as JSON. */
function policyText(document: unknown): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

export class BucketPolicyProvider implements ResourceProvider {
  readonly typeName = 'AWS::S3::BucketPolicy';

  constructor(private readonly s3: S3Store) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.s3.buckets.values(), (b) => {
      if (!b.policy) return undefined;
      let document: unknown = b.policy;
      try {
        document = JSON.parse(b.policy);
      } catch {
        // keep the raw text
      }
      return { identifier: b.name, model: { Bucket: b.name, PolicyDocument: document } };
    });
  }

  private bucket(scope: ResourceScope, schema: ResourceSchema, name: string) {
    const bucket = this.s3.buckets.get(name);
    if (!bucket || bucket.account !== scope.account) throw notFound(schema.typeName, name);
    return bucket;
  }

  private model(name: string, policy: string): StoredResource {
    return { identifier: name, model: { Bucket: name, PolicyDocument: JSON.parse(policy) as unknown } };
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = String(desired.Bucket);
    const bucket = this.s3.buckets.get(name);
    if (!bucket || bucket.account !== scope.account) {
      throw new HandlerError(
        'NotFound',
        `The specified bucket does not exist (Service: S3, Status Code: 404, Request ID: ${uuid()})`,
      );
    }
    if (bucket.policy) throw alreadyExists(schema.typeName, name);
    bucket.policy = policyText(desired.PolicyDocument);
    return this.model(name, bucket.policy);
  }

  read(scope: ResourceScope, schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const bucket = this.s3.buckets.get(identifier);
    if (!bucket || bucket.account !== scope.account || !bucket.policy) return undefined;
    void schema;
    return this.model(identifier, bucket.policy);
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const bucket = this.bucket(scope, schema, identifier);
    if (!bucket.policy) throw notFound(schema.typeName, identifier);
    bucket.policy = policyText(desired.PolicyDocument);
    return this.model(identifier, bucket.policy);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const bucket = this.bucket(scope, schema, identifier);
    if (!bucket.policy) throw notFound(schema.typeName, identifier);
    bucket.policy = undefined;
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.s3.buckets.values()]
      .filter((b) => b.account === scope.account && b.region === scope.region && b.policy)
      .map((b) => this.model(b.name, b.policy!));
  }
}
