/** The stack lock against the emulator, through the real SDK. */
import { GetObjectCommand, ListObjectVersionsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isLockExpired, renewalIntervalMs } from '../../../src/state/lock-manager';
import type { StackLock } from '../../../src/state/lock-manager';
import type { LockInfo } from '../../../src/state/types';
import { CdkdError } from '../../../src/util/errors';
import { sameBucket, testStore, useEmulator, waitFor } from './helpers';
import type { TestStore } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);
const REGION = 'us-east-1';

afterEach(async () => {
  await ctx.emulator.control.clearFaults();
});

async function storedLock(store: TestStore, stack: string): Promise<LockInfo | undefined> {
  try {
    const out = await (
      await store.bucket.client()
    ).send(
      new GetObjectCommand({ Bucket: store.bucket.name, Key: store.bucket.keys.lockKey(stack, REGION) }),
    );
    return JSON.parse(await out.Body!.transformToString()) as LockInfo;
  } catch {
    return undefined;
  }
}

/** Every version and delete marker of the lock key, with IsLatest. */
async function lockVersions(
  store: TestStore,
  stack: string,
): Promise<{ latest: boolean; marker: boolean }[]> {
  const key = store.bucket.keys.lockKey(stack, REGION);
  const out = await (
    await store.bucket.client()
  ).send(new ListObjectVersionsCommand({ Bucket: store.bucket.name, Prefix: key }));
  return [
    ...(out.Versions ?? [])
      .filter((v) => v.Key === key)
      .map((v) => ({ latest: !!v.IsLatest, marker: false })),
    ...(out.DeleteMarkers ?? [])
      .filter((v) => v.Key === key)
      .map((v) => ({ latest: !!v.IsLatest, marker: true })),
  ];
}

async function writeLock(store: TestStore, stack: string, info: unknown): Promise<void> {
  await (
    await store.bucket.client()
  ).send(
    new PutObjectCommand({
      Bucket: store.bucket.name,
      Key: store.bucket.keys.lockKey(stack, REGION),
      Body: JSON.stringify(info),
    }),
  );
}

describe('lock expiry rules', () => {
  it('judges expiry by expiresAt, and a non-finite deadline as expired', () => {
    expect(isLockExpired({ expiresAt: 2000 }, 1000)).toBe(false);
    expect(isLockExpired({ expiresAt: 1000 }, 1000)).toBe(true);
    expect(isLockExpired({ expiresAt: Infinity }, 1000)).toBe(true);
    expect(isLockExpired({ expiresAt: NaN }, 1000)).toBe(true);
    expect(isLockExpired({ expiresAt: '9999999999999' as unknown as number }, 1000)).toBe(true);
    expect(isLockExpired(undefined, 1000)).toBe(true);
  });

  it('renews every quarter of the TTL, at most every two minutes', () => {
    expect(renewalIntervalMs(30 * 60 * 1000)).toBe(120_000);
    expect(renewalIntervalMs(4000)).toBe(1000);
  });
});

