/**
 * AWS::S3::BucketPolicy through the S3 API: the policy of one bucket. The
 * physical id is the bucket name, as CloudFormation's. Loaded only when used.
 */
import {
  DeleteBucketPolicyCommand,
  GetBucketPolicyCommand,
  PutBucketPolicyCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { policyText, samePolicy } from './policy-document';
import { alreadyExists, errorName, isNoSuchBucket, isRetryableBucketConflict, s3Failure } from './s3-errors';

type Props = Record<string, unknown>;

export class S3BucketPolicyProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): S3Client {
    return this.ctx.clients.get(S3Client);
  }

  /**
   * Writes the policy. A bucket that already has a policy keeps it unless it is
   * this one (an earlier attempt of this create): CloudFormation refuses too,
   * and overwriting another writer's policy is not a create.
   */
  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const bucket = this.requireBucket(properties, logicalId, resourceType);
    const current = await this.currentPolicy(bucket, logicalId, resourceType, context.signal);
    if (current !== undefined) {
      if (samePolicy(current, properties.PolicyDocument, this.ctx.partition)) return { physicalId: bucket };
      throw alreadyExists(
        this.ctx,
        `Bucket ${bucket} already has a bucket policy, and it is not the one ${logicalId} declares.`,
        { logicalId, resourceType, physicalId: bucket },
        'Remove the existing policy (or the other AWS::S3::BucketPolicy that wrote it) and deploy again.',
      );
    }
    await this.putPolicy(bucket, properties.PolicyDocument, logicalId, resourceType, context.signal);
    return { physicalId: bucket };
  }

  /** A document that means the same as the previous one makes no call. */
  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    if (!samePolicy(properties.PolicyDocument, previousProperties.PolicyDocument, this.ctx.partition)) {
      await this.putPolicy(physicalId, properties.PolicyDocument, logicalId, resourceType, context?.signal);
    }
    return { physicalId, wasReplaced: false };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const clientRegion = await client.config.region();
    this.ctx.assertRegionMatch(
      clientRegion,
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await this.ctx.retry(
        () =>
          client.send(new DeleteBucketPolicyCommand({ Bucket: physicalId }), {
            abortSignal: context?.signal,
          }),
        { isRetryable: (err) => this.retryable(err) },
      );
    } catch (err) {
      if (isNoSuchBucket(err)) {
        this.ctx.assertRegionMatch(
          clientRegion,
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        return;
      }
      throw this.wrap(
        err,
        `deleting the policy of bucket ${physicalId}`,
        logicalId,
        resourceType,
        physicalId,
      );
    }
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const current = await this.currentPolicy(physicalId, undefined, 'AWS::S3::BucketPolicy');
    if (current === undefined) return undefined;
    let document: unknown = current;
    try {
      document = JSON.parse(current);
    } catch {
      // keep the text
    }
    return { Bucket: physicalId, PolicyDocument: document };
  }

  // -------------------------------------------------------------------------

  private requireBucket(properties: Props, logicalId: string, resourceType: string): string {
    if (typeof properties.Bucket === 'string' && properties.Bucket !== '') return properties.Bucket;
    throw new this.ctx.errors.ProvisioningError(
      `${logicalId}: Bucket must name the bucket the policy applies to.`,
      {
        resource: { logicalId, resourceType },
        remedy: 'Set Bucket to the name of the bucket (a Ref to an AWS::S3::Bucket).',
      },
    );
  }

  private async putPolicy(
    bucket: string,
    document: unknown,
    logicalId: string,
    resourceType: string,
    signal?: AbortSignal,
  ): Promise<void> {
    try {
      await this.ctx.retry(
        () =>
          this.client().send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: policyText(document) }), {
            abortSignal: signal,
          }),
        { isRetryable: (err) => this.retryable(err) },
      );
    } catch (err) {
      throw this.wrap(err, `setting the policy of bucket ${bucket}`, logicalId, resourceType, bucket);
    }
  }

  /** The bucket's policy text, `undefined` when it has none. */
  private async currentPolicy(
    bucket: string,
    logicalId: string | undefined,
    resourceType: string,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    try {
      const out = await this.ctx.retry(
        () => this.client().send(new GetBucketPolicyCommand({ Bucket: bucket }), { abortSignal: signal }),
        { isRetryable: (err) => this.retryable(err) },
      );
      return out.Policy || undefined;
    } catch (err) {
      if (errorName(err) === 'NoSuchBucketPolicy') return undefined;
      throw this.wrap(err, `reading the policy of bucket ${bucket}`, logicalId, resourceType, bucket);
    }
  }

  private retryable(err: unknown): boolean {
    return this.ctx.isTransientError(err) || isRetryableBucketConflict(err);
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId: string,
  ): Error {
    const blocked =
      errorName(err) === 'AccessDenied' && err instanceof Error && /BlockPublicPolicy/.test(err.message);
    const remedy = blocked
      ? "The policy grants public access and the bucket's public access block refuses public policies: set blockPublicAccess on the bucket to allow it, or narrow the policy."
      : undefined;
    return s3Failure(this.ctx, err, doing, { logicalId, resourceType, physicalId }, remedy);
  }
}
