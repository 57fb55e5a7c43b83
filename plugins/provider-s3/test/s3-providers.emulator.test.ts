import {
  CreateBucketCommand,
  GetBucketCorsCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetBucketWebsiteCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  PutBucketPolicyCommand,
  PutBucketTaggingCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { S3BucketPolicyProvider } from '../src/bucket-policy-provider';
import { S3BucketProvider } from '../src/bucket-provider';

// The providers against the emulator's S3, through real SDK clients built by
// cdkd's client factory, with create contexts built as the deploy engine builds them.
const BUCKET = 'AWS::S3::Bucket';
const POLICY = 'AWS::S3::BucketPolicy';
const REGION = 'us-east-1';
const STACK = 'S3PackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let s3: S3Client;
let buckets: S3BucketProvider;
let policies: S3BucketPolicyProvider;
let counter = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  s3 = factory.get(S3Client);
  buckets = new S3BucketProvider(ctx);
  policies = new S3BucketPolicyProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

function createContext(logicalId: string, token = `token-${++counter}`): CreateContext {
  return buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });
}

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string; remedy?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string; remedy?: string };
  }
  throw new Error('expected the call to fail');
}

async function s3Error(promise: Promise<unknown>): Promise<string> {
  return (await failure(promise)).name;
}

async function tagsOf(bucket: string): Promise<Record<string, string>> {
  const out = await s3.send(new GetBucketTaggingCommand({ Bucket: bucket }));
  return Object.fromEntries((out.TagSet ?? []).map((t) => [t.Key!, t.Value!]));
}

async function exists(bucket: string): Promise<boolean> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch (err) {
    if ((err as Error).name === 'NotFound') return false;
    throw err;
  }
}

async function requestCount(): Promise<number> {
  const { byOperation } = await emulator.control.requests();
  return Object.entries(byOperation)
    .filter(([op]) => op.startsWith('s3:'))
    .reduce((n, [, count]) => n + count, 0);
}

const FULL = {
  Tags: [{ Key: 'team', Value: 'data' }],
  VersioningConfiguration: { Status: 'Enabled' },
  BucketEncryption: {
    ServerSideEncryptionConfiguration: [
      {
        ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/data' },
        BucketKeyEnabled: true,
      },
    ],
  },
  PublicAccessBlockConfiguration: {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  },
  OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
  LifecycleConfiguration: {
    Rules: [
      {
        Id: 'logs',
        Status: 'Enabled',
        Prefix: 'logs/',
        ExpirationInDays: 90,
        Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }],
      },
      { Id: 'uploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 } },
      {
        Id: 'tagged',
        Status: 'Disabled',
        TagFilters: [{ Key: 'kind', Value: 'tmp' }],
        NoncurrentVersionExpiration: { NoncurrentDays: 3 },
      },
    ],
  },
  CorsConfiguration: {
    CorsRules: [
      { AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['https://example.com'], MaxAge: 600, Id: 'web' },
    ],
  },
  WebsiteConfiguration: { IndexDocument: 'index.html', ErrorDocument: 'error.html' },
};

