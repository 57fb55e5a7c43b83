/**
 * Amazon S3 (restXml, served by S3's own codec), path-style and
 * virtual-host-style. One handler class per concern; this file maps S3's
 * operation names onto them.
 */
import type { EmulatorResponse } from '../../core/http';
import type { CallContext, OperationHandler, ServiceModule } from '../../core/service';
import type { S3Target } from './base';
import { BucketConfigHandlers } from './bucket-config';
import { CorsHandlers } from './bucket-cors';
import { LifecycleHandlers } from './bucket-lifecycle';
import { OwnershipControlsHandlers } from './bucket-ownership';
import { NotificationHandlers, type ObjectEvent } from './bucket-notification';
import { WebsiteHandlers } from './bucket-website';
import { PolicyHandlers } from './bucket-policy';
import { BucketHandlers } from './buckets';
import { S3Codec } from './codec';
import { s3Latency } from './latency';
import { ListingHandlers } from './listing';
import { MultipartHandlers } from './multipart';
import { ObjectTaggingHandlers } from './object-tagging';
import { ObjectHandlers } from './objects';
import { BucketPolicyProvider, BucketProvider } from './resource';
import { S3Store, liveObject } from './store';

export const s3: ServiceModule = {
  name: 's3',
  signingNames: ['s3'],
  create(platform) {
    const store = new S3Store();
    const buckets = new BucketHandlers(store);
    const config = new BucketConfigHandlers(store);
    const policy = new PolicyHandlers(store);
    const ownership = new OwnershipControlsHandlers(store);
    const lifecycle = new LifecycleHandlers(store);
    const cors = new CorsHandlers(store);
    const website = new WebsiteHandlers(store);
    const notifications = new NotificationHandlers(store, platform);
    const listing = new ListingHandlers(store);
    const objects = new ObjectHandlers(store);
    const tagging = new ObjectTaggingHandlers(store);
    const multipart = new MultipartHandlers(store);
    /** A handler method as an operation: it reads the raw request and returns the response. */
    const op = <T>(target: T, method: (this: T, ...args: never[]) => unknown): OperationHandler<S3Target> =>
      ((ctx, input) =>
        (method as (...a: unknown[]) => unknown).call(
          target,
          ctx,
          ctx.request,
          input,
        )) as OperationHandler<S3Target>;
    /** An object operation that, once it succeeded, notifies the bucket's destinations of `event`. */
    const notifying =
      (
        handler: OperationHandler<S3Target>,
        event: (res: EmulatorResponse, target: S3Target, ctx: CallContext) => ObjectEvent | undefined,
      ): OperationHandler<S3Target> =>
      async (ctx, input) => {
        const res = (await handler(ctx, input)) as EmulatorResponse;
        const happened = input.Bucket ? event(res, input, ctx) : undefined;
        if (happened) await notifications.notify(ctx, input.Bucket!, happened);
        return res;
      };
    /** The `ObjectCreated:*` event of the object a write left current. */
    const created =
      (name: string) =>
      (_res: EmulatorResponse, target: S3Target): ObjectEvent | undefined => {
        const object = liveObject(store.buckets.get(target.Bucket!)!, target.Key!);
        return (
          object && {
            name,
            key: object.key,
            size: object.body.length,
            etag: object.etag,
            versionId: object.versionId,
          }
        );
      };
    return {
      protocol: new S3Codec(store),
      operations: {
        ListBuckets: op(buckets, buckets.listBuckets),
        CreateBucket: op(buckets, buckets.createBucket),
        HeadBucket: op(buckets, buckets.headBucket),
        GetBucketLocation: op(buckets, buckets.getBucketLocation),
        DeleteBucket: op(buckets, buckets.deleteBucket),
        GetBucketVersioning: op(config, config.getBucketVersioning),
        PutBucketVersioning: op(config, config.putBucketVersioning),
        GetBucketEncryption: op(config, config.getBucketEncryption),
        PutBucketEncryption: op(config, config.putBucketEncryption),
        DeleteBucketEncryption: op(config, config.deleteBucketEncryption),
        GetBucketTagging: op(config, config.getBucketTagging),
        PutBucketTagging: op(config, config.putBucketTagging),
        DeleteBucketTagging: op(config, config.deleteBucketTagging),
        GetBucketPolicy: op(policy, policy.getBucketPolicy),
        PutBucketPolicy: op(policy, policy.putBucketPolicy),
        DeleteBucketPolicy: op(policy, policy.deleteBucketPolicy),
        GetPublicAccessBlock: op(policy, policy.getPublicAccessBlock),
        PutPublicAccessBlock: op(policy, policy.putPublicAccessBlock),
        DeletePublicAccessBlock: op(policy, policy.deletePublicAccessBlock),
        GetBucketOwnershipControls: op(ownership, ownership.getBucketOwnershipControls),
        PutBucketOwnershipControls: op(ownership, ownership.putBucketOwnershipControls),
        DeleteBucketOwnershipControls: op(ownership, ownership.deleteBucketOwnershipControls),
        GetBucketLifecycleConfiguration: op(lifecycle, lifecycle.getBucketLifecycleConfiguration),
        PutBucketLifecycleConfiguration: op(lifecycle, lifecycle.putBucketLifecycleConfiguration),
        DeleteBucketLifecycle: op(lifecycle, lifecycle.deleteBucketLifecycle),
        GetBucketCors: op(cors, cors.getBucketCors),
        PutBucketCors: op(cors, cors.putBucketCors),
        DeleteBucketCors: op(cors, cors.deleteBucketCors),
        GetBucketNotificationConfiguration: op(
          notifications,
          notifications.getBucketNotificationConfiguration,
        ),
        PutBucketNotificationConfiguration: op(
          notifications,
          notifications.putBucketNotificationConfiguration,
        ),
        GetBucketWebsite: op(website, website.getBucketWebsite),
        PutBucketWebsite: op(website, website.putBucketWebsite),
        DeleteBucketWebsite: op(website, website.deleteBucketWebsite),
        ListObjectsV2: op(listing, listing.listObjectsV2),
        ListObjects: op(listing, listing.listObjectsV1),
        ListObjectVersions: op(listing, listing.listObjectVersions),
        PutObject: notifying(op(objects, objects.putObject), created('ObjectCreated:Put')),
        GetObject: op(objects, objects.getObject),
        HeadObject: op(objects, objects.headObject),
        DeleteObject: notifying(op(objects, objects.deleteObject), (res, target, ctx) => ({
          // Without a version id, a versioned bucket keeps the object behind a delete marker.
          name:
            res.headers?.['x-amz-delete-marker'] === 'true' && !ctx.request.query.has('versionId')
              ? 'ObjectRemoved:DeleteMarkerCreated'
              : 'ObjectRemoved:Delete',
          key: target.Key!,
        })),
        DeleteObjects: op(objects, objects.deleteObjects),
        CopyObject: notifying(op(objects, objects.copyObject), created('ObjectCreated:Copy')),
        GetObjectTagging: op(tagging, tagging.getObjectTagging),
        PutObjectTagging: op(tagging, tagging.putObjectTagging),
        DeleteObjectTagging: op(tagging, tagging.deleteObjectTagging),
        CreateMultipartUpload: op(multipart, multipart.createMultipartUpload),
        UploadPart: op(multipart, multipart.uploadPart),
        UploadPartCopy: op(multipart, multipart.uploadPartCopy),
        CompleteMultipartUpload: notifying(
          op(multipart, multipart.completeMultipartUpload),
          created('ObjectCreated:CompleteMultipartUpload'),
        ),
        AbortMultipartUpload: op(multipart, multipart.abortMultipartUpload),
        ListParts: op(multipart, multipart.listParts),
        ListMultipartUploads: op(multipart, multipart.listMultipartUploads),
      },
      store,
      resources: [new BucketProvider(store), new BucketPolicyProvider(store)],
      latency: s3Latency,
      api: store,
    };
  },
};
