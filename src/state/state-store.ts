/**
 * Wires the state services for one invocation from the resolved configuration:
 * the client factory, the state bucket (name + region + client, shared), the
 * state backend, the lock manager, the exports index and the write-ahead logs.
 */
import { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig } from '../config/config';
import type { Logger } from '../util/io-host';
import { ExportsIndexStore } from './exports-index';
import { LockManager } from './lock-manager';
import { RollbackJournalStore } from './rollback-journal';
import { S3StateBackend } from './state-backend';
import { resolveStateBucket } from './state-bucket';
import type { StateBucket } from './state-bucket';
import { WriteAheadLogStore } from './write-ahead-log';

export interface StateStore {
  factory: AwsClientFactory;
  bucket: StateBucket;
  backend: S3StateBackend;
  locks: LockManager;
  exportsIndex: ExportsIndexStore;
  /** The stacks' write-ahead logs. */
  wal: WriteAheadLogStore;
  /** The stacks' rollback journals. */
  journals: RollbackJournalStore;
  logger: Logger;
}

export interface OpenStateStoreOptions {
  config: Pick<
    CdkdConfig,
    'region' | 'profile' | 'endpointUrl' | 'stateBucket' | 'statePrefix' | 'lockTtlSeconds' | 'sources'
  > &
    Partial<Pick<CdkdConfig, 'roleArn'>>;
  logger: Logger;
  /** An existing factory (shares its client cache); default: one built from the config. */
  factory?: AwsClientFactory;
  /** Require the state bucket to exist (default true). */
  mustExist?: boolean;
  /** Lock owner override (default `user@hostname:pid`). */
  lockOwner?: string;
}

const ENDPOINT_SOURCES: Record<string, string> = {
  'cli-flag': '--endpoint-url',
  env: 'CDKD_ENDPOINT_URL',
  'config-file': 'endpointUrl in the cdkd config file',
  'cdk.json': 'context.cdkd.endpointUrl in cdk.json',
};

/**
 * The client factory for a configuration, acting as the caller's own
 * credentials (`--role-arn` is applied by {@link actingAs}).
 */
export function createClientFactory(
  config: Pick<CdkdConfig, 'region' | 'profile' | 'endpointUrl'> & Partial<Pick<CdkdConfig, 'sources'>>,
): Promise<AwsClientFactory> {
  return AwsClientFactory.create({
    region: config.region,
    profile: config.profile,
    endpointUrl: config.endpointUrl,
    endpointSource: ENDPOINT_SOURCES[config.sources?.endpointUrl ?? 'cli-flag'],
  });
}

/** The factory the command's AWS calls go through: the caller's, or the `roleArn` it assumes. */
export function actingAs(
  base: AwsClientFactory,
  config: Partial<Pick<CdkdConfig, 'roleArn'>>,
): AwsClientFactory {
  return config.roleArn ? base.assumingRole(config.roleArn) : base;
}

export async function openStateStore(options: OpenStateStoreOptions): Promise<StateStore> {
  const { config, logger } = options;
  const factory = options.factory ?? actingAs(await createClientFactory(config), config);
  const bucket = await resolveStateBucket({ factory, config, logger, mustExist: options.mustExist });
  logger.debug(`State bucket: ${bucket.name} (from ${bucket.source}), prefix '${bucket.prefix}'.`);
  const backend = new S3StateBackend(bucket, logger);
  const locks = new LockManager(bucket, {
    logger,
    ttlSeconds: config.lockTtlSeconds,
    owner: options.lockOwner,
  });
  const exportsIndex = new ExportsIndexStore(bucket, backend, { logger });
  const wal = new WriteAheadLogStore(bucket, logger);
  const journals = new RollbackJournalStore(bucket, logger);
  return { factory, bucket, backend, locks, exportsIndex, wal, journals, logger };
}
