/**
 * Execution environments kept warm and bounded: an environment serves one
 * function version (and configuration revision) and is reused by its next
 * invocations, as Lambda reuses environments. At most `max` environments
 * exist at once; beyond that an idle one of another function is stopped, or
 * the invocation waits. Idle environments stop after `idleMs`; all of them
 * stop with the emulator (and if the emulator's process exits).
 */
import type { ExecutionEnvironment } from './environment';

export interface PooledEnvironment {
  env: ExecutionEnvironment;
  key: string;
  /** The environment's log stream. */
  logStream: string;
  /** Set until the first invocation has reported the init duration. */
  initDurationMs?: number;
  idleTimer?: NodeJS.Timeout;
}

export class EnvironmentPool {
  private readonly idle = new Map<string, PooledEnvironment[]>();
  private readonly all = new Set<PooledEnvironment>();
  private readonly waiting: Array<() => void> = [];
  private readonly onProcessExit = () => void this.stopAll();
  private stopped = false;

  constructor(
    readonly max: number,
    readonly idleMs: number,
  ) {}

  /** An idle environment of `key`, or a slot to start a new one in (waiting for one if need be). */
  async acquire(key: string): Promise<PooledEnvironment | undefined> {
    for (;;) {
      if (this.stopped) throw new Error('the emulator is stopping');
      const list = this.idle.get(key);
      while (list?.length) {
        const pooled = list.pop()!;
        clearTimeout(pooled.idleTimer);
        if (pooled.env.alive) return pooled;
        this.forget(pooled);
      }
      if (this.all.size < this.max) return undefined;
      if (this.evictOldestIdle()) continue;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Registers a new environment (after {@link acquire} gave a slot). */
  add(pooled: PooledEnvironment): void {
    if (this.all.size === 0) process.once('exit', this.onProcessExit);
    this.all.add(pooled);
    pooled.env.onExit = () => this.forget(pooled);
  }

  /** Back to idle after an invocation; a dead environment is dropped. */
  release(pooled: PooledEnvironment): void {
    if (!pooled.env.alive || this.stopped) {
      this.discard(pooled);
      return;
    }
    const list = this.idle.get(pooled.key) ?? [];
    list.push(pooled);
    this.idle.set(pooled.key, list);
    pooled.idleTimer = setTimeout(() => this.discard(pooled), this.idleMs);
    pooled.idleTimer.unref();
    this.wake();
  }

  /** Stops an environment and frees its slot. */
  discard(pooled: PooledEnvironment): void {
    pooled.env.kill();
    this.forget(pooled);
  }

  /** A slot given by {@link acquire} that was not used (the environment could not start). */
  giveBack(): void {
    this.wake();
  }

  get size(): number {
    return this.all.size;
  }

  /** Stops every environment (reset). The pool stays usable. */
  clear(): void {
    for (const pooled of [...this.all]) this.discard(pooled);
  }

  /** Stops every environment for good (the emulator is stopping); resolves once they have all ended. */
  stopAll(): Promise<void> {
    this.stopped = true;
    const ending = [...this.all].map((pooled) => pooled.env.done);
    this.clear();
    for (const wake of this.waiting.splice(0)) wake();
    return Promise.all(ending).then(() => undefined);
  }

  private forget(pooled: PooledEnvironment): void {
    clearTimeout(pooled.idleTimer);
    if (!this.all.delete(pooled)) return;
    const list = this.idle.get(pooled.key);
    if (list) {
      const i = list.indexOf(pooled);
      if (i >= 0) list.splice(i, 1);
      if (!list.length) this.idle.delete(pooled.key);
    }
    if (this.all.size === 0) process.removeListener('exit', this.onProcessExit);
    this.wake();
  }

  private evictOldestIdle(): boolean {
    for (const list of this.idle.values()) {
      const oldest = list.shift();
      if (oldest) {
        this.discard(oldest);
        return true;
      }
    }
    return false;
  }

  private wake(): void {
    this.waiting.shift()?.();
  }
}
