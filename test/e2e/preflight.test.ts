/**
 * What is refused before anything changes, through the built CLI on a real
 * aws-cdk-lib app (test/e2e/apps/preflight-app): a template whose resources
 * break their schema (every violation named), a template with no resources
 * (instead of deleting the stack), and a removal that would need a snapshot no
 * provider can take (never a silent delete), on deploy cleanup and destroy.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'preflight-app');
const STACK = 'E2ePreflight';
const STATE_KEY = `cdkd/${STACK}/us-east-1/state.json`;
const LOCK_KEY = `cdkd/${STACK}/us-east-1/lock.json`;

describe('refused before anything changes', () => {
  let h: CdkdHarness;
  let out: string;

  const cdkd = (command: string, ...context: string[]) =>
    h.cdkd(
      [
        command,
        ...(command === 'deploy' ? ['--require-approval', 'never', '--progress', 'events'] : []),
        ...(command === 'destroy' ? ['--force'] : []),
        '-o',
        out,
        '-c',
        `stackName=${STACK}`,
        ...context.flatMap((c) => ['-c', c]),
      ],
      { cwd: APP },
    );
  const inventory = async () => inventoryResources(await h.appInventory());

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-preflight-out-'));
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('refuses a first deploy whose resources break their schema, naming both, and writes nothing', async () => {
    // diff lists the same violations, per resource, before any deploy.
    const diff = await cdkd('diff', 'shape=bad');
    expectExit(diff);
    expect(diff.stdout).toMatch(
      /\[!\] NoValue \(AWS::SSM::Parameter\)\n\s+Properties\.Value: Value is required .*\[required\]/,
    );
    expect(diff.stdout).toMatch(
      /\[!\] WrongType \(AWS::SQS::Queue\)\n\s+Properties\.VisibilityTimeout: .*must be integer \[type\]/,
    );
    expect(diff.stderr).toMatch(
      /cdkd deploy will refuse this stack: 2 resource properties break their schema/,
    );
    const r = await cdkd('deploy', 'shape=bad');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /NoValue \(AWS::SSM::Parameter\) Properties\.Value: Value is required .*\[required\]/,
    );
    expect(r.stderr).toMatch(
      /WrongType \(AWS::SQS::Queue\) Properties\.VisibilityTimeout: .*must be integer \[type\]/,
    );
    expect(r.stderr).toContain('Nothing was changed');
    // The good resources of the same template were not made either.
    expect(await inventory()).toEqual([]);
    expect(await h.stateObjectExists(STATE_KEY)).toBe(false);
    expect(await h.stateObjectExists(LOCK_KEY)).toBe(false);
  });

  it('deploys the good template (real CDK output passes the check), then refuses the bad one as an update', async () => {
    expectExit(await cdkd('deploy', 'shape=good'));
    const before = await h.readState(STACK);
    expect(stateResources(before)).toHaveLength(3);
    const r = await cdkd('deploy', 'shape=bad');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/NoValue \(AWS::SSM::Parameter\)/);
    expect(r.stderr).toMatch(/WrongType \(AWS::SQS::Queue\)/);
    expect(await h.readState(STACK)).toEqual(before);
    expect(await inventory()).toEqual(stateResources(before));
    expect(await h.stateObjectExists(LOCK_KEY)).toBe(false);
  });

  it('refuses a template with no resources instead of deleting the stack, naming cdkd destroy', async () => {
    const before = await h.readState(STACK);
    const r = await cdkd('deploy', 'shape=empty');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${STACK} cannot be deployed: its template has no resources`);
    expect(r.stderr).toContain(`cdkd destroy ${STACK}`);
    expect(await h.readState(STACK)).toEqual(before);
    expect(await inventory()).toEqual(stateResources(before));
  });

  it('never silently deletes a removed resource with DeletionPolicy Snapshot: diff flags it, deploy refuses it', async () => {
    expectExit(await cdkd('deploy', 'shape=good', 'queuePolicy=Snapshot'));
    const before = await h.readState(STACK);
    const queue = Object.entries(before!.resources).find(([, r]) => r.resourceType === 'AWS::SQS::Queue')!;
    expect(queue[1].deletionPolicy).toBe('Snapshot');

    const diff = await cdkd('diff', 'shape=removed');
    expect(diff.stdout + diff.stderr).toMatch(
      /Snapshot: no installed provider can snapshot it; the deploy will refuse/,
    );

    const r = await cdkd('deploy', 'shape=removed');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${queue[0]} (AWS::SQS::Queue) has DeletionPolicy Snapshot`);
    expect(r.stderr).toMatch(/RETAIN .*DESTROY/);
    expect(await h.readState(STACK)).toEqual(before);
    expect(await inventory()).toEqual(stateResources(before));
  });

  it('destroy refuses the same resource and deletes nothing; Retain then lets both go their way', async () => {
    const before = await h.readState(STACK);
    const r = await cdkd('destroy', 'shape=good', 'queuePolicy=Snapshot');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot be destroyed: .*\(AWS::SQS::Queue\) has DeletionPolicy Snapshot/);
    expect(r.stderr).toContain('Nothing was deleted');
    expect(await inventory()).toEqual(stateResources(before));

    // The remedy: a removal policy cdkd can honour. Retain keeps the queue, the rest is deleted.
    expectExit(await cdkd('deploy', 'shape=good', 'queuePolicy=Retain'));
    const queueId = Object.values((await h.readState(STACK))!.resources).find(
      (x) => x.resourceType === 'AWS::SQS::Queue',
    )!.physicalId;
    expectExit(await cdkd('destroy', 'shape=good', 'queuePolicy=Retain'));
    expect(await h.stateObjectExists(STATE_KEY)).toBe(false);
    expect(await inventory()).toEqual([`AWS::SQS::Queue ${queueId}`]);
  });
});
