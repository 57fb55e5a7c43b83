/**
 * Runs the BUILT cdkd CLI as a child process against an in-process emulator,
 * as a user would: AWS_ENDPOINT_URL, dummy credentials, a region, and oclif
 * data folders of its own. The child runs asynchronously so the emulator in
 * this process keeps answering.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startEmulator } from '../../emulator/src';
import type { InventoryItem, RunningEmulator } from '../../emulator/src';
import type { StackState } from '../../../src/state/types';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const BIN = path.join(ROOT, 'bin', 'run.js');
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const STATE_BUCKET = `cdkd-state-${ACCOUNT}`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CdkdHarness {
  emulator: RunningEmulator;
  env: NodeJS.ProcessEnv;
  /** Runs `cdkd <args>` in `cwd` (default: the repository root). */
  cdkd(args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<CliResult>;
  /** The stack's state.json as stored, or undefined. */
  readState(stackName: string, region?: string): Promise<StackState | undefined>;
  /** True when the state bucket holds `key`. */
  stateObjectExists(key: string): Promise<boolean>;
  /** The emulator's resources, without cdkd's own buckets (state, assets). */
  appInventory(): Promise<InventoryItem[]>;
  stop(): Promise<void>;
}

export function runCli(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], cwd, env);
}

/** Runs any program to its end, collecting its output. */
export function runProcess(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function startHarness(): Promise<CdkdHarness> {
  const emulator = await startEmulator({ port: 0 });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-e2e-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    AWS_ENDPOINT_URL: emulator.url,
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_REGION: REGION,
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: '1',
    CI: 'true',
  };
  const s3 = new S3Client({
    region: REGION,
    endpoint: emulator.url,
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  return {
    emulator,
    env,
    cdkd: (args, options = {}) => runCli(args, options.cwd ?? ROOT, { ...env, ...options.env }),
    async readState(stackName, region = REGION) {
      try {
        const out = await s3.send(
          new GetObjectCommand({ Bucket: STATE_BUCKET, Key: `cdkd/${stackName}/${region}/state.json` }),
        );
        return JSON.parse(await out.Body!.transformToString()) as StackState;
      } catch (err) {
        if ((err as Error).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async stateObjectExists(key) {
      try {
        await s3.send(new HeadObjectCommand({ Bucket: STATE_BUCKET, Key: key }));
        return true;
      } catch (err) {
        if ((err as Error).name === 'NotFound' || (err as Error).name === 'NoSuchKey') return false;
        throw err;
      }
    },
    async appInventory() {
      const all = await emulator.control.inventory();
      return all.filter((r) => !/^cdkd-(state|assets)-/.test(r.identifier));
    },
    async stop() {
      s3.destroy();
      await emulator.stop();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** (type, id) pairs of what a state file records. */
export function stateResources(state: StackState | undefined): string[] {
  return Object.values(state?.resources ?? {})
    .map((r) => `${r.resourceType} ${r.physicalId}`)
    .sort();
}

/** (type, id) pairs of an inventory. */
export function inventoryResources(items: InventoryItem[]): string[] {
  return items.map((r) => `${r.type} ${r.identifier}`).sort();
}

/** Fails with the CLI's output when it did not exit as expected. */
export function expectExit(result: CliResult, code = 0): void {
  if (result.code !== code) {
    throw new Error(
      `cdkd exited ${result.code}, expected ${code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    );
  }
}
