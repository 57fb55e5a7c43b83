/**
 * `cdkd state migrate`: moves state from the pre-v0.8 bucket
 * `cdkd-state-{account}-{region}` to the region-free `cdkd-state-{account}`
 * (hardened like `cdkd bootstrap` when it has to be created). Refuses while any
 * lock exists in the source; copies every object; never overwrites a key the
 * destination already has (its copy may be newer); verifies every source key is
 * in the destination before the optional removal of the source bucket.
 */
import { CopyObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AwsClientFactory } from '../config/aws-clients';
import { ValidationError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { withRetry } from '../util/retry';
import { deleteBucketAndContents, ensureHardenedBucket } from './bootstrap';
import { forgetBucketRegion, probeBucket } from './bucket-region';
import { LOCK_FILE } from './keys';
import { isPreconditionFailed } from './s3-errors';
import { listKeys } from './state-backend';
import { defaultStateBucketName, legacyStateBucketName } from './state-bucket';

export interface MigrateOptions {
  factory: AwsClientFactory;
  /** The region of the legacy bucket (`cdkd-state-{account}-{region}`). */
  region: string;
  /** Destination bucket; default `cdkd-state-{account}`. */
  destinationBucket?: string;
  dryRun?: boolean;
  /** Delete the legacy bucket (every version) after a verified copy. */
  removeLegacy?: boolean;
  logger: Logger;
}

export interface MigrateResult {
  source: string;
  destination: string;
  dryRun: boolean;
  destinationCreated: boolean;
  /** Keys copied (or, in a dry run, that would be). */
  copied: string[];
  /** Keys the destination already had; left as they are. */
  skipped: string[];
  sourceRemoved: boolean;
}

export async function migrateLegacyStateBucket(options: MigrateOptions): Promise<MigrateResult> {
  const { factory, region, logger } = options;
  const identity = await factory.callerIdentity();
  const source = legacyStateBucketName(identity.account, region);
  const destination = options.destinationBucket ?? defaultStateBucketName(identity.account);
  if (source === destination) {
    throw new ValidationError(`The source and destination of the migration are the same bucket (${source}).`);
  }

  const sourceProbe = await probeBucket(factory, source);
  if (sourceProbe.exists === false) {
    throw new ValidationError(`There is no legacy state bucket ${source} to migrate.`, {
      code: 'LEGACY_BUCKET_NOT_FOUND',
      remedy:
        'Check --region: it names the region in the legacy bucket name (cdkd-state-{account}-{region}).',
    });
  }
  if (sourceProbe.exists !== true) throw sourceProbe.error;
  const sourceClient = factory.get(S3Client, { region: sourceProbe.region });
  const sourceKeys = await listKeys(sourceClient, source, '');

  const locks = sourceKeys.filter((k) => k === LOCK_FILE || k.endsWith(`/${LOCK_FILE}`));
  if (locks.length > 0) {
    throw new ValidationError(
      `Refusing to migrate ${source}: ${locks.length} lock(s) exist (${locks.slice(0, 5).join(', ')}${locks.length > 5 ? ', ...' : ''}); a deploy or destroy may be running.`,
      {
        code: 'MIGRATE_LOCKS_PRESENT',
        remedy:
          'Wait for it to finish, or remove a stale lock with `cdkd force-unlock <stack> --region <region> --state-bucket ' +
          source +
          '`.',
      },
    );
  }

  const destProbe = await probeBucket(factory, destination);
  const destExisting =
    destProbe.exists === true
      ? new Set(await listKeys(factory.get(S3Client, { region: destProbe.region }), destination, ''))
      : new Set<string>();
  const copied = sourceKeys.filter((k) => !destExisting.has(k));
  const skipped = sourceKeys.filter((k) => destExisting.has(k));
  const result: MigrateResult = {
    source,
    destination,
    dryRun: !!options.dryRun,
    destinationCreated: destProbe.exists !== true,
    copied,
    skipped,
    sourceRemoved: false,
  };
  if (options.dryRun) return result;

  const dest = await ensureHardenedBucket({
    factory,
    name: destination,
    region: destProbe.exists === true ? destProbe.region : sourceProbe.region,
    accountId: identity.account,
    partition: identity.partition,
    versioning: true,
    logger,
  });
  result.destinationCreated = dest.created;
  const destClient = factory.get(S3Client, { region: dest.region });
  for (const key of copied) {
    await withRetry(() =>
      destClient.send(
        new CopyObjectCommand({
          Bucket: destination,
          Key: key,
          CopySource: `${source}/${key.split('/').map(encodeURIComponent).join('/')}`,
          // Only create: a key written to the destination meanwhile is newer than the source.
          IfNoneMatch: '*',
        }),
      ),
    ).catch((err: unknown) => {
      if (isPreconditionFailed(err)) {
        skipped.push(key);
        return;
      }
      throw err;
    });
    logger.debug(`Copied s3://${source}/${key} to s3://${destination}/${key}.`);
  }
  result.copied = copied.filter((k) => !skipped.includes(k));

  const after = new Set(await listKeys(destClient, destination, ''));
  const missing = sourceKeys.filter((k) => !after.has(k));
  if (missing.length > 0) {
    throw new ValidationError(
      `Verification failed: ${missing.length} object(s) of ${source} are not in ${destination} (${missing.slice(0, 5).join(', ')}). The source was left as it is.`,
      {
        code: 'MIGRATE_VERIFY_FAILED',
        remedy: 'Re-run `cdkd state migrate`; it copies only what is missing.',
      },
    );
  }

  if (options.removeLegacy) {
    await deleteBucketAndContents(sourceClient, source);
    forgetBucketRegion(source);
    result.sourceRemoved = true;
    logger.debug(`Deleted the legacy state bucket ${source}.`);
  }
  return result;
}
