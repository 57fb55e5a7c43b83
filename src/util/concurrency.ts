/**
 * Bounded parallelism for independent work items (asset uploads, state reads),
 * and the slot gate the graph executor dispatches through.
 * Dependent work goes through the graph executor instead.
 */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight and returns the
 * results in input order. Rejects with the first error, after the calls
 * already in flight have settled; no new call starts once one has failed.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number of at least 1, got ${limit}`);
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (err) {
        if (!failed) firstError = err;
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw firstError;
  return out;
}

/**
 * Slots for work items by class: items of one class share that class's limit,
 * which may change while work runs (see `adaptive-concurrency.ts`). The graph
 * executor dispatches through one.
 */
export interface ConcurrencyGate {
  /** The class an item counts in. */
  classOf(id: string): string;
  /** Takes a slot of the class when one is free. */
  tryAcquire(cls: string): boolean;
  /** Gives a slot back. */
  release(cls: string): void;
  /** Calls `listener` (asynchronously) whenever slots may have become free; returns a function that stops it. */
  onCapacity(listener: () => void): () => void;
}

/** A gate with one class and a fixed limit. */
export function fixedGate(limit: number): ConcurrencyGate {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number of at least 1, got ${limit}`);
  let inFlight = 0;
  return {
    classOf: () => 'all',
    tryAcquire: () => {
      if (inFlight >= limit) return false;
      inFlight++;
      return true;
    },
    release: () => {
      inFlight--;
    },
    // Only the run that holds the slots frees them, and it re-dispatches itself.
    onCapacity: () => () => undefined,
  };
}
