/**
 * The request budget of the Cloud Control path: when to ask
 * `GetResourceRequestStatus` about a resource request again.
 *
 * Requests of one type and operation take similar times, so what one request
 * learns serves the others. Per (type, operation) the schedule keeps the last
 * few finished requests as intervals: the handler was seen still running at
 * `lo` and finished at `hi` (ms after the request was accepted, as the server
 * saw each check: the middle of its round trip).
 *
 * - Known type: the first check goes out so that the server sees it at the
 *   expected completion `hi`. While the interval is wide, one request at a time
 *   checks at its middle first (a bisection probe), so the estimate tightens to
 *   a small tolerance within a few requests. After the expected time, checks back
 *   off exponentially.
 * - Unknown type (no earlier request of it in this run or in the recorded
 *   history): one request (the scout) checks at once and then densely, a fixed
 *   fraction of its elapsed time apart; the others wait, and are re-planned the
 *   moment the scout's result lands. A scout that ends without a result hands
 *   the job to the next waiting request.
 * - `RetryAfter` from the progress event is the earliest next check.
 * - A check that got no answer (throttled past the SDK's retries, a network
 *   error) is followed by one after an exponentially growing delay.
 * - The handler timeout of the type's schema bounds the wait and the longest
 *   delay between two checks.
 *
 * Time comes from an injected {@link Clock}, so tests drive it by hand.
 */

/** A Cloud Control resource operation. */
export type RequestOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** Time and timers (the system clock by default; a manual one in tests). */
export interface Clock {
  now(): number;
  /** Runs `fn` after `ms` milliseconds; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** One finished request: still running when seen at `lo` ms (if ever seen so), finished when seen at `hi` ms. */
export interface DurationSample {
  lo?: number;
  hi: number;
}

/** Checks spent per type and operation in this run (for reports and benchmarks). */
export interface PollStats {
  typeName: string;
  operation: RequestOperation;
  /** Requests waited for. */
  requests: number;
  /** Status checks sent (answered or not). */
  checks: number;
  /** Checks that got no answer (throttled past the SDK's retries, network errors). */
  unanswered: number;
}

export interface PollScheduleOptions {
  clock?: Clock;
  /** Shortest time between two checks of one request. Default 100 ms. */
  minDelayMs?: number;
  /** Longest time between two checks of one request. Default 30 s. */
  maxDelayMs?: number;
  /** A scout's next check comes after this fraction of its elapsed time. Default 0.1. */
  scoutFraction?: number;
  /** A request waiting on a scout checks by itself at this elapsed time, then at twice its last one. Default 5 s. */
  waitingFirstCheckMs?: number;
  /** After the expected time, the first re-check comes after this fraction of it, doubling. Default 0.05. */
  overdueFraction?: number;
  /** Bisection stops once the interval is this narrow... Default 25 ms,*/
  toleranceMs?: number;
  /** ...or this fraction of the expected time, whichever is larger. Default 0.015. */
  toleranceFraction?: number;
  /** Finished requests remembered per type and operation. Default 16. */
  window?: number;
  /** How long a `RetryAfter` may defer a check at most. Default 5 min. */
  maxRetryAfterMs?: number;
  /** Earlier runs' samples, by {@link scheduleKey}. */
  history?: Record<string, DurationSample[]>;
}

/** Handler timeout the CloudFormation registry schema documents as the default. */
export const DEFAULT_HANDLER_TIMEOUT_MINUTES = 120;

/** The key samples are kept under: `AWS::SNS::Topic|CREATE`. */
export function scheduleKey(typeName: string, operation: RequestOperation): string {
  return `${typeName}|${operation}`;
}

type Resolved = Required<Omit<PollScheduleOptions, 'history'>>;

/** Longer half round trips of a check are not used to time the next checks. */
const MAX_HALF_ROUND_TRIP_MS = 1000;

/** Why a check goes out when it does; decides what its answer teaches. */
type CheckKind = 'scout' | 'waiting' | 'probe' | 'expected' | 'overdue';

interface Expectation {
  lo: number;
  hi: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** What the run knows about one type and operation. */
class TypeKnowledge {
  readonly samples: DurationSample[] = [];
  readonly waiting = new Set<PollTicket>();
  scouts = 0;
  /** The request whose first check is a bisection probe (one at a time). */
  prober?: PollTicket;
  requests = 0;
  checks = 0;
  unanswered = 0;
  /** Half the round trip of a status check, smoothed over the type's checks. */
  halfRoundTripMs?: number;

