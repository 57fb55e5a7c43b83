/** State bucket name and region resolution against the emulator. */
import { S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';
import type { BucketLocationConstraint } from '@aws-sdk/client-s3';
import {
  forgetBucketRegion,
  regionFromLocationConstraint,
  resolveBucketRegion,
} from '../../../src/state/bucket-region';
import { resolveStateBucket } from '../../../src/state/state-bucket';
import { CdkdError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { createBucket, emulatorFactory, useEmulator } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

let accountCounter = 0;
/** Each test runs in its own account, so default bucket names do not collide. */
async function freshAccount(): Promise<string> {
  const account = String(210000000000 + process.pid * 100 + accountCounter++)
    .slice(0, 12)
    .padStart(12, '0');
  await ctx.emulator.control.setAccountId(account);
  return account;
}

afterEach(async () => {
  await ctx.emulator.control.clearFaults();
});

const config = (stateBucket?: string) => ({
  stateBucket,
  statePrefix: 'cdkd',
  sources: stateBucket ? { stateBucket: 'env' as const } : {},
});

async function make(name: string, region: string): Promise<void> {
  const factory = await emulatorFactory(ctx.emulator, region);
  await factory.get(S3Client).send(
    new CreateBucketCommand({
      Bucket: name,
      ...(region === 'us-east-1'
        ? {}
        : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
    }),
  );
}

describe('resolveStateBucket', () => {
  it('uses a configured name and its source', async () => {
    const factory = await emulatorFactory(ctx.emulator);
    const name = await createBucket(factory);
    const bucket = await resolveStateBucket({
      factory,
      config: config(name),
      logger: createLogger(new RecordingIoHost()),
    });
    expect(bucket.name).toBe(name);
    expect(bucket.source).toBe('env');
    expect(bucket.prefix).toBe('cdkd');
  });

  it('fails with the bootstrap error naming a configured bucket that does not exist', async () => {
    const factory = await emulatorFactory(ctx.emulator);
    const err = await resolveStateBucket({
      factory,
      config: config('no-such-state-bucket'),
      logger: createLogger(new RecordingIoHost()),
    }).catch((e) => e);
    expect(CdkdError.isCdkdError(err) && err.code).toBe('STATE_BUCKET_NOT_FOUND');
    expect(err.message).toContain("'no-such-state-bucket'");
    expect(err.remedy).toContain('cdkd bootstrap --state-bucket no-such-state-bucket');
  });

  it('derives cdkd-state-{account} from STS', async () => {
    const account = await freshAccount();
    await make(`cdkd-state-${account}`, 'eu-central-1');
    const factory = await emulatorFactory(ctx.emulator, 'us-east-1');
    const bucket = await resolveStateBucket({
      factory,
      config: config(),
      logger: createLogger(new RecordingIoHost()),
    });
    expect(bucket.name).toBe(`cdkd-state-${account}`);
    expect(bucket.source).toBe('default');
    expect(await bucket.region()).toBe('eu-central-1');
  });

  it('falls back to the legacy cdkd-state-{account}-{region} with the deprecation warning', async () => {
    const account = await freshAccount();
    await make(`cdkd-state-${account}-us-west-2`, 'us-west-2');
    const factory = await emulatorFactory(ctx.emulator, 'us-west-2');
    const host = new RecordingIoHost();
    const bucket = await resolveStateBucket({ factory, config: config(), logger: createLogger(host) });
    expect(bucket.name).toBe(`cdkd-state-${account}-us-west-2`);
    expect(bucket.source).toBe('legacy-default');
    const [warning] = host.text('warn');
    expect(warning).toContain(`Using legacy state bucket name 'cdkd-state-${account}-us-west-2'`);
    expect(warning).toContain(`The default has changed to 'cdkd-state-${account}'`);
    expect(warning).toContain('cdkd state migrate --region us-west-2');
    expect(warning).toContain('--remove-legacy');
  });

  it('tells the user to run cdkd bootstrap when neither bucket exists, naming the bucket it looked for', async () => {
    const account = await freshAccount();
    const factory = await emulatorFactory(ctx.emulator);
    const err = await resolveStateBucket({
      factory,
      config: config(),
      logger: createLogger(new RecordingIoHost()),
    }).catch((e) => e);
    expect(err.code).toBe('STATE_BUCKET_NOT_FOUND');
    expect(err.message).toContain(`cdkd-state-${account}`);
    expect(err.remedy).toContain('`cdkd bootstrap`');
  });

  it('skips the existence check for bootstrap', async () => {
    const account = await freshAccount();
    const factory = await emulatorFactory(ctx.emulator);
    const bucket = await resolveStateBucket({
      factory,
      config: config(),
      logger: createLogger(new RecordingIoHost()),
      mustExist: false,
    });
    expect(bucket.name).toBe(`cdkd-state-${account}`);
  });
});

describe('resolveBucketRegion', () => {
  it('maps LocationConstraint values', () => {
    expect(regionFromLocationConstraint(undefined)).toBe('us-east-1');
    expect(regionFromLocationConstraint('')).toBe('us-east-1');
    expect(regionFromLocationConstraint('EU')).toBe('eu-west-1');
    expect(regionFromLocationConstraint('ap-south-1')).toBe('ap-south-1');
  });

  it('caches a successful lookup per bucket and does not cache a failure', async () => {
    const factory = await emulatorFactory(ctx.emulator, 'us-east-1');
    const name = await createBucket(factory, { region: 'sa-east-1' });
    forgetBucketRegion(name);
    const count = async (): Promise<number> =>
      (await ctx.emulator.control.requests()).byOperation['s3:GetBucketLocation'] ?? 0;
    const start = await count();

    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'GetBucketLocation',
      error: 'AccessDenied',
      count: 1,
    });
    const failed = await resolveBucketRegion(factory, name);
    expect(failed).toEqual(expect.objectContaining({ region: 'us-east-1', resolved: false }));

    expect(await resolveBucketRegion(factory, name)).toEqual({ region: 'sa-east-1', resolved: true });
    expect(await resolveBucketRegion(factory, name)).toEqual({ region: 'sa-east-1', resolved: true });
    // One failed call, one successful one, then the cache.
    expect((await count()) - start).toBe(2);
  });
});
