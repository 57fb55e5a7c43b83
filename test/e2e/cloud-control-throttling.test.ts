/**
 * A burst of Cloud Control throttling while deploying and destroying a wide
 * stack through the built CLI: the run succeeds with every resource made once,
 * cdkd counted the throttled calls and backed its Cloud Control limit off.
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
});
