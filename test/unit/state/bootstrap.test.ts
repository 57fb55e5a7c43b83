/** cdkd bootstrap (and its teardown) against the emulator. */
import {
  CreateBucketCommand,
  GetBucketEncryptionCommand,
  GetBucketPolicyCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { bootstrap, destroyBootstrap } from '../../../src/state/bootstrap';
import { listBootstrappedRegions, readBootstrapMarker } from '../../../src/state/bootstrap-marker';
import { DENY_EXTERNAL_SID, DENY_INSECURE_TRANSPORT_SID } from '../../../src/state/bucket-policy';
import { S3StateBackend } from '../../../src/state/state-backend';
import { resolveStateBucket } from '../../../src/state/state-bucket';
import type { StateBucket } from '../../../src/state/state-bucket';
import { CdkdError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import type { AwsClientFactory } from '../../../src/config/aws-clients';
import { emulatorFactory, useEmulator } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

let n = 0;
async function setup(
  region = 'us-east-1',
): Promise<{ factory: AwsClientFactory; bucket: StateBucket; account: string; host: RecordingIoHost }> {
  const account = String(300000000000 + process.pid * 10 + n++).slice(0, 12);
  await ctx.emulator.control.setAccountId(account);
  const factory = await emulatorFactory(ctx.emulator, region);
  const host = new RecordingIoHost();
  const bucket = await resolveStateBucket({
    factory,
    config: { statePrefix: 'cdkd', sources: {} },
    logger: createLogger(host),
    mustExist: false,
  });
  return { factory, bucket, account, host };
}

async function exists(factory: AwsClientFactory, bucket: string, region: string): Promise<boolean> {
  try {
    await factory.get(S3Client, { region }).send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch {
    return false;
  }
}

describe('bootstrap', () => {
  it('creates a hardened state bucket, the asset bucket and the marker; a second run changes nothing', async () => {
    const { factory, bucket, account, host } = await setup('eu-west-1');
    const logger = createLogger(host);
    const first = await bootstrap({ factory, stateBucket: bucket, region: 'eu-west-1', logger });
    expect(first.changed).toBe(true);
    expect(first.stateBucket).toEqual(
      expect.objectContaining({ name: `cdkd-state-${account}`, region: 'eu-west-1', created: true }),
    );
    expect(first.stateBucket.changes).toEqual([
      'versioning enabled',
      'default encryption set to AES-256',
      'public access blocked',
      'account-only bucket policy applied',
    ]);
    expect(first.assetBucket).toEqual(
      expect.objectContaining({ name: `cdkd-assets-${account}-eu-west-1`, created: true }),
    );
    expect(first.assetBucket?.changes).not.toContain('versioning enabled');

    const s3 = factory.get(S3Client, { region: 'eu-west-1' });
    const Bucket = bucket.name;
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBe('Enabled');
    const enc = await s3.send(new GetBucketEncryptionCommand({ Bucket }));
    expect(
      enc.ServerSideEncryptionConfiguration?.Rules?.[0].ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
    ).toBe('AES256');
    const pab = (await s3.send(new GetPublicAccessBlockCommand({ Bucket }))).PublicAccessBlockConfiguration;
    expect(pab).toEqual({
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    });
    const policy = JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket }))).Policy!);
    const deny = policy.Statement.find((s: { Sid: string }) => s.Sid === DENY_EXTERNAL_SID);
    expect(deny).toEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { StringNotEquals: { 'aws:PrincipalAccount': account } },
      }),
    );
    expect(deny.Resource).toEqual([`arn:aws:s3:::${Bucket}`, `arn:aws:s3:::${Bucket}/*`]);
    expect(
      policy.Statement.find((s: { Sid: string }) => s.Sid === DENY_INSECURE_TRANSPORT_SID)?.Condition,
    ).toEqual({
      Bool: { 'aws:SecureTransport': 'false' },
    });

    const marker = await readBootstrapMarker(bucket, 'eu-west-1');
    expect(marker).toEqual({
      version: 1,
      region: 'eu-west-1',
      assetBucket: `cdkd-assets-${account}-eu-west-1`,
      containerRepository: `cdkd-container-assets-${account}-eu-west-1`,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const second = await bootstrap({ factory, stateBucket: bucket, region: 'eu-west-1', logger });
    expect(second.changed).toBe(false);
    expect(second.stateBucket).toEqual(expect.objectContaining({ created: false, changes: [] }));
    expect(second.assetBucket).toEqual(expect.objectContaining({ created: false, changes: [] }));
    expect(second.marker?.written).toBe(false);
    expect((await readBootstrapMarker(bucket, 'eu-west-1'))?.createdAt).toBe(marker?.createdAt);
  });

  it('keeps statements a user added to the policy, and repairs a setting that was turned off', async () => {
    const { factory, bucket, account, host } = await setup();
    const logger = createLogger(host);
    await bootstrap({ factory, stateBucket: bucket, region: 'us-east-1', assets: false, logger });
    const s3 = factory.get(S3Client);
    const policy = JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket: bucket.name }))).Policy!);
    // A typical user addition: read access for a CI role (public access stays blocked).
    const userStatement = {
      Sid: 'TeamCiRead',
      Effect: 'Allow',
      Principal: { AWS: `arn:aws:iam::${account}:role/Ci` },
      Action: 's3:GetObject',
      Resource: `arn:aws:s3:::${bucket.name}/*`,
    };
    // The user's edit dropped cdkd's transport statement.
    const edited = { ...policy, Statement: [policy.Statement[0], userStatement] };
    await s3.send(new PutBucketPolicyCommand({ Bucket: bucket.name, Policy: JSON.stringify(edited) }));

    const again = await bootstrap({
      factory,
      stateBucket: bucket,
      region: 'us-east-1',
      assets: false,
      logger,
    });
    expect(again.stateBucket.changes).toEqual(['account-only bucket policy applied']);
    const now = JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket: bucket.name }))).Policy!);
    expect(now.Statement.map((s: { Sid: string }) => s.Sid).sort()).toEqual(
      [DENY_EXTERNAL_SID, DENY_INSECURE_TRANSPORT_SID, 'TeamCiRead'].sort(),
    );
  });

  it('points at cdkd state migrate when it creates the state bucket next to a legacy one', async () => {
    const { factory, bucket, account, host } = await setup();
    await factory.get(S3Client).send(new CreateBucketCommand({ Bucket: `cdkd-state-${account}-us-east-1` }));
    await bootstrap({
      factory,
      stateBucket: bucket,
      region: 'us-east-1',
      assets: false,
      logger: createLogger(host),
    });
    expect(host.text('warn')).toEqual([expect.stringContaining('cdkd state migrate --region us-east-1')]);
  });

  it('with --no-assets creates only the state bucket', async () => {
    const { factory, bucket, account, host } = await setup();
    const result = await bootstrap({
      factory,
      stateBucket: bucket,
      region: 'us-east-1',
      assets: false,
      logger: createLogger(host),
    });
    expect(result.assetBucket).toBeUndefined();
    expect(result.marker).toBeUndefined();
    expect(await exists(factory, `cdkd-assets-${account}-us-east-1`, 'us-east-1')).toBe(false);
    expect(await listBootstrappedRegions(bucket)).toEqual([]);
  });
});

