/**
 * A clock for unit tests: time moves only when the test advances it, and the
 * timers due on the way fire in order (with pending promise callbacks run
 * between them), so timing-dependent code is tested without the wall clock.
 */
import type { Clock } from '../../../src/provisioning/poll-schedule';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Resolves after `ms` of this clock's time. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await flushPromises();
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > until) break;
      this.fire(next);
      await flushPromises();
    }
    this.time = until;
    await flushPromises();
  }

  /** Fires timers in order until none is left (or `limit` have fired); returns the time reached. */
  async runAll(limit = 1_000_000): Promise<number> {
    await flushPromises();
    for (let fired = 0; fired < limit; fired++) {
      const next = this.earliest();
      if (!next) return this.time;
      this.fire(next);
      await flushPromises();
    }
    throw new Error(`ManualClock.runAll: more than ${limit} timers fired`);
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers)
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }

  private fire(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.time = Math.max(this.time, timer.at);
    timer.fn();
  }
}

/** Lets every pending promise callback run (no timers). */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
