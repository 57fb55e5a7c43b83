/**
 * Group commit onto a stack's write-ahead log: records queue while a segment is
 * being written, and the next segment carries all of them, so announcing many
 * ready operations at once costs one S3 write, not one each (and at most one
 * write is in flight, which keeps segments in order). A caller that must not go
 * on before its record is durable (an intent, before its AWS call) awaits
 * {@link WriteAheadWriter.append}; outcomes are posted without waiting.
 *
 * A segment that cannot be written (S3 keeps failing after the retries, or
 * another process claimed its number) stops the writer for good: every waiting
 * and later record is refused with that error, and `onFailure` fires so the
 * command stops dispatching. Nothing whose intent was refused is ever sent.
 */
import type { WalRecord, WalSegmentRef, WriteAheadLogStore } from '../state/write-ahead-log';
import { WAL_FORMAT_VERSION } from '../state/write-ahead-log';

export interface WriteAheadWriterOptions {
  store: WriteAheadLogStore;
  stackName: string;
  region: string;
  lineage: string;
  /** The lock owner, recorded in each segment. */
  writer: string;
  /** The number of the first segment this writer writes. */
  firstSeq: number;
  /** After each segment is durable. */
  onSegment?: (segment: WalSegmentRef, bytes: number) => void;
  /** Once, when the writer stops for good. */
  onFailure?: (err: unknown) => void;
  now?: () => number;
}

interface Queued {
  record: WalRecord;
  resolve?: () => void;
  reject?: (err: unknown) => void;
}

export class WriteAheadWriter {
  private queue: Queued[] = [];
  private inFlight: Promise<void> | undefined;
  private nextSeq: number;
  private failure: unknown;
  private failed = false;
  private idle: Array<() => void> = [];
  /** Segments this writer made durable, in order. */
  readonly written: WalSegmentRef[] = [];
  readonly stats = { writes: 0, bytes: 0 };

  constructor(private readonly options: WriteAheadWriterOptions) {
    this.nextSeq = options.firstSeq;
  }

  /** The segment the next write claims. */
  get pendingSeq(): number {
    return this.nextSeq;
  }

  /** The number of the last durable segment (firstSeq - 1 before any). */
  get lastDurableSeq(): number {
    return this.written.length ? this.written[this.written.length - 1].seq : this.options.firstSeq - 1;
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
      this.pump();
    });
  }

  /** Queues records without waiting (an outcome); a failure shows in {@link flush} and `onFailure`. */
  post(...records: WalRecord[]): void {
    if (this.failed || records.length === 0) return;
    for (const record of records) this.queue.push({ record });
    this.pump();
  }

  /** Waits until every queued record is durable; throws if the writer stopped. */
  async flush(): Promise<void> {
    while (this.inFlight || this.queue.length > 0) {
      if (this.failed) break;
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    if (this.failed) throw this.failure;
  }

  private pump(): void {
    if (this.inFlight || this.failed) return;
    if (this.queue.length === 0) {
      const waiting = this.idle;
      this.idle = [];
      for (const w of waiting) w();
      return;
    }
    const batch = this.queue;
    this.queue = [];
    const seq = this.nextSeq++;
    const { store, stackName, region, lineage, writer } = this.options;
    this.inFlight = store
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
        (out) => {
          const ref: WalSegmentRef = {
            seq,
            key: out.key,
            ...(out.versionId ? { versionId: out.versionId } : {}),
          };
          this.written.push(ref);
          this.stats.writes++;
          this.stats.bytes += out.bytes;
          for (const q of batch) q.resolve?.();
          this.options.onSegment?.(ref, out.bytes);
        },
        (err: unknown) => this.stop(err, batch),
      )
      .finally(() => {
        this.inFlight = undefined;
        this.pump();
      });
  }

  private stop(err: unknown, batch: Queued[]): void {
    this.failed = true;
    this.failure = err;
    const refused = [...batch, ...this.queue];
    this.queue = [];
    for (const q of refused) q.reject?.(err);
    this.options.onFailure?.(err);
    const waiting = this.idle;
    this.idle = [];
    for (const w of waiting) w();
  }
}