describe('AWS::S3::Bucket', () => {
  it('creates a bucket with a generated name, every wired configuration, tags and the ownership marker', async () => {
    const context = createContext('DataBucket');
    const result = await buckets.create('DataBucket', BUCKET, FULL, context);
    const name = result.physicalId;
    expect(name).toMatch(/^s3packtest-databucket-[a-z2-7]{13}$/);
    expect(result.attributes).toEqual({
      Arn: `arn:aws:s3:::${name}`,
      DomainName: `${name}.s3.amazonaws.com`,
      RegionalDomainName: `${name}.s3.us-east-1.amazonaws.com`,
      DualStackDomainName: `${name}.s3.dualstack.us-east-1.amazonaws.com`,
      WebsiteURL: `http://${name}.s3-website-us-east-1.amazonaws.com`,
    });
    for (const attr of Object.keys(result.attributes!)) {
      expect(await buckets.getAttribute(name, BUCKET, attr)).toBe(result.attributes![attr]);
    }
    expect(await buckets.getAttribute(name, BUCKET, 'Nope')).toBeUndefined();

    expect(await tagsOf(name)).toEqual({ team: 'data', ...context.ownership!.tags });
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: name }))).Status).toBe('Enabled');
    const encryption = await s3.send(new GetBucketEncryptionCommand({ Bucket: name }));
    expect(encryption.ServerSideEncryptionConfiguration?.Rules).toEqual([
      {
        ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/data' },
        BucketKeyEnabled: true,
      },
    ]);
    const pab = await s3.send(new GetPublicAccessBlockCommand({ Bucket: name }));
    expect(pab.PublicAccessBlockConfiguration).toEqual(FULL.PublicAccessBlockConfiguration);
    const ownership = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name }));
    expect(ownership.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerPreferred' }]);
    const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }));
    expect(lifecycle.Rules).toEqual([
      {
        ID: 'logs',
        Status: 'Enabled',
        Filter: { Prefix: 'logs/' },
        Expiration: { Days: 90 },
        Transitions: [{ Days: 30, StorageClass: 'STANDARD_IA' }],
      },
      {
        ID: 'uploads',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 },
      },
      {
        ID: 'tagged',
        Status: 'Disabled',
        Filter: { Tag: { Key: 'kind', Value: 'tmp' } },
        NoncurrentVersionExpiration: { NoncurrentDays: 3 },
      },
    ]);
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: name }));
    expect(cors.CORSRules).toEqual([
      {
        ID: 'web',
        AllowedMethods: ['GET', 'HEAD'],
        AllowedOrigins: ['https://example.com'],
        MaxAgeSeconds: 600,
      },
    ]);
    const site = await s3.send(new GetBucketWebsiteCommand({ Bucket: name }));
    expect(site).toMatchObject({
      IndexDocument: { Suffix: 'index.html' },
      ErrorDocument: { Key: 'error.html' },
    });
  });

  it('makes only the probe and CreateBucket for a bucket that sets nothing, and returns the same bucket when the create is repeated with its token', async () => {
    const context = createContext('Plain');
    const before = await requestCount();
    const first = await buckets.create('Plain', BUCKET, {}, context);
    // us-east-1: the tag probe (its legacy CreateBucket answers 200 for a bucket you own) and CreateBucket.
    expect((await requestCount()) - before).toBe(2);
    const again = await buckets.create('Plain', BUCKET, {}, context);
    expect(again.physicalId).toBe(first.physicalId);
    // A new intent for the same logical id gets a new name.
    const replacement = await buckets.create('Plain', BUCKET, {}, createContext('Plain'));
    expect(replacement.physicalId).not.toBe(first.physicalId);
  });

  it("never adopts an existing bucket that is not this create's, in us-east-1 and elsewhere", async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'someone-elses-bucket' }));
    const foreign = await failure(
      buckets.create('Taken', BUCKET, { BucketName: 'someone-elses-bucket' }, createContext('Taken')),
    );
    expect(foreign.code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(foreign.message).toMatch(/someone-elses-bucket already exists and was not made by this deploy/);

    // Made by cdkd for this logical id, but by another intent: not adopted either.
    const context = createContext('Named');
    await buckets.create('Named', BUCKET, { BucketName: 's3-pack-named' }, context);
    const other = await failure(
      buckets.create('Named', BUCKET, { BucketName: 's3-pack-named' }, createContext('Named')),
    );
    expect(other.code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(other.message).toMatch(/by another deploy/);

    // Outside us-east-1 the answer is S3's BucketAlreadyOwnedByYou, with the bucket's region.
    const euCtx = createProviderContext({
      clients: await AwsClientFactory.create({ region: 'eu-west-1', endpointUrl: emulator.url }),
      logger: createLogger(new RecordingIoHost()),
    });
    const eu = new S3BucketProvider(euCtx);
    const euContext = buildCreateContext({
      stackName: STACK,
      region: 'eu-west-1',
      logicalId: 'Eu',
      idempotencyToken: 'eu-1',
    });
    const made = await eu.create('Eu', BUCKET, { BucketName: 's3-pack-eu' }, euContext);
    expect(made.attributes?.WebsiteURL).toBe('http://s3-pack-eu.s3-website-eu-west-1.amazonaws.com');
    expect((await eu.create('Eu', BUCKET, { BucketName: 's3-pack-eu' }, euContext)).physicalId).toBe(
      's3-pack-eu',
    );
    const euForeign = await failure(
      eu.create(
        'Eu',
        BUCKET,
        { BucketName: 's3-pack-eu' },
        {
          ...euContext,
          ...buildCreateContext({
            stackName: STACK,
            region: 'eu-west-1',
            logicalId: 'Eu',
            idempotencyToken: 'eu-2',
          }),
        },
      ),
    );
    expect(euForeign.code).toBe('RESOURCE_ALREADY_EXISTS');
    // A bucket of ours in another region is never this region's bucket.
    const crossRegion = await failure(
      buckets.create('Eu', BUCKET, { BucketName: 's3-pack-eu' }, createContext('Eu')),
    );
    expect(crossRegion.code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(crossRegion.message).toMatch(/in eu-west-1, not in us-east-1/);
  });

  it('updates each configuration in place and resets removed ones to S3 defaults, keeping the ownership marker', async () => {
    const context = createContext('Updated');
    const { physicalId: name } = await buckets.create('Updated', BUCKET, FULL, context);
    const changed = {
      ...FULL,
      Tags: [
        { Key: 'team', Value: 'platform' },
        { Key: 'cost', Value: '42' },
      ],
      CorsConfiguration: { CorsRules: [{ AllowedMethods: ['PUT'], AllowedOrigins: ['*'] }] },
    };
    await buckets.update('Updated', name, BUCKET, changed, FULL, { expectedRegion: REGION });
    expect(await tagsOf(name)).toEqual({ team: 'platform', cost: '42', ...context.ownership!.tags });
    expect((await s3.send(new GetBucketCorsCommand({ Bucket: name }))).CORSRules).toEqual([
      { AllowedMethods: ['PUT'], AllowedOrigins: ['*'] },
    ]);

    // Everything removed: each configuration back to what S3 gives a bucket without it.
    await buckets.update('Updated', name, BUCKET, {}, changed, { expectedRegion: REGION });
    expect(await tagsOf(name)).toEqual({ ...context.ownership!.tags });
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: name }))).Status).toBe('Suspended');
    const encryption = await s3.send(new GetBucketEncryptionCommand({ Bucket: name }));
    expect(
      encryption.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault,
    ).toEqual({
      SSEAlgorithm: 'AES256',
    });
    expect(await s3Error(s3.send(new GetPublicAccessBlockCommand({ Bucket: name })))).toBe(
      'NoSuchPublicAccessBlockConfiguration',
    );
    expect(await s3Error(s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name })))).toBe(
      'OwnershipControlsNotFoundError',
    );
    expect(await s3Error(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name })))).toBe(
      'NoSuchLifecycleConfiguration',
    );
    expect(await s3Error(s3.send(new GetBucketCorsCommand({ Bucket: name })))).toBe(
      'NoSuchCORSConfiguration',
    );
    expect(await s3Error(s3.send(new GetBucketWebsiteCommand({ Bucket: name })))).toBe(
      'NoSuchWebsiteConfiguration',
    );
  });

  it('makes no call for an update that changes nothing, and only the calls for what changed', async () => {
    const { physicalId: name } = await buckets.create('Quiet', BUCKET, FULL, createContext('Quiet'));
    const before = await requestCount();
    // The same configuration with its keys in another order.
    const respelled = {
      ...FULL,
      LifecycleConfiguration: {
        Rules: FULL.LifecycleConfiguration.Rules.map((r) => Object.fromEntries(Object.entries(r).reverse())),
      },
    };
    await buckets.update('Quiet', name, BUCKET, respelled, FULL);
    expect((await requestCount()) - before).toBe(0);
    await buckets.update(
      'Quiet',
      name,
      BUCKET,
      { ...FULL, VersioningConfiguration: { Status: 'Suspended' } },
      FULL,
    );
    expect((await requestCount()) - before).toBe(1);
  });

  it('refuses an update of a bucket recorded in another region before any call', async () => {
    const { physicalId: name } = await buckets.create('Regional', BUCKET, {}, createContext('Regional'));
    const before = await requestCount();
    const err = await failure(
      buckets.update(
        'Regional',
        name,
        BUCKET,
        { Tags: [{ Key: 'a', Value: 'b' }] },
        {},
        { expectedRegion: 'eu-west-1' },
      ),
    );
    expect(err.message).toMatch(/eu-west-1/);
    expect((await requestCount()) - before).toBe(0);
  });

  it('deletes an empty bucket, treats a missing one as deleted in its region, and refuses a non-empty one', async () => {
    const { physicalId: name } = await buckets.create('Doomed', BUCKET, {}, createContext('Doomed'));
    await buckets.delete('Doomed', name, BUCKET, {}, { expectedRegion: REGION });
    expect(await exists(name)).toBe(false);
    await expect(
      buckets.delete('Doomed', name, BUCKET, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
    const wrongRegion = await failure(
      buckets.delete('Doomed', name, BUCKET, {}, { expectedRegion: 'eu-west-1' }),
    );
    expect(wrongRegion.message).toMatch(/eu-west-1/);

    const { physicalId: full } = await buckets.create('Full', BUCKET, {}, createContext('Full'));
    await s3.send(new PutObjectCommand({ Bucket: full, Key: 'data.txt', Body: 'x' }));
    const notEmpty = await failure(buckets.delete('Full', full, BUCKET, {}, { expectedRegion: REGION }));
    expect(notEmpty.message).toMatch(/BucketNotEmpty/);
    expect(notEmpty.remedy).toMatch(/Empty the bucket/);
    expect(await exists(full)).toBe(true);
  });

  it('reports S3 validation errors with their codes', async () => {
    const err = await failure(
      buckets.create(
        'BadCors',
        BUCKET,
        { CorsConfiguration: { CorsRules: [{ AllowedMethods: ['PATCH'], AllowedOrigins: ['*'] }] } },
        createContext('BadCors'),
      ),
    );
    expect(err.message).toMatch(/S3 InvalidRequest while setting the CORS configuration/);
    const badName = await failure(
      buckets.create('BadName', BUCKET, { BucketName: 'Not_A_Bucket' }, createContext('BadName')),
    );
    expect(badName.message).toMatch(/InvalidBucketName/);
  });

  it('imports a bucket by name', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 's3-pack-import' }));
    const imported = await buckets.import({
      logicalId: 'Imported',
      resourceType: BUCKET,
      stackName: STACK,
      region: REGION,
      properties: { BucketName: 's3-pack-import' },
    });
    expect(imported?.physicalId).toBe('s3-pack-import');
    expect(
      await buckets.import({
        logicalId: 'X',
        resourceType: BUCKET,
        stackName: STACK,
        region: REGION,
        properties: {},
        knownPhysicalId: 'no-such-bucket-here',
      }),
    ).toBeNull();
  });
});

