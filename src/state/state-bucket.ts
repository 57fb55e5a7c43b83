/**
 * The state bucket: its name, where the name came from, its region, and the S3
 * client for that region. One object is shared by every consumer of the bucket
 * (state backend, lock manager, exports index, bootstrap, custom-resource
 * responses), so they all use the same region resolution and the same client.
 *
 * The name resolves as: `--state-bucket` > `CDKD_STATE_BUCKET` > cdkd config
 * file > cdk.json `context.cdkd.stateBucket` (all via the config) > the default
 * `cdkd-state-{accountId}`; when the default does not exist, the pre-v0.8
 * `cdkd-state-{accountId}-{region}` is used with a deprecation warning; when
 * neither exists the caller is told to run `cdkd bootstrap`.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig, ConfigSource } from '../config/config';
import { ConfigError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { probeBucket, resolveBucketRegion } from './bucket-region';
import type { BucketRegion } from './bucket-region';
import { StateKeys, s3Uri } from './keys';
import { describeAwsError } from './s3-errors';

/** Where the state bucket name came from. `legacy-default` is the pre-v0.8 regional default name. */
export type StateBucketSource = ConfigSource | 'legacy-default';

/** The default state bucket name: region-free, so every teammate resolves the same bucket. */
export function defaultStateBucketName(accountId: string): string {
  return `cdkd-state-${accountId}`;
}

/** The pre-v0.8 default name, still read with a deprecation warning. */
export function legacyStateBucketName(accountId: string, region: string): string {
  return `cdkd-state-${accountId}-${region}`;
}

/** The state bucket and its region-correct S3 client. */
export class StateBucket {
  readonly keys: StateKeys;

  constructor(
    readonly factory: AwsClientFactory,
    /** The bucket name. */
    readonly name: string,
    /** Where the name came from. */
    readonly source: StateBucketSource,
    /** The key prefix of stack records (`cdkd` by default). */
    readonly prefix: string,
    private readonly logger: Logger,
  ) {
    this.keys = new StateKeys(prefix);
  }

  /** The bucket's region (GetBucketLocation, cached per bucket when it succeeds). */
  async regionInfo(): Promise<BucketRegion> {
    const info = await resolveBucketRegion(this.factory, this.name);
    if (!info.resolved) {
      this.logger.debug(
        `Could not look up the region of state bucket ${this.name} (${info.reason}); using ${info.region}.`,
      );
    }
    return info;
  }

  async region(): Promise<string> {
    return (await this.regionInfo()).region;
  }

  /** The S3 client for the bucket's own region. */
  async client(): Promise<S3Client> {
    return this.factory.get(S3Client, { region: await this.region() });
  }

  /** `s3://bucket/key`, for messages. */
  uri(key = ''): string {
    return s3Uri(this.name, key);
  }
}

export interface ResolveStateBucketOptions {
  factory: AwsClientFactory;
  config: Pick<CdkdConfig, 'stateBucket' | 'statePrefix' | 'sources'>;
  logger: Logger;
  /**
   * Require the bucket to exist (default true): a missing bucket is the "run cdkd
   * bootstrap" error. `false` (bootstrap itself) skips the probe and the legacy fallback.
   */
  mustExist?: boolean;
}

/** Resolves the state bucket name (and, by default, checks that it exists). */
export async function resolveStateBucket(options: ResolveStateBucketOptions): Promise<StateBucket> {
  const { factory, config, logger } = options;
  const mustExist = options.mustExist ?? true;
  const make = (name: string, source: StateBucketSource): StateBucket =>
    new StateBucket(factory, name, source, config.statePrefix, logger);

  if (config.stateBucket) {
    const bucket = make(config.stateBucket, config.sources.stateBucket ?? 'cli-flag');
    if (mustExist) await requireBucket(bucket);
    return bucket;
  }

  const { account } = await factory.callerIdentity();
  const name = defaultStateBucketName(account);
  if (!mustExist) return make(name, 'default');

  const probe = await probeBucket(factory, name);
  if (probe.exists === true) return make(name, 'default');
  if (probe.exists === 'unknown') {
    // Cannot tell (no s3:GetBucketLocation, say): use the default and let the first real call speak.
    logger.debug(`Could not check state bucket ${name} (${describeAwsError(probe.error)}); using it.`);
    return make(name, 'default');
  }

  const legacy = legacyStateBucketName(account, factory.region);
  const legacyProbe = await probeBucket(factory, legacy);
  if (legacyProbe.exists === true) {
    logger.warn(legacyBucketWarning(legacy, name, factory.region));
    return make(legacy, 'legacy-default');
  }
  throw bucketNotFound(name);
}

/** The deprecation warning for the pre-v0.8 bucket name (one line). */
export function legacyBucketWarning(legacy: string, current: string, region: string): string {
  return (
    `Using legacy state bucket name '${legacy}'. The default has changed to '${current}'. ` +
    `To migrate, run: cdkd state migrate --region ${region} ` +
    `(add --remove-legacy to delete the legacy bucket after a successful copy; ` +
    `legacy support will be dropped in a future release.)`
  );
}

/** The "run cdkd bootstrap" error for a state bucket that does not exist. */
export function bucketNotFound(name: string, source: StateBucketSource = 'default'): ConfigError {
  const bootstrap = source === 'default' ? 'cdkd bootstrap' : `cdkd bootstrap --state-bucket ${name}`;
  return new ConfigError(`State bucket '${name}' does not exist.`, {
    code: 'STATE_BUCKET_NOT_FOUND',
    remedy:
      `Run \`${bootstrap}\` to create it (once per account), or point cdkd at an existing bucket with ` +
      `--state-bucket, CDKD_STATE_BUCKET or cdk.json context.cdkd.stateBucket.`,
  });
}

async function requireBucket(bucket: StateBucket): Promise<void> {
  const probe = await probeBucket(bucket.factory, bucket.name);
  if (probe.exists === false) throw bucketNotFound(bucket.name, bucket.source);
}