  constructor(
    readonly typeName: string,
    readonly operation: RequestOperation,
    private readonly window: number,
  ) {}

  /**
   * The interval the next request's completion is expected in. When the samples
   * agree (every `lo` below every `hi`) it is their intersection; when durations
   * vary it is their medians.
   */
  expected(): Expectation | undefined {
    if (this.samples.length === 0) return undefined;
    const his = this.samples.map((s) => s.hi);
    const los = this.samples.map((s) => s.lo ?? 0);
    const hi = Math.min(...his);
    const lo = Math.max(...los);
    if (lo < hi) return { lo, hi };
    const middle = median(his);
    return { lo: Math.min(median(los), middle), hi: middle };
  }

  add(sample: DurationSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.window) this.samples.splice(0, this.samples.length - this.window);
    this.changed();
  }

  /** Re-plans every waiting request (something was learnt, or a scout slot freed). */
  changed(): void {
    for (const ticket of [...this.waiting]) ticket.replan();
  }
}

/**
 * The polling plan of one run: shared by every Cloud Control request of the
 * run, so requests learn from each other.
 */
export class PollSchedule {
  private readonly options: Resolved;
  private readonly knowledge = new Map<string, TypeKnowledge>();

  constructor(options: PollScheduleOptions = {}) {
    this.options = {
      clock: SYSTEM_CLOCK,
      minDelayMs: 100,
      maxDelayMs: 30_000,
      scoutFraction: 0.1,
      waitingFirstCheckMs: 5000,
      overdueFraction: 0.05,
      toleranceMs: 25,
      toleranceFraction: 0.015,
      window: 16,
      maxRetryAfterMs: 5 * 60_000,
      ...withoutUndefined(options),
    };
    for (const [key, samples] of Object.entries(options.history ?? {})) {
      const [typeName, operation] = key.split('|') as [string, RequestOperation];
      const known = this.of(typeName, operation);
      for (const sample of samples) if (isSample(sample)) known.samples.push(sample);
      known.samples.splice(0, Math.max(0, known.samples.length - this.options.window));
    }
  }

  get clock(): Clock {
    return this.options.clock;
  }

  /**
   * Starts planning the checks of one request, accepted now.
   * @param handlerTimeoutMinutes the schema's `handlers.<operation>.timeoutInMinutes`, when it has one
   */
  begin(typeName: string, operation: RequestOperation, handlerTimeoutMinutes?: number): PollTicket {
    const known = this.of(typeName, operation);
    known.requests++;
    const timeoutMs = (handlerTimeoutMinutes ?? DEFAULT_HANDLER_TIMEOUT_MINUTES) * 60_000;
    // At least ~30 checks fit in the handler timeout, however long the request runs.
    const maxDelayMs = Math.max(this.options.minDelayMs, Math.min(this.options.maxDelayMs, timeoutMs / 30));
    return new PollTicket(known, this.options, this.options.clock.now(), timeoutMs, maxDelayMs);
  }

  /** Samples per type and operation, for the next run (see {@link PollScheduleOptions.history}). */
  history(): Record<string, DurationSample[]> {
    const out: Record<string, DurationSample[]> = {};
    for (const k of this.knowledge.values())
      if (k.samples.length) out[scheduleKey(k.typeName, k.operation)] = k.samples.map((s) => ({ ...s }));
    return out;
  }

  /** Requests and checks per type and operation in this run. */
  stats(): PollStats[] {
    return [...this.knowledge.values()]
      .filter((k) => k.requests > 0)
      .map((k) => ({
        typeName: k.typeName,
        operation: k.operation,
        requests: k.requests,
        checks: k.checks,
        unanswered: k.unanswered,
      }));
  }

