/**
 * The stack lock: `{prefix}/{stack}/{region}/lock.json`, taken with S3
 * conditional writes.
 *
 * - Acquire: `PutObject If-None-Match: *`. When the key exists, the holder is
 *   read; a lock past its `expiresAt` (or whose `expiresAt` is not a finite
 *   number) is taken over with a `DeleteObject If-Match` its ETag, so two
 *   processes reaping the same lock cannot both win, and the takeover is
 *   reported at warn naming the previous owner. A live lock is retried a few
 *   times, each time reporting the holder and its deadline.
 * - Expiry is judged by S3's clock when the lock records its TTL (`ttlMs`): the
 *   lock is expired when S3 last wrote it more than a TTL ago (`Last-Modified`
 *   against the response's `Date`), so clock skew between machines cannot hand
 *   a live lock to another process. A lock without `ttlMs` (the reference
 *   tool's) is judged by its `expiresAt`, and only after it has also been silent
 *   longer than a renewal interval by S3's clock.
 * - A write of the lock whose reply was lost (acquire, renewal) is recognised by
 *   reading the lock back: the stored body is exactly what this process sent.
 * - Renewal: while held, `expiresAt` is pushed forward every min(2 min, TTL/4)
 *   with `PutObject If-Match` the ETag this process last wrote, so a process that
 *   lost the lock cannot resurrect it. A 412 is checked against what this
 *   process wrote (a lost response leaves the cached ETag one write behind).
 * - Losing the lock stops the work: {@link StackLock.signal} aborts when a
 *   renewal finds another owner (or no lock), or when renewals kept failing until
 *   one renewal interval before others could judge the lock expired.
 * - Release: `DeleteObject If-Match` that ETag, so a process never deletes a lock
 *   another process took over. Release never throws; it warns.
 * - Every delete of the lock key purges its noncurrent versions (the bucket is
 *   versioned and every renewal adds one): failures at debug on release, at warn
 *   on takeover and force-unlock.
 */
import * as os from 'node:os';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { LockError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { sleep as defaultSleep } from '../util/retry';
import { purgeAndReport } from './purge';
import { lockingStackName } from './keys';
import {
  describeAwsError,
  httpStatus,
  isAccessDenied,
  isConditionalConflict,
  isNoSuchKey,
  isPreconditionFailed,
} from './s3-errors';
import { getObjectText, putObjectText } from './state-backend';
import type { StateBucket } from './state-bucket';
import type { LockInfo } from './types';

/** Default lock TTL: 30 minutes. */
export const DEFAULT_LOCK_TTL_SECONDS = 30 * 60;
/** Renewals happen at least this often. */
export const MAX_RENEWAL_INTERVAL_MS = 2 * 60 * 1000;

/** How often a holder renews: every quarter of the TTL, at most every two minutes. */
export function renewalIntervalMs(ttlMs: number): number {
  return Math.max(1, Math.min(MAX_RENEWAL_INTERVAL_MS, Math.floor(ttlMs / 4)));
}

/** A lock is expired at its `expiresAt`; a deadline that is not a finite number counts as expired. */
export function isLockExpired(info: Pick<LockInfo, 'expiresAt'> | undefined, now: number): boolean {
  const expiresAt = info?.expiresAt;
  return typeof expiresAt !== 'number' || !Number.isFinite(expiresAt) || expiresAt <= now;
}

/**
 * S3 reports `Last-Modified` and `Date` to the second: an age measured from them
 * can be short by up to this much, so expiry waits for it on top of the TTL.
 */
export const S3_CLOCK_RESOLUTION_MS = 1000;
/** Without S3's clock, a deadline written by another machine is trusted only this much late. */
export const CLOCK_SKEW_MARGIN_MS = 60 * 1000;

/** S3's view of a lock object: when it was written and what time it is, by S3's clock. */
export interface LockObjectTimes {
  lastModified?: Date;
  serverTime?: Date;
}

/**
 * Whether a lock may be taken over. With S3's clock (`times`): a lock that
 * records its TTL is expired once S3 last wrote it more than that TTL ago;
 * one that does not (the reference tool's) once its own `expiresAt` has passed
 * and S3 has not seen a renewal for longer than the renewal interval. Without
 * S3's clock: `expiresAt` plus a skew margin. A non-finite `expiresAt` is expired.
 */
export function judgeLockExpired(info: Partial<LockInfo>, now: number, times: LockObjectTimes = {}): boolean {
  const expiresAt = info.expiresAt;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return true;
  const { lastModified, serverTime } = times;
  if (lastModified && serverTime) {
    const age = serverTime.getTime() - lastModified.getTime();
    const ttl = info.ttlMs;
    if (typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0)
      return age >= ttl + S3_CLOCK_RESOLUTION_MS;
    return expiresAt <= now && age >= MAX_RENEWAL_INTERVAL_MS + S3_CLOCK_RESOLUTION_MS;
  }
  return expiresAt + CLOCK_SKEW_MARGIN_MS <= now;
}

/** `user@hostname:pid`, the owner string of this process. */
export function defaultLockOwner(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
  return `${user}@${os.hostname()}:${process.pid}`;
}

/** Parses a lock body; undefined fields for anything unreadable (which then counts as expired). */
export function parseLockInfo(body: string): Partial<LockInfo> {
  try {
    const raw = JSON.parse(body) as unknown;
    return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Partial<LockInfo>) : {};
  } catch {
    return {};
  }
}

