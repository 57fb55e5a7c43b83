/** The exports index store against the emulator. */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { ExportsIndex } from '../../../src/state/exports-index';
import type { StackState } from '../../../src/state/types';
import { sameBucket, testStore, useEmulator } from './helpers';
import type { TestStore } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);
const REGION = 'us-east-1';

afterEach(async () => {
  await ctx.emulator.control.clearFaults();
});

function state(
  stackName: string,
  outputs: Record<string, unknown>,
  exportNames?: string[],
  lastModified = Date.now(),
): StackState {
  return {
    version: 9,
    stackName,
    region: REGION,
    resources: {},
    outputs,
    ...(exportNames ? { exportNames } : {}),
    lastModified,
  };
}

async function storedIndex(store: TestStore): Promise<ExportsIndex | undefined> {
  try {
    const out = await (
      await store.bucket.client()
    ).send(new GetObjectCommand({ Bucket: store.bucket.name, Key: store.exportsIndex.key(REGION) }));
    return JSON.parse(await out.Body!.transformToString()) as ExportsIndex;
  } catch {
    return undefined;
  }
}

describe('ExportsIndexStore', () => {
  it('rebuilds an absent index from every state file, honouring exportNames, and writes it', async () => {
    const store = await testStore(ctx.emulator);
    // Pre-v9 record: every output is importable.
    await store.backend.saveState('Legacy', REGION, state('Legacy', { VpcId: 'vpc-1', Plain: 'p' }));
    // v9 record: only the declared export.
    await store.backend.saveState(
      'Modern',
      REGION,
      state('Modern', { BucketArn: 'arn:b', InternalName: 'i' }, ['BucketArn']),
    );
    // Exports nothing.
    await store.backend.saveState('Quiet', REGION, state('Quiet', { Secretish: 's' }, []));
    // Another region is another index.
    await store.backend.saveState('Elsewhere', 'eu-west-1', {
      ...state('Elsewhere', { Far: 'f' }),
      region: 'eu-west-1',
    });

    const index = await store.exportsIndex.read(REGION);
    expect(Object.keys(index.exports).sort()).toEqual(['BucketArn', 'Plain', 'VpcId']);
    expect(index.exports.BucketArn).toEqual({
      value: 'arn:b',
      producerStack: 'Modern',
      producerRegion: REGION,
    });
    expect((await storedIndex(store))?.exports).toEqual(index.exports);
    expect(store.exportsIndex.key(REGION)).toBe('cdkd/_index/us-east-1/exports.json');
  });

  it("replaces a stack's entries on update and removes them on removeStack", async () => {
    const store = await testStore(ctx.emulator);
    await store.exportsIndex.updateStack(REGION, state('P', { A: 1, B: [1, 2] }, ['A', 'B']));
    expect(await store.exportsIndex.lookup(REGION, 'B')).toEqual({
      value: [1, 2],
      producerStack: 'P',
      producerRegion: REGION,
    });
    await store.exportsIndex.updateStack(REGION, state('P', { A: 2, C: 3 }, ['A', 'C']));
    const index = await store.exportsIndex.read(REGION);
    expect(Object.keys(index.exports).sort()).toEqual(['A', 'C']);
    expect(index.exports.A.value).toBe(2);
    await store.exportsIndex.removeStack(REGION, 'P');
    expect((await storedIndex(store))?.exports).toEqual({});
  });

  it('warns when two stacks export one name; the latest writer wins', async () => {
    const store = await testStore(ctx.emulator);
    await store.exportsIndex.updateStack(REGION, state('First', { Shared: 'one' }, ['Shared']));
    await store.exportsIndex.updateStack(REGION, state('Second', { Shared: 'two' }, ['Shared']));
    expect((await store.exportsIndex.lookup(REGION, 'Shared'))?.producerStack).toBe('Second');
    expect(
      store.host
        .text('warn')
        .some((m) => m.includes("Export 'Shared'") && m.includes('First') && m.includes('Second')),
    ).toBe(true);
  });

  it('rebuilds a corrupt index from the state files', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('P', REGION, state('P', { Out: 'v' }, ['Out']));
    await (
      await store.bucket.client()
    ).send(
      new PutObjectCommand({
        Bucket: store.bucket.name,
        Key: store.exportsIndex.key(REGION),
        Body: '{not json',
      }),
    );
    expect((await store.exportsIndex.lookup(REGION, 'Out'))?.value).toBe('v');
    expect(store.host.text('warn').some((m) => m.includes('is corrupt'))).toBe(true);
    expect((await storedIndex(store))?.exports.Out.value).toBe('v');
  });

  it('loses no entry when writers patch concurrently (If-Match with retries)', async () => {
    const base = await testStore(ctx.emulator);
    await base.exportsIndex.read(REGION); // create the (empty) index
    const writers = Array.from({ length: 5 }, () => sameBucket(base));
    await Promise.all(
      writers.map((w, i) =>
        w.exportsIndex.patchEntry(REGION, `Export${i}`, {
          value: i,
          producerStack: `S${i}`,
          producerRegion: REGION,
        }),
      ),
    );
    const index = await storedIndex(base);
    expect(Object.keys(index!.exports).sort()).toEqual([
      'Export0',
      'Export1',
      'Export2',
      'Export3',
      'Export4',
    ]);
    for (const w of writers) expect(w.host.text('warn')).toEqual([]);
  });

  it('serves repeated lookups from one read of the index', async () => {
    const writer = await testStore(ctx.emulator);
    await writer.exportsIndex.updateStack(REGION, state('P', { A: 1, B: 2 }, ['A', 'B']));
    const reader = sameBucket(writer);
    const gets = async (): Promise<number> =>
      (await ctx.emulator.control.requests()).byOperation['s3:GetObject'] ?? 0;
    const before = await gets();
    expect((await reader.exportsIndex.lookup(REGION, 'A'))?.value).toBe(1);
    expect((await reader.exportsIndex.lookup(REGION, 'B'))?.value).toBe(2);
    expect(await reader.exportsIndex.lookup(REGION, 'C')).toBeUndefined();
    expect((await gets()) - before).toBe(1);
  });

  it('gives up after 5 retries with a warning, without throwing', async () => {
    const store = await testStore(ctx.emulator);
    await store.exportsIndex.read(REGION);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      error: 'PreconditionFailed',
      status: 412,
      count: 10,
    });
    await expect(
      store.exportsIndex.patchEntry(REGION, 'X', { value: 1, producerStack: 'S', producerRegion: REGION }),
    ).resolves.toBeUndefined();
    const warning = store.host.text('warn').find((m) => m.includes('Could not update the exports index'));
    expect(warning).toContain('after 6 attempt(s)');
    const faults = await ctx.emulator.control.faults();
    expect(faults[0]?.fired).toBe(6);
  });
});
