/**
 * `cdkd force-unlock` of a live lock while a deploy runs: the deploy notices at
 * its next renewal, stops (cancelling what is in flight), says why and exits
 * non-zero; the next deploy settles what it left and converges with one
 * resource per logical id.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { BIN, ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');
const STACK = 'E2eLockLoss';

describe('losing the lock during a deploy', () => {
  let h: CdkdHarness;

  beforeAll(async () => {
    h = await startHarness();
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('stops at the next renewal, names the cause, and the next deploy converges without duplicates', async () => {
    await h.emulator.control.setTypeLatency('AWS::Logs::LogGroup', 30_000);
    await h.emulator.control.setTypeLatency('AWS::SSM::Parameter', 30_000);
    // A short TTL: renewals every 2 s.
    const env = { ...h.env, CDKD_LOCK_TTL_SECONDS: '8' };
    const args = ['deploy', '--progress', 'events', '-c', `stackName=${STACK}`];
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: APP,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/created Queue/.test(stderr)) resolve();
      });
    });
    const unlock = await h.cdkd(['force-unlock', STACK, '--force'], { env });
    expectExit(unlock);
    const code = await exited;

    expect(code).not.toBe(0);
    expect(stderr).toMatch(/Lost the lock on E2eLockLoss \(us-east-1\).*gone \(removed by another process/);
    expect(stderr).toMatch(/state\.json was not written: what this run finished is in the write-ahead log/);

    await h.emulator.control.clearTypeSettings();
    const rerun = await h.cdkd(args, { cwd: APP, env });
    expectExit(rerun);
    const state = await h.readState(STACK);
    expect(Object.keys(state!.resources).sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Queue/),
        expect.stringMatching(/^Parameter/),
        expect.stringMatching(/^LogGroup/),
      ]),
    );
    expect(Object.keys(state!.resources)).toHaveLength(3);
    expect(state!.deposed).toBeUndefined();
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
  });
});