/** A lock as read from S3. */
export interface CurrentLock {
  info: Partial<LockInfo>;
  etag: string;
  key: string;
  /** The stored body, as written. */
  body: string;
  /** Judged expired at the time of reading. */
  expired: boolean;
  /** How long ago S3 stored it, by S3's clock, when known. */
  serverAgeMs?: number;
}

function serverAge(times: LockObjectTimes): number | undefined {
  return times.lastModified && times.serverTime
    ? times.serverTime.getTime() - times.lastModified.getTime()
    : undefined;
}

export interface LockManagerOptions {
  logger: Logger;
  /** Lock TTL in seconds. Default 30 minutes. */
  ttlSeconds?: number;
  /** Owner string written into the lock. Default `user@hostname:pid`. */
  owner?: string;
  /** Overrides the renewal interval (default min(2 min, TTL/4)). */
  renewalIntervalMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface AcquireOptions {
  /** What the lock is for, e.g. `deploy`; recorded in the lock. */
  operation?: string;
  /** Further attempts while the lock is held by a live process. Default 3. */
  retries?: number;
  /** Wait between attempts, in ms. Default 2000. */
  retryDelayMs?: number;
}

type AttemptResult = { lock: StackLock } | { held: CurrentLock | undefined };

export class LockManager {
  readonly ttlMs: number;
  readonly owner: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly renewEveryMs: number;
  /** The latest lock taken per key; kept after release as a tombstone, so a second release is a no-op. */
  private readonly held = new Map<string, StackLock>();

  constructor(
    readonly bucket: StateBucket,
    options: LockManagerOptions,
  ) {
    this.logger = options.logger;
    this.ttlMs = (options.ttlSeconds ?? DEFAULT_LOCK_TTL_SECONDS) * 1000;
    this.owner = options.owner ?? defaultLockOwner();
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => defaultSleep(ms));
    this.renewEveryMs = options.renewalIntervalMs ?? renewalIntervalMs(this.ttlMs);
  }

