/**
 * Test setup for the state layer: one emulator per test file, a real
 * AwsClientFactory (real SDK clients) pointed at it, and a fresh state bucket.
 */
import { CreateBucketCommand, PutBucketVersioningCommand, S3Client } from '@aws-sdk/client-s3';
import type { BucketLocationConstraint } from '@aws-sdk/client-s3';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { forgetBucketRegion } from '../../../src/state/bucket-region';
import { ExportsIndexStore } from '../../../src/state/exports-index';
import { LockManager } from '../../../src/state/lock-manager';
import type { LockManagerOptions } from '../../../src/state/lock-manager';
import { S3StateBackend } from '../../../src/state/state-backend';
import { StateBucket } from '../../../src/state/state-bucket';
import type { StateStore } from '../../../src/state/state-store';
import { WriteAheadLogStore } from '../../../src/state/write-ahead-log';
import { RollbackJournalStore } from '../../../src/state/rollback-journal';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { startEmulator } from '../../emulator/src/index';
import type { RunningEmulator } from '../../emulator/src/index';

export const TEST_CREDENTIALS = { accessKeyId: 'AKIASTATETEST0000001', secretAccessKey: 'state-test-secret' };

/** Starts an emulator before the file's tests and stops it after. */
export function useEmulator(): { readonly emulator: RunningEmulator } {
  const holder: { emulator?: RunningEmulator } = {};
  beforeAll(async () => {
    holder.emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await holder.emulator?.stop();
  });
  return {
    get emulator() {
      if (!holder.emulator) throw new Error('emulator not started');
      return holder.emulator;
    },
  };
}

/** A client factory for the emulator (real SDK clients, dummy credentials). */
export async function emulatorFactory(
  emulator: RunningEmulator,
  region = 'us-east-1',
): Promise<AwsClientFactory> {
  const base = await AwsClientFactory.create({ region, endpointUrl: emulator.url, maxAttempts: 2 });
  return base.withCredentials(TEST_CREDENTIALS, 'state-tests');
}

let bucketCounter = 0;

/** Creates a (versioned by default) bucket with a unique name. */
export async function createBucket(
  factory: AwsClientFactory,
  options: { region?: string; versioned?: boolean; name?: string } = {},
): Promise<string> {
  const region = options.region ?? factory.region;
  const name = options.name ?? `state-test-${process.pid}-${Date.now().toString(36)}-${bucketCounter++}`;
  const client = factory.get(S3Client, { region });
  await client.send(
    new CreateBucketCommand({
      Bucket: name,
      ...(region === 'us-east-1'
        ? {}
        : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
    }),
  );
  if (options.versioned ?? true) {
    await client.send(
      new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }),
    );
  }
  forgetBucketRegion(name);
  return name;
}

export interface TestStore extends StateStore {
  host: RecordingIoHost;
}

/** A state store on a fresh bucket, recording its log messages. */
export async function testStore(
  emulator: RunningEmulator,
  options: {
    region?: string;
    bucketRegion?: string;
    prefix?: string;
    lock?: Partial<LockManagerOptions>;
    bucket?: string;
  } = {},
): Promise<TestStore> {
  const factory = await emulatorFactory(emulator, options.region);
  const name = options.bucket ?? (await createBucket(factory, { region: options.bucketRegion }));
  const host = new RecordingIoHost();
  const logger = createLogger(host);
  const bucket = new StateBucket(factory, name, 'cli-flag', options.prefix ?? 'cdkd', logger);
  const backend = new S3StateBackend(bucket, logger);
  const locks = new LockManager(bucket, { logger, ...options.lock });
  const exportsIndex = new ExportsIndexStore(bucket, backend, { logger, baseDelayMs: 5 });
  const wal = new WriteAheadLogStore(bucket, logger);
  const journals = new RollbackJournalStore(bucket, logger);
  return { factory, bucket, backend, locks, exportsIndex, wal, journals, logger, host };
}

/** A second view of the same bucket (another "process"): own logger, lock owner and settings. */
export function sameBucket(store: StateStore, lock: Partial<LockManagerOptions> = {}): TestStore {
  const host = new RecordingIoHost();
  const logger = createLogger(host);
  const bucket = new StateBucket(
    store.factory,
    store.bucket.name,
    store.bucket.source,
    store.bucket.prefix,
    logger,
  );
  const backend = new S3StateBackend(bucket, logger);
  return {
    factory: store.factory,
    bucket,
    backend,
    locks: new LockManager(bucket, { logger, ...lock }),
    exportsIndex: new ExportsIndexStore(bucket, backend, { logger, baseDelayMs: 5 }),
    wal: new WriteAheadLogStore(bucket, logger),
    journals: new RollbackJournalStore(bucket, logger),
    logger,
    host,
  };
}

/** Waits until `predicate` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
