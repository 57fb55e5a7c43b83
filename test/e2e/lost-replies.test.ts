/**
 * One lost reply on one S3 write of a deploy or a destroy — the write lands,
 * its answer never comes, the SDK retries — with the built CLI and a real CDK
 * app. Every such command succeeds (the write is recognised as its own by
 * reading it back), leaves no lock behind, and the next deploy finds nothing to
 * do, with the emulator's inventory equal to what state records.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');

describe('a lost reply on one S3 write', () => {
  let h: CdkdHarness;
  let out: string;
  const assemblies = new Map<string, string>();

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-lost-replies-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });
  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  /** The stack's cloud assembly, synthesized once (every command of a case reads it). */
  async function assembly(stack: string): Promise<string> {
    let dir = assemblies.get(stack);
    if (!dir) {
      dir = path.join(out, stack);
      expectExit(await h.cdkd(['synth', '-o', dir, '-c', `stackName=${stack}`, '--json'], { cwd: APP }));
      assemblies.set(stack, dir);
    }
    return dir;
  }
  afterEach(async () => {
    await h.emulator.control.clearFaults();
  });

  const run = async (command: 'deploy' | 'destroy', stack: string) =>
    h.cdkd([
      command,
      '--app',
      await assembly(stack),
      ...(command === 'destroy' ? ['--force'] : []),
      '--progress',
      'events',
    ]);
  const key = (stack: string, file: string) => `cdkd/${stack}/us-east-1/${file}`;
  const dropOnce = (operation: 'PutObject' | 'DeleteObject', objectKey: string) =>
    h.emulator.control.addFault({ service: 's3', operation, mode: 'drop', match: { Key: objectKey } });

  /** The command succeeded with the reply lost, claimed no conflict, and left no lock. */
  async function expectClean(result: Awaited<ReturnType<typeof run>>, stack: string): Promise<void> {
    expectExit(result);
    expect(result.stderr).not.toMatch(/another process|Nothing was written|is locked by/);
    const fired = (await h.emulator.control.faults()).length;
    expect(fired).toBe(0); // the fault fired (count 1, then removed)
    expect(await h.stateObjectExists(key(stack, 'lock.json'))).toBe(false);
  }

  /** The next deploy has nothing to do, and the emulator holds exactly what state records. */
  async function expectConverged(stack: string): Promise<void> {
    const again = await run('deploy', stack);
    expectExit(again);
    expect(again.stderr).toMatch(`${stack}: no changes`);
    const state = await h.readState(stack);
    expect(Object.keys(state!.resources)).toHaveLength(3);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
  }

  it.each([
    ['the lock acquire', 'PutObject', 'lock.json'],
    ['the first write-ahead log segment', 'PutObject', 'wal/0000000001.json'],
    ['a later write-ahead log segment', 'PutObject', 'wal/0000000003.json'],
    ['the state save', 'PutObject', 'state.json'],
    ['the lock release', 'DeleteObject', 'lock.json'],
  ] as const)('deploy: %s', async (_what, operation, file) => {
    const stack = `Lost${file.replace(/[^A-Za-z0-9]/g, '')}${operation}`;
    await dropOnce(operation, key(stack, file));
    await expectClean(await run('deploy', stack), stack);
    await expectConverged(stack);
    expectExit(await run('destroy', stack));
    expect(await h.appInventory()).toEqual([]);
  });

  it('deploy: the exports index', async () => {
    const stack = 'LostIndex';
    await dropOnce('PutObject', 'cdkd/_index/us-east-1/exports.json');
    await expectClean(await run('deploy', stack), stack);
    await expectConverged(stack);
    expectExit(await run('destroy', stack));
  });

  it.each([
    ['the lock acquire', 'PutObject', 'lock.json'],
    ['its first write-ahead log segment', 'PutObject', 'wal'],
    ['the state delete', 'DeleteObject', 'state.json'],
  ] as const)('destroy: %s', async (_what, operation, file) => {
    const stack = `LostDestroy${file.replace(/[^A-Za-z0-9]/g, '')}${operation}`;
    expectExit(await run('deploy', stack));
    // The destroy's first segment follows the last one the deploy folded into state.json.
    const first = String((await h.readState(stack))!.walSeq! + 1).padStart(10, '0');
    await dropOnce(operation, key(stack, file === 'wal' ? `wal/${first}.json` : file));
    await expectClean(await run('destroy', stack), stack);
    expect(await h.readState(stack)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });
});
