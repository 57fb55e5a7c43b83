/**
 * `cdkd bootstrap`: the state bucket (once per account) and a region's asset
 * storage, hardened — versioning (state bucket), AES-256 default encryption,
 * the public access block and the account-only bucket policy. Idempotent: each
 * setting is read first and written only when missing, and the result lists
 * exactly what changed (nothing, on a second run).
 *
 * Teardown (`--destroy`) removes the region's asset bucket and then its marker
 * (the reverse of the create order, where the marker is written last), and
 * optionally the state bucket; it refuses while stacks remain.
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketEncryptionCommand,
  GetBucketPolicyCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  ListObjectVersionsCommand,
  PutBucketEncryptionCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { BucketLocationConstraint, ObjectIdentifier } from '@aws-sdk/client-s3';
import type { AwsClientFactory } from '../config/aws-clients';
import { ConfigError, ValidationError, formatError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { withRetry } from '../util/retry';
import {
  BOOTSTRAP_MARKER_VERSION,
  defaultAssetBucketName,
  defaultContainerRepositoryName,
  listBootstrappedRegions,
  readBootstrapMarker,
  writeBootstrapMarker,
} from './bootstrap-marker';
import type { BootstrapMarker } from './bootstrap-marker';
import { forgetBucketRegion, probeBucket, rememberBucketRegion } from './bucket-region';
import { accountOnlyPolicy, mergeAccountOnlyPolicy } from './bucket-policy';
import { bootstrapMarkerKey } from './keys';
import { purgeAndReport } from './purge';
import { describeAwsError, httpStatus, s3ErrorCode } from './s3-errors';
import type { S3StateBackend, StackRef } from './state-backend';
import { legacyStateBucketName } from './state-bucket';
import type { StateBucket } from './state-bucket';

/** What bootstrap found and did for one bucket. */
export interface BucketReport {
  name: string;
  region: string;
  created: boolean;
  /** Settings written, e.g. `versioning enabled`; empty when the bucket was already as wanted. */
  changes: string[];
}

export interface HardenBucketOptions {
  factory: AwsClientFactory;
  name: string;
  /** Region to create the bucket in when it does not exist. */
  region: string;
  accountId: string;
  partition: string;
  /** Turn versioning on (the state bucket: its versions are the state-recovery path). */
  versioning: boolean;
  logger: Logger;
}

