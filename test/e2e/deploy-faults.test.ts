/**
 * Throttling, 5xx answers and lost replies while deploying and destroying a
 * real CDK app: the run converges to the same inventory as a clean one, with no
 * duplicate resource (retried creates reuse their idempotency token / name).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');
const STACK = 'E2eFaults';

describe('deploy under injected faults', () => {
  let h: CdkdHarness;
  let out: string;

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-faults-out-'));
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  const injectFaults = async () => {
    const c = h.emulator.control;
    // Seeded draws, and a cap per SDK call below its 5 attempts (two Cloud Control faults: 2 + 2),
    // so every call is faulted often but none fails for good: the run is the same every time.
    await c.addFault({
      service: 'cloudcontrol',
      error: 'ThrottlingException',
      probability: 0.3,
      seed: 1,
      maxPerCall: 2,
    });
    await c.addFault({ service: 'cloudcontrol', error: 500, probability: 0.15, seed: 2, maxPerCall: 2 });
    await c.addFault({ service: 'sqs', error: 503, probability: 0.3, seed: 3, maxPerCall: 3 });
    await c.addFault({
      service: 's3',
      operation: 'PutObject',
      error: 'SlowDown',
      probability: 0.2,
      seed: 4,
      maxPerCall: 3,
    });
    // Lost replies: the request is applied, the answer never arrives.
    await c.addFault({ service: 'cloudcontrol', operation: 'CreateResource', mode: 'drop', count: 2 });
    await c.addFault({ service: 'sqs', operation: 'CreateQueue', mode: 'drop', count: 1 });
  };

  it('converges to one resource per logical id, matching state', async () => {
    await injectFaults();
    const result = await h.cdkd(['deploy', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`], {
      cwd: APP,
    });
    expectExit(result);
    // The lost replies are counted faults: the emulator drops a fault from its list once its
    // count runs out, so none left means each one fired (the random ones may all miss on an
    // app this small, so they prove nothing either way).
    const counted = (await h.emulator.control.faults()).filter((f) => f.remaining !== undefined);
    expect(counted).toEqual([]);

    const state = await h.readState(STACK);
    const inventory = await h.appInventory();
    expect(inventoryResources(inventory)).toEqual(stateResources(state));
    const byType = (type: string) => inventory.filter((r) => r.type === type).length;
    expect(byType('AWS::SQS::Queue')).toBe(1);
    expect(byType('AWS::SSM::Parameter')).toBe(1);
    expect(byType('AWS::Logs::LogGroup')).toBe(1);
  });

  it('destroys under the same faults and leaves nothing behind', async () => {
    await h.emulator.control.clearFaults();
    await injectFaults();
    const result = await h.cdkd(
      ['destroy', '--force', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`],
      { cwd: APP },
    );
    expectExit(result);
    await h.emulator.control.clearFaults();
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });
});
