/**
 * Renders engine messages for a person. Three modes (the CDK CLI's `--progress`):
 *
 * - `live` (`bar`; a TTY): finished resources print as permanent lines; the
 *   resources in progress stay in a live area at the bottom with their elapsed
 *   time, under a running count and the total time, redrawn a few times a second.
 * - `events` (no TTY, `--ci`, or `--progress events`): one plain line per event.
 * - `errors-only`: only warnings and errors.
 *
 * Log lines pass through (debug only with --verbose). Everything goes to
 * stderr; stdout stays free for payloads. While a question is on screen
 * ({@link ProgressRenderer.pause}) lines are held back and printed after it.
 *
 * Writes to a pipe or file are synchronous in Node, and a large deploy prints
 * thousands of lines: with `batch`, the plain modes collect the lines of one
 * turn of the event loop (every reply that arrived in it) and write them
 * together at its end, and at once on pause, close and process exit, so the
 * CLI's one thread does not pay one system call per event. A line is not held
 * longer than that turn, so its arrival time still tells when it happened
 * (the benchmarks time resources by it).
 */
import { RESOURCE_EVENT, STACK_EVENT, describeResourceEvent } from '../engine/events';
import type { ResourceEvent, StackEvent } from '../engine/events';
import type { IoHost, IoMessage } from '../util/io-host';

export type ProgressMode = 'live' | 'events' | 'errors-only';

/** The values `--progress` accepts: cdkd's own and the CDK CLI's (`bar` is `live`). */
export const PROGRESS_OPTIONS = ['bar', 'events', 'errors-only', 'live'] as const;

export interface ProgressRendererOptions {
  mode: ProgressMode;
  verbose?: boolean;
  stream?: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Redraw period of the live view. Default 200 ms. */
  refreshMs?: number;
  now?: () => number;
  /** Colour the status symbols (green done, red failed, yellow skipped). */
  color?: boolean;
  /**
   * `events` / `errors-only`: write the lines of one turn of the event loop
   * together, at its end. Default false: every line at once.
   */
  batch?: boolean;
}

const COLORS: Record<string, string> = { succeeded: '32', failed: '31', skipped: '33', retrying: '33' };

const SYMBOL: Record<string, string> = {
  succeeded: '✓',
  failed: '✗',
  skipped: '⚠',
  retrying: '↻',
  started: '…',
};

interface Running {
  key: string;
  event: ResourceEvent;
  startedAt: number;
}

export class ProgressRenderer implements IoHost {
  private readonly stream: NodeJS.WritableStream;
  private readonly running = new Map<string, Running>();
  private liveLines = 0;
  private timer?: NodeJS.Timeout;
  private readonly startedAt: number;
  private done = 0;
  private total = 0;
  private readonly now: () => number;
  /** Lines held back while paused. */
  private held?: string[];
  /** Lines collected for the next batched write. */
  private collected: string[] = [];
  private batchFlush?: NodeJS.Immediate;
  private batching: boolean;
  /** Writes what is collected when the process exits before the next batch. */
  private readonly flushOnExit = (): void => this.flushBatch();

  constructor(private readonly options: ProgressRendererOptions) {
    this.stream = options.stream ?? process.stderr;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.batching = options.mode !== 'live' && options.batch === true;
    if (this.batching) process.on('exit', this.flushOnExit);
  }

  notify(msg: IoMessage): void {
    if (msg.level === 'debug' && !this.options.verbose) return;
    if (this.options.mode === 'errors-only' && msg.level !== 'warn' && msg.level !== 'error') return;
    if (msg.code === RESOURCE_EVENT) return this.onResource(msg.data as ResourceEvent, msg);
    if (msg.code === STACK_EVENT) {
      const e = msg.data as StackEvent;
      if (e.phase === 'planned' && e.total) this.total += e.total;
    }
    this.print(this.formatLog(msg));
  }

  private formatLog(msg: IoMessage): string {
    const prefix = msg.level === 'warn' ? 'warning: ' : msg.level === 'error' ? 'error: ' : '';
    return `${prefix}${msg.message}`;
  }

