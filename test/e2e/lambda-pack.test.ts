/**
 * A real aws-cdk-lib app with a function and its parts through the built CLI:
 * every AWS::Lambda type goes through @cdkd/provider-lambda (the emulator
 * refuses them on Cloud Control, and its request log shows the Lambda API),
 * through create, update in place with property removal, replacement,
 * no-op and destroy, the inventory equal to state after each step.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { StackState } from '../../src/state/types';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'lambda-pack-app');
const STACK = 'E2eLambdaPack';
const LAMBDA_TYPES = [
  'AWS::Lambda::Alias',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::Lambda::Url',
  'AWS::Lambda::Version',
];

describe('a Lambda app through @cdkd/provider-lambda', () => {
  let h: CdkdHarness;
  let out: string;
  let lambda: LambdaClient;

  const deploy = (...context: string[]) =>
    h.cdkd(
      [
        'deploy',
        '--require-approval',
        'never',
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
  const byType = (state: StackState | undefined, type: string) =>
    Object.values(state!.resources).find((r) => r.resourceType === type)!;
  const expectInventoryMatchesState = async () => {
    const state = await h.readState(STACK);
    // An AWS::IAM::Policy (through the bundled IAM pack) is an inline policy of its role: no object of its own.
    const ownObjects = (ids: string[]) => ids.filter((id) => !id.startsWith('AWS::IAM::Policy '));
    expect(inventoryResources(await h.appInventory())).toEqual(ownObjects(stateResources(state)));
    return state;
  };
  const lambdaCalls = async () =>
    Object.keys((await h.emulator.control.requests()).byOperation).filter((op) => op.startsWith('lambda:'));

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-lambda-pack-out-'));
    lambda = new LambdaClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    // Cloud Control refuses the Lambda types: only the pack can make them.
    for (const type of LAMBDA_TYPES) await h.emulator.control.setTypeProvisionable(type, false);
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    lambda?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('creates every Lambda resource through the Lambda API', async () => {
    await h.emulator.control.clearRequests();
    expectExit(await deploy());
    const state = await expectInventoryMatchesState();
    for (const type of LAMBDA_TYPES)
      expect([type, byType(state, type)?.provisionedBy]).toEqual([type, 'sdk']);
    expect(await lambdaCalls()).toEqual(
      expect.arrayContaining([
        'lambda:CreateFunction',
        'lambda:AddPermission',
        'lambda:PublishVersion',
        'lambda:CreateAlias',
        'lambda:CreateFunctionUrlConfig',
        'lambda:PutFunctionEventInvokeConfig',
        'lambda:CreateEventSourceMapping',
      ]),
    );
    const fn = byType(state, 'AWS::Lambda::Function');
    const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn.physicalId }));
    expect(config).toMatchObject({ State: 'Active', Timeout: 10, MemorySize: 256 });
    expect(config.Environment?.Variables).toEqual({ STAGE: 'one' });
  });

  it('updates in place and resets the properties the app removed', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('variant=v2'));
    const state = await expectInventoryMatchesState();
    const fn = byType(state, 'AWS::Lambda::Function');
    expect(fn.physicalId).toBe(byType(before, 'AWS::Lambda::Function').physicalId);
    const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn.physicalId }));
    expect(config).toMatchObject({ Timeout: 20, MemorySize: 128, LastUpdateStatus: 'Successful' });
    expect(config.Environment?.Variables ?? {}).toEqual({});
  });

  it('replaces the function and the parts that name it', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('variant=v2', 'functionSuffix=r1'));
    const state = await expectInventoryMatchesState();
    const fn = byType(state, 'AWS::Lambda::Function');
    expect(fn.physicalId).toBe(`${STACK}-fn-r1`);
    expect(inventoryResources(await h.appInventory())).not.toContain(
      `AWS::Lambda::Function ${byType(before, 'AWS::Lambda::Function').physicalId}`,
    );
  });

  it('redeploys with no changes: no Lambda or Cloud Control call', async () => {
    await h.emulator.control.clearRequests();
    const result = await deploy('variant=v2', 'functionSuffix=r1');
    expectExit(result);
    expect(result.stderr).toMatch(/no changes/);
    const calls = Object.keys((await h.emulator.control.requests()).byOperation);
    expect(calls.filter((op) => /^(cloudcontrol|lambda|sqs|iam):/.test(op))).toEqual([]);
    await expectInventoryMatchesState();
  });

  it('destroys everything', async () => {
    const result = await h.cdkd(
      ['destroy', '--force', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`],
      {
        cwd: APP,
      },
    );
    expectExit(result);
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });
});