describe('LockManager', () => {
  it('lets exactly one of 20 concurrent acquirers hold the lock; the others name the holder and its deadline', async () => {
    const base = await testStore(ctx.emulator);
    const managers = Array.from(
      { length: 20 },
      (_, i) => sameBucket(base, { owner: `user@host-${i}:${1000 + i}` }).locks,
    );
    const results = await Promise.allSettled(
      managers.map((m) => m.acquire('Busy', REGION, { operation: 'deploy', retries: 0 })),
    );
    const held = results.filter((r): r is PromiseFulfilledResult<StackLock> => r.status === 'fulfilled');
    expect(held).toHaveLength(1);
    const holder = held[0].value;
    const stored = await storedLock(base, 'Busy');
    expect(stored?.owner).toBe(holder.owner);

    const failures = results
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => r.reason as CdkdError);
    expect(failures).toHaveLength(19);
    for (const err of failures) {
      expect(CdkdError.isCdkdError(err) && err.code).toBe('LOCK_HELD');
      expect(err.message).toContain(`locked by ${holder.owner}`);
      expect(err.message).toContain('(operation: deploy)');
      expect(err.message).toContain(`expires at ${new Date(holder.expiresAt).toISOString()}`);
      expect(err.remedy).toContain('cdkd force-unlock Busy --region us-east-1');
    }
    await holder.release();
  });

  it('reports the holder on each retry before giving up', async () => {
    const a = await testStore(ctx.emulator);
    const b = sameBucket(a, { owner: 'bob@ci:2', sleep: async () => undefined });
    const lock = await a.locks.acquire('Busy', REGION, { operation: 'destroy' });
    await expect(b.locks.acquire('Busy', REGION, { retries: 2 })).rejects.toThrow(/locked by/);
    const retries = b.host.text('info').filter((m) => m.includes('retrying'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toContain(`locked by ${a.locks.owner} (operation: destroy)`);
    await lock.release();
  });

  it('keeps a renewing holder past its TTL', async () => {
    const a = await testStore(ctx.emulator, { lock: { ttlSeconds: 1.2, owner: 'alice@host:1' } });
    const b = sameBucket(a, { ttlSeconds: 1.2, owner: 'bob@host:2' });
    const lock = await a.locks.acquire('Long', REGION, { operation: 'deploy' });
    const firstDeadline = lock.expiresAt;
    await waitFor(() => Date.now() > firstDeadline + 600, 10_000, 'the first deadline to pass');
    expect(await b.locks.tryAcquire('Long', REGION)).toBeUndefined();
    expect(lock.lost).toBe(false);
    expect(lock.expiresAt).toBeGreaterThan(firstDeadline);
    expect((await storedLock(a, 'Long'))?.owner).toBe('alice@host:1');
    await lock.release();
    expect(await storedLock(a, 'Long')).toBeUndefined();
  });

  it('takes over a holder that stopped renewing once expiresAt passes, and the old holder never deletes the new lock', async () => {
    // A renewal interval far beyond the TTL: this holder goes silent like a stopped process.
    const a = await testStore(ctx.emulator, {
      lock: { ttlSeconds: 0.5, owner: 'alice@laptop:11', renewalIntervalMs: 600_000 },
    });
    const b = sameBucket(a, { owner: 'bob@ci:22' });
    const stale = await a.locks.acquire('Taken', REGION, { operation: 'deploy' });
    expect(await b.locks.tryAcquire('Taken', REGION)).toBeUndefined();
    // Expiry is judged by S3's clock (to the second): retry until S3 saw the lock silent for its TTL.
    const fresh = await b.locks.acquire('Taken', REGION, {
      operation: 'destroy',
      retries: 40,
      retryDelayMs: 100,
    });
    const takeover = b.host.text('warn').find((m) => m.includes('Took over the expired lock'));
    expect(takeover).toContain('from alice@laptop:11 (operation: deploy)');

    await stale.release();
    expect((await storedLock(a, 'Taken'))?.owner).toBe('bob@ci:22');
    expect(a.host.text('warn').some((m) => m.includes('Left the lock') && m.includes('bob@ci:22'))).toBe(
      true,
    );
    await fresh.release();
  });

  it('a renewal that finds another owner marks the lock lost, and release leaves the new lock alone', async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1', renewalIntervalMs: 600_000 } });
    const b = sameBucket(a, { owner: 'bob@host:2' });
    const mine = await a.locks.acquire('Stolen', REGION);
    await b.locks.forceUnlock('Stolen', REGION);
    const theirs = await b.locks.acquire('Stolen', REGION, { retries: 0 });
    await mine.renew();
    expect(mine.lost).toBe(true);
    expect(a.host.text('warn').some((m) => m.includes('Lost the lock') && m.includes('bob@host:2'))).toBe(
      true,
    );
    await mine.release();
    expect((await storedLock(a, 'Stolen'))?.owner).toBe('bob@host:2');
    await theirs.release();
  });

  it('takes over a lock whose expiresAt is not a finite number', async () => {
    const a = await testStore(ctx.emulator);
    await writeLock(a, 'Weird', { owner: 'ghost@nowhere:0', timestamp: 1, expiresAt: 'never' });
    const lock = await a.locks.acquire('Weird', REGION, { retries: 0 });
    expect(a.host.text('warn').some((m) => m.includes('ghost@nowhere:0'))).toBe(true);
    await lock.release();
  });

  it('release, takeover and force-unlock leave no noncurrent versions of lock.json', async () => {
    const a = await testStore(ctx.emulator, { lock: { ttlSeconds: 0.4, owner: 'alice@host:1' } });
    // Release after a few renewals.
    const renewing = await a.locks.acquire('Clean', REGION);
    await waitFor(async () => (await lockVersions(a, 'Clean')).length >= 3, 5_000, 'renewals');
    await renewing.release();
    expect(await lockVersions(a, 'Clean')).toEqual([{ latest: true, marker: true }]);

    // Takeover: only the new holder's version remains.
    const silent = sameBucket(a, { ttlSeconds: 0.3, owner: 'silent@host:3', renewalIntervalMs: 600_000 });
    await silent.locks.acquire('Clean', REGION);
    const b = sameBucket(a, { owner: 'bob@host:2', renewalIntervalMs: 600_000 });
    const taken = await b.locks.acquire('Clean', REGION, { retries: 40, retryDelayMs: 100 });
    expect(await lockVersions(a, 'Clean')).toEqual([{ latest: true, marker: false }]);

    // Force-unlock: only the current delete marker remains.
    const removed = await a.locks.forceUnlock('Clean', REGION);
    expect(removed?.info.owner).toBe('bob@host:2');
    expect(await lockVersions(a, 'Clean')).toEqual([{ latest: true, marker: true }]);
    await taken.release(); // its lock is gone: a warning, no throw
    expect(await a.locks.forceUnlock('Clean', REGION)).toBeUndefined();
  });

  it('makes a second release a no-op, even after another process took the lock', async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1' } });
    const b = sameBucket(a, { owner: 'bob@host:2' });
    const lock = await a.locks.acquire('Twice', REGION);
    await Promise.all([lock.release(), lock.release(), a.locks.release('Twice', REGION)]);
    const other = await b.locks.acquire('Twice', REGION, { retries: 0 });
    await lock.release();
    await a.locks.release('Twice', REGION);
    expect((await storedLock(a, 'Twice'))?.owner).toBe('bob@host:2');
    await other.release();
  });

  it('adopts its own renewal when the response was lost (412 on the retry)', async () => {
    const a = await testStore(ctx.emulator, {
      lock: { ttlSeconds: 60, owner: 'alice@host:1', renewalIntervalMs: 600_000 },
    });
    const lock = await a.locks.acquire('Dropped', REGION);
    const before = lock.expiresAt;
    await new Promise((r) => setTimeout(r, 5));
    await ctx.emulator.control.addFault({ service: 's3', operation: 'PutObject', mode: 'drop', count: 1 });
    await lock.renew(); // the write lands, its reply is lost; a retry (now or next tick) meets 412
    await lock.renew();
    expect(lock.lost).toBe(false);
    expect(lock.expiresAt).toBeGreaterThan(before);
    expect(a.host.text('warn')).toEqual([]);
    await lock.release();
    expect(await storedLock(a, 'Dropped')).toBeUndefined();
  });

  it('acquires after a lost reply on the lock write instead of locking itself out', async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1' } });
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'drop',
      match: { Key: a.bucket.keys.lockKey('SelfLock', REGION) },
    });
    const lock = await a.locks.acquire('SelfLock', REGION, { retries: 0 });
    expect(lock.lost).toBe(false);
    await lock.release();
    expect(await storedLock(a, 'SelfLock')).toBeUndefined();
    expect(a.host.text('warn')).toEqual([]);
  });

  it('releases quietly after a lost reply on the delete (the retry finds the lock gone)', async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1' } });
    const lock = await a.locks.acquire('LostRelease', REGION);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'DeleteObject',
      mode: 'drop',
      match: { Key: a.bucket.keys.lockKey('LostRelease', REGION) },
    });
    await lock.release();
    expect(await storedLock(a, 'LostRelease')).toBeUndefined();
    expect(a.host.text('warn')).toEqual([]);
  });

  it("judges expiry by S3's clock: a deadline passed by a skewed writer's clock is not a dead holder, a long silence is", async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1' } });
    // Written just now by a machine whose clock is an hour behind: expiresAt is in the past by ours.
    const behind = Date.now() - 3_600_000;
    await writeLock(a, 'Skewed', {
      owner: 'bob@slow-clock:2',
      timestamp: behind,
      expiresAt: behind + 60_000,
      ttlMs: 60_000,
    });
    const held = await a.locks.tryAcquire('Skewed', REGION);
    expect(held).toBeUndefined();
    await expect(a.locks.acquire('Skewed', REGION, { retries: 0 })).rejects.toThrow(/the two clocks differ/);
    // Written by a machine whose clock is an hour ahead, then silent for longer than its TTL by S3's clock.
    const ahead = Date.now() + 3_600_000;
    await writeLock(a, 'Ahead', {
      owner: 'carol@fast-clock:3',
      timestamp: ahead,
      expiresAt: ahead + 60_000,
      ttlMs: 60_000,
    });
    expect(await a.locks.tryAcquire('Ahead', REGION)).toBeUndefined();
    await ctx.emulator.control.setClockOffset(62_000);
    try {
      const taken = await a.locks.acquire('Ahead', REGION, { retries: 0 });
      expect(a.host.text('warn').some((m) => m.includes('carol@fast-clock:3'))).toBe(true);
      await taken.release();
    } finally {
      await ctx.emulator.control.setClockOffset(0);
    }
  });

  it.each([
    ['AccessDenied', 403],
    ['NotImplemented', 501],
  ])(
    'falls back to an unconditional delete after an ownership re-check when the conditional delete answers %s',
    async (error, status) => {
      const a = await testStore(ctx.emulator);
      const lock = await a.locks.acquire('Fallback', REGION);
      await ctx.emulator.control.addFault({
        service: 's3',
        operation: 'DeleteObject',
        error,
        status,
        count: 1,
      });
      await lock.release();
      expect(await storedLock(a, 'Fallback')).toBeUndefined();
      expect(a.host.text('warn')).toEqual([]);
    },
  );

  it('refuses the fallback when the ownership re-check cannot read the lock', async () => {
    const a = await testStore(ctx.emulator);
    const lock = await a.locks.acquire('NoRead', REGION);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'DeleteObject',
      error: 'AccessDenied',
      count: 1,
    });
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'GetObject',
      error: 'AccessDenied',
      count: 1,
    });
    await lock.release();
    expect((await storedLock(a, 'NoRead'))?.owner).toBe(a.locks.owner);
    expect(
      a.host.text('warn').some((m) => m.includes('Left the lock') && m.includes('could not be re-checked')),
    ).toBe(true);
  });

  it("keeps another owner's lock when a 403 hides the takeover", async () => {
    const a = await testStore(ctx.emulator, { lock: { owner: 'alice@host:1', renewalIntervalMs: 600_000 } });
    const b = sameBucket(a, { owner: 'bob@host:2' });
    const mine = await a.locks.acquire('Hidden', REGION);
    await b.locks.forceUnlock('Hidden', REGION);
    const theirs = await b.locks.acquire('Hidden', REGION, { retries: 0 });
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'DeleteObject',
      error: 'AccessDenied',
      count: 1,
    });
    await mine.release();
    expect((await storedLock(a, 'Hidden'))?.owner).toBe('bob@host:2');
    await theirs.release();
  });

  it.each([
    ['ConditionalRequestConflict', 409],
    ['SlowDown', 503],
  ])('does not drop the condition on %s (%i), and never throws from release', async (error) => {
    const a = await testStore(ctx.emulator);
    const lock = await a.locks.acquire('Conflict', REGION);
    // Enough faults to outlast the SDK's own retries.
    await ctx.emulator.control.addFault({ service: 's3', operation: 'DeleteObject', error, count: 5 });
    await expect(lock.release()).resolves.toBeUndefined();
    await ctx.emulator.control.clearFaults();
    expect((await storedLock(a, 'Conflict'))?.owner).toBe(a.locks.owner);
    expect(
      a.host
        .text('warn')
        .some((m) => m.includes('Could not release the lock') && m.includes('force-unlock Conflict')),
    ).toBe(true);
    await a.locks.forceUnlock('Conflict', REGION);
  });

  it('reports a lock-purge failure at debug on release and at warn on force-unlock', async () => {
    const a = await testStore(ctx.emulator);
    const lock = await a.locks.acquire('Purge', REGION);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'ListObjectVersions',
      error: 'AccessDenied',
      count: 1,
    });
    await lock.release();
    expect(a.host.text('warn')).toEqual([]);
    expect(
      a.host.text('debug').some((m) => m.startsWith('Could not purge noncurrent versions of 1 key(s)')),
    ).toBe(true);

    await a.locks.acquire('Purge', REGION);
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'ListObjectVersions',
      error: 'AccessDenied',
      count: 1,
    });
    await a.locks.forceUnlock('Purge', REGION);
    const warning = a.host.text('warn').find((m) => m.startsWith('Could not purge'));
    expect(warning).toContain('cdkd/Purge/us-east-1/lock.json (AccessDenied: s3:ListBucketVersions)');
  });
});