  private onResource(e: ResourceEvent, msg: IoMessage): void {
    const key = `${e.stackName}/${e.logicalId}`;
    if (e.status === 'started') {
      this.running.set(key, { key, event: e, startedAt: this.now() });
      if (this.options.mode === 'events') this.print(`  ${SYMBOL.started} ${msg.message}`);
      else this.ensureTimer();
      return;
    }
    if (e.status === 'retrying') {
      if (this.options.mode === 'events') this.print(`  ${SYMBOL.retrying} ${msg.message}`);
      return;
    }
    this.running.delete(key);
    this.done++;
    this.print(`  ${this.symbol(e.status)} ${e.stackName}: ${describeResourceEvent(e)}`);
  }

  private symbol(status: string): string {
    const symbol = SYMBOL[status] ?? ' ';
    return this.options.color && COLORS[status] ? `\x1b[${COLORS[status]}m${symbol}\x1b[0m` : symbol;
  }

  /**
   * Runs `fn` (a question) with the live area cleared and every other line held
   * back, then prints what was held and resumes.
   */
  readonly pause = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (this.held) return fn();
    this.clearLive();
    this.flushBatch();
    this.held = [];
    try {
      return await fn();
    } finally {
      const held = this.held;
      this.held = undefined;
      for (const line of held) this.print(line);
    }
  };

  /** Prints a permanent line (above the live area in live mode). */
  private print(line: string): void {
    if (this.held) {
      this.held.push(line);
      return;
    }
    if (this.options.mode === 'live') {
      this.clearLive();
      this.stream.write(`${line}\n`);
      this.drawLive();
    } else if (this.batching) {
      this.collected.push(line);
      this.batchFlush ??= setImmediate(() => this.flushBatch());
    } else {
      this.stream.write(`${line}\n`);
    }
  }

  /** Writes the collected lines in one write. */
  private flushBatch(): void {
    if (this.batchFlush) clearImmediate(this.batchFlush);
    this.batchFlush = undefined;
    if (this.collected.length === 0) return;
    const text = this.collected.join('\n') + '\n';
    this.collected = [];
    this.stream.write(text);
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.held) return;
      this.clearLive();
      this.drawLive();
      if (this.running.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    }, this.options.refreshMs ?? 200);
    this.timer.unref();
  }

  private clearLive(): void {
    if (this.liveLines > 0) {
      this.stream.write(`\x1b[${this.liveLines}A\x1b[J`);
      this.liveLines = 0;
    }
  }

  private drawLive(): void {
    if (this.running.size === 0) return;
    const rows = (this.stream as NodeJS.WriteStream).rows ?? 24;
    const now = this.now();
    const lines: string[] = [];
    const running = [...this.running.values()];
    const visible = running.slice(0, Math.max(1, rows - 3));
    for (const r of visible) {
      const secs = ((now - r.startedAt) / 1000).toFixed(1);
      lines.push(`  ${SYMBOL.started} ${r.event.stackName}: ${describeResourceEvent(r.event)} (${secs}s)`);
    }
    if (running.length > visible.length)
      lines.push(`  … and ${running.length - visible.length} more in progress`);
    const count = this.total ? `${this.done}/${this.total}` : `${this.done}`;
    lines.push(
      `  [${count} done, ${running.length} in progress, ${((now - this.startedAt) / 1000).toFixed(1)}s]`,
    );
    this.stream.write(lines.join('\n') + '\n');
    this.liveLines = lines.length;
  }

  /**
   * Removes the live area and writes any collected lines; call when the command
   * ends. Lines printed afterwards are written at once.
   */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.options.mode === 'live') this.clearLive();
    this.flushBatch();
    if (this.batching) {
      this.batching = false;
      process.removeListener('exit', this.flushOnExit);
    }
  }
}

/**
 * The mode for `--progress` (as the CDK CLI decides it): `events` and
 * `errors-only` when asked; the live view (`bar`, `live`, or nothing asked)
 * only on a terminal outside CI, `events` otherwise.
 */
export function chooseProgressMode(requested: string | undefined, isTty: boolean, ci = false): ProgressMode {
  if (requested === 'events' || requested === 'errors-only') return requested;
  return isTty && !ci ? 'live' : 'events';
}
