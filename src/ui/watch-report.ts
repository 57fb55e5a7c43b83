/**
 * What `cdkd watch` prints: one compact line per deploy (what triggered it and
 * what each stack did), the warnings and errors of the run, and — with
 * --verbose — every progress event as `cdkd deploy --progress events` prints it.
 */
import type { DeployAppResult } from '../engine/deploy-app';
import { describeSummary } from '../engine/deploy-stack';
import { RESOURCE_EVENT, STACK_EVENT } from '../engine/events';
import { formatError } from '../util/errors';
import type { IoHost, IoMessage } from '../util/io-host';
import type { Trigger } from '../watch/watch-loop';

/** Code of the compact line, for tests and programs reading the messages. */
export const WATCH_EVENT = 'CDKD_WATCH_EVENT';

export class WatchReporter implements IoHost {
  /** The progress renderer, when every event is shown (--verbose). */
  private verbose?: IoHost;

  constructor(
    private readonly stream: NodeJS.WritableStream = process.stderr,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** From now on, pass every message to `renderer` (--verbose). */
  showEvents(renderer: IoHost): void {
    this.verbose = renderer;
  }

  notify(msg: IoMessage): void {
    if (this.verbose) {
      this.verbose.notify(msg);
      return;
    }
    if (msg.code === RESOURCE_EVENT || msg.code === STACK_EVENT) return;
    if (msg.level === 'warn' || msg.level === 'error' || msg.code === WATCH_EVENT)
      this.stream.write(
        `${msg.level === 'warn' ? 'warning: ' : msg.level === 'error' ? 'error: ' : ''}${msg.message}\n`,
      );
  }

  /** Prints one line, stamped with the time of day. */
  line(text: string, level: 'info' | 'error' = 'info'): void {
    const time = this.clock().toTimeString().slice(0, 8);
    const msg: IoMessage = { level, code: WATCH_EVENT, message: `[${time}] ${text}`, time: this.clock() };
    if (this.verbose) this.verbose.notify(msg);
    else this.stream.write(`${msg.message}\n`);
  }
}

/** `handler/index.js changed`, `3 files changed`, `initial deploy`. */
export function describeTrigger(trigger: Trigger): string {
  if (trigger.kind === 'initial') return 'initial deploy';
  if (trigger.files.length === 1) return `${trigger.files[0]} changed`;
  return `${trigger.files.length} files changed (${trigger.files.slice(0, 3).join(', ')}${trigger.files.length > 3 ? ', …' : ''})`;
}

/** The compact line of one deploy. */
export function describeWatchDeploy(trigger: Trigger, result: DeployAppResult, elapsedMs: number): string {
  const parts: string[] = [];
  for (const s of result.stacks) {
    if (s.noChanges) continue;
    if (s.ok) parts.push(`${s.stackName} deployed (${describeSummary(s.summary)})`);
    else {
      const first = s.failed[0];
      parts.push(
        `✗ ${s.stackName} ${s.interrupted ? 'interrupted' : 'failed'} (${describeSummary(s.summary)})${first ? `: ${first.logicalId}: ${(first.error as Error)?.message ?? String(first.error)}` : ''}`,
      );
    }
  }
  for (const f of result.failedStacks) parts.push(`✗ ${f.stackName}: ${formatError(f.error).split('\n')[0]}`);
  for (const k of result.skippedStacks) parts.push(`${k.stackName} not deployed (${k.reason})`);
  const what = parts.length ? parts.join('; ') : 'no changes';
  return `${result.ok ? '✓' : '✗'} ${describeTrigger(trigger)} → ${what} in ${(elapsedMs / 1000).toFixed(1)}s`;
}