describe('destroyBootstrap', () => {
  it('refuses while stacks remain, then removes the asset storage and the marker', async () => {
    const { factory, bucket, account, host } = await setup();
    const logger = createLogger(host);
    await bootstrap({ factory, stateBucket: bucket, region: 'us-east-1', logger });
    const backend = new S3StateBackend(bucket, logger);
    await backend.saveState('Live', 'us-east-1', {
      version: 9,
      stackName: 'Live',
      region: 'us-east-1',
      resources: {},
      outputs: {},
      lastModified: 1,
    });
    const assetBucket = `cdkd-assets-${account}-us-east-1`;
    await factory
      .get(S3Client)
      .send(new PutObjectCommand({ Bucket: assetBucket, Key: 'asset.zip', Body: 'zip' }));

    const refused = await destroyBootstrap({
      factory,
      stateBucket: bucket,
      backend,
      region: 'us-east-1',
      logger,
    }).catch((e) => e);
    expect(CdkdError.isCdkdError(refused) && refused.code).toBe('BOOTSTRAP_STACKS_REMAIN');
    expect(refused.message).toContain('Live (us-east-1)');
    expect(await exists(factory, assetBucket, 'us-east-1')).toBe(true);

    await backend.deleteState('Live', 'us-east-1');
    const result = await destroyBootstrap({
      factory,
      stateBucket: bucket,
      backend,
      region: 'us-east-1',
      logger,
    });
    expect(result.assetBucket).toEqual({ name: assetBucket, objectsDeleted: 1 });
    expect(result.markerDeleted).toBe(true);
    expect(result.containerRepository).toBe(`cdkd-container-assets-${account}-us-east-1`);
    expect(await exists(factory, assetBucket, 'us-east-1')).toBe(false);
    expect(await readBootstrapMarker(bucket, 'us-east-1')).toBeUndefined();
    expect(await exists(factory, bucket.name, 'us-east-1')).toBe(true);
  });

  it('deletes the state bucket with --include-state-bucket only when no other region has asset storage', async () => {
    const { factory, bucket, host } = await setup();
    const logger = createLogger(host);
    await bootstrap({ factory, stateBucket: bucket, region: 'us-east-1', logger });
    const west = await emulatorFactory(ctx.emulator, 'us-west-2');
    await bootstrap({ factory: west, stateBucket: bucket, region: 'us-west-2', logger });
    const backend = new S3StateBackend(bucket, logger);

    const refused = await destroyBootstrap({
      factory,
      stateBucket: bucket,
      backend,
      region: 'us-east-1',
      includeStateBucket: true,
      logger,
    }).catch((e) => e);
    expect(refused.code).toBe('BOOTSTRAP_REGIONS_REMAIN');
    expect(refused.remedy).toContain('cdkd bootstrap --destroy --region us-west-2');

    await destroyBootstrap({ factory: west, stateBucket: bucket, backend, region: 'us-west-2', logger });
    const result = await destroyBootstrap({
      factory,
      stateBucket: bucket,
      backend,
      region: 'us-east-1',
      includeStateBucket: true,
      logger,
    });
    expect(result.stateBucketDeleted).toBe(true);
    expect(await exists(factory, bucket.name, 'us-east-1')).toBe(false);
  });
});