/** Creates the bucket if needed and brings its hardening up to date; reports what changed. */
export async function ensureHardenedBucket(options: HardenBucketOptions): Promise<BucketReport> {
  const { factory, name, accountId, logger } = options;
  const probe = await probeBucket(factory, name);
  let region: string;
  let created = false;
  if (probe.exists === true) {
    region = probe.region;
  } else if (probe.exists === false) {
    region = options.region;
    created = await createBucket(factory.get(S3Client, { region }), name, region, accountId);
    rememberBucketRegion(name, region);
    if (created) logger.debug(`Created bucket ${name} in ${region}.`);
  } else {
    throw new ConfigError(`Cannot check bucket ${name}: ${describeAwsError(probe.error)}.`, {
      cause: probe.error,
      remedy:
        'cdkd bootstrap needs s3:GetBucketLocation, s3:CreateBucket and the s3:Put*/Get* bucket configuration actions.',
    });
  }

  const client = factory.get(S3Client, { region });
  const owner = { Bucket: name, ExpectedBucketOwner: accountId };
  const changes: string[] = [];
  const retry = <T>(op: () => Promise<T>): Promise<T> => withRetry(op, { maxAttempts: 4, baseDelayMs: 300 });

  if (options.versioning) {
    const v = await retry(() => client.send(new GetBucketVersioningCommand(owner)));
    if (v.Status !== 'Enabled') {
      await retry(() =>
        client.send(
          new PutBucketVersioningCommand({ ...owner, VersioningConfiguration: { Status: 'Enabled' } }),
        ),
      );
      changes.push('versioning enabled');
    }
  }

  const encryption = await readOrAbsent(() => client.send(new GetBucketEncryptionCommand(owner)));
  const hasEncryption = (encryption?.ServerSideEncryptionConfiguration?.Rules ?? []).some(
    (r) => !!r.ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
  );
  // A new bucket gets AES-256 (and, below, the public access block) explicitly rather than relying
  // on S3's defaults for new buckets; an existing bucket keeps whatever default encryption it has
  // (SSE-KMS included).
  if (created || !hasEncryption) {
    await retry(() =>
      client.send(
        new PutBucketEncryptionCommand({
          ...owner,
          ServerSideEncryptionConfiguration: {
            Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
          },
        }),
      ),
    );
    changes.push('default encryption set to AES-256');
  }

  const pab = await readOrAbsent(() => client.send(new GetPublicAccessBlockCommand(owner)));
  const block = pab?.PublicAccessBlockConfiguration;
  if (
    created ||
    !(
      block?.BlockPublicAcls &&
      block.IgnorePublicAcls &&
      block.BlockPublicPolicy &&
      block.RestrictPublicBuckets
    )
  ) {
    await retry(() =>
      client.send(
        new PutPublicAccessBlockCommand({
          ...owner,
          PublicAccessBlockConfiguration: {
            BlockPublicAcls: true,
            IgnorePublicAcls: true,
            BlockPublicPolicy: true,
            RestrictPublicBuckets: true,
          },
        }),
      ),
    );
    changes.push('public access blocked');
  }

  const policy = await readOrAbsent(() => client.send(new GetBucketPolicyCommand(owner)));
  const merged = mergeAccountOnlyPolicy(
    policy?.Policy,
    accountOnlyPolicy(name, accountId, options.partition),
  );
  if (merged) {
    await retry(() => client.send(new PutBucketPolicyCommand({ ...owner, Policy: JSON.stringify(merged) })));
    changes.push('account-only bucket policy applied');
  }
  return { name, region, created, changes };
}

