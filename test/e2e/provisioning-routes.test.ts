/**
 * How a deploy says its resources were provisioned, and `--cloud-control-only`:
 * the basic example app (a queue the bundled SQS pack takes, a parameter whose
 * pack is installable, a log group) through the built CLI against the emulator.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');
const STACK = 'E2eRoutes';

describe('provisioning routes', () => {
  let h: CdkdHarness;
  let out: string;

  const run = (command: 'deploy' | 'destroy', ...flags: string[]) =>
    h.cdkd(
      [
        command,
        ...(command === 'destroy' ? ['--force'] : []),
        '--progress',
        'events',
        '-o',
        out,
        '-c',
        `stackName=${STACK}`,
        ...flags,
      ],
      { cwd: APP },
    );

  const expectInventoryMatchesState = async () => {
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(await h.readState(STACK)));
  };

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-routes-out-'));
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('ends a deploy with how each resource was provisioned and the pack that would take the parameter', async () => {
    const result = await run('deploy');
    expectExit(result);
    expect(result.stderr).toMatch(
      /Provisioned 3 resources: \d by SDK packs \([^)]*@cdkd\/provider-sqs 1[^)]*\), \d by Cloud Control\./,
    );
    expect(result.stderr).toContain(
      '@cdkd/provider-ssm would provision 1 of them faster (AWS::SSM::Parameter): cdkd plugins install @cdkd/provider-ssm',
    );
    const state = await h.readState(STACK);
    expect(Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')).toMatchObject({
      provisionedBy: 'sdk',
      providerPack: '@cdkd/provider-sqs',
    });
    expectExit(await run('destroy'));
  });

  it('--cloud-control-only sends every resource to Cloud Control, records it, and destroys through it', async () => {
    await h.emulator.control.clearRequests();
    const deployed = await run('deploy', '--cloud-control-only');
    expectExit(deployed);
    expect(deployed.stderr).toContain(
      'Provisioned 3 resources: 0 by SDK packs, 3 by Cloud Control (--cloud-control-only).',
    );
    expect(deployed.stderr).not.toContain('would provision');
    const state = await h.readState(STACK);
    for (const record of Object.values(state!.resources)) expect(record.provisionedBy).toBe('cc-api');
    let { byOperation } = await h.emulator.control.requests();
    expect(byOperation['sqs:CreateQueue'] ?? 0).toBe(0);
    expect(byOperation['cloudcontrol:CreateResource']).toBe(3);
    await expectInventoryMatchesState();

    await h.emulator.control.clearRequests();
    expectExit(await run('destroy', '--cloud-control-only'));
    ({ byOperation } = await h.emulator.control.requests());
    expect(byOperation['sqs:DeleteQueue'] ?? 0).toBe(0);
    expect(byOperation['cloudcontrol:DeleteResource']).toBe(3);
    expect(await h.appInventory()).toEqual([]);
  });
});
