/**
 * Persists a stack's state while a deploy or destroy runs. Saves are coalesced:
 * at most one save is in flight, each save writes the newest snapshot, and a
 * change reaches S3 within `intervalMs` of being made (plus the save itself).
 * Every save is conditional on the ETag of the previous one, so a concurrent
 * writer is detected rather than overwritten.
 */
import type { StackState } from '../state/types';

/** Writes one state snapshot conditionally; returns the new ETag and the bytes written. */
export type SaveStateFn = (
  state: StackState,
  expectedEtag: string | undefined,
) => Promise<{ etag: string; bytes: number }>;

export interface StateWriterOptions {
  /** Longest a change waits before it is saved. Default 1000 ms. */
  intervalMs?: number;
  /** Called when a background save fails (the next save or `flush` retries). */
  onError?: (err: unknown) => void;
}

export interface StateWriterStats {
  writes: number;
  bytes: number;
}

export class StateWriter {
  private etag: string | undefined;
  private snapshot: (() => StackState) | undefined;
  private dirty = false;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastError: unknown;
  readonly stats: StateWriterStats = { writes: 0, bytes: 0 };

  constructor(
    private readonly save: SaveStateFn,
    initialEtag: string | undefined,
    private readonly options: StateWriterOptions = {},
  ) {
    this.etag = initialEtag;
  }

  /** The ETag of the last successful save (or the initial one). */
  get currentEtag(): string | undefined {
    return this.etag;
  }

  /**
   * Marks the state changed. `snapshot` is called at save time, so the newest
   * state is what gets written.
   */
  markChanged(snapshot: () => StackState): void {
    this.snapshot = snapshot;
    this.dirty = true;
    if (!this.timer && !this.inFlight) {
      this.timer = setTimeout(() => this.kick(), this.options.intervalMs ?? 1000);
    }
  }

  private kick(): void {
    this.timer = undefined;
    if (this.inFlight || !this.dirty) return;
    this.inFlight = this.saveOnce()
      .catch((err) => {
        this.lastError = err;
        this.options.onError?.(err);
      })
      .finally(() => {
        this.inFlight = undefined;
        if (this.dirty && !this.timer)
          this.timer = setTimeout(() => this.kick(), this.options.intervalMs ?? 1000);
      });
  }

  private async saveOnce(): Promise<void> {
    if (!this.snapshot) return;
    this.dirty = false;
    const state = this.snapshot();
    try {
      const result = await this.save(state, this.etag);
      this.etag = result.etag;
      this.stats.bytes += result.bytes;
    } catch (err) {
      this.dirty = true;
      throw err;
    }
    this.stats.writes++;
    this.lastError = undefined;
  }

  /**
   * Waits for the save in flight, then writes the newest snapshot if anything
   * changed since. Throws if that final save fails.
   */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.inFlight) await this.inFlight;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.dirty) await this.saveOnce();
  }

  /** Writes `state` now (after anything in flight), replacing any pending snapshot. */
  async saveNow(state: StackState): Promise<void> {
    this.markChanged(() => state);
    await this.flush();
  }

  /** Stops background saving without writing (after the state file was deleted, say). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
    if (this.inFlight) await this.inFlight;
  }

  /** The error of the last failed background save, if it has not been retried successfully. */
  get pendingError(): unknown {
    return this.lastError;
  }
}
