/**
 * A command's locked session on one stack: the lock, the state record with its
 * write-ahead log replayed on top, the log writer, and the folds of the log into
 * `state.json`. Deploy and destroy (and the `state` commands that change a stack)
 * open one, settle what an earlier run left pending, do their work through it,
 * and close it on every exit path:
 *
 *   open:  lock -> read state.json + list the log -> replay -> (caller settles) -> fold
 *   work:  announce (durable before each AWS call) -> outcome (posted) -> periodic folds
 *   close: flush the log -> final fold (or delete the record) -> release the lock
 *
 * If the final write of state.json fails, the full record is written to a local
 * file named in the error, with the `cdkd state push` command that restores it.
 * If the lock was lost, state.json is left to the new holder: the log already
 * holds everything this process finished.
 */
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StackLock } from '../state/lock-manager';
import { purgeAndReport } from '../state/purge';
import { holdsSecretInClear } from '../state/redact-state';
import { serializeStackState } from '../state/schema';
import type { StateRecord } from '../state/state-backend';
import { StackStateBuilder } from '../state/state-builder';
import type { BuildMode, ParentLink } from '../state/state-builder';
import type { StateStore } from '../state/state-store';
import type { IntentRecord, StackState, StateMutation } from '../state/types';
import { replaySegments } from '../state/wal-replay';
import type { WalSegmentRef } from '../state/write-ahead-log';
import { CdkdError, formatError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { anySignal } from '../util/signals';
import type { ObservedOutcome } from './journal-recorder';
import { WriteAheadWriter } from './write-ahead';

export interface StackSessionOptions {
  store: StateStore;
  stackName: string;
  region: string;
  operation: 'deploy' | 'destroy' | 'rollback' | 'state';
  logger: Logger;
  /** Stops new work (the first Ctrl-C). */
  signal?: AbortSignal;
  /** Cancels work in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
  /** Folder of the local file written when state.json cannot be saved. Default: the working directory. */
  erroredStateDir?: string;
  /** Unfolded log bytes that trigger a fold: at least this, and at least the last state size. Default 64 KiB. */
  foldMinBytes?: number;
  now?: () => number;
  /**
   * A nested-stack child works under its parent's lock (no lock of its own): the
   * parent's session lends it, and only the parent releases it.
   */
  borrowedLock?: StackLock;
  /** A nested-stack child: its link to the parent, written into its record. */
  parent?: ParentLink;
}

/** What an intent announces; the session assigns its id, token and time. */
export type IntentDraft = Omit<IntentRecord, 'id' | 'token' | 'at'>;

/** The idempotency token of an intent: stable across processes, derived from the durable intent. */
export function intentToken(
  stackName: string,
  region: string,
  logicalId: string,
  operation: string,
  id: string,
): string {
  return createHash('sha256')
    .update(`${stackName}\u0000${region}\u0000${logicalId}\u0000${operation}\u0000${id}`)
    .digest('hex')
    .slice(0, 40);
}

/** How a session ended. */
export interface CloseResult {
  /** state.json holds the final record (or was deleted as asked). */
  saved: boolean;
  /** Why it does not, as the error to report. */
  error?: CdkdError;
  /** The local file holding the full record, when S3 refused it. */
  erroredStateFile?: string;
}

export class StackSession {
  readonly builder: StackStateBuilder;
  /** Aborts when no new operation may start: the command's stop, lost lock, or a log that cannot be written. */
  readonly stopSignal: AbortSignal;
  /** Aborts when operations in flight must stop: a cancel, lost lock, or a log that cannot be written. */
  readonly cancelSignal: AbortSignal;
  /** Every state write of the session: in all, and split into log segments and folds into state.json. */
  readonly stats = { writes: 0, bytes: 0, segments: { writes: 0, bytes: 0 }, folds: { writes: 0, bytes: 0 } };
  /** How a periodic fold builds the record (deploy: progress; destroy: destroy). */
  progressMode: () => BuildMode = () => ({ kind: 'progress' });
  /** Sees each outcome just before it is applied (a deploy journals its operations from them). */
  onOutcome: ((o: ObservedOutcome) => void) | undefined;
  /** Runs before a fold writes state.json, with the last log segment the fold covers. */
  beforeFold: ((seq: number) => Promise<void>) | undefined;

  private readonly wal: WriteAheadWriter;
  private readonly walFailure = new AbortController();
  private etag: string | undefined;
  private intentCounter = 0;
  private readonly idBase: number;
  /** Segments folded into state.json (or stale) that are still to be deleted. */
  private toDelete: WalSegmentRef[];
  private unfoldedBytes = 0;
  private lastStateBytes = 0;
  private folding: Promise<void> | undefined;
  private closed = false;
  private lastBuilt: StackState | undefined;

  private constructor(
    private readonly options: StackSessionOptions,
    readonly lock: StackLock,
    /** The record as read when the session opened. */
    readonly initial: StateRecord | undefined,
    builder: StackStateBuilder,
    firstSeq: number,
    toDelete: WalSegmentRef[],
    /** Replayed segments or pending work: the record must be folded even if nothing else changes. */
    readonly recovered: boolean,
  ) {
    this.builder = builder;
    this.etag = initial?.etag;
    this.idBase = firstSeq;
    this.toDelete = toDelete;
    this.wal = new WriteAheadWriter({
      store: options.store.wal,
      stackName: options.stackName,
      region: options.region,
      lineage: builder.lineage!,
      writer: lock.owner,
      firstSeq,
      now: options.now,
      onSegment: (_ref, bytes) => this.segmentWritten(bytes),
      onFailure: (err) => {
        options.logger.warn(
          `Stopped: the write-ahead log of ${options.stackName} cannot be written: ${formatError(err)}`,
        );
        this.walFailure.abort(err);
      },
    });
    this.stopSignal = anySignal(options.signal, lock.signal, this.walFailure.signal);
    this.cancelSignal = anySignal(options.cancelSignal, lock.signal, this.walFailure.signal);
  }

  /** Takes the lock and rebuilds the state from state.json and the log. */
  static async open(options: StackSessionOptions): Promise<StackSession> {
    const { store, stackName, region } = options;
    const lock =
      options.borrowedLock ??
      (await store.locks.acquire(stackName, region, { operation: options.operation }));
    const release = () => (options.borrowedLock ? Promise.resolve() : lock.release());
    try {
      const [record, refs] = await Promise.all([
        store.backend.getState(stackName, region),
        store.wal.list(stackName, region),
      ]);
      const builder = new StackStateBuilder(stackName, region, record?.state);
      if (options.parent) builder.parent = options.parent;
      const replay = await replaySegments(store.wal, builder, refs);
      builder.lineage ??= randomUUID();
      if (replay.applied.length > 0) {
        options.logger.info(
          `${stackName}: read ${replay.applied.length} write-ahead log segment(s) an interrupted run left.`,
        );
      }
      const firstSeq = Math.max(replay.maxSeq, builder.walSeq) + 1;
      const recovered =
        replay.applied.length > 0 || replay.stale.length > 0 || builder.pendingIntents().length > 0;
      return new StackSession(
        options,
        lock,
        record,
        builder,
        firstSeq,
        [...replay.applied, ...replay.stale],
        recovered,
      );
    } catch (err) {
      await release();
      throw err;
    }
  }

  get stackName(): string {
    return this.options.stackName;
  }

  get region(): string {
    return this.options.region;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Why nothing more may be written: the lock was lost or the log failed; undefined while writable. */
  private writeBlocker(): Error | undefined {
    if (this.lock.lost) return this.lock.signal.reason as Error;
    const walError = this.wal.error;
    if (walError === undefined) return undefined;
    return walError instanceof Error ? walError : new Error(String(walError));
  }

  /**
   * Why the session stopped early, as the error to report: the lost lock, the
   * failed log, or the run's cancel (Ctrl-C, a sibling's failure). Undefined
   * while it runs. Calls cut short by the stop end in AbortErrors; this is the
   * cause to name instead of them.
   */
  stopReason(): Error | undefined {
    const blocker = this.writeBlocker();
    if (blocker) return blocker;
    const reason: unknown = this.cancelSignal.aborted ? this.cancelSignal.reason : undefined;
    return reason instanceof Error ? reason : undefined;
  }

  /** Refuses new operations once the lock is lost or the log failed. */
  private assertWritable(): void {
    const blocker = this.writeBlocker();
    if (blocker) throw blocker;
  }

  /** Announces an operation; resolves once the intent is durable (never send the call before). */
  async announce(draft: IntentDraft): Promise<IntentRecord> {
    this.assertWritable();
    const id = `${this.builder.lineage}:${this.idBase}.${this.intentCounter++}`;
    const intent: IntentRecord = {
      ...draft,
      id,
      token: intentToken(this.stackName, this.region, draft.logicalId, draft.operation, id),
      at: this.now(),
    };
    this.builder.announce(intent);
    try {
      await this.wal.append({ t: 'intent', intent });
    } catch (err) {
      this.builder.resolve(id);
      throw new CdkdError(
        `${draft.logicalId}: not sent, because its intent could not be recorded in the write-ahead log: ${formatError(err)}`,
        { code: 'INTENT_NOT_RECORDED', cause: err, remedy: 'Check access to the state bucket, then re-run.' },
      );
    }
    return intent;
  }

  /** Records a new attempt of a pending intent; resolves once durable. */
  async recordAttempt(intentId: string, attempt: number): Promise<void> {
    this.assertWritable();
    this.builder.amend(intentId, { attempt });
    await this.wal.append({ t: 'amend', id: intentId, attempt });
  }

  /** Notes the Cloud Control request token of an attempt (not waited for). */
  noteRequestToken(intentId: string, attempt: number, requestToken: string): void {
    const requestTokens = { [String(attempt)]: requestToken };
    this.builder.amend(intentId, { requestTokens });
    this.wal.post({ t: 'amend', id: intentId, requestTokens });
  }

  /**
   * Applies and logs an intent's outcome (or, without `intentId`, changes that
   * need no AWS call). `replaced`: an update's answer from its provider.
   */
  outcome(
    intentId: string | undefined,
    effects: StateMutation[],
    failed?: { code?: string; message: string },
    replaced?: boolean,
  ): void {
    this.onOutcome?.({
      intent: intentId ? this.builder.intent(intentId) : undefined,
      effects,
      failed,
      ...(replaced !== undefined ? { replaced } : {}),
      before: (id) => this.builder.get(id),
    });
    for (const m of effects) this.builder.apply(m, { now: this.now() });
    if (intentId) this.builder.resolve(intentId);
    if (effects.length === 0 && !intentId) return;
    this.wal.post({
      t: 'outcome',
      ...(intentId ? { id: intentId } : {}),
      ...(failed ? { failed } : {}),
      ...(replaced !== undefined ? { replaced } : {}),
      effects,
    });
  }

  /** Waits until every record posted so far is durable. */
  flushLog(): Promise<void> {
    return this.wal.flush();
  }

  private segmentWritten(bytes: number): void {
    this.stats.writes++;
    this.stats.bytes += bytes;
    this.stats.segments.writes++;
    this.stats.segments.bytes += bytes;
    this.unfoldedBytes += bytes;
    const threshold = Math.max(this.options.foldMinBytes ?? 64 * 1024, this.lastStateBytes);
    if (this.unfoldedBytes >= threshold && !this.folding && !this.closed && !this.lock.lost) {
      this.folding = this.fold(this.progressMode())
        .catch((err) =>
          this.options.logger.debug(
            `Could not fold the write-ahead log into state.json yet: ${formatError(err)}`,
          ),
        )
        .finally(() => (this.folding = undefined));
    }
  }

  /** Folds the log into state.json now (after the settle step, say). */
  async foldNow(mode: BuildMode = this.progressMode()): Promise<void> {
    if (this.folding) await this.folding;
    await this.wal.flush();
    await this.fold(mode);
  }

  /** Writes state.json with everything up to the last durable segment, then deletes those segments. */
  private async fold(mode: BuildMode): Promise<void> {
    if (this.lock.lost) throw this.lock.signal.reason as Error;
    const seq = this.wal.lastDurableSeq;
    await this.beforeFold?.(seq);
    this.builder.walSeq = Math.max(this.builder.walSeq, seq);
    const state = this.builder.build(mode, this.now());
    state.serial = this.builder.serial + 1;
    this.lastBuilt = state;
    const out = await this.options.store.backend.saveState(this.stackName, this.region, state, this.etag);
    this.etag = out.etag;
    this.builder.serial = state.serial;
    this.lastStateBytes = out.bytes;
    this.stats.writes++;
    this.stats.bytes += out.bytes;
    this.stats.folds.writes++;
    this.stats.folds.bytes += out.bytes;
    this.unfoldedBytes = 0;
    this.deleteSegments(this.toDelete.splice(0), seq);
  }

  private deleting: Promise<void> = Promise.resolve();
  private readonly deletedSeqs = new Set<number>();

  /** Deletes folded segments in the background (a leftover is stale and deleted by a later fold). */
  private deleteSegments(refs: WalSegmentRef[], uptoSeq: number): void {
    // After the log failed, segments that landed past the durable prefix hold nothing acknowledged: the fold covers them.
    const mine = [
      ...this.wal.written.filter((r) => r.seq <= uptoSeq),
      ...(this.wal.error && this.closed ? this.wal.unacknowledged : []),
    ];
    const all = new Map<number, WalSegmentRef>();
    for (const r of [...refs, ...mine]) if (!this.deletedSeqs.has(r.seq)) all.set(r.seq, r);
    if (all.size === 0) return;
    for (const seq of all.keys()) this.deletedSeqs.add(seq);
    const batch = [...all.values()];
    this.deleting = this.deleting.then(async () => {
      const failed = await this.options.store.wal.remove(batch);
      if (failed.length)
        this.options.logger.debug(
          `Could not delete ${failed.length} folded write-ahead log segment(s); a later run does.`,
        );
    });
  }

  /**
   * Ends the session: flushes the log, writes the final record (`state`) or deletes
   * the stack's record and log (`delete`), and releases the lock — always, in that
   * order. Never throws; the result says whether the record was saved.
   */
  async close(end: { state: BuildMode } | { delete: true }): Promise<CloseResult> {
    if (this.closed) return { saved: false };
    this.closed = true;
    try {
      if (this.folding) await this.folding;
      let logError: unknown;
      await this.wal.flush().catch((err: unknown) => (logError = err));
      if (this.lock.lost) {
        const reason = this.lock.signal.reason as CdkdError;
        return {
          saved: false,
          error: new CdkdError(
            `${reason.message} state.json was not written: what this run finished is in the write-ahead log, which the next run reads.`,
            { code: 'LOCK_LOST', remedy: reason.remedy, cause: reason },
          ),
        };
      }
      try {
        if ('delete' in end) {
          await this.options.store.backend.deleteState(this.stackName, this.region, this.etag);
          this.deleteSegments(
            [...this.toDelete, ...(await this.options.store.wal.list(this.stackName, this.region))],
            Number.MAX_SAFE_INTEGER,
          );
        } else {
          await this.fold(end.state);
        }
        if (logError)
          this.options.logger.debug(`The write-ahead log failed earlier: ${formatError(logError)}`);
        await this.deleting;
        await this.purgeClearSecrets();
        return { saved: true };
      } catch (err) {
        return this.saveFailed(err, 'delete' in end);
      }
    } finally {
      if (!this.options.borrowedLock) await this.lock.release();
    }
  }

  /**
   * state.json's earlier versions are the recovery history versioning exists for,
   * and are kept — except when the record this run read held a secret in clear
   * (written before cdkd masked them): then every earlier version does too, and
   * they are purged once the masked record is saved (or the record deleted).
   * Fails soft with the two grants named (src/state/purge.ts).
   */
  private async purgeClearSecrets(): Promise<void> {
    const previous = this.builder.previous;
    if (!previous || !holdsSecretInClear(previous)) return;
    const { bucket } = this.options.store;
    await purgeAndReport({
      client: await bucket.client(),
      bucket: bucket.name,
      keys: [bucket.keys.stateKey(this.stackName, this.region)],
      kind: 'state-with-secrets',
      logger: this.options.logger,
    });
  }

  private saveFailed(err: unknown, deleting: boolean): CloseResult {
    const where = this.options.store.bucket.uri(
      this.options.store.bucket.keys.stateKey(this.stackName, this.region),
    );
    if (deleting) {
      return {
        saved: false,
        error: new CdkdError(`Could not delete the state record ${where}: ${formatError(err)}`, {
          code: 'STATE_NOT_SAVED',
          cause: err,
          remedy: 'Every resource is gone; re-run the destroy to remove the record.',
        }),
      };
    }
    const state = this.lastBuilt ?? this.builder.build(this.progressMode(), this.now());
    const file = path.resolve(
      this.options.erroredStateDir ?? process.cwd(),
      `cdkd-errored-state.${this.stackName}.${this.region}.json`,
    );
    try {
      fs.writeFileSync(file, serializeStackState(state));
    } catch (writeErr) {
      return {
        saved: false,
        error: new CdkdError(
          `Could not save the state of ${this.stackName} (${this.region}) to ${where} (${formatError(err)}), nor to the local file ${file} (${formatError(writeErr)}).`,
          {
            code: 'STATE_NOT_SAVED',
            cause: err,
            remedy:
              'The write-ahead log in the state bucket holds what this run finished, as far as it could be written; re-run once S3 is reachable.',
          },
        ),
      };
    }
    return {
      saved: false,
      erroredStateFile: file,
      error: new CdkdError(
        `Could not save the state of ${this.stackName} (${this.region}) to ${where}: ${formatError(err)}. The full state is in ${file}.`,
        {
          code: 'STATE_NOT_SAVED',
          cause: err,
          remedy: `Once the state bucket is reachable, push it back with: cdkd state push ${file}${this.region ? ` --region ${this.region}` : ''}`,
        },
      ),
    };
  }
}
