/** Bucket policies and public access blocks (a public policy is refused while BlockPublicPolicy is on). */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';

export class PolicyHandlers extends S3Base {
  getBucketPolicy(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketPolicy');
    if (!bucket.policy)
      throw new AwsError('NoSuchBucketPolicy', 'The bucket policy does not exist', 404, {
        BucketName: bucket.name,
      });
    return { status: 200, headers: { 'content-type': 'application/json' }, body: bucket.policy };
  }

  putBucketPolicy(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketPolicy');
    const text = req.body.toString('utf8');
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new AwsError(
        'MalformedPolicy',
        "Policies must be valid JSON and the first byte must be '{'",
        400,
      );
    }
    if (!doc || typeof doc !== 'object' || !('Statement' in doc))
      throw new AwsError('MalformedPolicy', 'Missing required field Statement', 400);
    if (bucket.publicAccessBlock?.BlockPublicPolicy && grantsPublicAccess(doc)) {
      throw s3Errors.accessDenied(
        'User is not authorized to perform: s3:PutBucketPolicy on resource because public policies are blocked by the BlockPublicPolicy block public access setting.',
      );
    }
    bucket.policy = text;
    return { status: 204 };
  }

  deleteBucketPolicy(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:DeleteBucketPolicy');
    bucket.policy = undefined;
    return { status: 204 };
  }

  getPublicAccessBlock(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketPublicAccessBlock');
    if (!bucket.publicAccessBlock) {
      throw new AwsError(
        'NoSuchPublicAccessBlockConfiguration',
        'The public access block configuration was not found',
        404,
        { BucketName: bucket.name },
      );
    }
    return this.xml(200, 'PublicAccessBlockConfiguration', { ...bucket.publicAccessBlock });
  }

  putPublicAccessBlock(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketPublicAccessBlock');
    const config = parseXml(req.body)?.PublicAccessBlockConfiguration as Record<string, unknown> | undefined;
    if (!config || typeof config !== 'object') throw s3Errors.malformedXml();
    const flag = (name: string) => config[name] === 'true';
    bucket.publicAccessBlock = {
      BlockPublicAcls: flag('BlockPublicAcls'),
      IgnorePublicAcls: flag('IgnorePublicAcls'),
      BlockPublicPolicy: flag('BlockPublicPolicy'),
      RestrictPublicBuckets: flag('RestrictPublicBuckets'),
    };
    return { status: 200 };
  }

  deletePublicAccessBlock(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketPublicAccessBlock');
    bucket.publicAccessBlock = undefined;
    return { status: 204 };
  }
}

/**
 * S3's test of a public bucket policy, per statement: an Allow whose principal is
 * everyone (`*`, or `*` under `AWS`) and that no condition narrows. A Deny for
 * everyone, or an Allow to a named principal beside it, is not public.
 */
export function grantsPublicAccess(doc: object): boolean {
  const raw = (doc as { Statement?: unknown }).Statement;
  const statements = Array.isArray(raw) ? raw : [raw];
  return statements.some((st) => {
    if (!st || typeof st !== 'object') return false;
    const { Effect, Principal, Condition } = st as {
      Effect?: unknown;
      Principal?: unknown;
      Condition?: unknown;
    };
    if (
      Effect !== 'Allow' ||
      (Condition && typeof Condition === 'object' && Object.keys(Condition).length > 0)
    )
      return false;
    if (Principal === '*') return true;
    const aws = Principal && typeof Principal === 'object' ? (Principal as { AWS?: unknown }).AWS : undefined;
    return aws === '*' || (Array.isArray(aws) && aws.includes('*'));
  });
}