describe('AWS::S3::BucketPolicy', () => {
  const doc = (bucket: string, action: string | string[] = 's3:GetObject') => ({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: '123456789012' },
        Action: action,
        Resource: `arn:aws:s3:::${bucket}/*`,
      },
    ],
  });

  it('creates, updates (and skips an equivalent document), and deletes a policy', async () => {
    const { physicalId: bucket } = await buckets.create(
      'PolicyBucket',
      BUCKET,
      {},
      createContext('PolicyBucket'),
    );
    const context = createContext('Policy');
    const created = await policies.create(
      'Policy',
      POLICY,
      { Bucket: bucket, PolicyDocument: doc(bucket) },
      context,
    );
    expect(created.physicalId).toBe(bucket);
    const stored = JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy!);
    expect(stored).toEqual(doc(bucket));
    // Repeated with the same document (an earlier attempt's reply lost): the same policy.
    expect(
      (await policies.create('Policy', POLICY, { Bucket: bucket, PolicyDocument: doc(bucket) }, context))
        .physicalId,
    ).toBe(bucket);

    const before = await requestCount();
    await policies.update(
      'Policy',
      bucket,
      POLICY,
      { Bucket: bucket, PolicyDocument: JSON.stringify(doc(bucket, ['s3:GetObject'])) },
      { Bucket: bucket, PolicyDocument: doc(bucket) },
    );
    expect((await requestCount()) - before).toBe(0);

    const wider = doc(bucket, ['s3:GetObject', 's3:PutObject']);
    await policies.update(
      'Policy',
      bucket,
      POLICY,
      { Bucket: bucket, PolicyDocument: wider },
      { Bucket: bucket, PolicyDocument: doc(bucket) },
    );
    expect(JSON.parse((await s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy!)).toEqual(
      wider,
    );
    expect(await policies.readCurrentState(bucket)).toEqual({ Bucket: bucket, PolicyDocument: wider });

    await policies.delete('Policy', bucket, POLICY, { Bucket: bucket }, { expectedRegion: REGION });
    expect(await s3Error(s3.send(new GetBucketPolicyCommand({ Bucket: bucket })))).toBe('NoSuchBucketPolicy');
    await buckets.delete('PolicyBucket', bucket, BUCKET, {}, { expectedRegion: REGION });
    // The bucket gone too: the policy counts as deleted in its region.
    await expect(
      policies.delete('Policy', bucket, POLICY, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
  });

  it('does not overwrite a policy someone else wrote', async () => {
    const { physicalId: bucket } = await buckets.create('Guarded', BUCKET, {}, createContext('Guarded'));
    await s3.send(
      new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(doc(bucket, 's3:ListBucket')) }),
    );
    const err = await failure(
      policies.create(
        'Policy',
        POLICY,
        { Bucket: bucket, PolicyDocument: doc(bucket) },
        createContext('Policy'),
      ),
    );
    expect(err.code).toBe('RESOURCE_ALREADY_EXISTS');
  });

  it("explains a public policy the bucket's public access block refuses", async () => {
    const { physicalId: bucket } = await buckets.create(
      'Private',
      BUCKET,
      { PublicAccessBlockConfiguration: { BlockPublicPolicy: true } },
      createContext('Private'),
    );
    const publicRead = {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/*` },
      ],
    };
    const err = await failure(
      policies.create(
        'Public',
        POLICY,
        { Bucket: bucket, PolicyDocument: publicRead },
        createContext('Public'),
      ),
    );
    expect(err.message).toMatch(/AccessDenied/);
    expect(err.remedy).toMatch(/blockPublicAccess/);
  });

  it('refuses a policy without a bucket', async () => {
    const err = await failure(
      policies.create('NoBucket', POLICY, { PolicyDocument: {} }, createContext('NoBucket')),
    );
    expect(err.message).toMatch(/Bucket must name the bucket/);
  });
});

it('tags the bucket at create, so the ownership marker is never missing', async () => {
  const context = createContext('Atomic');
  const before = (await emulator.control.requests()).byOperation['s3:PutBucketTagging'] ?? 0;
  const { physicalId } = await buckets.create(
    'Atomic',
    BUCKET,
    { Tags: [{ Key: 'a', Value: '1' }] },
    context,
  );
  expect((await emulator.control.requests()).byOperation['s3:PutBucketTagging'] ?? 0).toBe(before);
  expect(
    context.ownership!.classify((await s3.send(new GetBucketTaggingCommand({ Bucket: physicalId }))).TagSet),
  ).toBe('same-intent');
  // Tags someone else replaced are not the marker: the next create with the same token refuses.
  await s3.send(
    new PutBucketTaggingCommand({ Bucket: physicalId, Tagging: { TagSet: [{ Key: 'a', Value: '1' }] } }),
  );
  expect((await failure(buckets.create('Atomic', BUCKET, {}, context))).code).toBe('RESOURCE_ALREADY_EXISTS');
});
