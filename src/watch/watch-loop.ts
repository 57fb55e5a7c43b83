/**
 * The `cdkd watch` loop, as the CDK CLI runs it: one deploy when the watcher is
 * ready, then one per change; changes arriving during a deploy are batched into
 * one more deploy after it. A failed deploy is reported and the loop goes on.
 * Time plays no part: the loop is driven by file events alone, so it is tested
 * by feeding it events.
 */

/** What changed since the last deploy began. */
export interface Trigger {
  /** `initial` for the first deploy. */
  kind: 'initial' | 'change';
  /** Paths relative to the project root, in the order they changed. */
  files: string[];
}

export interface WatchLoopOptions {
  /** Deploys once; a rejection is reported through `onError` and the loop goes on. */
  deploy: (trigger: Trigger) => Promise<void>;
  onError: (err: unknown, trigger: Trigger) => void;
}

export class WatchLoop {
  private state: 'waiting' | 'idle' | 'deploying' | 'stopped' = 'waiting';
  private queued: string[] = [];
  private current: Promise<void> = Promise.resolve();

  constructor(private readonly options: WatchLoopOptions) {}

  /** The watcher is ready: the first deploy. */
  ready(): void {
    if (this.state !== 'waiting') return;
    this.run({ kind: 'initial', files: [] });
  }

  /** A watched file changed. Ignored before {@link ready} (the initial scan) and after {@link stop}. */
  changed(file: string): void {
    if (this.state === 'waiting' || this.state === 'stopped') return;
    if (this.state === 'deploying') {
      if (!this.queued.includes(file)) this.queued.push(file);
      return;
    }
    this.run({ kind: 'change', files: [file] });
  }

  /** No more deploys; resolves when the one in progress (if any) has finished. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    this.queued = [];
    await this.current;
  }

  /** Resolves when no deploy is running or queued (for callers that wait for quiet). */
  async settled(): Promise<void> {
    await this.current;
  }

  private run(trigger: Trigger): void {
    this.state = 'deploying';
    this.current = (async () => {
      let next: Trigger | undefined = trigger;
      while (next) {
        try {
          await this.options.deploy(next);
        } catch (err) {
          this.options.onError(err, next);
        }
        if (this.state === 'stopped') return;
        next = this.queued.length > 0 ? { kind: 'change', files: this.queued } : undefined;
        this.queued = [];
      }
      this.state = 'idle';
    })();
  }
}
