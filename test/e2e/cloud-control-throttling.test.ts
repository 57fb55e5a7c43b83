/**
 * Cloud Control throttling while deploying and destroying a wide stack through
 * the built CLI: a burst of ThrottlingException (fault injection), then the
 * emulator's modelled rate limits. Each run succeeds with every resource made
 * once; cdkd counted the throttled calls and backed its Cloud Control limit off.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

/** The benchmarks' synthetic app: N independent resources of five Cloud Control types. */
const APP = `node ${path.join(ROOT, 'scripts', 'bench', 'synthetic-app.js')}`;
const STACK = 'E2eThrottling';
const SIZE = 40;
const BURST = 24;

interface JsonRun {
  stacks: Array<{ stackName: string; summary: Record<string, number> }>;
  provisioning: { pools: Record<string, { throttles: number; backoffs: number; peakInFlight: number }> };
}

describe('Cloud Control throttling', () => {
  let h: CdkdHarness;
  let assembly: string;

  beforeAll(async () => {
    h = await startHarness();
    assembly = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-throttling-'));
    expectExit(await h.cdkd(['bootstrap']));
    const context = { size: SIZE, shape: 'wide', types: 'orchestration', stackName: STACK };
    expectExit(
      await h.cdkd([
        'synth',
        '--app',
        APP,
        '-o',
        assembly,
        ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ]),
    );
    // Requests overlap, so the burst lands on many in flight.
    await h.emulator.control.setTypeLatency('*', 300);
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(assembly, { recursive: true, force: true });
  });

  const burst = () =>
    h.emulator.control.addFault({ service: 'cloudcontrol', error: 'ThrottlingException', count: BURST });

  const expectThrottledAndBackedOff = async (run: JsonRun) => {
    // A fault with a count is gone once every call of it fired.
    expect(await h.emulator.control.faults()).toEqual([]);
    const pool = run.provisioning.pools['cloud-control'];
    expect(pool.throttles).toBe(BURST);
    expect(pool.backoffs).toBeGreaterThanOrEqual(1);
  };

  it('deploys through a burst of throttling: every resource once, as state records it', async () => {
    await burst();
    const result = await h.cdkd(['deploy', '--app', assembly, '--json', '--progress', 'events']);
    expectExit(result);
    const run = JSON.parse(result.stdout) as JsonRun;
    expect(run.stacks[0].summary.created).toBe(SIZE);
    await expectThrottledAndBackedOff(run);
    const inventory = await h.appInventory();
    expect(inventory).toHaveLength(SIZE);
    expect(inventoryResources(inventory)).toEqual(stateResources(await h.readState(STACK)));
  });

  it('destroys through a burst of throttling and leaves nothing behind', async () => {
    await h.emulator.control.clearFaults();
    await burst();
    const result = await h.cdkd(['destroy', '--app', assembly, '--force', '--json', '--progress', 'events']);
    expectExit(result);
    await expectThrottledAndBackedOff(JSON.parse(result.stdout) as JsonRun);
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });

  it('deploys and destroys within Cloud Control rate limits, with a bounded number of throttles', async () => {
    await h.emulator.control.setCloudControlRateLimits({
      enabled: true,
      limits: {
        CreateResource: { rate: 8, burst: 8 },
        DeleteResource: { rate: 8, burst: 8 },
        GetResourceRequestStatus: { rate: 15, burst: 15 },
        GetResource: { rate: 15, burst: 15 },
      },
    });
    for (const args of [
      ['deploy', '--app', assembly, '--json', '--progress', 'events'],
      ['destroy', '--app', assembly, '--force', '--json', '--progress', 'events'],
    ]) {
      const result = await h.cdkd(args);
      expectExit(result);
      const run = JSON.parse(result.stdout) as JsonRun;
      const summary = run.stacks[0].summary;
      expect(args[0] === 'deploy' ? summary.created : summary.deleted).toBe(SIZE);
      const pool = run.provisioning.pools['cloud-control'];
      expect(pool.throttles).toBeGreaterThan(0);
      // Backing off keeps throttles to a fraction of the calls: at most one per resource here.
      expect(pool.throttles).toBeLessThanOrEqual(SIZE);
      expect(pool.backoffs).toBeGreaterThanOrEqual(1);
    }
    expect(await h.appInventory()).toEqual([]);
    const { throttled } = await h.emulator.control.cloudControlRateLimits();
    expect(Object.values(throttled).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
