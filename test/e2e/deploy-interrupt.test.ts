/**
 * Ctrl-C during a deploy: the first SIGINT stops new work, lets the operations
 * in flight finish, saves state and releases the lock; the command exits
 * non-zero and a re-run finishes the job without waiting for the lock.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');
const STACK = 'E2eInterrupt';

describe('interrupting a deploy', () => {
  let h: CdkdHarness;
  let out: string;

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-interrupt-out-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('saves what finished, releases the lock, and a re-run completes', async () => {
    // The log group and the parameter take a while in Cloud Control; the queue (SQS pack) is quick.
    await h.emulator.control.setTypeLatency('AWS::Logs::LogGroup', 4000);
    await h.emulator.control.setTypeLatency('AWS::SSM::Parameter', 4000);
    const args = ['deploy', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`];
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: APP,
      env: h.env,
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
    child.kill('SIGINT');
    const code = await exited;

    expect(code).not.toBe(0);
    expect(stderr).toMatch(/SIGINT received/);
    expect(stderr).toMatch(/Deploy interrupted/);
    // Nothing to fix: the remedy is to run the same deploy again.
    expect(stderr).toContain('run the same cdkd deploy again to continue where it stopped');
    expect(stderr).not.toMatch(/fix the cause/i);
    const state = await h.readState(STACK);
    // Everything that finished is in state, and what state records exists.
    expect(Object.values(state!.resources).map((r) => r.resourceType)).toContain('AWS::SQS::Queue');
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    expect(await h.stateObjectExists(`cdkd/${STACK}/us-east-1/state.json`)).toBe(true);
    expect(await h.stateObjectExists(`cdkd/${STACK}/us-east-1/lock.json`)).toBe(false);

    await h.emulator.control.clearTypeSettings();
    const rerun = await h.cdkd(args, { cwd: APP });
    expectExit(rerun);
    const done = await h.readState(STACK);
    expect(Object.keys(done!.resources)).toHaveLength(3);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(done));
  });

  it('a third Ctrl-C quits at once and names the lock to remove, with its region', async () => {
    const stack = `${STACK}Twice`;
    await h.emulator.control.setTypeLatency('AWS::SSM::Parameter', 60_000);
    // The first Ctrl-C lets the operations in flight finish, the second cancels them and then saves
    // state and releases the lock; S3 deletes (the log's folded segments, the lock) are held so that
    // the third arrives while that is still going on, whatever the machine's speed.
    await h.emulator.control.setLatency([
      { service: 's3', operation: 'DeleteObject', ms: 60_000 },
      { service: 's3', operation: 'DeleteObjects', ms: 60_000 },
    ]);
    const args = ['deploy', '--progress', 'events', '-o', out, '-c', `stackName=${stack}`];
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: APP,
      env: h.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const steps: Array<[RegExp, boolean]> = [
      [/creating Parameter/, false],
      [/SIGINT received:/, false],
      [/SIGINT received again/, false],
    ];
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Each Ctrl-C once the previous one is acknowledged (the first once a resource is in flight).
      const next = steps.find((step) => !step[1]);
      if (next && next[0].test(stderr)) {
        next[1] = true;
        child.kill('SIGINT');
      }
    });
    expect(await exited).toBe(130);
    expect(stderr).toContain('Quit without waiting.');
    expect(stderr).toContain(`run: cdkd force-unlock ${stack} --region us-east-1`);
    expect(stderr).not.toContain('<stack>');
    await h.emulator.control.clearLatency();
    await h.emulator.control.clearTypeSettings();
    expectExit(await h.cdkd(['force-unlock', stack, '--region', 'us-east-1', '--force']));
  });
});