  private of(typeName: string, operation: RequestOperation): TypeKnowledge {
    const key = scheduleKey(typeName, operation);
    let known = this.knowledge.get(key);
    if (!known) {
      known = new TypeKnowledge(typeName, operation, this.options.window);
      this.knowledge.set(key, known);
    }
    return known;
  }
}

/** The checks of one request. Call {@link next} before each check, then {@link answered} or {@link unanswered}, and {@link end} once. */
export class PollTicket {
  private checks = 0;
  private overdueChecks = 0;
  private failedChecks = 0;
  private scout = false;
  private ended = false;
  /** When the last check was sent (absolute), its kind, and its round trip. */
  private lastSentAt?: number;
  private lastKind?: CheckKind;
  private halfRoundTripMs?: number;
  /** Elapsed time at which the server last reported the handler still running. */
  private lastRunningAt?: number;
  /** Set while {@link next} waits: re-computes the due time. */
  private replanWait?: () => void;

  constructor(
    private readonly known: TypeKnowledge,
    private readonly options: Resolved,
    /** When the request was accepted. */
    readonly startedAt: number,
    /** The handler timeout: give up waiting after this long. */
    readonly timeoutMs: number,
    private readonly maxDelayMs: number,
  ) {
    if (!known.expected() && known.scouts === 0) this.becomeScout();
  }

  /** Time since the request was accepted. */
  elapsedMs(): number {
    return this.options.clock.now() - this.startedAt;
  }

  /** True once the handler timeout has passed. */
  timedOut(): boolean {
    return this.elapsedMs() > this.timeoutMs;
  }

