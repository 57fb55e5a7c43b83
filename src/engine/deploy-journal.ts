/**
 * A deploy's side of the rollback journal. Before the first operation it writes
 * an in-progress segment (`interrupted`, with the log segment the record was
 * folded to), so a process killed mid-deploy leaves a journal whose operations
 * `cdkd rollback` completes from the write-ahead log; each periodic fold
 * rewrites it with the operations so far. When the deploy ends without
 * reaching its template it writes the final segment (the operations it
 * completed and the ones that failed); when it succeeds it removes the journal.
 */
import type {
  FailedOperation,
  RollbackJournal,
  RollbackJournalSegment,
  RollbackJournalStore,
  RollbackSegmentReason,
} from '../state/rollback-journal';
import { emptyJournal } from '../state/rollback-journal';
import { formatError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { JournalRecorder } from './journal-recorder';
import type { StackSession } from './stack-session';

export class DeployJournal {
  readonly recorder = new JournalRecorder();
  private earlier: RollbackJournal | undefined;
  /** The object exists (read or written by this deploy). */
  private exists = false;
  private readonly timestamp = Date.now();

  constructor(
    private readonly store: RollbackJournalStore,
    private readonly session: StackSession,
    private readonly logger: Logger,
    private readonly initialDeploy: boolean,
    /** The deploy's asset storage-name rewrite: a later `cdkd rollback` redeploys nested stacks with it. */
    private readonly assetNameRewrite: ReadonlyArray<{ from: string; to: string }> = [],
  ) {}

  /** Reads the stack's journal, starts recording the session's outcomes and writes the in-progress segment. */
  async start(): Promise<void> {
    const { stackName, region } = this.session;
    try {
      this.earlier = await this.store.read(stackName, region);
    } catch (err) {
      this.logger.warn(
        `${stackName}: the rollback journal cannot be read; this deploy's journal replaces it: ${formatError(err)}`,
      );
    }
    this.exists = this.earlier !== undefined;
    this.session.onOutcome = (o) => this.recorder.observe(o);
    this.session.beforeFold = (seq) => this.write(this.segment('interrupted', seq));
    await this.write(this.segment('interrupted', this.session.builder.walSeq));
  }

  /** Stops recording (the rollback's own operations are not the deploy's). */
  stop(): void {
    this.session.onOutcome = undefined;
    this.session.beforeFold = undefined;
  }

  /** This deploy's segment. `walSeq`: while it runs, the log segment its operations continue after. */
  segment(reason: RollbackSegmentReason, walSeq?: number): RollbackJournalSegment {
    return {
      timestamp: this.timestamp,
      reason,
      initialDeploy: this.initialDeploy,
      ...this.rewriteField(),
      operations: [...this.recorder.operations],
      ...(this.recorder.failedOperations.length
        ? { failedOperations: [...this.recorder.failedOperations] }
        : {}),
      ...(walSeq !== undefined ? { walSeq } : {}),
    };
  }

  /**
   * Writes the final segment of a deploy that did not reach its template; a
   * deploy that did nothing leaves no segment. Returns whether a journal is left.
   */
  async record(reason: RollbackSegmentReason): Promise<boolean> {
    this.stop();
    const segment = this.segment(reason);
    if (segment.operations.length === 0 && !segment.failedOperations) {
      await this.settle([]);
      return this.exists;
    }
    await this.write(segment);
    return true;
  }

  /**
   * After a clean automatic rollback: the segment shrinks to the failed
   * operations it did not settle (kept for `cdkd rollback --revert-failed`);
   * with none, and no earlier segment, the journal is removed.
   */
  async settle(remainingFailed: FailedOperation[]): Promise<void> {
    this.stop();
    if (remainingFailed.length === 0 && !this.earlier?.segments.length) return this.remove();
    if (remainingFailed.length === 0) return this.write(undefined);
    await this.write({
      timestamp: this.timestamp,
      reason: 'auto-rollback-clean',
      initialDeploy: this.initialDeploy,
      ...this.rewriteField(),
      operations: [],
      failedOperations: remainingFailed,
    });
  }

  /** Removes the journal (a successful deploy), with its noncurrent versions. */
  async remove(): Promise<void> {
    this.stop();
    if (!this.exists) return;
    await this.store.remove(this.session.stackName, this.session.region);
    this.exists = false;
  }

  /** Always written (an empty one too): a segment without it is an earlier cdkd's. */
  private rewriteField(): Pick<RollbackJournalSegment, 'assetNameRewrite'> {
    return { assetNameRewrite: this.assetNameRewrite.map(({ from, to }) => ({ from, to })) };
  }

  /** The earlier segments plus this deploy's (none: only the earlier ones). */
  private async write(segment: RollbackJournalSegment | undefined): Promise<void> {
    const { stackName, region } = this.session;
    const journal = this.earlier ?? emptyJournal(stackName, region);
    await this.store.write({ ...journal, segments: [...journal.segments, ...(segment ? [segment] : [])] });
    this.exists = true;
  }
}
