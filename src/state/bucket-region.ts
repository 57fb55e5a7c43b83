/**
 * Which region a bucket lives in, and whether it exists at all. Answered by
 * `GetBucketLocation` (a GET: it has a body, unlike a HEAD's empty 301) sent to
 * the caller's own region, which any regional endpoint of the partition answers.
 *
 * A successful lookup is cached per bucket for the life of the process, so the
 * state backend, the lock manager, the exports index and the custom-resource
 * response path share one call. A failed lookup is never cached: the next
 * consumer asks again rather than inheriting one transient error's guess.
 */
import { GetBucketLocationCommand, S3Client } from '@aws-sdk/client-s3';
import type { AwsClientFactory } from '../config/aws-clients';
import { describeAwsError, isNoSuchBucket } from './s3-errors';

/** The result of probing a bucket. */
export type BucketProbe =
  | { exists: true; region: string }
  | { exists: false }
  /** The lookup failed for another reason (access denied, network): existence and region unknown. */
  | { exists: 'unknown'; error: unknown };

const regionCache = new Map<string, string>();

/** The region named by a `LocationConstraint` (empty means us-east-1, `EU` the old name of eu-west-1). */
export function regionFromLocationConstraint(constraint: string | null | undefined): string {
  if (!constraint) return 'us-east-1';
  if (constraint === 'EU') return 'eu-west-1';
  return constraint;
}

/** Asks S3 where the bucket is. Caches a found region; never throws. */
export async function probeBucket(factory: AwsClientFactory, bucket: string): Promise<BucketProbe> {
  const cached = regionCache.get(bucket);
  if (cached) return { exists: true, region: cached };
  try {
    const out = await factory.get(S3Client).send(new GetBucketLocationCommand({ Bucket: bucket }));
    const region = regionFromLocationConstraint(out.LocationConstraint);
    regionCache.set(bucket, region);
    return { exists: true, region };
  } catch (err) {
    if (isNoSuchBucket(err)) return { exists: false };
    return { exists: 'unknown', error: err };
  }
}

export interface BucketRegion {
  region: string;
  /** False when the lookup failed and `region` is the caller's own region as a best guess. */
  resolved: boolean;
  /** Why the lookup failed, when it did. */
  reason?: string;
}

/** The bucket's region; on failure the caller's region as a best guess (not cached). Never throws. */
export async function resolveBucketRegion(factory: AwsClientFactory, bucket: string): Promise<BucketRegion> {
  const probe = await probeBucket(factory, bucket);
  if (probe.exists === true) return { region: probe.region, resolved: true };
  const reason = probe.exists === false ? 'NoSuchBucket' : describeAwsError(probe.error);
  return { region: factory.region, resolved: false, reason };
}

/** Records a region learned another way (e.g. the bucket was just created there). */
export function rememberBucketRegion(bucket: string, region: string): void {
  regionCache.set(bucket, region);
}

/** Forgets a bucket (after deleting it), or every bucket. */
export function forgetBucketRegion(bucket?: string): void {
  if (bucket === undefined) regionCache.clear();
  else regionCache.delete(bucket);
}
