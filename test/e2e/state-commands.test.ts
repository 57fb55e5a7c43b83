/**
 * The state commands from the BUILT CLI (`npx tsc -p tsconfig.build.json` first)
 * against an in-process emulator: bootstrap twice, state info / list / show,
 * force-unlock, orphan.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startEmulator } from '../emulator/src';
import type { RunningEmulator } from '../emulator/src';

jest.setTimeout(120_000);
const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'run.js');
const REGION = 'us-east-1';
const credentials = { accessKeyId: 'AKIASTATEE2E0000001', secretAccessKey: 'state-e2e-secret' };

let emulator: RunningEmulator;
let s3: S3Client;
let account: string;
let cwd: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI without blocking this process (the emulator answers from it). */
function cdkd(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(childEnv)) if (/^(AWS_|CDKD_)/.test(k)) delete childEnv[k];
  Object.assign(childEnv, {
    AWS_ENDPOINT_URL: emulator.url,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: REGION,
    AWS_CONFIG_FILE: path.join(cwd, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(cwd, 'no-credentials'),
    ...env,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function readKey(bucket: string, key: string): Promise<string | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return out.Body?.transformToString();
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  s3 = new S3Client({ region: REGION, endpoint: emulator.url, forcePathStyle: true, credentials });
  account = await emulator.control.accountId();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-state-e2e-'));
});

afterAll(async () => {
  await emulator?.stop();
  if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
});

describe('state commands from the built CLI', () => {
  it('asks for cdkd bootstrap before there is a state bucket', async () => {
    const run = await cdkd(['state', 'info']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`State bucket 'cdkd-state-${account}' does not exist.`);
    expect(run.stderr).toContain('cdkd bootstrap');
    expect(run.stdout).toBe('');
  });

  it('bootstraps, and a second bootstrap changes nothing and says so', async () => {
    const first = await cdkd(['bootstrap']);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`State bucket cdkd-state-${account} (${REGION}): created`);
    expect(first.stdout).toContain(`Asset bucket cdkd-assets-${account}-${REGION} (${REGION}): created`);
    expect(first.stdout).toContain('Bootstrap complete.');

    const second = await cdkd(['bootstrap', '--json']);
    expect(second.status).toBe(0);
    const result = JSON.parse(second.stdout);
    expect(result.changed).toBe(false);
    expect(result.stateBucket).toEqual(expect.objectContaining({ created: false, changes: [] }));

    const third = await cdkd(['bootstrap']);
    expect(third.stdout).toContain('no changes made');
    expect(JSON.parse((await readKey(`cdkd-state-${account}`, `cdkd-bootstrap/${REGION}.json`))!)).toEqual(
      expect.objectContaining({
        version: 1,
        region: REGION,
        assetBucket: `cdkd-assets-${account}-${REGION}`,
      }),
    );
  });

  it('state info reports the bucket, its region, the name source, schema version and stack count', async () => {
    const run = await cdkd(['state', 'info', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      bucket: `cdkd-state-${account}`,
      bucketRegion: REGION,
      bucketRegionResolved: true,
      source: 'default',
      prefix: 'cdkd',
      schemaVersion: 9,
      stackCount: 0,
      bootstrappedRegions: [REGION],
    });
    const text = await cdkd(['state', 'info']);
    expect(text.stdout).toContain(`State bucket: cdkd-state-${account}`);
    expect(text.stdout).toContain('Name source: default');
  });

  it('state list prints only the payload on stdout; force-unlock removes a lock', async () => {
    const bucket = `cdkd-state-${account}`;
    const state = {
      version: 9,
      stackName: 'App',
      region: REGION,
      resources: {},
      outputs: { Url: 'https://x' },
      exportNames: [],
      lastModified: 1710835200000,
    };
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `cdkd/App/${REGION}/state.json`,
        Body: JSON.stringify(state),
      }),
    );
    const lock = {
      owner: 'deployer@ci-runner:4242',
      timestamp: Date.now(),
      expiresAt: Date.now() + 30 * 60_000,
      operation: 'deploy',
    };
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `cdkd/App/${REGION}/lock.json`,
        Body: JSON.stringify(lock),
      }),
    );

    const list = await cdkd(['state', 'list', '--verbose']);
    expect(list.status).toBe(0);
    expect(list.stdout).toBe(`App (${REGION})\n`);
    expect(list.stderr).toContain('State bucket:'); // the debug line went to stderr

    const long = await cdkd(['state', 'ls', '--long']);
    expect(long.stdout).toContain('locked by deployer@ci-runner:4242 (deploy)');
    expect(JSON.parse((await cdkd(['state', 'list', '--json'])).stdout)).toEqual([
      { stackName: 'App', region: REGION },
    ]);

    const show = JSON.parse((await cdkd(['state', 'show', 'App', '--json'])).stdout);
    expect(show.state.outputs).toEqual({ Url: 'https://x' });
    expect(show.lock).toEqual(expect.objectContaining({ owner: 'deployer@ci-runner:4242', expired: false }));

    // A live lock: without a terminal, only with --force.
    const refused = await cdkd(['force-unlock', 'App']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/has not expired.*--force/s);
    expect(await readKey(bucket, `cdkd/App/${REGION}/lock.json`)).toBeDefined();
    const unlock = await cdkd(['force-unlock', 'App', '--force']);
    expect(unlock.status).toBe(0);
    expect(unlock.stdout).toBe(`Unlocked App (${REGION}).\n`);
    expect(unlock.stderr).toContain('The removed lock was live');
    expect(await readKey(bucket, `cdkd/App/${REGION}/lock.json`)).toBeUndefined();
    expect((await cdkd(['force-unlock', 'App', '--region', REGION])).stdout).toBe(
      `App (${REGION}) is not locked.\n`,
    );
    expect(JSON.parse((await cdkd(['state', 'info', '--json'])).stdout).stackCount).toBe(1);
  });

  it('state orphan refuses without a terminal unless --force, then forgets the stack', async () => {
    const refused = await cdkd(['state', 'orphan', 'App']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--force');
    const done = await cdkd(['state', 'orphan', 'App', '--force']);
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('Removed the state of App (us-east-1)');
    expect((await cdkd(['state', 'list'])).stdout).toBe('');
  });
});
