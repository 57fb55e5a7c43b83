/**
 * Stacks that read each other only through hand-written cross-stack references
 * (examples/cross-stack-app): the deploy orders them by the references (the
 * readers come first in the assembly), a failing stack skips only the stacks
 * that read it, and destroy --all removes readers before what they read — the
 * importer check never sees a reader being destroyed in parallel.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'cross-stack-app');
const READERS = ['Reader', 'Importer', 'Dependent'];

describe('hand-written cross-stack references', () => {
  let h: CdkdHarness;
  let out: string;
  const run = (prefix: string, ...args: string[]) =>
    h.cdkd([...args, '--progress', 'events', '-o', out, '-c', `prefix=${prefix}`], { cwd: APP });
  /** Index of the first stderr line matching `pattern`; -1 when none. */
  const at = (stderr: string, pattern: RegExp) => stderr.split('\n').findIndex((l) => pattern.test(l));

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-refs-out-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('deploys each stack after the stacks it reads, one stack at a time, in one command', async () => {
    const result = await run('Seq', 'deploy', '--all', '--stack-concurrency', '1');
    expectExit(result);
    for (const [reader, read] of [
      ['Importer', 'Exporter'],
      ['Reader', 'Writer'],
      ['Dependent', 'Fragile'],
    ]) {
      expect(at(result.stderr, new RegExp(`^Seq${read}: deployed`))).toBeGreaterThan(-1);
      expect(at(result.stderr, new RegExp(`^Seq${read}: deployed`))).toBeLessThan(
        at(result.stderr, new RegExp(`^Seq${reader}: deploying`)),
      );
    }
    const importer = await h.readState('SeqImporter');
    const exporter = await h.readState('SeqExporter');
    expect(Object.values(importer!.resources)[0].properties?.Value).toBe(
      exporter!.outputs['Seq-shared-queue-arn'],
    );
    expect(importer!.imports).toEqual([
      { sourceStack: 'SeqExporter', sourceRegion: 'us-east-1', exportName: 'Seq-shared-queue-arn' },
    ]);
    const reader = await h.readState('SeqReader');
    expect(Object.values(reader!.resources)[0].properties?.Value).toBe(
      (await h.readState('SeqWriter'))!.outputs.QueueUrl,
    );
  });

  it('destroys readers before the stacks they read: destroy --all succeeds in one command', async () => {
    const result = await run('Seq', 'destroy', '--all', '--force');
    expectExit(result);
    expect(at(result.stderr, /^SeqImporter: destroyed/)).toBeLessThan(
      at(result.stderr, /^SeqExporter: destroying/),
    );
    expect(at(result.stderr, /^SeqDependent: destroyed/)).toBeLessThan(
      at(result.stderr, /^SeqFragile: destroying/),
    );
    expect(result.stderr).not.toMatch(/still imported/);
    for (const s of ['Reader', 'Importer', 'Dependent', 'Exporter', 'Writer', 'Fragile', 'Independent'])
      expect(await h.readState(`Seq${s}`)).toBeUndefined();
  });

  it('still deploys the stacks unrelated to a failing one; only its readers are skipped, with the reason', async () => {
    // Topics go through the bundled SNS pack: SNS itself refuses them.
    await h.emulator.control.addFault({
      service: 'sns',
      operation: 'CreateTopic',
      error: 'TopicLimitExceeded',
      status: 403,
      message: 'topic quota exceeded',
      probability: 1,
    });
    const result = await run('Part', 'deploy', '--all', '--json');
    await h.emulator.control.clearFaults();
    expect(result.code).toBe(1);
    const payload = JSON.parse(result.stdout) as {
      error: {
        code: string;
        message: string;
        details: { stacks: Array<{ stackName: string; ok: boolean }>; skippedStacks: unknown };
      };
    };
    expect(payload.error.code).toBe('DEPLOY_FAILED');
    const deployed = payload.error.details.stacks.filter((s) => s.ok).map((s) => s.stackName);
    expect(deployed.sort()).toEqual(
      ['PartExporter', 'PartImporter', 'PartIndependent', 'PartReader', 'PartWriter'].sort(),
    );
    expect(payload.error.details.skippedStacks).toEqual([
      { stackName: 'PartDependent', reason: 'it depends on PartFragile, which failed' },
    ]);
    // The summary names the failure and its reason, and the skipped stack with why.
    expect(payload.error.message).toMatch(/PartFragile \(1 failed\)\n\s+Topic\w+: .*topic quota exceeded/);
    expect(result.stderr).toMatch(/PartDependent: not deployed: it depends on PartFragile, which failed/);
    expect(await h.readState('PartDependent')).toBeUndefined();
    for (const s of READERS.filter((r) => r !== 'Dependent'))
      expect(await h.readState(`Part${s}`)).toBeDefined();
  });
});
