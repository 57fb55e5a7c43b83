/**
 * Bounded parallelism for independent work items (asset uploads, state reads).
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