  /**
   * Waits until the next check is due (at once when it already is). Rejects with
   * the signal's reason when it is aborted.
   * @param retryAfter the progress event's `RetryAfter`, the earliest next check
   */
  next(retryAfter?: Date, signal?: AbortSignal): Promise<void> {
    const { clock } = this.options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      let cancel: (() => void) | undefined;
      let kind: CheckKind = 'expected';
      const fire = (): void => {
        cleanup();
        this.sent(kind);
        resolve();
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason);
      };
      const cleanup = (): void => {
        cancel?.();
        cancel = undefined;
        this.known.waiting.delete(this);
        this.replanWait = undefined;
        signal?.removeEventListener('abort', onAbort);
      };
      const plan = (): void => {
        const planned = this.plan(retryAfter);
        kind = planned.kind;
        cancel?.();
        cancel = undefined;
        const delay = planned.dueAt - clock.now();
        if (delay <= 0) return fire();
        cancel = clock.setTimer(fire, delay);
      };
      this.replanWait = plan;
      this.known.waiting.add(this);
      signal?.addEventListener('abort', onAbort, { once: true });
      plan();
    });
  }

  /** Re-plans a waiting check (called when the type's knowledge changed). */
  replan(): void {
    if (!this.scout && !this.known.expected() && this.known.scouts === 0) this.becomeScout();
    this.replanWait?.();
  }

  /** Records the answer to the check sent last. */
  answered(status: string | undefined): void {
    const observedAt = this.observedAt();
    this.failedChecks = 0;
    this.releaseProbe();
    if (status === 'SUCCESS') {
      this.known.add({
        ...(this.lastRunningAt === undefined ? {} : { lo: this.lastRunningAt }),
        hi: observedAt,
      });
      return;
    }
    if (status === 'PENDING' || status === 'IN_PROGRESS') {
      this.lastRunningAt = observedAt;
      if (this.lastKind === 'expected' || this.lastKind === 'overdue') this.overdueChecks++;
    }
  }

  /** Records that the check sent last got no answer. */
  unanswered(): void {
    this.known.unanswered++;
    this.failedChecks++;
    this.releaseProbe();
  }

  /** How many checks in a row got no answer. */
  get consecutiveUnanswered(): number {
    return this.failedChecks;
  }

  /** The request settled or the wait was given up: frees a scout slot. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.known.waiting.delete(this);
    this.releaseProbe();
    if (this.scout) {
      this.scout = false;
      this.known.scouts--;
      if (!this.known.expected()) this.known.changed();
    }
  }

  private becomeScout(): void {
    this.scout = true;
    this.known.scouts++;
  }

  private sent(kind: CheckKind): void {
    this.checks++;
    this.known.checks++;
    this.lastSentAt = this.options.clock.now();
    this.lastKind = kind;
  }

  private releaseProbe(): void {
    if (this.known.prober === this) this.known.prober = undefined;
  }

  /** When the server saw the check just answered: the middle of its round trip (elapsed ms). */
  private observedAt(): number {
    const now = this.options.clock.now();
    const sent = this.lastSentAt ?? now;
    const half = (now - sent) / 2;
    // A check the SDK had to retry took its backoff too: that is no round trip to learn from.
    if (half <= MAX_HALF_ROUND_TRIP_MS) {
      this.halfRoundTripMs = half;
      const known = this.known.halfRoundTripMs;
      this.known.halfRoundTripMs = known === undefined ? half : known + (half - known) / 8;
    }
    return sent + half - this.startedAt;
  }

  private tolerance(hi: number): number {
    return Math.max(this.options.toleranceMs, this.options.toleranceFraction * hi);
  }

  private plan(retryAfter?: Date): { dueAt: number; kind: CheckKind } {
    const { clock, minDelayMs } = this.options;
    const now = clock.now();
    const start = this.startedAt;
    const last = this.lastSentAt;
    const expected = this.known.expected();
    let dueAt: number;
    let kind: CheckKind;
    if (expected) {
      if (this.overdueChecks === 0) {
        const middle = (expected.lo + expected.hi) / 2;
        const probe =
          this.checks === 0 &&
          expected.hi - expected.lo > this.tolerance(expected.hi) &&
          now - start < middle &&
          (this.known.prober === undefined || this.known.prober === this);
        if (probe) this.known.prober = this;
        else this.releaseProbe();
        kind = probe ? 'probe' : 'expected';
        // Sent so that the server sees it at the target: half a round trip early.
        const lead = this.halfRoundTripMs ?? this.known.halfRoundTripMs ?? 0;
        dueAt = start + (probe ? middle : expected.hi) - lead;
      } else {
        kind = 'overdue';
        const first = Math.max(minDelayMs, this.options.overdueFraction * expected.hi);
        const step = first * 2 ** (this.overdueChecks - 1);
        dueAt = (last ?? now) + this.clampDelay(step);
      }
    } else if (this.scout) {
      kind = 'scout';
      dueAt = last === undefined ? now : last + this.clampDelay(this.options.scoutFraction * (last - start));
    } else {
      kind = 'waiting';
      const previous = last === undefined ? 0 : last - start;
      dueAt = start + Math.max(this.options.waitingFirstCheckMs, 2 * previous);
      if (last !== undefined) dueAt = Math.min(dueAt, last + 4 * this.maxDelayMs);
    }
    if (this.failedChecks > 0) {
      dueAt = Math.max(dueAt, (last ?? now) + this.clampDelay(minDelayMs * 2 ** this.failedChecks));
    }
    if (last !== undefined) dueAt = Math.max(dueAt, last + minDelayMs);
    if (retryAfter) {
      dueAt = Math.max(dueAt, Math.min(retryAfter.getTime(), now + this.options.maxRetryAfterMs));
    }
    return { dueAt, kind };
  }

  private clampDelay(ms: number): number {
    return Math.min(this.maxDelayMs, Math.max(this.options.minDelayMs, ms));
  }
}

function isSample(value: unknown): value is DurationSample {
  const s = value as DurationSample;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.hi === 'number' &&
    Number.isFinite(s.hi) &&
    s.hi >= 0 &&
    (s.lo === undefined || (typeof s.lo === 'number' && Number.isFinite(s.lo)))
  );
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
