/** Object Ownership controls (`?ownershipControls`): one rule naming who owns written objects. */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import { OBJECT_OWNERSHIPS, type ObjectOwnership } from './store';

/** The `x-amz-object-ownership` header of CreateBucket, checked as S3 checks it. */
export function ownershipFromHeader(value: string | undefined): ObjectOwnership {
  if (value === undefined) return 'BucketOwnerEnforced';
  if (!OBJECT_OWNERSHIPS.includes(value))
    throw s3Errors.invalidArgument('Invalid x-amz-object-ownership header', 'x-amz-object-ownership', value);
  return value as ObjectOwnership;
}

export class OwnershipControlsHandlers extends S3Base {
  getBucketOwnershipControls(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketOwnershipControls');
    if (!bucket.ownership) {
      throw new AwsError(
        'OwnershipControlsNotFoundError',
        'The bucket ownership controls were not found',
        404,
        {
          BucketName: bucket.name,
        },
      );
    }
    return this.xml(200, 'OwnershipControls', { Rule: [{ ObjectOwnership: bucket.ownership }] });
  }

  putBucketOwnershipControls(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketOwnershipControls');
    const rules = (
      parseXml(req.body)?.OwnershipControls as { Rule?: Array<Record<string, unknown>> } | undefined
    )?.Rule;
    // Exactly one rule with a known value, or the document does not validate.
    const value = rules?.length === 1 ? rules[0]!.ObjectOwnership : undefined;
    if (typeof value !== 'string' || !OBJECT_OWNERSHIPS.includes(value)) throw s3Errors.malformedXml();
    bucket.ownership = value as ObjectOwnership;
    return { status: 200 };
  }

  deleteBucketOwnershipControls(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketOwnershipControls');
    bucket.ownership = undefined;
    return { status: 204 };
  }
}
