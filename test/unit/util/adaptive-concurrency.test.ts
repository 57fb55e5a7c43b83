/**
 * The adaptive concurrency of resource operations: limits that grow while AWS
 * accepts calls and halve when it throttles, per pool, on an injected clock.
 */
import { AdaptiveConcurrency, POOL_DEFAULTS } from '../../../src/util/adaptive-concurrency';
import { flushPromises } from '../support/manual-clock';

function setup(options: ConstructorParameters<typeof AdaptiveConcurrency>[0] = {}) {
  let now = 0;
  const concurrency = new AdaptiveConcurrency({ now: () => now, ...options });
  return {
    concurrency,
    advance: (ms: number) => (now += ms),
  };
}

/** Takes every free slot of the pool through a gate; returns how many. */
function fill(gate: ReturnType<AdaptiveConcurrency['gate']>, pool: string): number {
  let n = 0;
  while (gate.tryAcquire(pool)) n++;
  return n;
}

describe('AdaptiveConcurrency', () => {
  it('starts each pool at its documented initial limit, with a higher ceiling for Cloud Control requests than SDK calls', () => {
    const { concurrency } = setup();
    expect(concurrency.limit('cloud-control')).toBe(POOL_DEFAULTS['cloud-control'].initial);
    expect(concurrency.limit('sdk')).toBe(POOL_DEFAULTS.sdk.initial);
    expect(POOL_DEFAULTS['cloud-control'].ceiling).toBeGreaterThan(POOL_DEFAULTS.sdk.ceiling);
  });

  it('grows by one per accepted call while every slot is in use, and not while slots are idle', () => {
    const { concurrency } = setup({ pools: { 'cloud-control': { initial: 4, floor: 1, ceiling: 100 } } });
    const gate = concurrency.gate(() => 'cloud-control');
    gate.tryAcquire('cloud-control');
    concurrency.succeeded('cloud-control'); // one of four slots in use: no growth
    expect(concurrency.limit('cloud-control')).toBe(4);

    expect(fill(gate, 'cloud-control')).toBe(3);
    for (let i = 0; i < 4; i++) concurrency.succeeded('cloud-control');
    expect(concurrency.limit('cloud-control')).toBe(5); // the first success filled it; growth needs the slot used
    expect(fill(gate, 'cloud-control')).toBe(1);
    for (let i = 0; i < 3; i++) {
      concurrency.succeeded('cloud-control');
      fill(gate, 'cloud-control');
    }
    expect(concurrency.limit('cloud-control')).toBe(8); // slow start: doubles per round of calls
  });

  it('halves the limit on throttling, once per cool-down, then grows additively', () => {
    const { concurrency, advance } = setup({
      cooldownMs: 1000,
      pools: { 'cloud-control': { initial: 64, floor: 2, ceiling: 250 } },
    });
    const gate = concurrency.gate(() => 'cloud-control');
    fill(gate, 'cloud-control');
    concurrency.throttled('cloud-control');
    concurrency.throttled('cloud-control'); // same burst: no second halving
    expect(concurrency.limit('cloud-control')).toBe(32);
    advance(1000);
    concurrency.throttled('cloud-control');
    expect(concurrency.limit('cloud-control')).toBe(16);
    expect(concurrency.stats()['cloud-control']).toEqual(
      expect.objectContaining({ throttles: 3, backoffs: 2, peakInFlight: 64 }),
    );

    // 64 operations are still in flight: growth resumes, about one slot per window of calls.
    let calls = 0;
    while (concurrency.limit('cloud-control') < 18) {
      concurrency.succeeded('cloud-control');
      calls++;
    }
    expect(calls).toBeGreaterThan(30);
    expect(calls).toBeLessThan(40);
  });

  it('keeps every limit within its floor and ceiling', () => {
    const { concurrency, advance } = setup({ pools: { sdk: { initial: 3, floor: 2, ceiling: 5 } } });
    for (let i = 0; i < 5; i++) {
      concurrency.throttled('sdk');
      advance(5000);
    }
    expect(concurrency.limit('sdk')).toBe(2);
    const gate = concurrency.gate(() => 'sdk');
    for (let i = 0; i < 50; i++) {
      fill(gate, 'sdk');
      concurrency.succeeded('sdk');
    }
    expect(concurrency.limit('sdk')).toBe(5);
    expect(() => new AdaptiveConcurrency({ pools: { sdk: { initial: 9, ceiling: 5 } } })).toThrow(
      /floor <= initial <= ceiling/,
    );
  });

  it('counts the pools apart: a full Cloud Control pool does not hold back SDK calls', () => {
    const { concurrency } = setup({
      pools: {
        'cloud-control': { initial: 2, floor: 1, ceiling: 2 },
        sdk: { initial: 1, floor: 1, ceiling: 1 },
      },
    });
    const gate = concurrency.gate((id) => (id.startsWith('cc') ? 'cloud-control' : 'sdk'));
    expect(gate.classOf('cc1')).toBe('cloud-control');
    expect(fill(gate, 'cloud-control')).toBe(2);
    expect(fill(gate, 'sdk')).toBe(1);
    gate.release('cloud-control');
    expect(fill(gate, 'cloud-control')).toBe(1);
    concurrency.throttled('sdk');
    expect(concurrency.limit('cloud-control')).toBe(2);
  });

  it('caps one graph run at --concurrency whatever the pools allow, and shares the pools between runs', () => {
    const { concurrency } = setup();
    const capped = concurrency.gate(() => 'cloud-control', 3);
    const other = concurrency.gate(() => 'cloud-control');
    expect(fill(capped, 'cloud-control')).toBe(3);
    expect(fill(other, 'cloud-control')).toBe(POOL_DEFAULTS['cloud-control'].initial - 3);
    expect(() => concurrency.gate(() => 'sdk', 0)).toThrow(RangeError);
  });

  it('tells waiting graph runs when slots free up or the limit grows, asynchronously', async () => {
    const { concurrency } = setup({ pools: { sdk: { initial: 1, floor: 1, ceiling: 4 } } });
    const gate = concurrency.gate(() => 'sdk');
    let calls = 0;
    const stop = gate.onCapacity(() => calls++);
    gate.tryAcquire('sdk');
    gate.release('sdk');
    expect(calls).toBe(0);
    await flushPromises();
    expect(calls).toBe(1);
    gate.tryAcquire('sdk');
    concurrency.succeeded('sdk');
    await flushPromises();
    expect(calls).toBe(2);
    stop();
    gate.release('sdk');
    await flushPromises();
    expect(calls).toBe(2);
  });
});
