/** cdkd state migrate against the emulator. */
import {
  CreateBucketCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { migrateLegacyStateBucket } from '../../../src/state/migrate';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { emulatorFactory, useEmulator } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

let n = 0;
async function legacySetup(): Promise<{ account: string; source: string; west: S3Client }> {
  const account = String(400000000000 + process.pid * 10 + n++).slice(0, 12);
  await ctx.emulator.control.setAccountId(account);
  const factory = await emulatorFactory(ctx.emulator, 'eu-west-1');
  const west = factory.get(S3Client);
  const source = `cdkd-state-${account}-eu-west-1`;
  await west.send(
    new CreateBucketCommand({
      Bucket: source,
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    }),
  );
  for (const stack of ['One', 'Two Words']) {
    await west.send(
      new PutObjectCommand({
        Bucket: source,
        Key: `cdkd/${stack}/eu-west-1/state.json`,
        Body: JSON.stringify({
          version: 8,
          stackName: stack,
          region: 'eu-west-1',
          resources: {},
          outputs: {},
          lastModified: 1,
        }),
      }),
    );
  }
  return { account, source, west };
}

async function text(client: S3Client, Bucket: string, Key: string): Promise<string | undefined> {
  try {
    return await (await client.send(new GetObjectCommand({ Bucket, Key }))).Body?.transformToString();
  } catch {
    return undefined;
  }
}

describe('migrateLegacyStateBucket', () => {
  it('refuses while a lock exists in the source', async () => {
    const { source, west } = await legacySetup();
    await west.send(
      new PutObjectCommand({ Bucket: source, Key: 'cdkd/One/eu-west-1/lock.json', Body: '{}' }),
    );
    const factory = await emulatorFactory(ctx.emulator, 'us-east-1');
    const err = await migrateLegacyStateBucket({
      factory,
      region: 'eu-west-1',
      logger: createLogger(new RecordingIoHost()),
    }).catch((e) => e);
    expect(err.code).toBe('MIGRATE_LOCKS_PRESENT');
    expect(err.message).toContain('cdkd/One/eu-west-1/lock.json');
  });

  it('previews with --dry-run, copies into a hardened destination, never overwrites, and removes the source on request', async () => {
    const { account, source, west } = await legacySetup();
    const factory = await emulatorFactory(ctx.emulator, 'us-east-1');
    const logger = createLogger(new RecordingIoHost());
    const destination = `cdkd-state-${account}`;

    const dry = await migrateLegacyStateBucket({ factory, region: 'eu-west-1', dryRun: true, logger });
    expect(dry).toEqual(
      expect.objectContaining({ source, destination, destinationCreated: true, skipped: [] }),
    );
    expect(dry.copied.sort()).toEqual([
      'cdkd/One/eu-west-1/state.json',
      'cdkd/Two Words/eu-west-1/state.json',
    ]);
    await expect(west.send(new HeadBucketCommand({ Bucket: destination }))).rejects.toBeDefined();

    const first = await migrateLegacyStateBucket({ factory, region: 'eu-west-1', logger });
    expect(first.copied).toHaveLength(2);
    const dest = factory.get(S3Client, { region: 'eu-west-1' });
    expect((await dest.send(new GetBucketVersioningCommand({ Bucket: destination }))).Status).toBe('Enabled');
    expect(
      JSON.parse((await text(dest, destination, 'cdkd/Two Words/eu-west-1/state.json'))!).stackName,
    ).toBe('Two Words');

    // The destination moved on after the copy: a re-run must not bring the old record back.
    await dest.send(
      new PutObjectCommand({
        Bucket: destination,
        Key: 'cdkd/One/eu-west-1/state.json',
        Body: '{"newer":true}',
      }),
    );
    const again = await migrateLegacyStateBucket({
      factory,
      region: 'eu-west-1',
      removeLegacy: true,
      logger,
    });
    expect(again.copied).toEqual([]);
    expect(again.skipped).toHaveLength(2);
    expect(again.sourceRemoved).toBe(true);
    expect(await text(dest, destination, 'cdkd/One/eu-west-1/state.json')).toBe('{"newer":true}');
    await expect(west.send(new HeadBucketCommand({ Bucket: source }))).rejects.toBeDefined();
  });

  it('says so when there is no legacy bucket', async () => {
    await ctx.emulator.control.setAccountId('499999999999');
    const factory = await emulatorFactory(ctx.emulator, 'us-east-1');
    const err = await migrateLegacyStateBucket({
      factory,
      region: 'ca-central-1',
      logger: createLogger(new RecordingIoHost()),
    }).catch((e) => e);
    expect(err.code).toBe('LEGACY_BUCKET_NOT_FOUND');
    expect(err.message).toContain('cdkd-state-499999999999-ca-central-1');
  });
});
