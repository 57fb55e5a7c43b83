/** The write-ahead log store and its group-committing writer, against the emulator. */
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { WriteAheadWriter } from '../../../src/engine/write-ahead';
import { StackStateBuilder } from '../../../src/state/state-builder';
import { replaySegments } from '../../../src/state/wal-replay';
import { WAL_FORMAT_VERSION, WalConflictError } from '../../../src/state/write-ahead-log';
import type { WalSegment, WriteAheadLogStore } from '../../../src/state/write-ahead-log';
import { testStore, useEmulator } from './helpers';

const ctx = useEmulator();
const REGION = 'us-east-1';

const segment = (seq: number, lineage = 'L1', writer = 'me'): WalSegment => ({
  walVersion: WAL_FORMAT_VERSION,
  stackName: 'Wal',
  region: REGION,
  lineage,
  seq,
  writer,
  writtenAt: 1,
  records: [
    {
      t: 'outcome',
      effects: [
        {
          op: 'set',
          logicalId: `R${seq}`,
          record: { physicalId: `p${seq}`, resourceType: 'AWS::SNS::Topic', properties: {} },
        },
      ],
    },
  ],
});

describe('write-ahead log', () => {
  beforeEach(() => ctx.emulator.control.clearFaults());

  it('writes, lists in order, reads back and replays segments; a lost reply is adopted', async () => {
    const store = await testStore(ctx.emulator);
    await store.wal.write(segment(2));
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'drop',
      match: { Key: store.bucket.keys.walSegmentKey('Wal', REGION, 10) },
    });
    await store.wal.write(segment(10));
    const refs = await store.wal.list('Wal', REGION);
    expect(refs.map((r) => r.seq)).toEqual([2, 10]);
    const builder = new StackStateBuilder('Wal', REGION, {
      version: 9,
      stackName: 'Wal',
      region: REGION,
      resources: {},
      outputs: {},
      lastModified: 0,
      lineage: 'L1',
      walSeq: 2,
    });
    const replay = await replaySegments(store.wal, builder, refs);
    // Segment 2 is folded already: stale, not applied again.
    expect(replay.stale.map((r) => r.seq)).toEqual([2]);
    expect(replay.applied.map((r) => r.seq)).toEqual([10]);
    expect(Object.keys(builder.resourceRecords())).toEqual(['R10']);
  });

  it('refuses a segment number another process wrote, and ignores segments of another lineage', async () => {
    const store = await testStore(ctx.emulator);
    await store.wal.write(segment(1, 'L1', 'other'));
    await expect(store.wal.write(segment(1, 'L1', 'me'))).rejects.toBeInstanceOf(WalConflictError);
    await store.wal.write(segment(2, 'OLD'));
    const builder = new StackStateBuilder('Wal', REGION, undefined);
    builder.lineage = 'L1';
    const replay = await replaySegments(store.wal, builder, await store.wal.list('Wal', REGION));
    expect(replay.applied.map((r) => r.seq)).toEqual([1]);
    expect(replay.stale.map((r) => r.seq)).toEqual([2]);
  });

  it('group-commits: records queued in one turn of the event loop go out together, in order', async () => {
    const store = await testStore(ctx.emulator);
    const writer = new WriteAheadWriter({
      store: store.wal,
      stackName: 'Wal',
      region: REGION,
      lineage: 'L1',
      writer: 'me',
      firstSeq: 1,
    });
    const durable = Array.from({ length: 20 }, (_, i) =>
      writer.append({ t: 'amend', id: `i${i}`, attempt: i }),
    );
    await Promise.all(durable);
    // A burst of ready operations is one segment.
    expect(writer.stats.writes).toBe(1);
    const refs = await store.wal.list('Wal', REGION);
    const segments = await Promise.all(refs.map((r) => store.wal.read(r)));
    expect(segments.flatMap((s) => s!.records.map((r) => (r as { attempt: number }).attempt))).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    // Deleting by version leaves no object version behind.
    expect(await store.wal.remove(writer.written)).toEqual([]);
    const versions = await (
      await store.bucket.client()
    ).send(
      new ListObjectVersionsCommand({
        Bucket: store.bucket.name,
        Prefix: store.bucket.keys.walPrefix('Wal', REGION),
      }),
    );
    expect([...(versions.Versions ?? []), ...(versions.DeleteMarkers ?? [])]).toEqual([]);
  });

  /** The store with the write of one segment held until released (or failed), and each write's start and end seen. */
  function gatedStore(real: WriteAheadLogStore, heldSeq: number) {
    let release!: (fail?: Error) => void;
    const held = new Promise<Error | undefined>((resolve) => (release = resolve));
    const started: number[] = [];
    const landed: number[] = [];
    const waiters: Array<() => void> = [];
    const seen = () => waiters.splice(0).forEach((w) => w());
    const store = Object.create(real) as WriteAheadLogStore;
    store.write = async (seg: WalSegment) => {
      started.push(seg.seq);
      seen();
      if (seg.seq === heldSeq) {
        const fail = await held;
        if (fail) throw fail;
      }
      const out = await real.write(seg);
      landed.push(seg.seq);
      seen();
      return out;
    };
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    return { store, release, started, landed, until };
  }
  const writerOn = (store: WriteAheadLogStore, onFailure?: (err: unknown) => void) =>
    new WriteAheadWriter({
      store,
      stackName: 'Wal',
      region: REGION,
      lineage: 'L1',
      writer: 'me',
      firstSeq: 1,
      ...(onFailure ? { onFailure } : {}),
    });
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('writes a waiting intent while an earlier segment is in flight, but acknowledges it only after that one', async () => {
    const g = gatedStore((await testStore(ctx.emulator)).wal, 1);
    const writer = writerOn(g.store);
    writer.post({ t: 'amend', id: 'outcome-before', attempt: 1 });
    await g.until(() => g.started.includes(1));
    let acknowledged = false;
    const intent = writer.append({ t: 'amend', id: 'intent-after', attempt: 2 });
    void intent.then(() => (acknowledged = true));
    // Segment 2 goes out at once and lands; segment 1 is still in flight.
    await g.until(() => g.landed.includes(2));
    await turn();
    expect(acknowledged).toBe(false);
    expect(writer.lastDurableSeq).toBe(0);
    expect(writer.written).toEqual([]);
    g.release();
    await intent;
    expect(writer.lastDurableSeq).toBe(2);
    expect(writer.written.map((r) => r.seq)).toEqual([1, 2]);
    expect(writer.stats.writes).toBe(2);
  });

  it('does not open a second segment for outcomes alone: they ride the next one', async () => {
    const g = gatedStore((await testStore(ctx.emulator)).wal, 1);
    const writer = writerOn(g.store);
    writer.post({ t: 'amend', id: 'a', attempt: 1 });
    await g.until(() => g.started.includes(1));
    writer.post({ t: 'amend', id: 'b', attempt: 1 });
    writer.post({ t: 'amend', id: 'c', attempt: 1 });
    await turn();
    await turn();
    expect(g.started).toEqual([1]);
    g.release();
    await writer.flush();
    expect(g.started).toEqual([1, 2]);
    const second = await g.store.read(writer.written[1]);
    expect(second!.records.map((r) => (r as { id: string }).id)).toEqual(['b', 'c']);
  });

  it('refuses what a later segment carried when an earlier one fails, and reports that segment as unacknowledged', async () => {
    const g = gatedStore((await testStore(ctx.emulator)).wal, 1);
    const failures: unknown[] = [];
    const writer = writerOn(g.store, (err) => failures.push(err));
    const first = writer.append({ t: 'amend', id: 'a', attempt: 1 });
    await g.until(() => g.started.includes(1));
    const second = writer.append({ t: 'amend', id: 'b', attempt: 1 });
    await g.until(() => g.landed.includes(2));
    const refused = Promise.all([
      expect(first).rejects.toThrow('S3 is gone'),
      expect(second).rejects.toThrow('S3 is gone'),
    ]);
    g.release(new Error('S3 is gone'));
    await refused;
    await expect(writer.flush()).rejects.toThrow('S3 is gone');
    expect(failures).toHaveLength(1);
    expect(writer.lastDurableSeq).toBe(0);
    expect(writer.written).toEqual([]);
    expect(writer.unacknowledged.map((r) => r.seq)).toEqual([2]);
  });

  it('stops for good when a segment cannot be written: every waiting record is refused', async () => {
    const store = await testStore(ctx.emulator);
    await store.wal.write(segment(1, 'L1', 'intruder'));
    const failures: unknown[] = [];
    const writer = new WriteAheadWriter({
      store: store.wal,
      stackName: 'Wal',
      region: REGION,
      lineage: 'L1',
      writer: 'me',
      firstSeq: 1,
      onFailure: (err) => failures.push(err),
    });
    const a = writer.append({ t: 'amend', id: 'a' });
    const b = writer.append({ t: 'amend', id: 'b' });
    await expect(a).rejects.toBeInstanceOf(WalConflictError);
    await expect(b).rejects.toBeInstanceOf(WalConflictError);
    await expect(writer.append({ t: 'amend', id: 'c' })).rejects.toBeInstanceOf(WalConflictError);
    await expect(writer.flush()).rejects.toBeInstanceOf(WalConflictError);
    expect(failures).toHaveLength(1);
  });
});
