/**
 * Group commit onto a stack's write-ahead log: records queue while segments are
 * being written, and the next segment carries all of them, so announcing many
 * ready operations at once costs one S3 write, not one each. The records queued
 * in one turn of the event loop go out together (a burst of ready operations is
 * one segment).
 *
 * A few segments may be in flight at once (`maxInFlight`), so an intent waits
 * for about one S3 round trip instead of the one in flight and then its own. A
 * second segment starts while one is in flight only when a caller is waiting on
 * it (an intent); outcomes alone ride the next segment that goes out anyway.
 *
 * A record is acknowledged only once its segment **and every earlier one** are
 * durable (the contiguous durable prefix): an intent is never acknowledged, and
 * its AWS call never sent, while an outcome queued before it is still unwritten.
 * A crash can leave a gap (a later segment stored, an earlier one not); nothing
 * in the later one was acknowledged, so replay applying it is harmless.
 * A caller that must not go on before its record is durable (an intent, before
 * its AWS call) awaits {@link WriteAheadWriter.append}; outcomes are posted
 * without waiting.
 *
 * A segment that cannot be written (S3 keeps failing after the retries, or
 * another process claimed its number) stops the writer for good: every waiting
 * and later record is refused with that error, and `onFailure` fires so the
 * command stops dispatching. Nothing whose intent was refused is ever sent.
 */
import type { WalRecord, WalSegmentRef, WriteAheadLogStore } from '../state/write-ahead-log';
import { WAL_FORMAT_VERSION } from '../state/write-ahead-log';

/** Segment writes in flight at once, by default. */
export const DEFAULT_WAL_IN_FLIGHT = 4;

export interface WriteAheadWriterOptions {
  store: WriteAheadLogStore;
  stackName: string;
  region: string;
  lineage: string;
  /** The lock owner, recorded in each segment. */
  writer: string;
  /** The number of the first segment this writer writes. */
  firstSeq: number;
  /** After each segment is durable together with every earlier one, in order. */
  onSegment?: (segment: WalSegmentRef, bytes: number) => void;
  /** Once, when the writer stops for good. */
  onFailure?: (err: unknown) => void;
  /** Segment writes in flight at once (1 = one at a time). Default {@link DEFAULT_WAL_IN_FLIGHT}. */
  maxInFlight?: number;
  now?: () => number;
}

interface Queued {
  record: WalRecord;
  resolve?: () => void;
  reject?: (err: unknown) => void;
}

/** A segment written but not yet acknowledged (an earlier one is still in flight). */
interface Landed {
  ref: WalSegmentRef;
  bytes: number;
  batch: Queued[];
}

export class WriteAheadWriter {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  private nextSeq: number;
  /** Every segment up to this one is durable. */
  private durablePrefix: number;
  /** Segments in flight, by number (the records to acknowledge). */
  private readonly pending = new Map<number, Queued[]>();
  /** Segments durable above the prefix, waiting for an earlier one. */
  private readonly landedAhead = new Map<number, Landed>();
  private failure: unknown;
  private failed = false;
  private idle: Array<() => void> = [];
  /** Segments this writer made durable, in order (the acknowledged prefix). */
  readonly written: WalSegmentRef[] = [];
  /** Segments that landed after the writer stopped, above the durable prefix (never acknowledged). */
  readonly unacknowledged: WalSegmentRef[] = [];
  readonly stats = { writes: 0, bytes: 0 };

