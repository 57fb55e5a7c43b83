/** Buckets: list, create (naming and location rules), head, location, delete. */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { clampInt, owner, S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import { compareKeys } from './versions';

export class BucketHandlers extends S3Base {
  listBuckets(ctx: CallContext, req: EmulatorRequest): EmulatorResponse {
    const prefix = req.query.get('prefix') ?? '';
    const regionFilter = req.query.get('bucket-region');
    const max = clampInt(req.query.get('max-buckets'), 10000, 1, 10000);
    const after = req.query.get('continuation-token') ?? '';
    const owned = [...this.store.buckets.values()]
      .filter(
        (b) =>
          b.account === ctx.account &&
          b.name.startsWith(prefix) &&
          (!regionFilter || b.region === regionFilter),
      )
      .sort((a, b) => compareKeys(a.name, b.name))
      .filter((b) => !after || b.name > after);
    const page = owned.slice(0, max);
    const truncated = owned.length > page.length;
    return this.xml(200, 'ListAllMyBucketsResult', {
      Owner: owner(ctx.account),
      Buckets: {
        Bucket: page.map((b) => ({ Name: b.name, CreationDate: b.creationDate, BucketRegion: b.region })),
      },
      ContinuationToken: truncated ? page[page.length - 1]!.name : undefined,
      Prefix: req.query.has('prefix') ? prefix : undefined,
    });
  }

  createBucket(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const name = target.Bucket!;
    validateBucketName(name);
    let constraint = '';
    if (req.body.length) {
      const doc = parseXml(req.body);
      const config = doc?.CreateBucketConfiguration as Record<string, unknown> | undefined;
      if (!doc || (doc && !('CreateBucketConfiguration' in doc))) throw s3Errors.malformedXml();
      constraint = typeof config?.LocationConstraint === 'string' ? config.LocationConstraint : '';
    }
    if (constraint === 'us-east-1') {
      throw new AwsError('InvalidLocationConstraint', 'The specified location-constraint is not valid', 400, {
        LocationConstraint: constraint,
      });
    }
    const region = constraint || 'us-east-1';
    if (region !== ctx.region) {
      if (!constraint) {
        throw new AwsError(
          'IllegalLocationConstraintException',
          'The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.',
          400,
        );
      }
      throw new AwsError(
        'IllegalLocationConstraintException',
        `The ${constraint} location constraint is incompatible for the region specific endpoint this request was sent to.`,
        400,
      );
    }
    const existing = this.store.buckets.get(name);
    if (existing) {
      if (existing.account !== ctx.account) {
        throw new AwsError(
          'BucketAlreadyExists',
          'The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.',
          409,
          { BucketName: name },
        );
      }
      // Legacy behaviour of us-east-1: re-creating your own bucket there succeeds.
      if (!(existing.region === 'us-east-1' && ctx.region === 'us-east-1')) {
        throw new AwsError(
          'BucketAlreadyOwnedByYou',
          'Your previous request to create the named bucket succeeded and you already own it.',
          409,
          { BucketName: name },
        );
      }
    } else {
      this.store.createBucket(name, ctx.account, region);
    }
    return { status: 200, headers: { location: `/${name}` } };
  }

  headBucket(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.store.buckets.get(target.Bucket!);
    if (bucket && bucket.region !== ctx.region && bucket.account === ctx.account) {
      return { status: 301, headers: { 'x-amz-bucket-region': bucket.region } };
    }
    const found = this.bucketFor(ctx, target.Bucket!, 's3:ListBucket');
    return {
      status: 200,
      headers: { 'x-amz-bucket-region': found.region, 'x-amz-access-point-alias': 'false' },
    };
  }

  getBucketLocation(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketLocation', false);
    return this.xml(200, 'LocationConstraint', bucket.region === 'us-east-1' ? '' : bucket.region);
  }

  deleteBucket(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:DeleteBucket');
    if (bucket.objects.size > 0) {
      throw new AwsError('BucketNotEmpty', 'The bucket you tried to delete is not empty', 409, {
        BucketName: bucket.name,
      });
    }
    this.store.buckets.delete(bucket.name);
    return { status: 204 };
  }
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function validateBucketName(name: string): void {
  if (
    !BUCKET_NAME.test(name) ||
    name.includes('..') ||
    /^\d+\.\d+\.\d+\.\d+$/.test(name) ||
    name.startsWith('xn--') ||
    name.endsWith('-s3alias') ||
    name.includes('.-') ||
    name.includes('-.')
  ) {
    throw new AwsError('InvalidBucketName', 'The specified bucket is not valid.', 400, { BucketName: name });
  }
}
