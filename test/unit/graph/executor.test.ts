import { Dag } from '../../../src/graph/dag';
import { executeDag, type ExecutorEvent } from '../../../src/graph/executor';
import { AdaptiveConcurrency } from '../../../src/util/adaptive-concurrency';
import type { OperationPool } from '../../../src/util/adaptive-concurrency';
import { DependencyCycleError, ValidationError } from '../../../src/util/errors';

interface Deferred {
  resolve(): void;
  reject(err: unknown): void;
}

/** A `run` whose every call waits until the test settles it; counts what is in flight. */
class Harness {
  readonly started: string[] = [];
  readonly pending = new Map<string, Deferred>();
  inFlight = 0;
  maxInFlight = 0;

  readonly run = (id: string): Promise<void> => {
    this.started.push(id);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, {
        resolve: () => {
          this.inFlight--;
          resolve();
        },
        reject: (err) => {
          this.inFlight--;
          reject(err);
        },
      });
    });
  };

  /** Settles `id` and lets the executor react (promise callbacks only, no timers). */
  async succeed(id: string): Promise<void> {
    this.take(id).resolve();
    await flush();
  }

  async fail(id: string, err: unknown = new Error(`${id} broke`)): Promise<void> {
    this.take(id).reject(err);
    await flush();
  }

  private take(id: string): Deferred {
    const d = this.pending.get(id);
    if (!d) throw new Error(`${id} is not in flight (started: ${this.started.join(', ')})`);
    this.pending.delete(id);
    return d;
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function graph(nodes: string[], edges: Array<[string, string]> = []): Dag {
  const dag = new Dag();
  for (const id of nodes) dag.addNode(id);
  for (const [a, b] of edges) dag.addDependency(a, b);
  return dag;
}

describe('executeDag', () => {
  it('starts a node as soon as its last dependency ends, not when an unrelated slow node ends (no barrier)', async () => {
    const dag = graph(['A', 'B', 'C'], [['C', 'A']]);
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 10, run: h.run });
    await flush();
    expect(h.started).toEqual(['A', 'B']);

    await h.succeed('A');
    expect(h.started).toEqual(['A', 'B', 'C']);
    expect(h.pending.has('B')).toBe(true); // B (the slow one) is still running

    await h.succeed('C');
    await h.succeed('B');
    const result = await done;
    expect(result.ok).toBe(true);
    expect(result.succeeded).toEqual(['A', 'B', 'C']);
  });

  it('waits for the last of several dependencies', async () => {
    const dag = graph(
      ['A', 'B', 'C'],
      [
        ['C', 'A'],
        ['C', 'B'],
      ],
    );
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 10, run: h.run });
    await flush();
    await h.succeed('B');
    expect(h.started).not.toContain('C');
    await h.succeed('A');
    expect(h.started).toContain('C');
    await h.succeed('C');
    expect((await done).ok).toBe(true);
  });

  it('starts the ready node with the lowest priority first, whenever it became ready', async () => {
    // D became ready last but has the lowest priority: with one slot it goes before B and C.
    const dag = graph(['A', 'B', 'C', 'D'], [['D', 'A']]);
    const order: Record<string, number> = { A: 0, D: 1, B: 2, C: 3 };
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 1, run: h.run, priority: (id) => order[id] });
    await flush();
    expect(h.started).toEqual(['A']);
    await h.succeed('A');
    expect(h.started).toEqual(['A', 'D']);
    await h.succeed('D');
    await h.succeed('B');
    await h.succeed('C');
    expect(h.started).toEqual(['A', 'D', 'B', 'C']);
    expect((await done).ok).toBe(true);
  });

  it('by default starts the node heading the longest chain of dependents first, ties in readiness order', async () => {
    // L1 -> L2 -> L3 is the long chain (L3 waits for L2, L2 for L1); S1, S2 are leaves listed first.
    const dag = graph(
      ['S1', 'S2', 'L1', 'L2', 'L3', 'M1', 'M2'],
      [
        ['L2', 'L1'],
        ['L3', 'L2'],
        ['M2', 'M1'],
      ],
    );
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 1, run: h.run });
    await flush();
    expect(h.started).toEqual(['L1']);
    await h.succeed('L1');
    // L2 (2 left on its chain) goes before M1 (2) only by readiness order: M1 was ready first.
    expect(h.started).toEqual(['L1', 'M1']);
    await h.succeed('M1');
    expect(h.started).toEqual(['L1', 'M1', 'L2']);
    await h.succeed('L2');
    // Every chain left is one node long: the leaves ready from the start go first.
    await h.succeed('S1');
    await h.succeed('S2');
    await h.succeed('M2');
    await h.succeed('L3');
    expect(h.started).toEqual(['L1', 'M1', 'L2', 'S1', 'S2', 'M2', 'L3']);
    expect((await done).ok).toBe(true);
  });

  it('never exceeds the concurrency limit and refills free slots at once', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `N${i}`);
    // N10 and N11 depend on N0, the rest are independent.
    const dag = graph(ids, [
      ['N10', 'N0'],
      ['N11', 'N0'],
    ]);
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 3, run: h.run });
    await flush();
    expect(h.started).toEqual(['N0', 'N1', 'N2']);

    // settle in an irregular order (alternately the newest and the oldest in flight),
    // checking the in-flight count after each step
    let step = 0;
    while (h.pending.size > 0) {
      expect(h.inFlight).toBeLessThanOrEqual(3);
      const inFlight = [...h.pending.keys()];
      await h.succeed(step++ % 2 === 0 ? inFlight[inFlight.length - 1] : inFlight[0]);
      // every free slot is refilled while there is work left to start
      if (h.started.length < ids.length) expect(h.inFlight).toBe(3);
    }
    const result = await done;
    expect(h.maxInFlight).toBe(3);
    expect(result.succeeded).toHaveLength(12);
  });

  it('on the first failure stops new dispatch, lets in-flight work finish, skips dependents', async () => {
    const dag = graph(['A', 'B', 'C', 'D'], [['D', 'A']]);
    const h = new Harness();
    const events: ExecutorEvent[] = [];
    const done = executeDag(dag, { concurrency: 2, run: h.run, onEvent: (e) => events.push(e) });
    await flush();
    expect(h.started).toEqual(['A', 'B']);

    const boom = new Error('A broke');
    await h.fail('A', boom);
    expect(h.started).toEqual(['A', 'B']); // C is not dispatched although a slot is free
    await h.succeed('B'); // in-flight work finishes

    const result = await done;
    expect(result.ok).toBe(false);
    expect(result.outcomes.get('A')).toEqual({ status: 'failed', error: boom });
    expect(result.outcomes.get('B')).toEqual({ status: 'succeeded' });
    expect(result.outcomes.get('C')).toEqual({ status: 'not-started' });
    expect(result.outcomes.get('D')).toEqual({ status: 'skipped', blockedBy: 'A', cause: 'A' });
    expect(result.failed).toEqual([{ id: 'A', error: boom }]);
    expect(events.map((e) => `${e.type}:${e.id}`)).toEqual([
      'started:A',
      'started:B',
      'failed:A',
      'skipped:D',
      'succeeded:B',
    ]);
  });

  it('reports transitive dependents as skipped, naming the blocking dependency and the failed node', async () => {
    const dag = graph(
      ['A', 'B', 'C'],
      [
        ['B', 'A'],
        ['C', 'B'],
      ],
    );
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 10, run: h.run });
    await flush();
    await h.fail('A');
    const result = await done;
    expect(result.outcomes.get('B')).toEqual({ status: 'skipped', blockedBy: 'A', cause: 'A' });
    expect(result.outcomes.get('C')).toEqual({ status: 'skipped', blockedBy: 'B', cause: 'A' });
    expect(result.skipped).toEqual(['B', 'C']);
  });

  it('with stopOnFailure false keeps running what does not depend on the failure', async () => {
    const dag = graph(
      ['A', 'B', 'C', 'D'],
      [
        ['D', 'A'],
        ['C', 'B'],
      ],
    );
    const h = new Harness();
    const done = executeDag(dag, { concurrency: 1, run: h.run, stopOnFailure: false });
    await flush();
    await h.fail('A');
    expect(h.started).toEqual(['A', 'B']);
    await h.succeed('B');
    await h.succeed('C');
    const result = await done;
    expect(result.succeeded).toEqual(['B', 'C']);
    expect(result.skipped).toEqual(['D']);
    expect(result.notStarted).toEqual([]);
  });

  it('stops dispatch on abort; in-flight work finishes, the rest is not started', async () => {
    const dag = graph(['A', 'B', 'C', 'D'], [['D', 'A']]);
    const h = new Harness();
    const controller = new AbortController();
    const seenSignals: AbortSignal[] = [];
    const done = executeDag(dag, {
      concurrency: 2,
      signal: controller.signal,
      run: (id, signal) => {
        seenSignals.push(signal);
        return h.run(id);
      },
    });
    await flush();
    controller.abort();
    await flush();
    expect(seenSignals.every((s) => s.aborted)).toBe(true);
    await h.succeed('A');
    await h.succeed('B');
    const result = await done;
    expect(h.started).toEqual(['A', 'B']);
    expect(result.aborted).toBe(true);
    expect(result.succeeded).toEqual(['A', 'B']);
    expect(result.notStarted).toEqual(['C', 'D']);
    expect(result.ok).toBe(false);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const h = new Harness();
    const result = await executeDag(graph(['A']), { concurrency: 1, run: h.run, signal: controller.signal });
    expect(h.started).toEqual([]);
    expect(result.notStarted).toEqual(['A']);
    expect(result.aborted).toBe(true);
  });

  it('records a run that throws synchronously as a failure', async () => {
    const result = await executeDag(graph(['A', 'B'], [['B', 'A']]), {
      concurrency: 1,
      run: () => {
        throw new Error('sync');
      },
    });
    expect(result.failed.map((f) => f.id)).toEqual(['A']);
    expect(result.skipped).toEqual(['B']);
  });

  describe('with a concurrency gate', () => {
    const poolOf = (id: string): OperationPool => (id.startsWith('S') ? 'sdk' : 'cloud-control');
    const pools = {
      'cloud-control': { initial: 2, floor: 1, ceiling: 4 },
      sdk: { initial: 1, floor: 1, ceiling: 1 },
    };

    it('dispatches each class within its own limit: a full class does not hold back another', async () => {
      const concurrency = new AdaptiveConcurrency({ pools });
      const h = new Harness();
      const done = executeDag(graph(['C1', 'C2', 'C3', 'S1', 'S2']), {
        concurrency: concurrency.gate(poolOf),
        run: h.run,
      });
      await flush();
      expect(h.started).toEqual(['C1', 'C2', 'S1']);
      await h.succeed('S1');
      expect(h.started).toEqual(['C1', 'C2', 'S1', 'S2']);
      await h.succeed('C1');
      expect(h.started).toContain('C3');
      await h.succeed('C2');
      await h.succeed('C3');
      await h.succeed('S2');
      expect((await done).ok).toBe(true);
    });

    it('starts more nodes the moment the limit grows', async () => {
      const concurrency = new AdaptiveConcurrency({ pools });
      const h = new Harness();
      const done = executeDag(graph(['C1', 'C2', 'C3', 'C4']), {
        concurrency: concurrency.gate(poolOf),
        run: h.run,
      });
      await flush();
      expect(h.started).toHaveLength(2);
      concurrency.succeeded('cloud-control'); // every slot in use: slow start adds one
      await flush();
      expect(h.started).toHaveLength(3);
      for (const id of [...h.pending.keys()]) await h.succeed(id);
      for (const id of [...h.pending.keys()]) await h.succeed(id);
      expect((await done).ok).toBe(true);
    });

    it('shares the pools between graph runs: a run waits for slots another one frees', async () => {
      const concurrency = new AdaptiveConcurrency({ pools });
      const a = new Harness();
      const b = new Harness();
      const runA = executeDag(graph(['C1', 'C2']), { concurrency: concurrency.gate(poolOf), run: a.run });
      await flush();
      const runB = executeDag(graph(['C3']), { concurrency: concurrency.gate(poolOf), run: b.run });
      await flush();
      expect(b.started).toEqual([]); // both slots are A's
      await a.succeed('C1');
      expect(b.started).toEqual(['C3']);
      await a.succeed('C2');
      await b.succeed('C3');
      expect((await runA).ok).toBe(true);
      expect((await runB).ok).toBe(true);
    });
  });

  it('finishes at once for an empty graph', async () => {
    const result = await executeDag(new Dag(), { concurrency: 1, run: async () => undefined });
    expect(result.ok).toBe(true);
    expect(result.outcomes.size).toBe(0);
  });

  it('refuses a bad concurrency and a cyclic graph before running anything', async () => {
    const run = jest.fn(async () => undefined);
    await expect(executeDag(graph(['A']), { concurrency: 0, run })).rejects.toThrow(ValidationError);
    await expect(executeDag(graph(['A']), { concurrency: 1.5, run })).rejects.toThrow(/whole number/);
    await expect(
      executeDag(
        graph(
          ['A', 'B'],
          [
            ['A', 'B'],
            ['B', 'A'],
          ],
        ),
        { concurrency: 2, run },
      ),
    ).rejects.toThrow(DependencyCycleError);
    expect(run).not.toHaveBeenCalled();
  });
});

describe('executeDag event listener', () => {
  it('keeps running when the listener throws', async () => {
    const result = await executeDag(graph(['A', 'B'], [['B', 'A']]), {
      concurrency: 1,
      run: async () => undefined,
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    expect(result.succeeded).toEqual(['A', 'B']);
  });
});
