import { mapWithConcurrency } from '../../../src/util/concurrency';

describe('mapWithConcurrency', () => {
  test('keeps input order and never has more than `limit` calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const result = await mapWithConcurrency([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setImmediate(r));
      for (let i = 0; i < n; i++) await Promise.resolve();
      inFlight--;
      return n * 10;
    });
    expect(result).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  test('rejects with the first error and starts nothing after it', async () => {
    const started: number[] = [];
    const err = await mapWithConcurrency([1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('boom');
      return n;
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe('boom');
    expect(started).toEqual([1, 2]);
  });

  test('an empty list resolves to an empty list; a bad limit is refused', async () => {
    await expect(mapWithConcurrency([], 3, async () => 1)).resolves.toEqual([]);
    await expect(mapWithConcurrency([1], 0, async () => 1)).rejects.toThrow(RangeError);
  });
});