  /**
   * Takes the stack's lock, waiting out a live holder a few times. Throws a
   * {@link LockError} naming the holder and its deadline when it stays held.
   * The returned lock renews itself until released.
   */
  async acquire(stackName: string, region: string, options: AcquireOptions = {}): Promise<StackLock> {
    const retries = options.retries ?? 3;
    const delay = options.retryDelayMs ?? 2000;
    let held: CurrentLock | undefined;
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(stackName, region, options.operation);
      if ('lock' in result) return result.lock;
      held = result.held;
      if (attempt >= retries) break;
      this.logger.info(
        `${this.describeHolder(stackName, region, held)}; retrying in ${Math.round(delay / 1000)}s (attempt ${attempt + 1} of ${retries}).`,
      );
      await this.sleep(delay);
    }
    throw this.heldError(stackName, region, held);
  }

  /** One attempt (with the expired-lock takeover); undefined when a live process holds the lock. */
  async tryAcquire(stackName: string, region: string, operation?: string): Promise<StackLock | undefined> {
    const result = await this.attempt(stackName, region, operation);
    return 'lock' in result ? result.lock : undefined;
  }

  /** The current lock of a stack, or undefined when it is not locked. */
  async readLock(stackName: string, region: string): Promise<CurrentLock | undefined> {
    const key = this.bucket.keys.lockKey(stackName, region);
    const obj = await getObjectText(await this.bucket.client(), this.bucket.name, key);
    if (!obj) return undefined;
    const info = parseLockInfo(obj.body);
    const age = serverAge(obj);
    return {
      info,
      etag: obj.etag,
      key,
      body: obj.body,
      expired: judgeLockExpired(info, this.now(), obj),
      ...(age !== undefined ? { serverAgeMs: age } : {}),
    };
  }

  /**
   * Removes a stack's lock whoever holds it (`cdkd force-unlock`), and purges the
   * key's noncurrent versions. Returns the lock that was removed, if there was one.
   */
  async forceUnlock(stackName: string, region: string): Promise<CurrentLock | undefined> {
    const client = await this.bucket.client();
    const keys = this.bucket.keys;
    let removed = await this.readLock(stackName, region);
    let key = keys.lockKey(stackName, region);
    if (!removed) {
      // A pre-v2 cdkd locked `{prefix}/{stack}/lock.json`, not region-scoped.
      const legacyKey = keys.legacyLockKey(stackName);
      const legacy = await getObjectText(client, this.bucket.name, legacyKey);
      if (legacy) {
        const info = parseLockInfo(legacy.body);
        removed = {
          info,
          etag: legacy.etag,
          key: legacyKey,
          body: legacy.body,
          expired: judgeLockExpired(info, this.now(), legacy),
        };
        key = legacyKey;
      }
    }
    if (!removed) return undefined;
    await client.send(new DeleteObjectCommand({ Bucket: this.bucket.name, Key: key }));
    this.logger.debug(
      `Removed the lock ${this.bucket.uri(key)} held by ${removed.info.owner ?? 'an unknown owner'}.`,
    );
    await purgeAndReport({
      client,
      bucket: this.bucket.name,
      keys: [key],
      kind: 'lock',
      logger: this.logger,
      reportLevel: 'warn',
    });
    return removed;
  }

  private async attempt(
    stackName: string,
    region: string,
    operation: string | undefined,
  ): Promise<AttemptResult> {
    const client = await this.bucket.client();
    const key = this.bucket.keys.lockKey(stackName, region);
    const timestamp = this.now();
    const info: LockInfo = {
      owner: this.owner,
      timestamp,
      expiresAt: timestamp + this.ttlMs,
      ...(operation ? { operation } : {}),
      ttlMs: this.ttlMs,
    };
    const body = JSON.stringify(info);
    let tookOver = false;
    let last: CurrentLock | undefined;
    const hold = (etag: string): AttemptResult => {
      const lock = new StackLock(
        {
          bucket: this.bucket,
          client,
          logger: this.logger,
          now: this.now,
          ttlMs: this.ttlMs,
          renewEveryMs: this.renewEveryMs,
        },
        { key, stackName, region, info, body, etag, renewedAt: timestamp },
      );
      this.held.set(key, lock);
      return { lock };
    };
    try {
      // Bounded: a vanished lock is retried at once, an expired one is taken over once.
      for (let round = 0; round < 4; round++) {
        try {
          // A write whose reply was lost is recognised: the lock then holds exactly our body.
          const out = await putObjectText(client, this.bucket.name, key, body, {
            condition: { IfNoneMatch: '*' },
          });
          this.logger.debug(
            `Acquired the lock ${this.bucket.uri(key)} as ${this.owner}${out.confirmed ? ' (reply lost, read back)' : ''}.`,
          );
          return hold(out.etag);
        } catch (err) {
          if (!isPreconditionFailed(err) && !isConditionalConflict(err)) throw err;
        }
        last = await this.readLock(stackName, region);
        if (!last) continue; // released between our write and our read: try again
        if (!last.expired || tookOver) return { held: last };
        tookOver = await this.takeOver(client, last);
      }
      return { held: last };
    } finally {
      // After the re-acquire, so the takeover's delete marker goes with the reaped versions.
      if (tookOver) {
        await purgeAndReport({
          client,
          bucket: this.bucket.name,
          keys: [key],
          kind: 'lock',
          logger: this.logger,
          reportLevel: 'warn',
        });
      }
    }
  }

  /** Deletes an expired lock, only if it is still the one judged expired. True when it was deleted. */
  private async takeOver(client: S3Client, expired: CurrentLock): Promise<boolean> {
    try {
      await client.send(
        new DeleteObjectCommand({ Bucket: this.bucket.name, Key: expired.key, IfMatch: expired.etag }),
      );
    } catch (err) {
      // Another process reaped or renewed it first: contention, judged on the next read.
      if (isPreconditionFailed(err) || isNoSuchKey(err) || isConditionalConflict(err)) return false;
      throw new LockError(
        `Could not take over the expired lock ${this.bucket.uri(expired.key)} held by ${expired.info.owner ?? 'an unknown owner'}: ${describeAwsError(err)}.`,
        {
          cause: err,
          remedy:
            'The takeover must be conditional (If-Match) so two processes cannot both take the lock. ' +
            'If the endpoint or bucket policy cannot evaluate the condition, clear the lock with `cdkd force-unlock`.',
        },
      );
    }
    this.logger.warn(
      `Took over the expired lock ${this.bucket.uri(expired.key)} from ${expired.info.owner ?? 'an unknown owner'}` +
        `${expired.info.operation ? ` (operation: ${expired.info.operation})` : ''}, ` +
        `which expired ${formatDeadline(expired.info.expiresAt)}. If that process is still running, two writers are now working on this stack.`,
    );
    return true;
  }

  private describeHolder(stackName: string, region: string, held: CurrentLock | undefined): string {
    const root = lockingStackName(stackName);
    if (root !== stackName) stackName = `${root} (whose lock nested stack ${stackName} works under)`;
    if (!held) return `Stack ${stackName} (${region}) is locked`;
    const { owner, operation, timestamp, expiresAt } = held.info;
    const now = this.now();
    const skewed =
      !held.expired && typeof expiresAt === 'number' && expiresAt <= now && held.serverAgeMs !== undefined;
    return (
      `Stack ${stackName} (${region}) is locked by ${owner ?? 'an unknown owner'}` +
      `${operation ? ` (operation: ${operation})` : ''}` +
      `${typeof timestamp === 'number' ? ` since ${new Date(timestamp).toISOString()}` : ''}; ` +
      (skewed
        ? `its deadline ${formatDeadline(expiresAt)} has passed by this machine's clock, but S3 saw it renewed ${Math.round(held.serverAgeMs! / 1000)}s ago, so its holder is alive (the two clocks differ)`
        : `the lock expires ${formatDeadline(expiresAt, now)} unless its holder renews it`)
    );
  }

  private heldError(stackName: string, region: string, held: CurrentLock | undefined): LockError {
    return new LockError(`${this.describeHolder(stackName, region, held)}.`, {
      remedy:
        `Wait for that operation to finish and re-run. If that process is gone, cdkd takes the lock over once it expires; ` +
        `to remove it now, run: cdkd force-unlock ${lockingStackName(stackName)} --region ${region}`,
    });
  }

  /**
   * Releases this process's lock of a stack, if it holds one; a no-op otherwise
   * (never an owner-blind delete) and when it is already released or releasing.
   */
  release(stackName: string, region: string): Promise<void> {
    return this.held.get(this.bucket.keys.lockKey(stackName, region))?.release() ?? Promise.resolve();
  }

  /** Releases every lock this manager holds (interrupt paths). Never throws. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.values()].map((l) => l.release()));
  }
}

/** What a held lock needs from its manager. */
interface StackLockContext {
  bucket: StateBucket;
  client: S3Client;
  logger: Logger;
  now: () => number;
  ttlMs: number;
  renewEveryMs: number;
}

