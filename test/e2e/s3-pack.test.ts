/**
 * A real aws-cdk-lib app with buckets and a bucket policy through the built CLI
 * and the bundled S3 pack: create -> update in place -> property removal ->
 * replacement by naming -> no-op -> destroy. Every bucket and policy goes
 * through S3's own API (the request log shows no Cloud Control request), and
 * after every step the emulator's inventory equals what state records.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  GetBucketCorsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetBucketWebsiteCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import type { StackState } from '../../src/state/types';

const APP = path.join(ROOT, 'test', 'fixtures', 's3-app');
const STACK = 'E2eS3Pack';

describe('the S3 pack deploys a real CDK app', () => {
  let h: CdkdHarness;
  let out: string;
  let s3: S3Client;

  const deploy = async (...context: string[]) => {
    await h.emulator.control.clearRequests();
    const result = await h.cdkd(
      [
        'deploy',
        '--require-approval',
        'never',
        '-o',
        out,
        '-c',
        `stackName=${STACK}`,
        ...context.flatMap((c) => ['-c', c]),
      ],
      { cwd: APP },
    );
    expectExit(result);
    return result;
  };

  /** Inventory == state, and the operations the step sent. */
  const afterStep = async (): Promise<{ state: StackState; calls: string[] }> => {
    const state = (await h.readState(STACK))!;
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    const { byOperation } = await h.emulator.control.requests();
    return { state, calls: Object.keys(byOperation) };
  };

  const resource = (state: StackState, type: string, logicalPrefix: string) =>
    Object.entries(state.resources).find(
      ([id, r]) => r.resourceType === type && id.startsWith(logicalPrefix),
    )![1];

  const errorName = (p: Promise<unknown>) =>
    p.then(
      () => 'none',
      (err: Error) => err.name,
    );

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-s3-out-'));
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    s3?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('creates the buckets and the policy through S3, not Cloud Control', async () => {
    await deploy();
    const { state, calls } = await afterStep();
    const types = Object.values(state.resources)
      .map((r) => r.resourceType)
      .sort();
    expect(types).toEqual(['AWS::S3::Bucket', 'AWS::S3::Bucket', 'AWS::S3::BucketPolicy']);
    for (const r of Object.values(state.resources)) expect(r.provisionedBy).toBe('sdk');
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(calls).toEqual(
      expect.arrayContaining([
        's3:CreateBucket',
        's3:PutBucketVersioning',
        's3:PutBucketEncryption',
        's3:PutPublicAccessBlock',
        's3:PutBucketLifecycleConfiguration',
        's3:PutBucketCors',
        's3:PutBucketWebsite',
        's3:PutBucketPolicy',
      ]),
    );
    const data = resource(state, 'AWS::S3::Bucket', 'Data');
    expect(data.physicalId).toMatch(/^e2es3pack-data[a-z0-9]*-[a-z2-7]{13}$/);
    // Fn::GetAtt of the pack's attributes reaches the outputs.
    expect(Object.values(state.outputs)).toEqual(
      expect.arrayContaining([
        `arn:aws:s3:::${data.physicalId}`,
        `${data.physicalId}.s3.us-east-1.amazonaws.com`,
      ]),
    );
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: data.physicalId }))).Status).toBe(
      'Enabled',
    );
    const tags = (await s3.send(new GetBucketTaggingCommand({ Bucket: data.physicalId }))).TagSet ?? [];
    expect(tags).toEqual(expect.arrayContaining([{ Key: 'stage', Value: 'v1' }]));
    expect(tags.map((t) => t.Key)).toEqual(
      expect.arrayContaining(['cdkd:stack-name', 'cdkd:logical-id', 'cdkd:token']),
    );
    const policy = JSON.parse(
      (await s3.send(new GetBucketPolicyCommand({ Bucket: data.physicalId }))).Policy!,
    );
    expect(JSON.stringify(policy)).toContain(`arn:aws:s3:::${data.physicalId}`);
  });

  it('updates buckets and the policy in place', async () => {
    const before = (await h.readState(STACK))!;
    await deploy('variant=v2');
    const { state, calls } = await afterStep();
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(calls).not.toContain('s3:CreateBucket');
    const data = resource(state, 'AWS::S3::Bucket', 'Data');
    expect(data.physicalId).toBe(resource(before, 'AWS::S3::Bucket', 'Data').physicalId);
    const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: data.physicalId }));
    expect(lifecycle.Rules?.[0]?.Expiration?.Days).toBe(60);
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: data.physicalId }));
    expect(cors.CORSRules?.[0]?.AllowedOrigins).toEqual(['https://example.com']);
    const tags = (await s3.send(new GetBucketTaggingCommand({ Bucket: data.physicalId }))).TagSet ?? [];
    expect(tags).toEqual(expect.arrayContaining([{ Key: 'stage', Value: 'v2' }]));
    expect(tags.map((t) => t.Key)).toContain('cdkd:token');
    const policy = JSON.parse(
      (await s3.send(new GetBucketPolicyCommand({ Bucket: data.physicalId }))).Policy!,
    );
    expect(policy.Statement).toHaveLength(2);
    const site = resource(state, 'AWS::S3::Bucket', 'Site');
    const website = await s3.send(new GetBucketWebsiteCommand({ Bucket: site.physicalId }));
    expect(website.ErrorDocument?.Key).toBe('404.html');
  });

  it('resets the configurations removed from the app', async () => {
    await deploy('variant=removed');
    const { state, calls } = await afterStep();
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    const bucket = resource(state, 'AWS::S3::Bucket', 'Data').physicalId;
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe('Suspended');
    expect(await errorName(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket })))).toBe(
      'NoSuchLifecycleConfiguration',
    );
    expect(await errorName(s3.send(new GetBucketCorsCommand({ Bucket: bucket })))).toBe(
      'NoSuchCORSConfiguration',
    );
    expect(calls).toEqual(
      expect.arrayContaining([
        's3:DeleteBucketEncryption',
        's3:DeletePublicAccessBlock',
        's3:DeleteBucketOwnershipControls',
      ]),
    );
  });

  it('replaces a bucket given a name, and deletes the original', async () => {
    const before = (await h.readState(STACK))!;
    const original = resource(before, 'AWS::S3::Bucket', 'Data').physicalId;
    await deploy('variant=removed', 'bucketName=e2e-s3-pack-named');
    const { state, calls } = await afterStep();
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(resource(state, 'AWS::S3::Bucket', 'Data').physicalId).toBe('e2e-s3-pack-named');
    expect(inventoryResources(await h.appInventory())).not.toContain(`AWS::S3::Bucket ${original}`);
    // The policy follows its bucket.
    expect(resource(state, 'AWS::S3::BucketPolicy', 'Data').physicalId).toBe('e2e-s3-pack-named');
  });

  it('redeploys with no changes: no S3 configuration call', async () => {
    const result = await deploy('variant=removed', 'bucketName=e2e-s3-pack-named');
    expect(result.stderr).toMatch(/no changes/);
    const { calls } = await afterStep();
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(calls.filter((op) => /^s3:(Create|Put|Delete)Bucket/.test(op))).toEqual([]);
  });

  it('destroys everything', async () => {
    await h.emulator.control.clearRequests();
    expectExit(await h.cdkd(['destroy', '--force', '-o', out, '-c', `stackName=${STACK}`], { cwd: APP }));
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
    const { byOperation } = await h.emulator.control.requests();
    expect(Object.keys(byOperation).filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(byOperation['s3:DeleteBucket']).toBe(2);
    expect(byOperation['s3:DeleteBucketPolicy']).toBe(1);
  });
});
