/**
 * Several stacks of one app: dependency order, a cross-stack reference
 * (Fn::ImportValue) resolved from the producer's state and recorded as a strong
 * reference, a stack inside a Stage, and destroy order.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'multi-stack-app');

describe('multi-stack apps', () => {
  let h: CdkdHarness;
  let out: string;
  const run = (...args: string[]) => h.cdkd([...args, '--progress', 'events', '-o', out], { cwd: APP });

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-multi-out-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('deploys the producer before the consumer and resolves the import from its state', async () => {
    const result = await run('deploy', '--all');
    expectExit(result);
    expect(result.stderr.indexOf('Producer: deployed')).toBeGreaterThan(-1);
    expect(result.stderr.indexOf('Producer: deployed')).toBeLessThan(
      result.stderr.indexOf('Consumer: deploying'),
    );

    const producer = await h.readState('Producer');
    const consumer = await h.readState('Consumer');
    const queueArn = Object.values(producer!.resources)[0].attributes?.Arn;
    expect(typeof queueArn).toBe('string');
    expect(producer!.exportNames!.length).toBe(1);
    expect(consumer!.imports).toEqual([
      { sourceStack: 'Producer', sourceRegion: 'us-east-1', exportName: producer!.exportNames![0] },
    ]);

    const ssm = new SSMClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    const param = Object.values(consumer!.resources)[0];
    const value = await ssm.send(new GetParameterCommand({ Name: param.physicalId }));
    expect(value.Parameter?.Value).toBe(queueArn);
    ssm.destroy();
  });

  it('deploys a stack inside a stage by its path', async () => {
    expectExit(await run('deploy', 'Staging/*'));
    expect(await h.readState('Staging-Service')).toBeDefined();
  });

  it('refuses to destroy a producer whose export is still imported', async () => {
    const result = await run('destroy', 'Producer', '--exclusively', '--force');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Cannot destroy Producer .*imported by Consumer/);
    expect(await h.readState('Producer')).toBeDefined();
  });

  it('destroys the consumer first when the producer is destroyed with its dependents', async () => {
    const result = await run('destroy', 'Producer', '--force');
    expectExit(result);
    expect(result.stderr.indexOf('Consumer: destroyed')).toBeLessThan(
      result.stderr.indexOf('Producer: destroying'),
    );
    expect(await h.readState('Producer')).toBeUndefined();
    expect(await h.readState('Consumer')).toBeUndefined();
    expect(await h.readState('Staging-Service')).toBeDefined();
  });
});
