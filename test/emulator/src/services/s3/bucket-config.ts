/** Bucket configuration: versioning, default encryption, tags. */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import { DEFAULT_ENCRYPTION, type EncryptionRule } from './store';
import { parseTagging } from './tags';

export class BucketConfigHandlers extends S3Base {
  getBucketVersioning(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketVersioning');
    return this.xml(200, 'VersioningConfiguration', bucket.versioning ? { Status: bucket.versioning } : {});
  }

  putBucketVersioning(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketVersioning');
    const config = parseXml(req.body)?.VersioningConfiguration as Record<string, unknown> | undefined;
    if (!config || typeof config !== 'object') throw s3Errors.malformedXml();
    const status = config.Status;
    if (status !== undefined && status !== 'Enabled' && status !== 'Suspended') throw s3Errors.malformedXml();
    if (status) bucket.versioning = status;
    return { status: 200 };
  }

  getBucketEncryption(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetEncryptionConfiguration');
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

  putBucketEncryption(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutEncryptionConfiguration');
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

  deleteBucketEncryption(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutEncryptionConfiguration');
    // Every bucket keeps SSE-S3 as its default encryption.
    bucket.encryption = DEFAULT_ENCRYPTION.map((r) => ({ ...r }));
    return { status: 204 };
  }

  getBucketTagging(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketTagging');
    if (!bucket.tags)
      throw new AwsError('NoSuchTagSet', 'The TagSet does not exist', 404, { BucketName: bucket.name });
    return this.xml(200, 'Tagging', { TagSet: { Tag: bucket.tags } });
  }

  putBucketTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketTagging');
    bucket.tags = parseTagging(req.body);
    return { status: 204 };
  }

  deleteBucketTagging(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketTagging');
    bucket.tags = undefined;
    return { status: 204 };
  }
}
