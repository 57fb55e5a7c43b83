/**
 * Rolling a failed deploy back, with the built CLI against the emulator and a
 * real CDK app whose three resources are made in a chain (queue, parameter,
 * log group). The third fails on an emulator fault that answers every
 * CreateLogGroup with an error until it is cleared (deterministic, no
 * probability); interrupts are driven by the deploy's own progress events.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'rollback-app');
const REGION = 'us-east-1';

describe('rollback of a failed deploy', () => {
  let h: CdkdHarness;
  let out: string;

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-rollback-out-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  afterEach(async () => {
    await h.emulator.control.clearFaults();
  });

  const deploy = (stack: string, ...context: string[]) =>
    h.cdkd(
      [
        'deploy',
        ...context.filter((c) => c.startsWith('--')),
        '--progress',
        'events',
        '-o',
        out,
        '-c',
        `stackName=${stack}`,
        ...context.filter((c) => !c.startsWith('--')).flatMap((c) => ['-c', c]),
      ],
      { cwd: APP },
    );
  /** Destroys the stack from the assembly its last deploy synthesized into `out` (no second synthesis). */
  const destroy = (stack: string) => h.cdkd(['destroy', stack, '--force', '--app', out]);
  const failLogGroups = () =>
    h.emulator.control.addFault({
      service: 'logs',
      operation: 'CreateLogGroup',
      error: 'InvalidParameterException',
      status: 400,
      message: 'injected: the log group is refused',
      count: 100,
    });
  const journalKey = (stack: string) => `cdkd/${stack}/${REGION}/rollback-journal.json`;
  const snapshot = async (stack: string) => ({
    state: stateResources(await h.readState(stack)),
    inventory: inventoryResources(await h.appInventory()),
  });

  it('deletes the two resources made before the third failed, and exits non-zero naming the failure', async () => {
    const stack = 'E2eRollbackNew';
    await failLogGroups();
    const result = await deploy(stack);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LogGroup\w*: .*injected: the log group is refused/);
    expect(result.stderr).toMatch(/Rolled back: 2 operation\(s\) reverted/);
    expect(result.stderr).toMatch(/reverted Parameter\w*: deleted/);
    expect(result.stderr).toMatch(/reverted Queue\w*: deleted/);
    // A first deploy rolled back leaves nothing: no resource, no record.
    expect(await h.appInventory()).toEqual([]);
    expect(await h.readState(stack)).toBeUndefined();
    expect(await h.stateObjectExists(`cdkd/${stack}/${REGION}/lock.json`)).toBe(false);
  });

  it('reverts an update and deletes what was created, back to the pre-deploy state', async () => {
    const stack = 'E2eRollbackUpdate';
    expectExit(await deploy(stack, 'third=false', 'parameter=false'));
    const before = await snapshot(stack);
    const queueOf = async () =>
      Object.values((await h.readState(stack))!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    const queueBefore = await queueOf();
    await failLogGroups();
    const result = await deploy(stack, 'variant=v2');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/reverted Queue\w*: updated back to its pre-deploy properties/);
    expect(await snapshot(stack)).toEqual(before);
    expect((await queueOf()).properties).toEqual(queueBefore.properties);
    const attrs = await h.emulator.control.inventory();
    expect(attrs.filter((r) => r.type === 'AWS::SQS::Queue')).toHaveLength(1);
    // The clean rollback left no journal (the failed create made nothing).
    expect(await h.stateObjectExists(journalKey(stack))).toBe(false);
    expectExit(await destroy(stack));
  });

  it('with --no-rollback keeps them and the journal; cdkd rollback reverts them later, --orphan leaving one', async () => {
    const stack = 'E2eRollbackLater';
    expectExit(await deploy(stack, 'third=false', 'parameter=false'));
    const before = await snapshot(stack);
    await failLogGroups();
    const result = await deploy(stack, 'variant=v2', '--no-rollback');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cdkd rollback E2eRollbackLater reverts/);
    const partial = await h.readState(stack);
    expect(
      Object.values(partial!.resources)
        .map((r) => r.resourceType)
        .sort(),
    ).toEqual(['AWS::SQS::Queue', 'AWS::SSM::Parameter']);
    expect(await h.stateObjectExists(journalKey(stack))).toBe(true);
    await h.emulator.control.clearFaults();

    // --orphan leaves the parameter the failed deploy made (and its record) as it is, and says so.
    const parameterId = Object.entries(partial!.resources).find(
      ([, r]) => r.resourceType === 'AWS::SSM::Parameter',
    )![0];
    const rollback = await h.cdkd(['rollback', stack, '--progress', 'events', '--orphan', parameterId]);
    expectExit(rollback);
    expect(rollback.stderr).toMatch(/rolled back \(1 operation\(s\) reverted\)/);
    expect(rollback.stderr).toMatch(/reverted Queue\w*: updated back to its pre-deploy properties/);
    expect(rollback.stderr).toContain(
      `${parameterId}: left as it is (--orphan); dropped from the journal: its CREATE of`,
    );
    const after = await snapshot(stack);
    expect(after.state.filter((r) => !r.startsWith('AWS::SSM::Parameter'))).toEqual(before.state);
    expect(after.state.filter((r) => r.startsWith('AWS::SSM::Parameter'))).toHaveLength(1);
    expect(after.inventory.filter((r) => r.startsWith('AWS::SSM::Parameter'))).toHaveLength(1);
    expect(await h.stateObjectExists(journalKey(stack))).toBe(false);
    // Nothing left to do: a second run says so.
    const again = await h.cdkd(['rollback', stack]);
    expectExit(again);
    expect(again.stderr).toMatch(/no rollback journal, nothing to roll back/);
    expectExit(await destroy(stack));
  });

  it('reverses a replacement: the original is back in state and the new copy is gone', async () => {
    const stack = 'E2eRollbackReplace';
    expectExit(await deploy(stack, 'queueName=rb-original', 'third=false'));
    const before = await snapshot(stack);
    await failLogGroups();
    const result = await deploy(stack, 'queueName=rb-replacement');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/reverted Queue\w*: the original .*rb-original.* is back/);
    expect(await snapshot(stack)).toEqual(before);
    const queues = (await h.appInventory()).filter((r) => r.type === 'AWS::SQS::Queue');
    expect(queues.map((q) => q.identifier)).toEqual([expect.stringContaining('rb-original')]);
    expect((await h.readState(stack))!.deposed ?? []).toEqual([]);
    expectExit(await destroy(stack));
  });

  /** Starts a deploy and resolves once its progress events show `pattern`. */
  const deployUntil = (stack: string, pattern: RegExp, context: string[]) => {
    const args = ['deploy', '--progress', 'events', '-o', out, '-c', `stackName=${stack}`];
    for (const c of context) args.push('-c', c);
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: APP,
      env: h.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const reached = new Promise<void>((resolve) =>
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (pattern.test(stderr)) resolve();
      }),
    );
    return { child, exited, reached, stderr: () => stderr };
  };

  it.each<['SIGINT' | 'SIGKILL', string]>([
    ['SIGINT', 'Ctrl-C'],
    ['SIGKILL', 'kill -9'],
  ])(
    'after %s (%s) during a deploy, cdkd rollback returns the stack to its pre-deploy state',
    async (signal) => {
      const stack = `E2eRollback${signal}`;
      expectExit(await deploy(stack, 'third=false', 'parameter=false'));
      const before = await snapshot(stack);
      // The parameter's create (Cloud Control) is slowed so that the signal, sent on its "creating"
      // event, lands while it is in flight: the queue is updated, the log group (after the
      // parameter) never starts.
      await h.emulator.control.setLatency([
        { service: 'cloudcontrol', operation: 'CreateResource', ms: 10_000 },
      ]);
      await h.emulator.control.clearRequests();
      const run = deployUntil(stack, /creating Parameter/, ['variant=v2']);
      await run.reached;
      // Its intent is durable once the request reaches the emulator (counted before the latency).
      while (!((await h.emulator.control.requests()).byOperation['cloudcontrol:CreateResource'] >= 1))
        await new Promise((r) => setTimeout(r, 50));
      run.child.kill(signal);
      const code = await run.exited;
      expect(code).not.toBe(0);
      if (signal === 'SIGINT') expect(run.stderr()).toMatch(/cdkd rollback/);
      else {
        // The killed process's create still lands in the emulator: wait for it, so the rollback
        // finds what it made; then the lock the killed process held is removed, as its message says.
        while (!(await h.appInventory()).some((r) => r.type === 'AWS::SSM::Parameter'))
          await new Promise((r) => setTimeout(r, 200));
        expectExit(await h.cdkd(['force-unlock', stack, '--force']));
      }
      await h.emulator.control.clearLatency();
      expect(await h.stateObjectExists(journalKey(stack))).toBe(true);

      const rollback = await h.cdkd(['rollback', stack, '--progress', 'events']);
      expectExit(rollback);
      expect(await snapshot(stack)).toEqual(before);
      expect(await h.stateObjectExists(journalKey(stack))).toBe(false);
      expectExit(await destroy(stack));
    },
  );
});
