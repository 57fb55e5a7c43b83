/**
 * What a failed create left behind (a deposed `failed-create` record) is deleted
 * by a later command only while the resource answering to its name is provably
 * the one that create made (rollback-internals, "Failed CREATEs that made their
 * resource"). Driven through @cdkd/provider-s3 against the in-process emulator:
 * the bucket's create fails after CreateBucket (an injected PutBucketVersioning
 * refusal), under --no-rollback, and a later deploy, destroy or rollback meets
 * that bucket, a foreign one under the same name, or none.
 */
import { CreateBucketCommand, DeleteBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { s3ProviderPack } from '../../../plugins/provider-s3/src/hook';
import { deployStack } from '../../../src/engine/deploy-stack';
import { destroyStack } from '../../../src/engine/destroy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { rollbackStack } from '../../../src/engine/rollback-stack';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { parseTemplate } from '../../../src/template/types';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(60_000);

describe("a failed create's leftover is deleted later only while it is provably that create's", () => {
  const ctx = useEmulator();
  let store: TestStore;
  let host: RecordingIoHost;
  let provisioner: ResourceProvisioner;
  let s3: S3Client;
  let n = 0;
  let name: string;

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    store = await testStore(ctx.emulator);
    host = new RecordingIoHost();
    provisioner = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks(
        [
          {
            pluginName: '@cdkd/provider-s3',
            pluginType: 'core',
            pluginVersion: '0.1.0',
            result: s3ProviderPack(),
          },
        ],
        schemas,
      ),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    s3 = store.factory.get(S3Client);
    name = `leftover-${process.pid}-${++n}`;
  });

  const bucketTemplate = () =>
    parseTemplate({
      Resources: {
        B: {
          Type: 'AWS::S3::Bucket',
          Properties: { BucketName: name, VersioningConfiguration: { Status: 'Enabled' } },
        },
      },
    });
  const deploy = (template = bucketTemplate(), rollback = false) =>
    deployStack(
      { stackName: 'Left', region: REGION, template },
      { store, provisioner, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback },
    );
  const destroy = () =>
    destroyStack({ stackName: 'Left', region: REGION, store, provisioner, ioHost: host, concurrency: 4 });
  const exists = (bucket: string) =>
    s3.send(new HeadBucketCommand({ Bucket: bucket })).then(
      () => true,
      (err: Error) => (err.name === 'NotFound' ? false : Promise.reject(err)),
    );
  const deposed = async () => (await store.backend.getState('Left', REGION))?.state.deposed ?? [];

  /** S3 refuses the next ListBuckets: the bucket's identity cannot be read. */
  const failNextIdentityRead = () =>
    ctx.emulator.control.addFault({
      service: 's3',
      operation: 'ListBuckets',
      error: 'AccessDenied',
      status: 403,
      count: 1,
    });

  /** The create makes the bucket, then S3 refuses its versioning: the bucket is kept as a deposed record. */
  async function failAfterMaking(options: { identityReadFails?: boolean; rollback?: boolean } = {}) {
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutBucketVersioning',
      match: { Bucket: name },
      error: 'InvalidRequest',
      status: 400,
      count: 1,
    });
    if (options.identityReadFails) await failNextIdentityRead();
    const failed = await deploy(bucketTemplate(), options.rollback ?? false);
    expect(failed.ok).toBe(false);
  }

  /** The user deletes the bucket, and later (an hour on S3's clock) a different one takes its name. */
  async function replaceWithForeignBucket() {
    await s3.send(new DeleteBucketCommand({ Bucket: name }));
    await ctx.emulator.control.setClockOffset(3_600_000);
    await s3.send(new CreateBucketCommand({ Bucket: name }));
    await ctx.emulator.control.setClockOffset(0);
  }

  it('records the identity of the bucket the failed create made', async () => {
    await failAfterMaking();
    expect(await exists(name)).toBe(true);
    expect(await deposed()).toEqual([
      expect.objectContaining({
        logicalId: 'B',
        physicalId: name,
        reason: 'failed-create',
        identity: { bucket: name, region: REGION, creationDate: expect.stringMatching(/^\d{4}-.*Z$/) },
      }),
    ]);
  });

  it('destroy leaves a foreign bucket that took the name, with a warning naming it', async () => {
    await failAfterMaking();
    await replaceWithForeignBucket();
    const result = await destroy();
    expect(result.warnings).toEqual([expect.stringContaining(`${name} (AWS::S3::Bucket)`)]);
    expect(result.warnings[0]).toMatch(/now names a different resource.*manual attention/);
    expect(await exists(name)).toBe(true);
    expect(result.complete).toBe(true);
    expect(await store.backend.getState('Left', REGION)).toBeUndefined();
  });

  it('a deploy does not delete a foreign bucket to free the name, and says why', async () => {
    await failAfterMaking();
    await replaceWithForeignBucket();
    const next = await deploy();
    expect(next.ok).toBe(false);
    expect(next.warnings).toEqual([expect.stringContaining('now names a different resource')]);
    expect(await exists(name)).toBe(true);
    expect(await deposed()).toEqual([]);
  });

  it('cdkd rollback leaves a foreign bucket, with a warning (exit 2)', async () => {
    await failAfterMaking();
    await replaceWithForeignBucket();
    const result = await rollbackStack({
      stackName: 'Left',
      region: REGION,
      store,
      provisioner,
      ioHost: host,
    });
    expect(result.failed).toEqual([]);
    expect(result.warnings).toEqual([expect.stringContaining('now names a different resource')]);
    expect(await exists(name)).toBe(true);
  });

  it('deletes the bucket when it still has the identity its create recorded', async () => {
    await failAfterMaking();
    const result = await destroy();
    expect(result.warnings).toEqual([]);
    expect(result.complete).toBe(true);
    expect(await exists(name)).toBe(false);
  });

  it('a later deploy deletes its own leftover to free the name and creates the bucket again', async () => {
    await failAfterMaking();
    const next = await deploy();
    expect(next.ok).toBe(true);
    expect(next.warnings).toEqual([]);
    expect(host.messages.some((m) => m.message.includes('deleting that copy first'))).toBe(true);
    const state = (await store.backend.getState('Left', REGION))!.state;
    expect(state.resources.B.physicalId).toBe(name);
    expect(state.deposed).toBeUndefined();
  });

  it('drops the record of a bucket that is already gone, naming it at info', async () => {
    await failAfterMaking();
    await s3.send(new DeleteBucketCommand({ Bucket: name }));
    const result = await destroy();
    expect(result.warnings).toEqual([]);
    expect(result.complete).toBe(true);
    expect(
      host.messages.some(
        (m) =>
          m.level === 'info' &&
          m.message.includes(`${name} (AWS::S3::Bucket)`) &&
          m.message.includes('already gone'),
      ),
    ).toBe(true);
  });

  it('keeps the record when the identity read fails, for the next run to ask again', async () => {
    await failAfterMaking();
    await failNextIdentityRead();
    const result = await destroy();
    expect(result.complete).toBe(false);
    expect(result.failed).toEqual([expect.objectContaining({ logicalId: 'B' })]);
    expect(await exists(name)).toBe(true);
    expect(await deposed()).toEqual([expect.objectContaining({ physicalId: name, reason: 'failed-create' })]);
    // Readable again: the same bucket, so the next destroy deletes it.
    expect((await destroy()).complete).toBe(true);
    expect(await exists(name)).toBe(false);
  });

  it('never deletes a leftover of a name-addressed type whose create recorded no identity', async () => {
    await failAfterMaking({ identityReadFails: true });
    const [record] = await deposed();
    expect(record.identity).toBeUndefined();
    // The template no longer has the bucket: the deploy's cleanup meets the leftover.
    const next = await deploy(parseTemplate({ Resources: { Other: { Type: 'AWS::S3::Bucket' } } }));
    expect(next.ok).toBe(true);
    expect(next.warnings).toEqual([expect.stringContaining('recorded no identity')]);
    expect(await exists(name)).toBe(true);
    expect(await deposed()).toEqual([]);
  });

  it("the failed deploy's own automatic rollback deletes what it made, identity or not", async () => {
    await failAfterMaking({ identityReadFails: true, rollback: true });
    expect(await exists(name)).toBe(false);
    expect(await store.backend.getState('Left', REGION)).toBeUndefined();
  });
});
