/**
 * `cdkd watch` on a copy of examples/lambda-asset-app: the initial deploy, a
 * redeploy of the changed function when its handler file changes, a failed
 * deploy that is reported while watching goes on, and Ctrl-C releasing the
 * lock. Every step waits for the file change to show in the process's own
 * output, never for a time.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const SOURCE = path.join(ROOT, 'examples', 'lambda-asset-app');
const STACK = 'E2eWatch';

/** The lines a process writes to stderr, and a way to wait for one of them. */
class Lines {
  readonly all: string[] = [];
  private partial = '';
  private waiters: Array<{ pattern: RegExp; from: number; resolve: (i: number) => void }> = [];

  constructor(child: ChildProcess) {
    child.stderr!.on('data', (d: Buffer) => {
      const parts = (this.partial + d.toString()).split('\n');
      this.partial = parts.pop()!;
      this.all.push(...parts);
      this.check();
    });
  }

  /** Resolves with the index of the first line from `from` on that matches. */
  waitFor(pattern: RegExp, from = 0): Promise<number> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, from, resolve });
      this.check();
    });
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      const i = this.all.findIndex((l, n) => n >= w.from && w.pattern.test(l));
      if (i < 0) return true;
      w.resolve(i);
      return false;
    });
  }
}

describe('cdkd watch', () => {
  let h: CdkdHarness;
  let dir: string;

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-watch-'));
    for (const f of ['app.js', 'cdk.json', 'handler/index.js']) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.copyFileSync(path.join(SOURCE, f), path.join(dir, f));
    }
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('deploys, redeploys the changed function on save, keeps going after a failure, and releases the lock on Ctrl-C', async () => {
    const child = spawn(process.execPath, [BIN, 'watch', '-c', `stackName=${STACK}`], {
      cwd: dir,
      // The copy lives outside the repository: aws-cdk-lib resolves from its node_modules.
      env: { ...h.env, NODE_PATH: path.join(ROOT, 'node_modules') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = new Lines(child);
    const handler = path.join(dir, 'handler', 'index.js');
    const codeKey = async () => {
      const state = await h.readState(STACK);
      const fn = Object.values(state!.resources).find((r) => r.resourceType === 'AWS::Lambda::Function')!;
      return (fn.properties?.Code as { S3Key: string }).S3Key;
    };

    // The initial deploy: one line for it (the function's IAM role is not held for approval, as with cdk watch).
    let at = await lines.waitFor(
      new RegExp(`^\\[[\\d:]+\\] ✓ initial deploy → ${STACK} deployed \\(2 created\\)`),
    );
    const firstKey = await codeKey();

    // Saving the handler redeploys only the function, with its new code.
    fs.appendFileSync(handler, '// edited once\n');
    at = await lines.waitFor(
      new RegExp(`✓ handler/index.js changed → ${STACK} deployed \\(1 updated\\)`),
      at + 1,
    );
    const secondKey = await codeKey();
    expect(secondKey).not.toBe(firstKey);

    // A deploy that fails is reported on its line, and watching goes on.
    await h.emulator.control.setTypeSettings('AWS::Lambda::Function', {
      failWith: { errorCode: 'InvalidRequest', message: 'code storage limit exceeded' },
    });
    fs.appendFileSync(handler, '// edited twice\n');
    at = await lines.waitFor(
      /✗ handler\/index.js changed → ✗ E2eWatch failed .*code storage limit exceeded/,
      at + 1,
    );
    await h.emulator.control.clearTypeSettings();
    fs.appendFileSync(handler, '// edited three times\n');
    at = await lines.waitFor(
      new RegExp(`✓ handler/index.js changed → ${STACK} deployed \\(1 updated\\)`),
      at + 1,
    );
    expect(await codeKey()).not.toBe(secondKey);
    // Progress events stay out of the way: one line per deploy.
    expect(lines.all.filter((l) => /creating|updating/.test(l))).toEqual([]);

    child.kill('SIGINT');
    await lines.waitFor(/Stopped watching/, at + 1);
    expect(await exited).toBe(0);
    expect(await h.stateObjectExists(`cdkd/${STACK}/us-east-1/lock.json`)).toBe(false);
  });

  it('needs a "watch" key in cdk.json, as cdk watch does', async () => {
    const result = await h.cdkd(['watch', '--app', 'node app.js'], { cwd: os.tmpdir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has no "watch" key');
    expect(result.stderr).toContain('"watch": { "include": ["**"], "exclude": ["test"] }');
  });
});
