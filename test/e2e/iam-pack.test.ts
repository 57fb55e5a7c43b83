/**
 * A real aws-cdk-lib app with the IAM types CDK apps make, through the built
 * CLI: every AWS::IAM type goes through @cdkd/provider-iam (the emulator
 * refuses them on Cloud Control, and its request log shows the IAM API),
 * through create, update in place with property removal, replacement,
 * no-op and destroy, the inventory equal to state after each step.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import type { StackState } from '../../src/state/types';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'iam-pack-app');
const STACK = 'E2eIamPack';
const IAM_TYPES = [
  'AWS::IAM::AccessKey',
  'AWS::IAM::Group',
  'AWS::IAM::InstanceProfile',
  'AWS::IAM::ManagedPolicy',
  'AWS::IAM::Policy',
  'AWS::IAM::Role',
  'AWS::IAM::User',
  'AWS::IAM::UserToGroupAddition',
];
// IAM has no object for these (an inline policy on each principal, a set of memberships):
// they are parts of their principals, not inventory items of their own.
const NOT_IN_INVENTORY = /^AWS::IAM::(Policy|UserToGroupAddition) /;

describe('an IAM app through @cdkd/provider-iam', () => {
  let h: CdkdHarness;
  let out: string;
  let iam: IAMClient;

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
    expect(inventoryResources(await h.appInventory())).toEqual(
      stateResources(state).filter((r) => !NOT_IN_INVENTORY.test(r)),
    );
    return state;
  };
  const role = async (state: StackState | undefined) =>
    (await iam.send(new GetRoleCommand({ RoleName: byType(state, 'AWS::IAM::Role').physicalId }))).Role!;

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-iam-pack-out-'));
    iam = new IAMClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    // Cloud Control refuses the IAM types: only the pack can make them.
    for (const type of IAM_TYPES) await h.emulator.control.setTypeProvisionable(type, false);
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    iam?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('creates every IAM resource through the IAM API', async () => {
    await h.emulator.control.clearRequests();
    expectExit(await deploy());
    const state = await expectInventoryMatchesState();
    for (const type of IAM_TYPES) expect([type, byType(state, type)?.provisionedBy]).toEqual([type, 'sdk']);
    const calls = Object.keys((await h.emulator.control.requests()).byOperation);
    expect(calls).toEqual(
      expect.arrayContaining([
        'iam:CreateRole',
        'iam:PutRolePolicy',
        'iam:CreatePolicy',
        'iam:CreateInstanceProfile',
        'iam:CreateGroup',
        'iam:CreateUser',
        'iam:AddUserToGroup',
        'iam:CreateAccessKey',
      ]),
    );
    expect(calls.filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    expect(await role(state)).toMatchObject({ Description: 'first', MaxSessionDuration: 7200 });
  });

  it('updates in place and resets the properties the app removed', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('variant=v2'));
    const state = await expectInventoryMatchesState();
    expect(byType(state, 'AWS::IAM::Role').physicalId).toBe(byType(before, 'AWS::IAM::Role').physicalId);
    const r = await role(state);
    expect(r.Description).toBeUndefined();
    expect(r.MaxSessionDuration).toBe(3600);
  });

  it('replaces the role and moves what references it', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('variant=v2', 'roleSuffix=r1'));
    const state = await expectInventoryMatchesState();
    expect(byType(state, 'AWS::IAM::Role').physicalId).toBe(`${STACK}-role-r1`);
    expect(inventoryResources(await h.appInventory())).not.toContain(
      `AWS::IAM::Role ${byType(before, 'AWS::IAM::Role').physicalId}`,
    );
  });

  it('redeploys with no changes: no IAM or Cloud Control call', async () => {
    await h.emulator.control.clearRequests();
    const result = await deploy('variant=v2', 'roleSuffix=r1');
    expectExit(result);
    expect(result.stderr).toMatch(/no changes/);
    const calls = Object.keys((await h.emulator.control.requests()).byOperation);
    expect(calls.filter((op) => /^(cloudcontrol|iam):/.test(op))).toEqual([]);
    await expectInventoryMatchesState();
  });

  it('destroys everything', async () => {
    const result = await h.cdkd(
      ['destroy', '--force', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`],
      { cwd: APP },
    );
    expectExit(result);
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });
});
