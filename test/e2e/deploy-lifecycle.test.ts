/**
 * A real aws-cdk-lib app (CDKMetadata, the BootstrapVersion parameter and
 * Rules included, no edits) through the built CLI against the emulator:
 * create → update in place → replacement → removal → no-change redeploy →
 * destroy. After every step the emulator's inventory equals what state records.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');
const STACK = 'E2eLifecycle';

describe('deploy lifecycle through Cloud Control and the SQS pack', () => {
  let h: CdkdHarness;
  let out: string;
  let sqs: SQSClient;

  const deploy = (...context: string[]) =>
    h.cdkd(
      [
        'deploy',
        '--progress',
        'events',
        '-o',
        out,
        '-c',
        `stackName=${STACK}`,
        ...context.flatMap((c) => ['-c', c]),
      ],
      { cwd: APP },
    );

  const expectInventoryMatchesState = async () => {
    const state = await h.readState(STACK);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    return state;
  };

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-lifecycle-out-'));
    sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    sqs?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('creates the stack, records it and prints the outputs', async () => {
    const result = await deploy();
    expectExit(result);
    expect(result.stdout).toMatch(/Outputs of E2eLifecycle:/);
    expect(result.stdout).toMatch(/QueueUrl = http/);
    const state = await expectInventoryMatchesState();
    expect(state?.version).toBe(9);
    const types = Object.values(state!.resources)
      .map((r) => r.resourceType)
      .sort();
    expect(types).toEqual(['AWS::Logs::LogGroup', 'AWS::SQS::Queue', 'AWS::SSM::Parameter']);
    // CDKMetadata is not an AWS resource; BootstrapVersion is never resolved (only Rules read it).
    expect(Object.keys(state!.resources).some((id) => id.startsWith('CDKMetadata'))).toBe(false);
    const queue = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    expect(queue.provisionedBy).toBe('sdk');
    // The log group through the bundled Logs pack; the parameter through Cloud Control (its pack is installable).
    const logGroup = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::Logs::LogGroup')!;
    expect(logGroup).toMatchObject({ provisionedBy: 'sdk', providerPack: '@cdkd/provider-logs' });
    const parameter = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SSM::Parameter')!;
    expect(parameter.provisionedBy).toBe('cc-api');
    expect(state!.exportNames).toEqual([`${STACK}-QueueUrl`]);
    expect(state!.outputs[`${STACK}-QueueUrl`]).toBe(queue.physicalId);
  });

  it('updates in place', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('variant=v2'));
    const state = await expectInventoryMatchesState();
    const queue = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    const previous = Object.values(before!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    expect(queue.physicalId).toBe(previous.physicalId);
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queue.physicalId, AttributeNames: ['VisibilityTimeout'] }),
    );
    expect(attrs.Attributes?.VisibilityTimeout).toBe('60');
  });

  it('replaces a resource whose create-only property changed, and deletes the original', async () => {
    const before = await h.readState(STACK);
    const previous = Object.values(before!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    expectExit(await deploy('variant=v2', 'queueSuffix=r1'));
    const state = await expectInventoryMatchesState();
    const queue = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')!;
    expect(queue.physicalId).not.toBe(previous.physicalId);
    expect(queue.physicalId).toMatch(/E2eLifecycle-queue-r1$/);
    expect(inventoryResources(await h.appInventory())).not.toContain(
      `AWS::SQS::Queue ${previous.physicalId}`,
    );
  });

  it('deletes a resource removed from the app', async () => {
    expectExit(await deploy('variant=v2', 'queueSuffix=r1', 'withLogGroup=false'));
    const state = await expectInventoryMatchesState();
    expect(Object.values(state!.resources).map((r) => r.resourceType)).not.toContain('AWS::Logs::LogGroup');
  });

  it('redeploys with no changes: no provider call and no state write', async () => {
    await h.emulator.control.clearRequests();
    const result = await deploy('variant=v2', 'queueSuffix=r1', 'withLogGroup=false');
    expectExit(result);
    expect(result.stderr).toMatch(/no changes/);
    const { byOperation } = await h.emulator.control.requests();
    const calls = Object.keys(byOperation);
    expect(calls.filter((op) => /^(cloudcontrol|sqs|ssm|logs):/.test(op))).toEqual([]);
    expect(calls.filter((op) => /^s3:(Put|Delete|Copy)/.test(op))).toEqual([]);
    await expectInventoryMatchesState();
  });

  it('destroys everything and removes the state file', async () => {
    const result = await h.cdkd(
      ['destroy', '--force', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`],
      { cwd: APP },
    );
    expectExit(result);
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });
});
