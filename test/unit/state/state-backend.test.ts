/** The S3 state backend against the emulator, through the real SDK. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetObjectCommand, ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { StackState } from '../../../src/state/types';
import { STATE_SCHEMA_VERSION } from '../../../src/state/types';
import { CdkdError } from '../../../src/util/errors';
import { testStore, useEmulator } from './helpers';
import type { TestStore } from './helpers';

const FIXTURES = path.join(__dirname, '../../fixtures/state');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const ctx = useEmulator();
jest.setTimeout(30_000);

function newState(stackName: string, region = 'us-east-1'): StackState {
  return {
    version: STATE_SCHEMA_VERSION,
    stackName,
    region,
    resources: {},
    outputs: {},
    lastModified: Date.now(),
  };
}

async function put(store: TestStore, key: string, body: string): Promise<void> {
  await (
    await store.bucket.client()
  ).send(new PutObjectCommand({ Bucket: store.bucket.name, Key: key, Body: body }));
}

async function getText(store: TestStore, key: string): Promise<string | undefined> {
  try {
    const out = await (
      await store.bucket.client()
    ).send(new GetObjectCommand({ Bucket: store.bucket.name, Key: key }));
    return out.Body?.transformToString();
  } catch {
    return undefined;
  }
}

async function rejection(p: Promise<unknown>): Promise<CdkdError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!CdkdError.isCdkdError(err)) throw new Error(`expected a cdkd error, got ${String(err)}`);
  return err;
}

describe('S3StateBackend', () => {
  it('saves a new stack with If-None-Match and reads it back with its ETag', async () => {
    const store = await testStore(ctx.emulator);
    expect(await store.backend.getState('App', 'us-east-1')).toBeUndefined();
    const saved = await store.backend.saveState('App', 'us-east-1', {
      ...newState('App'),
      outputs: { Url: 'x' },
      exportNames: [],
    });
    expect(saved.key).toBe('cdkd/App/us-east-1/state.json');
    const read = await store.backend.getState('App', 'us-east-1');
    expect(read?.etag).toBe(saved.etag);
    expect(read?.state.outputs).toEqual({ Url: 'x' });
    expect(read?.state.exportNames).toEqual([]);
    expect(read?.legacy).toBe(false);
  });

  it('adopts its own save when the reply was lost (the retry meets 412), on a first and on a later save', async () => {
    const store = await testStore(ctx.emulator);
    const key = 'cdkd/Lost/us-east-1/state.json';
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'drop',
      match: { Key: key },
    });
    const first = await store.backend.saveState('Lost', 'us-east-1', { ...newState('Lost'), serial: 1 });
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'drop',
      match: { Key: key },
    });
    const second = await store.backend.saveState(
      'Lost',
      'us-east-1',
      { ...newState('Lost'), serial: 2 },
      first.etag,
    );
    // The ETag is the stored one, so a third save is not a false conflict.
    const third = await store.backend.saveState(
      'Lost',
      'us-east-1',
      { ...newState('Lost'), serial: 3 },
      second.etag,
    );
    expect((await store.backend.getState('Lost', 'us-east-1'))?.etag).toBe(third.etag);
    expect(await ctx.emulator.control.faults()).toEqual([]);
  });

  it('adopts its own save when a 500 came after the write took effect', async () => {
    const store = await testStore(ctx.emulator);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'error-after',
      error: 500,
      count: 1,
      match: { Key: 'cdkd/Late/us-east-1/state.json' },
    });
    const saved = await store.backend.saveState('Late', 'us-east-1', { ...newState('Late'), serial: 1 });
    expect((await store.backend.getState('Late', 'us-east-1'))?.etag).toBe(saved.etag);
  });

  it('gives the stale one of two writers the conflict error, and loses nothing', async () => {
    const store = await testStore(ctx.emulator);
    const first = await store.backend.saveState('App', 'us-east-1', newState('App'));
    const a = await store.backend.getState('App', 'us-east-1');
    const b = await store.backend.getState('App', 'us-east-1');

    await store.backend.saveState('App', 'us-east-1', { ...a!.state, outputs: { Writer: 'A' } }, a!.etag);
    const err = await rejection(
      store.backend.saveState('App', 'us-east-1', { ...b!.state, outputs: { Writer: 'B' } }, b!.etag),
    );
    expect(err.code).toBe('STATE_CONFLICT');
    expect(err.message).toContain(`s3://${store.bucket.name}/cdkd/App/us-east-1/state.json`);

    const now = await store.backend.getState('App', 'us-east-1');
    expect(now?.state.outputs).toEqual({ Writer: 'A' });
    expect(first.etag).not.toBe(now?.etag);
  });

  it('refuses to create a stack whose state appeared meanwhile', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('App', 'us-east-1', { ...newState('App'), outputs: { Who: 'first' } });
    const err = await rejection(
      store.backend.saveState('App', 'us-east-1', { ...newState('App'), outputs: { Who: 'second' } }),
    );
    expect(err.code).toBe('STATE_CONFLICT');
    expect((await store.backend.getState('App', 'us-east-1'))?.state.outputs).toEqual({ Who: 'first' });
  });

  it('keeps two regions of one stack independent', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('Db', 'us-east-1', { ...newState('Db'), outputs: { R: 'east' } });
    await store.backend.saveState('Db', 'us-west-2', {
      ...newState('Db', 'us-west-2'),
      outputs: { R: 'west' },
    });
    expect((await store.backend.getState('Db', 'us-east-1'))?.state.outputs).toEqual({ R: 'east' });
    expect((await store.backend.getState('Db', 'us-west-2'))?.state.outputs).toEqual({ R: 'west' });
    expect(await store.backend.regionsOf('Db')).toEqual(['us-east-1', 'us-west-2']);
  });

  it.each([2, 3, 4, 5, 6, 7, 8])(
    'reads a version %i file and writes it back as the current version',
    async (v) => {
      const store = await testStore(ctx.emulator);
      const raw = JSON.parse(fixture(`v${v}.json`)) as StackState;
      const key = `cdkd/${raw.stackName}/us-east-1/state.json`;
      await put(store, key, fixture(`v${v}.json`));
      const read = await store.backend.getState(raw.stackName, 'us-east-1');
      expect(read?.sourceVersion).toBe(v);
      expect(read?.state.version).toBe(STATE_SCHEMA_VERSION);
      await store.backend.saveState(raw.stackName, 'us-east-1', read!.state, read!.etag);
      const written = JSON.parse((await getText(store, key))!);
      expect(written).toEqual({ ...raw, version: STATE_SCHEMA_VERSION });
    },
  );

  it('reads a legacy v1 record only in its own region, and migrates it on the next write', async () => {
    const store = await testStore(ctx.emulator);
    await put(store, 'cdkd/FixtureV1/state.json', fixture('v1.json'));
    expect(await store.backend.getState('FixtureV1', 'eu-west-1')).toBeUndefined();
    const read = await store.backend.getState('FixtureV1', 'us-east-1');
    expect(read?.legacy).toBe(true);
    expect(read?.sourceVersion).toBe(1);
    expect(read?.key).toBe('cdkd/FixtureV1/state.json');
    expect(await store.backend.listStacks()).toEqual([
      { stackName: 'FixtureV1', region: 'us-east-1', legacy: true },
    ]);

    await store.backend.saveState('FixtureV1', 'us-east-1', read!.state, read!.etag);
    expect(await getText(store, 'cdkd/FixtureV1/state.json')).toBeUndefined();
    const migrated = JSON.parse((await getText(store, 'cdkd/FixtureV1/us-east-1/state.json'))!);
    expect(migrated.version).toBe(STATE_SCHEMA_VERSION);
    expect(migrated.resources.Bucket.physicalId).toBe('fixture-bucket-abc123');
    expect(await store.backend.listStacks()).toEqual([{ stackName: 'FixtureV1', region: 'us-east-1' }]);
    // The legacy key's history is kept: state versions are the recovery path.
    const versions = await (
      await store.bucket.client()
    ).send(new ListObjectVersionsCommand({ Bucket: store.bucket.name, Prefix: 'cdkd/FixtureV1/state.json' }));
    expect((versions.Versions ?? []).length).toBe(1);
  });

  it('refuses a version-10 file with the upgrade message', async () => {
    const store = await testStore(ctx.emulator);
    await put(store, 'cdkd/FixtureV10/us-east-1/state.json', fixture('v10.json'));
    const err = await rejection(store.backend.getState('FixtureV10', 'us-east-1'));
    expect(err.code).toBe('STATE_VERSION_UNSUPPORTED');
    expect(err.message).toMatch(/Unsupported state schema version 10 .* Upgrade cdkd\./);
  });

  it('refuses a corrupt state.json with its key and the restore hint, and never overwrites it', async () => {
    const store = await testStore(ctx.emulator);
    const key = 'cdkd/Broken/us-east-1/state.json';
    await put(store, key, fixture('corrupt.json'));
    const err = await rejection(store.backend.getState('Broken', 'us-east-1'));
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toContain(`s3://${store.bucket.name}/${key}`);
    expect(err.remedy).toContain(
      `aws s3api list-object-versions --bucket ${store.bucket.name} --prefix ${key}`,
    );
    // A writer that found no readable state cannot replace it either.
    expect((await rejection(store.backend.saveState('Broken', 'us-east-1', newState('Broken')))).code).toBe(
      'STATE_CONFLICT',
    );
    expect(await getText(store, key)).toBe(fixture('corrupt.json'));
  });

  it('lists stacks with nested children and ignores non-stack keys', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('Parent', 'us-east-1', newState('Parent'));
    await store.backend.saveState('Parent~Child', 'us-east-1', {
      ...newState('Parent~Child'),
      parentStack: 'Parent',
    });
    await put(store, 'cdkd/_index/us-east-1/exports.json', '{}');
    await put(store, 'cdkd/Parent/us-east-1/lock.json', '{}');
    await put(store, 'cdkd-bootstrap/us-east-1.json', '{}');
    expect(await store.backend.listStacks()).toEqual([
      { stackName: 'Parent', region: 'us-east-1' },
      { stackName: 'Parent~Child', region: 'us-east-1' },
    ]);
  });

  it('deletes a state record', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('Gone', 'us-east-1', newState('Gone'));
    await store.backend.deleteState('Gone', 'us-east-1');
    expect(await store.backend.getState('Gone', 'us-east-1')).toBeUndefined();
    expect(await store.backend.listStacks()).toEqual([]);
  });

  it('reaches a state bucket in another region through a client for that region', async () => {
    const store = await testStore(ctx.emulator, { region: 'us-east-1', bucketRegion: 'eu-west-1' });
    expect(await store.bucket.region()).toBe('eu-west-1');
    await store.backend.saveState('Far', 'ap-northeast-1', newState('Far', 'ap-northeast-1'));
    expect((await store.backend.getState('Far', 'ap-northeast-1'))?.state.stackName).toBe('Far');
    // The client from the factory's own region is refused by the bucket's region (S3's 301).
    const wrong = store.factory.get(S3Client, { region: 'us-east-1' });
    await expect(
      wrong.send(
        new GetObjectCommand({ Bucket: store.bucket.name, Key: 'cdkd/Far/ap-northeast-1/state.json' }),
      ),
    ).rejects.toBeDefined();
  });
});
