/**
 * Amazon S3 (restXml, served by S3's own codec), path-style and
 * virtual-host-style. One handler class per concern; this file maps S3's
 * operation names onto them.
 */
import type { OperationHandler, ServiceModule } from '../../core/service';
import type { S3Target } from './base';
import { BucketConfigHandlers } from './bucket-config';
import { PolicyHandlers } from './bucket-policy';
import { BucketHandlers } from './buckets';
import { S3Codec } from './codec';
import { s3Latency } from './latency';
import { ListingHandlers } from './listing';
import { MultipartHandlers } from './multipart';
import { ObjectTaggingHandlers } from './object-tagging';
import { ObjectHandlers } from './objects';
import { BucketPolicyProvider, BucketProvider } from './resource';
import { S3Store } from './store';

export const s3: ServiceModule = {
  name: 's3',
  signingNames: ['s3'],
  create() {
    const store = new S3Store();
    const buckets = new BucketHandlers(store);
    const config = new BucketConfigHandlers(store);
    const policy = new PolicyHandlers(store);
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
        ListObjectsV2: op(listing, listing.listObjectsV2),
        ListObjects: op(listing, listing.listObjectsV1),
        ListObjectVersions: op(listing, listing.listObjectVersions),
        PutObject: op(objects, objects.putObject),
        GetObject: op(objects, objects.getObject),
        HeadObject: op(objects, objects.headObject),
        DeleteObject: op(objects, objects.deleteObject),
        DeleteObjects: op(objects, objects.deleteObjects),
        CopyObject: op(objects, objects.copyObject),
        GetObjectTagging: op(tagging, tagging.getObjectTagging),
        PutObjectTagging: op(tagging, tagging.putObjectTagging),
        DeleteObjectTagging: op(tagging, tagging.deleteObjectTagging),
        CreateMultipartUpload: op(multipart, multipart.createMultipartUpload),
        UploadPart: op(multipart, multipart.uploadPart),
        UploadPartCopy: op(multipart, multipart.uploadPartCopy),
        CompleteMultipartUpload: op(multipart, multipart.completeMultipartUpload),
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