/**
 * A held stack lock. It renews itself in the background until {@link release}.
 * `lost` turns true, and {@link signal} aborts, when the lock can no longer be
 * trusted: another process holds it, it was removed, or renewals kept failing
 * until it could expire under this process.
 */
export class StackLock {
  private etag: string;
  private info: LockInfo;
  private body: string;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private lostLock = false;
  private released = false;
  private deadlineWarned = false;
  /** When the last renewal that S3 confirmed was sent, by this process's clock. */
  private renewedAt: number;
  private readonly controller = new AbortController();
  /** Bodies written whose outcome is unknown (the response was lost), newest last. */
  private readonly unconfirmed: string[] = [];

  /** The lock's key. */
  readonly key: string;
  readonly stackName: string;
  readonly region: string;
  private releasing: Promise<void> | undefined;

  constructor(
    private readonly ctx: StackLockContext,
    held: {
      key: string;
      stackName: string;
      region: string;
      info: LockInfo;
      body: string;
      etag: string;
      renewedAt: number;
    },
  ) {
    this.key = held.key;
    this.stackName = held.stackName;
    this.region = held.region;
    this.info = held.info;
    this.body = held.body;
    this.etag = held.etag;
    this.renewedAt = held.renewedAt;
    this.timer = setInterval(() => void this.renew(), ctx.renewEveryMs);
    this.timer.unref();
  }

