/**
 * Combining abort signals. `AbortSignal.any` arrived in Node 20.3; cdkd runs on
 * every Node 20, so this is the one place that combines signals.
 */

/** A signal that aborts when any of `signals` does, with that signal's reason. */
export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const controller = new AbortController();
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
