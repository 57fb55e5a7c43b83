/**
 * Combining abort signals. `AbortSignal.any` arrived in Node 20.3; cdkd runs on
 * every Node 20, so this is the one place that combines signals.
 */

import { setMaxListeners } from 'node:events';

/** A signal that aborts when any of `signals` does, with that signal's reason. */
export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const controller = new AbortController();
  // Every operation in flight listens to the combined signal (the SDK, retry
  // sleeps, polls): dozens of listeners at once are expected, not a leak, and
  // Node's warning at 11 would reach the user's terminal.
  setMaxListeners(0, controller.signal);
  const already = present.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return controller.signal;
  }
  const listeners: Array<[AbortSignal, () => void]> = [];
  for (const s of present) {
    const onAbort = (): void => {
      for (const [other, listener] of listeners) other.removeEventListener('abort', listener);
      controller.abort(s.reason);
    };
    listeners.push([s, onAbort]);
    s.addEventListener('abort', onAbort, { once: true });
  }
  return controller.signal;
}