/** True when this call created it; false when it already existed (a concurrent bootstrap, say). */
async function createBucket(
  client: S3Client,
  name: string,
  region: string,
  accountId: string,
): Promise<boolean> {
  try {
    await client.send(
      new CreateBucketCommand({
        Bucket: name,
        // us-east-1 is the one region that refuses an explicit LocationConstraint.
        ...(region === 'us-east-1'
          ? {}
          : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
      }),
    );
    return true;
  } catch (err) {
    const code = s3ErrorCode(err);
    if (code === 'BucketAlreadyOwnedByYou') return false;
    if (code === 'BucketAlreadyExists') {
      throw new ConfigError(`Bucket name ${name} is already taken by another AWS account.`, {
        cause: err,
        code: 'BUCKET_NAME_TAKEN',
        remedy: `Choose another name with --state-bucket (state bucket) or --asset-bucket (asset bucket); account ${accountId} cannot use this one.`,
      });
    }
    throw err;
  }
}

/** A bucket configuration GET that answers 404 when the configuration is absent. */
async function readOrAbsent<T>(op: () => Promise<T>): Promise<T | undefined> {
  try {
    return await withRetry(op, { maxAttempts: 4, baseDelayMs: 300 });
  } catch (err) {
    const code = s3ErrorCode(err) ?? '';
    if (
      httpStatus(err) === 404 ||
      [
        'ServerSideEncryptionConfigurationNotFoundError',
        'NoSuchPublicAccessBlockConfiguration',
        'NoSuchBucketPolicy',
      ].includes(code)
    ) {
      return undefined;
    }
    throw err;
  }
}

export interface BootstrapOptions {
  factory: AwsClientFactory;
  /** The state bucket (resolved without requiring it to exist). */
  stateBucket: StateBucket;
  /** The region to bootstrap: where a new state bucket is created and whose asset storage is set up. */
  region: string;
  /** Set up the region's asset storage and marker (`--no-assets` turns it off). Default true. */
  assets?: boolean;
  /** Custom asset bucket name (default `cdkd-assets-{account}-{region}`). */
  assetBucketName?: string;
  /** Custom container repository name (default `cdkd-container-assets-{account}-{region}`). */
  containerRepositoryName?: string;
  logger: Logger;
  now?: () => Date;
}

export interface BootstrapResult {
  account: string;
  region: string;
  stateBucket: BucketReport;
  assetBucket?: BucketReport;
  marker?: { key: string; written: boolean; marker: BootstrapMarker };
  /** False when everything was already in place. */
  changed: boolean;
}

/** Creates or updates the state bucket and (unless `assets: false`) the region's asset storage. */
export async function bootstrap(options: BootstrapOptions): Promise<BootstrapResult> {
  const { factory, stateBucket, region, logger } = options;
  const identity = await factory.callerIdentity();
  const common = { factory, accountId: identity.account, partition: identity.partition, logger, region };

  const stateReport = await ensureHardenedBucket({ ...common, name: stateBucket.name, versioning: true });
  if (stateReport.created && stateBucket.source === 'default') {
    const legacy = legacyStateBucketName(identity.account, region);
    if ((await probeBucket(factory, legacy)).exists === true) {
      logger.warn(
        `The legacy state bucket ${legacy} exists; stacks recorded there are not in ${stateBucket.name}. ` +
          `Move them with: cdkd state migrate --region ${region}`,
      );
    }
  }
  const result: BootstrapResult = {
    account: identity.account,
    region,
    stateBucket: stateReport,
    changed: false,
  };

  if (options.assets ?? true) {
    const assetBucket = options.assetBucketName ?? defaultAssetBucketName(identity.account, region);
    // Assets are content-addressed and reproducible from the app, so no versioning:
    // `cdkd gc` deletions then really free the space.
    result.assetBucket = await ensureHardenedBucket({ ...common, name: assetBucket, versioning: false });

    const wanted: BootstrapMarker = {
      version: BOOTSTRAP_MARKER_VERSION,
      region,
      assetBucket,
      containerRepository:
        options.containerRepositoryName ?? defaultContainerRepositoryName(identity.account, region),
      createdAt: (options.now?.() ?? new Date()).toISOString(),
    };
    const existing = await readBootstrapMarker(stateBucket, region).catch(() => undefined);
    const same =
      existing &&
      existing.version === wanted.version &&
      existing.assetBucket === wanted.assetBucket &&
      existing.containerRepository === wanted.containerRepository;
    // Written last: a marker means the storage it names exists.
    if (!same) await writeBootstrapMarker(stateBucket, wanted);
    result.marker = { key: bootstrapMarkerKey(region), written: !same, marker: same ? existing : wanted };
  }

  result.changed =
    stateReport.created ||
    stateReport.changes.length > 0 ||
    !!result.assetBucket?.created ||
    (result.assetBucket?.changes.length ?? 0) > 0 ||
    !!result.marker?.written;
  return result;
}

export interface DestroyBootstrapOptions {
  factory: AwsClientFactory;
  stateBucket: StateBucket;
  backend: S3StateBackend;
  /** The region whose asset storage and marker are removed. */
  region: string;
  /** Also delete the state bucket (only when no stack and no other region's marker remains). */
  includeStateBucket?: boolean;
  logger: Logger;
}

export interface DestroyBootstrapResult {
  region: string;
  /** The asset bucket removed (undefined when there was none). */
  assetBucket?: { name: string; objectsDeleted: number };
  /** The container repository the marker named; cdkd does not create or delete it. */
  containerRepository?: string;
  markerDeleted: boolean;
  stateBucketDeleted: boolean;
}

/** Tears down a region's asset storage and marker, and optionally the state bucket. Refuses while stacks remain. */
export async function destroyBootstrap(options: DestroyBootstrapOptions): Promise<DestroyBootstrapResult> {
  const { factory, stateBucket, backend, region, logger } = options;
  const identity = await factory.callerIdentity();

  // Every refusal happens before anything is deleted.
  const stacks = await backend.listStacks();
  const blocking = options.includeStateBucket ? stacks : stacks.filter((s) => s.region === region);
  if (blocking.length > 0) throw stacksRemain(blocking, options.includeStateBucket ? undefined : region);
  if (options.includeStateBucket) {
    const others = (await listBootstrappedRegions(stateBucket)).filter((r) => r !== region);
    if (others.length > 0) {
      throw new ValidationError(
        `Refusing to delete state bucket ${stateBucket.name}: regions ${others.join(', ')} still have cdkd asset storage.`,
        {
          code: 'BOOTSTRAP_REGIONS_REMAIN',
          remedy: `Tear them down first: ${others.map((r) => `cdkd bootstrap --destroy --region ${r}`).join('; ')}.`,
        },
      );
    }
  }

  const result: DestroyBootstrapResult = { region, markerDeleted: false, stateBucketDeleted: false };
  let marker: BootstrapMarker | undefined;
  let markerPresent = false;
  try {
    marker = await readBootstrapMarker(stateBucket, region);
    markerPresent = !!marker;
  } catch (err) {
    // An unreadable marker is still removed; its asset bucket falls back to the default name.
    logger.warn(formatError(err));
    markerPresent = true;
  }
  const assetBucket = marker?.assetBucket ?? defaultAssetBucketName(identity.account, region);
  result.containerRepository = marker?.containerRepository;
  const assetProbe = await probeBucket(factory, assetBucket);
  if (assetProbe.exists === true) {
    const objectsDeleted = await deleteBucketAndContents(
      factory.get(S3Client, { region: assetProbe.region }),
      assetBucket,
    );
    forgetBucketRegion(assetBucket);
    result.assetBucket = { name: assetBucket, objectsDeleted };
    logger.debug(`Deleted asset bucket ${assetBucket} (${objectsDeleted} object version(s)).`);
  }

  const markerKey = bootstrapMarkerKey(region);
  const stateClient = await stateBucket.client();
  if (markerPresent) {
    // Deleted last (after the storage it names), and its versions purged.
    await stateClient.send(new DeleteObjectCommand({ Bucket: stateBucket.name, Key: markerKey }));
    result.markerDeleted = true;
    await purgeAndReport({
      client: stateClient,
      bucket: stateBucket.name,
      keys: [markerKey],
      kind: 'bootstrap-marker',
      logger,
    });
  }

  if (options.includeStateBucket) {
    const count = await deleteBucketAndContents(stateClient, stateBucket.name);
    forgetBucketRegion(stateBucket.name);
    result.stateBucketDeleted = true;
    logger.debug(`Deleted state bucket ${stateBucket.name} (${count} object version(s)).`);
  }
  return result;
}

function stacksRemain(stacks: StackRef[], region: string | undefined): ValidationError {
  const names = stacks.map((s) => `${s.stackName} (${s.region})`);
  const shown = names.slice(0, 10).join(', ') + (names.length > 10 ? ` and ${names.length - 10} more` : '');
  return new ValidationError(
    `Refusing to tear down the bootstrap${region ? ` of ${region}` : ''}: ${stacks.length} stack(s) still have state: ${shown}.`,
    {
      code: 'BOOTSTRAP_STACKS_REMAIN',
      remedy: 'Destroy them first (`cdkd destroy`), or stop tracking them with `cdkd state orphan <stack>`.',
    },
  );
}

/** Deletes every object version and delete marker, then the bucket. Returns the versions deleted. */
export async function deleteBucketAndContents(client: S3Client, bucket: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }));
    const ids: ObjectIdentifier[] = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
      .filter((v) => v.Key)
      .map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
    if (ids.length === 0) break;
    const out = await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: ids, Quiet: true } }),
    );
    const errors = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchVersion');
    if (errors.length > 0) {
      const first = errors[0];
      throw new ConfigError(
        `Could not empty bucket ${bucket}: ${errors.length} object version(s) refused, e.g. ${first.Key} (${first.Code}: ${first.Message}).`,
        {
          remedy:
            'Grant s3:ListBucketVersions, s3:DeleteObject and s3:DeleteObjectVersion on the bucket, or empty it by hand.',
        },
      );
    }
    deleted += ids.length;
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  return deleted;
}
