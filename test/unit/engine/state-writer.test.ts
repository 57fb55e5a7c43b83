import { StateWriter } from '../../../src/engine/state-writer';
import type { StackState } from '../../../src/state/types';

function state(n: number): StackState {
  return { version: 9, stackName: 'S', region: 'us-east-1', resources: {}, outputs: { n }, lastModified: n };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

describe('StateWriter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('coalesces changes into one save of the newest snapshot, conditional on the previous ETag', async () => {
    const saves: { n: unknown; etag: string | undefined }[] = [];
    const writer = new StateWriter(
      async (s, etag) => {
        saves.push({ n: s.outputs.n, etag });
        return { etag: `"e${saves.length}"`, bytes: 10 };
      },
      '"e0"',
      { intervalMs: 1000 },
    );
    let n = 0;
    for (let i = 0; i < 5; i++) {
      n = i;
      writer.markChanged(() => state(n));
    }
    expect(saves).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1000);
    expect(saves).toEqual([{ n: 4, etag: '"e0"' }]);
    writer.markChanged(() => state(9));
    await writer.flush();
    expect(saves).toEqual([
      { n: 4, etag: '"e0"' },
      { n: 9, etag: '"e1"' },
    ]);
    expect(writer.stats).toEqual({ writes: 2, bytes: 20 });
    expect(writer.currentEtag).toBe('"e2"');
  });

  it('never has two saves in flight; the newest snapshot wins after the in-flight save', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const written: unknown[] = [];
    const writer = new StateWriter(
      async (s) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const gate = deferred<void>();
        gates.push(gate);
        await gate.promise;
        written.push(s.outputs.n);
        inFlight--;
        return { etag: `"${written.length}"`, bytes: 1 };
      },
      undefined,
      { intervalMs: 100 },
    );
    writer.markChanged(() => state(1));
    await jest.advanceTimersByTimeAsync(100);
    expect(gates).toHaveLength(1);
    writer.markChanged(() => state(2));
    writer.markChanged(() => state(3));
    await jest.advanceTimersByTimeAsync(500);
    expect(gates).toHaveLength(1); // still waiting on the first save
    gates[0].resolve();
    await jest.advanceTimersByTimeAsync(100);
    expect(gates).toHaveLength(2);
    gates[1].resolve();
    await writer.flush();
    expect(written).toEqual([1, 3]);
    expect(maxInFlight).toBe(1);
  });

  it('keeps the change pending when a save fails, and flush retries it', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const written: unknown[] = [];
    const writer = new StateWriter(
      async (s) => {
        if (fail) throw new Error('throttled');
        written.push(s.outputs.n);
        return { etag: '"x"', bytes: 1 };
      },
      undefined,
      { intervalMs: 10, onError: (e) => errors.push(e) },
    );
    writer.markChanged(() => state(1));
    await jest.advanceTimersByTimeAsync(10);
    expect(errors).toHaveLength(1);
    fail = false;
    await writer.flush();
    expect(written).toEqual([1]);
  });
});
