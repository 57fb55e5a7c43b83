/**
 * How many resource operations run at once: a limit per pool that follows AWS
 * instead of a constant.
 *
 * Two pools, because their work differs. A Cloud Control request is mostly
 * idle waiting for AWS (seconds to minutes per request, a few small calls), so
 * many of them can be in flight; an SDK provider call costs the process CPU per
 * call and finishes in a round trip, so its ceiling is lower. Its ceiling is
 * still high (200): under real latencies (tens of milliseconds per call) a low
 * one, not AWS, bounded a 200-resource deploy (docs/benchmarks.md), and
 * throttling, not a guess, is what brings the limit down. It starts at 20, not
 * 10: SDK calls are short, and with 10 the heads of a 200-resource app's
 * longest chains waited a round trip for slots (1.13x of the critical path
 * instead of 1.03x in the packs benchmark). The client
 * factory sizes each service client's socket pool to match
 * (`DEFAULT_MAX_SOCKETS` in src/config/aws-clients.ts).
 *
 * Each limit starts low and grows while AWS accepts calls of its pool: by one
 * per accepted call while below the slow-start threshold (it doubles per round
 * trip), then by one per window of calls. A throttled call
 * (`ThrottlingException`, `RequestLimitExceeded`, ... as the SDK's retry
 * strategy classifies it) halves the limit, at most once per cool-down, and the
 * threshold with it. A limit never leaves [floor, ceiling]; the ceilings are
 * the documented maximum (docs/benchmarks.md). Lowering a limit stops new
 * starts only: operations in flight finish.
 *
 * `--concurrency N` still caps each graph run at N operations in flight
 * ({@link AdaptiveConcurrency.gate}).
 */
import type { ConcurrencyGate } from './concurrency';

/** The pools resource operations are counted in. */
export type OperationPool = 'cloud-control' | 'sdk';

export interface PoolSettings {
  /** Slots at the start of a run. */
  initial: number;
  /** Fewest slots after backing off. */
  floor: number;
  /** Most slots, however well calls go. */
  ceiling: number;
}

/** The documented defaults. */
export const POOL_DEFAULTS: Readonly<Record<OperationPool, Readonly<PoolSettings>>> = {
  'cloud-control': { initial: 16, floor: 2, ceiling: 250 },
  sdk: { initial: 20, floor: 2, ceiling: 200 },
};

/** What one pool did in a run (for reports and benchmarks). */
export interface PoolStats {
  /** The limit now. */
  limit: number;
  ceiling: number;
  /** Most operations of the pool in flight at once. */
  peakInFlight: number;
  /** Calls of the pool that AWS throttled (each attempt counts). */
  throttles: number;
  /** Times the limit was halved. */
  backoffs: number;
}

export interface AdaptiveConcurrencyOptions {
  pools?: Partial<Record<OperationPool, Partial<PoolSettings>>>;
  /** After halving a limit, further throttles within this time do not halve it again. Default 1000 ms. */
  cooldownMs?: number;
  /** Injected for tests. */
  now?: () => number;
}

class Pool {
  limit: number;
  threshold: number;
  inFlight = 0;
  peakInFlight = 0;
  throttles = 0;
  backoffs = 0;
  lastBackoffAt = -Infinity;

  constructor(readonly settings: PoolSettings) {
    this.limit = settings.initial;
    this.threshold = settings.ceiling;
  }

  get slots(): number {
    return Math.floor(this.limit);
  }
}

export class AdaptiveConcurrency {
  private readonly pools: Record<OperationPool, Pool>;
  private readonly listeners = new Set<() => void>();
  private notifyQueued = false;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(options: AdaptiveConcurrencyOptions = {}) {
    this.cooldownMs = options.cooldownMs ?? 1000;
    this.now = options.now ?? (() => Date.now());
    const pool = (name: OperationPool): Pool => {
      const s = { ...POOL_DEFAULTS[name], ...options.pools?.[name] };
      for (const [key, value] of Object.entries(s)) {
        if (!Number.isInteger(value) || value < 1)
          throw new RangeError(`${name} pool: ${key} must be a whole number of at least 1, got ${value}`);
      }
      if (s.floor > s.initial || s.initial > s.ceiling)
        throw new RangeError(`${name} pool: expected floor <= initial <= ceiling, got ${JSON.stringify(s)}`);
      return new Pool(s);
    };
    this.pools = { 'cloud-control': pool('cloud-control'), sdk: pool('sdk') };
  }

  /** Slots of the pool now. */
  limit(pool: OperationPool): number {
    return this.pools[pool].slots;
  }

  inFlight(pool: OperationPool): number {
    return this.pools[pool].inFlight;
  }

  /** AWS accepted a call of the pool: grow while the pool is using every slot. */
  succeeded(pool: OperationPool): void {
    const p = this.pools[pool];
    if (p.inFlight < p.slots || p.limit >= p.settings.ceiling) return;
    const before = p.slots;
    p.limit = Math.min(p.settings.ceiling, p.limit < p.threshold ? p.limit + 1 : p.limit + 1 / p.limit);
    if (p.slots > before) this.notify();
  }

  /** AWS throttled a call of the pool: halve the limit, once per cool-down. */
  throttled(pool: OperationPool): void {
    const p = this.pools[pool];
    p.throttles++;
    const now = this.now();
    if (now - p.lastBackoffAt < this.cooldownMs) return;
    p.lastBackoffAt = now;
    p.backoffs++;
    p.limit = Math.max(p.settings.floor, Math.floor(p.limit / 2));
    p.threshold = p.limit;
  }

  stats(): Record<OperationPool, PoolStats> {
    const of = (p: Pool): PoolStats => ({
      limit: p.slots,
      ceiling: p.settings.ceiling,
      peakInFlight: p.peakInFlight,
      throttles: p.throttles,
      backoffs: p.backoffs,
    });
    return { 'cloud-control': of(this.pools['cloud-control']), sdk: of(this.pools.sdk) };
  }

  /**
   * The executor's view for one graph run: `poolOf` says which pool a node's
   * operation counts in; `cap` (`--concurrency`), when given, bounds this run's
   * operations in flight whatever the pools allow.
   */
  gate(poolOf: (id: string) => OperationPool, cap?: number): ConcurrencyGate {
    if (cap !== undefined && (!Number.isInteger(cap) || cap < 1))
      throw new RangeError(`cap must be a whole number of at least 1, got ${cap}`);
    let running = 0;
    return {
      classOf: (id) => poolOf(id),
      tryAcquire: (cls) => {
        const p = this.pools[cls as OperationPool];
        if (p.inFlight >= p.slots || (cap !== undefined && running >= cap)) return false;
        p.inFlight++;
        p.peakInFlight = Math.max(p.peakInFlight, p.inFlight);
        running++;
        return true;
      },
      release: (cls) => {
        this.pools[cls as OperationPool].inFlight--;
        running--;
        this.notify();
      },
      onCapacity: (listener) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
    };
  }

  /** Tells every graph run that slots may be free, once per turn of the event loop. */
  private notify(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    queueMicrotask(() => {
      this.notifyQueued = false;
      for (const listener of [...this.listeners]) listener();
    });
  }
}