  constructor(private readonly options: WriteAheadWriterOptions) {
    const max = options.maxInFlight ?? DEFAULT_WAL_IN_FLIGHT;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxInFlight must be a whole number of at least 1, got ${max}`);
    this.nextSeq = options.firstSeq;
    this.durablePrefix = options.firstSeq - 1;
  }

  /** The segment the next write claims. */
  get pendingSeq(): number {
    return this.nextSeq;
  }

  /** The last segment up to which every segment of this writer is durable (firstSeq - 1 before any). */
  get lastDurableSeq(): number {
    return this.durablePrefix;
  }

  /** The error that stopped the writer, if it stopped. */
  get error(): unknown {
    return this.failed ? this.failure : undefined;
  }

  /** Queues records; resolves once they are durable, rejects if they never will be. */
  append(...records: WalRecord[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failure);
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      records.forEach((record, i) =>
        this.queue.push(i === records.length - 1 ? { record, resolve, reject } : { record }),
      );
      this.schedule();
    });
  }

  /** Queues records without waiting (an outcome); a failure shows in {@link flush} and `onFailure`. */
  post(...records: WalRecord[]): void {
    if (this.failed || records.length === 0) return;
    for (const record of records) this.queue.push({ record });
    this.schedule();
  }

  /**
   * Waits until every queued record is durable; throws if the writer stopped
   * (once no segment write is in flight any more, so {@link unacknowledged} is complete).
   */
  async flush(): Promise<void> {
    while (this.inFlight > 0 || (!this.failed && (this.queue.length > 0 || this.scheduled))) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    if (this.failed) throw this.failure;
  }

  /** Pumps once the current turn of the event loop has queued what it will. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.failed) return this.wakeIdle();
    const max = this.options.maxInFlight ?? DEFAULT_WAL_IN_FLIGHT;
    const someoneWaits = () => this.queue.some((q) => q.resolve);
    if (this.queue.length > 0 && (this.inFlight === 0 || (this.inFlight < max && someoneWaits())))
      this.writeSegment();
    if (this.inFlight === 0 && this.queue.length === 0) this.wakeIdle();
  }

  private wakeIdle(): void {
    if (this.scheduled && !this.failed) return;
    const waiting = this.idle;
    this.idle = [];
    for (const w of waiting) w();
  }

  private writeSegment(): void {
    const batch = this.queue;
    this.queue = [];
    const seq = this.nextSeq++;
    this.pending.set(seq, batch);
    this.inFlight++;
    const { store, stackName, region, lineage, writer } = this.options;
    void store
      .write({
        walVersion: WAL_FORMAT_VERSION,
        stackName,
        region,
        lineage,
        seq,
        writer,
        writtenAt: (this.options.now ?? Date.now)(),
        records: batch.map((q) => q.record),
      })
      .then(
        (out) =>
          this.landed({
            ref: { seq, key: out.key, ...(out.versionId ? { versionId: out.versionId } : {}) },
            bytes: out.bytes,
            batch,
          }),
        (err: unknown) => this.stop(err),
      )
      .finally(() => {
        this.inFlight--;
        this.pump();
      });
  }

  /** A segment is stored: acknowledge it and every later one the prefix now reaches. */
  private landed(segment: Landed): void {
    this.pending.delete(segment.ref.seq);
    if (this.failed) {
      this.unacknowledged.push(segment.ref);
      return;
    }
    this.landedAhead.set(segment.ref.seq, segment);
    for (
      let next = this.landedAhead.get(this.durablePrefix + 1);
      next;
      next = this.landedAhead.get(this.durablePrefix + 1)
    ) {
      this.landedAhead.delete(next.ref.seq);
      this.durablePrefix = next.ref.seq;
      this.written.push(next.ref);
      this.stats.writes++;
      this.stats.bytes += next.bytes;
      for (const q of next.batch) q.resolve?.();
      this.options.onSegment?.(next.ref, next.bytes);
    }
  }

  private stop(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.failure = err;
    const refused = [
      ...[...this.pending.values()].flat(),
      ...[...this.landedAhead.values()].flatMap((l) => l.batch),
      ...this.queue,
    ];
    for (const l of this.landedAhead.values()) this.unacknowledged.push(l.ref);
    this.landedAhead.clear();
    this.pending.clear();
    this.queue = [];
    for (const q of refused) q.reject?.(err);
    this.options.onFailure?.(err);
    this.wakeIdle();
  }
}