  get owner(): string {
    return this.info.owner;
  }

  /** The deadline last written. */
  get expiresAt(): number {
    return this.info.expiresAt;
  }

  /** True once the lock is known lost (see {@link signal}): renewal stopped, release will not delete. */
  get lost(): boolean {
    return this.lostLock;
  }

  /** Aborts, with a {@link LockError} as its reason, when this process may no longer work under the lock. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * When this process must stop at the latest: one renewal interval before a
   * reader could judge the lock expired (a TTL after the last confirmed renewal).
   */
  get stopBy(): number {
    return this.renewedAt + this.ctx.ttlMs - Math.min(this.ctx.renewEveryMs, this.ctx.ttlMs / 4);
  }

  private get bucketName(): string {
    return this.ctx.bucket.name;
  }

  private get logger(): Logger {
    return this.ctx.logger;
  }

  private get client(): S3Client {
    return this.ctx.client;
  }

  private uri(): string {
    return this.ctx.bucket.uri(this.key);
  }

  /** Pushes `expiresAt` forward now (the timer calls this). Never throws. */
  renew(): Promise<void> {
    if (this.released || this.lostLock) return this.renewing ?? Promise.resolve();
    // A renewal that hangs must not hide the deadline.
    this.checkDeadline(this.ctx.now());
    if (this.renewing || this.lostLock) return this.renewing ?? Promise.resolve();
    this.renewing = this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    const { now, ttlMs } = this.ctx;
    const t = now();
    const next: LockInfo = { ...this.info, expiresAt: t + ttlMs };
    const body = JSON.stringify(next);
    try {
      const out = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: this.key,
          Body: body,
          ContentType: 'application/json',
          IfMatch: this.etag,
        }),
        { abortSignal: AbortSignal.timeout(Math.max(1000, this.ctx.renewEveryMs)) },
      );
      this.adopt(next, body, out.ETag ?? '', t);
      return;
    } catch (err) {
      if (!isPreconditionFailed(err) && !isNoSuchKey(err)) {
        this.rememberUnconfirmed(body);
        this.logger.debug(
          `Renewing the lock ${this.uri()} failed (${describeAwsError(err)}); retrying at the next renewal.`,
        );
        this.warnIfDeadlinePassed(t);
        this.checkDeadline(now());
        return;
      }
    }
    // 412: either another process holds the key now, or an earlier write of ours
    // landed with its response lost. Tell the two apart by what is stored.
    let stored;
    try {
      stored = await getObjectText(this.client, this.bucketName, this.key);
    } catch (err) {
      this.logger.debug(`Could not read back the lock ${this.uri()} (${describeAwsError(err)}).`);
      this.warnIfDeadlinePassed(t);
      this.checkDeadline(now());
      return;
    }
    if (stored && (stored.body === body || this.unconfirmed.includes(stored.body))) {
      this.adopt(JSON.parse(stored.body) as LockInfo, stored.body, stored.etag, t);
      return;
    }
    this.markLost(stored ? parseLockInfo(stored.body).owner : undefined);
  }

  private adopt(info: LockInfo, body: string, etag: string, sentAt: number): void {
    this.info = info;
    this.body = body;
    this.etag = etag;
    this.renewedAt = Math.max(this.renewedAt, Math.min(sentAt, info.expiresAt - this.ctx.ttlMs));
    this.unconfirmed.length = 0;
    this.deadlineWarned = false;
  }

  private rememberUnconfirmed(body: string): void {
    this.unconfirmed.push(body);
    if (this.unconfirmed.length > 16) this.unconfirmed.shift();
  }

  private warnIfDeadlinePassed(t: number): void {
    if (this.deadlineWarned || t < this.info.expiresAt) return;
    this.deadlineWarned = true;
    this.logger.warn(
      `The lock on ${this.stackName} (${this.region}) could not be renewed and expired ${formatDeadline(this.info.expiresAt)}; ` +
        `another process may take it over while this operation is still running.`,
    );
  }

  /** Renewals failed for so long that another process could soon take the lock over: stop. */
  private checkDeadline(t: number): void {
    if (this.lostLock || this.released || t < this.stopBy) return;
    this.lostLock = true;
    this.stopTimer();
    const reason = new LockError(
      `Stopped working on ${this.stackName} (${this.region}): the lock ${this.uri()} could not be renewed since ` +
        `${new Date(this.renewedAt).toISOString()}, and another process may take it over once it has been silent for the lock TTL.`,
      {
        code: 'LOCK_LOST',
        remedy:
          'Check the network and the access to the state bucket, then re-run: cdkd settles whatever this run left half-done.',
      },
    );
    this.logger.warn(reason.message);
    this.controller.abort(reason);
  }

  private markLost(newOwner: string | undefined): void {
    this.lostLock = true;
    this.stopTimer();
    const holder = newOwner
      ? `held by ${newOwner}`
      : 'gone (removed by another process, e.g. cdkd force-unlock)';
    const reason = new LockError(
      `Lost the lock on ${this.stackName} (${this.region}): ${this.uri()} is now ${holder}. Stopped starting new operations.`,
      {
        code: 'LOCK_LOST',
        remedy: newOwner
          ? `Another cdkd run (${newOwner}) is working on this stack; let it finish, then re-run if needed.`
          : 'Re-run the command: it takes the lock again and settles whatever this run left half-done.',
      },
    );
    this.logger.warn(reason.message);
    this.controller.abort(reason);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Releases the lock: deletes it only if it is still the object this process
   * wrote, then purges the key's noncurrent versions. Never throws (a failure is
   * a warning; the lock then lapses at its TTL). A second call is a no-op.
   */
  release(): Promise<void> {
    this.releasing ??= this.releaseOnce();
    return this.releasing;
  }

  private async releaseOnce(): Promise<void> {
    this.released = true;
    this.stopTimer();
    try {
      if (this.renewing) await this.renewing;
      if (this.lostLock) {
        this.logger.debug(`Not releasing ${this.uri()}: it is no longer this process's lock.`);
        return;
      }
      if (await this.deleteOwnLock()) {
        await purgeAndReport({
          client: this.client,
          bucket: this.bucketName,
          keys: [this.key],
          kind: 'lock',
          logger: this.logger,
          reportLevel: 'debug',
        });
      }
    } catch (err) {
      this.logger.warn(
        `Could not release the lock ${this.uri()} (${describeAwsError(err)}). ` +
          `It lapses at ${new Date(this.info.expiresAt).toISOString()}; to remove it now, run: cdkd force-unlock ${this.stackName} --region ${this.region}`,
      );
    }
  }

  /** True when the lock is gone afterwards (deleted here, or already deleted). */
  private async deleteOwnLock(): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.bucketName, Key: this.key, IfMatch: this.etag }),
      );
      this.logger.debug(`Released the lock ${this.uri()}.`);
      return true;
    } catch (err) {
      if (isNoSuchKey(err)) {
        // After a retried request the first attempt most likely deleted it (its reply was lost).
        if (sdkAttempts(err) > 1)
          this.logger.debug(`Released the lock ${this.uri()} (reply lost; it is gone).`);
        else
          this.logger.warn(
            `The lock ${this.uri()} was already removed by another process (cdkd force-unlock?).`,
          );
        return true;
      }
      if (isPreconditionFailed(err)) {
        const stored = await getObjectText(this.client, this.bucketName, this.key).catch(() => undefined);
        if (!stored) return true;
        this.logger.warn(
          `Left the lock ${this.uri()} in place: it is now held by ` +
            `${parseLockInfo(stored.body).owner ?? 'an unknown owner'}, not by this process.`,
        );
        return false;
      }
      const status = httpStatus(err);
      // 403 (a policy without s3:GetObject cannot evaluate If-Match) and 501 (an endpoint
      // without conditional deletes) are the only failures that drop the condition.
      if (status === 501 || (status === 403 && isAccessDenied(err)))
        return this.deleteAfterOwnershipCheck(err);
      throw err;
    }
  }

  /**
   * The unconditional fallback, after re-reading the lock by hand: S3 authorizes
   * before it evaluates a precondition, so a 403 can hide a genuine 412. A read
   * that fails refuses (the same policy that caused the 403 may deny it).
   */
  private async deleteAfterOwnershipCheck(cause: unknown): Promise<boolean> {
    let stored;
    try {
      stored = await getObjectText(this.client, this.bucketName, this.key);
    } catch (err) {
      this.logger.warn(
        `Left the lock ${this.uri()} in place: the conditional delete was refused (${describeAwsError(cause)}) ` +
          `and its owner could not be re-checked (${describeAwsError(err)}). It lapses at ${new Date(this.info.expiresAt).toISOString()}.`,
      );
      return false;
    }
    if (!stored) return true;
    const storedInfo = parseLockInfo(stored.body);
    const ours =
      stored.etag === this.etag ||
      stored.body === this.body ||
      (storedInfo.owner === this.info.owner && storedInfo.timestamp === this.info.timestamp);
    if (!ours) {
      this.logger.warn(
        `Left the lock ${this.uri()} in place: it is now held by ${storedInfo.owner ?? 'an unknown owner'}, not by this process.`,
      );
      return false;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: this.key }));
    this.logger.debug(`Released the lock ${this.uri()} (unconditional delete after an ownership check).`);
    return true;
  }
}

/** How many attempts the SDK made for a failed call (1 when it did not retry). */
function sdkAttempts(err: unknown): number {
  const attempts = (err as { $metadata?: { attempts?: unknown } })?.$metadata?.attempts;
  return typeof attempts === 'number' ? attempts : 1;
}

function formatDeadline(expiresAt: unknown, now?: number): string {
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return 'at an invalid time';
  const at = `at ${new Date(expiresAt).toISOString()}`;
  if (now === undefined) return at;
  const seconds = Math.round((expiresAt - now) / 1000);
  if (seconds <= 0) return `${at} (expired)`;
  return seconds >= 120 ? `${at} (in ${Math.round(seconds / 60)} min)` : `${at} (in ${seconds}s)`;
}
