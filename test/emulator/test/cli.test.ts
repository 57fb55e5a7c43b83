import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from '../src/cli';
import { EmulatorControlClient, type RunningEmulator } from '../src/index';
import { clientConfig } from './helpers';

const packageDir = path.join(__dirname, '..');
const bin = path.join(packageDir, 'bin', 'aws-emulator.js');

beforeAll(() => {
  // The bin runs the built package.
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(packageDir, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
});

/** Starts the bin and resolves with the URL it prints. */
function start(args: string[], binPath = bin): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [binPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`aws-emulator exited with ${code}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

test('parseArgs reads the flags and refuses bad ones', () => {
  expect(parseArgs(['--port', '0', '--account', '111122223333', '--state-dir=/tmp/x'])).toEqual({
    port: 0,
    account: '111122223333',
    stateDir: '/tmp/x',
  });
  expect(parseArgs([])).toEqual({ port: 4566 });
  expect(() => parseArgs(['--account', '12'])).toThrow(/12-digit/);
  expect(() => parseArgs(['--port', 'x'])).toThrow(/port/);
  expect(() => parseArgs(['--bogus'])).toThrow(/unknown option --bogus/);
  expect(parseArgs(['--profile', 'realistic']).latencyProfile).toEqual({ name: 'realistic' });
  expect(parseArgs(['--latency-profile=flat:50:2000']).latencyProfile).toEqual({
    name: 'flat',
    callMs: 50,
    cloudControlMs: 2000,
  });
  expect(() => parseArgs(['--latency-profile', 'slow'])).toThrow(/unknown latency profile "slow"/);
});

test('aws-emulator runs as a process, keeps state in --state-dir and stops on SIGTERM', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emulator-cli-'));
  const first = await start(['--port', '0', '--account', '111122223333', '--state-dir', dir]);
  const control = new EmulatorControlClient(first.url);
  expect(await control.health()).toBe(true);
  expect(await control.accountId()).toBe('111122223333');
  const s3 = new S3Client(clientConfig({ url: first.url } as RunningEmulator));
  await s3.send(new CreateBucketCommand({ Bucket: 'cli-bucket' }));
  s3.destroy();
  const exited = exitOf(first.child);
  first.child.kill('SIGTERM');
  expect(await exited).toBe(0);

  const second = await start(['--port', '0', '--state-dir', dir]);
  const s3b = new S3Client(
    clientConfig({ url: second.url } as RunningEmulator, 'us-east-1', {
      accessKeyId: '111122223333',
      secretAccessKey: 'x',
    }),
  );
  expect((await s3b.send(new HeadBucketCommand({ Bucket: 'cli-bucket' }))).$metadata.httpStatusCode).toBe(
    200,
  );
  s3b.destroy();
  const inventory = await new EmulatorControlClient(second.url).inventory();
  expect(inventory).toEqual([
    expect.objectContaining({ account: '111122223333', type: 'AWS::S3::Bucket', identifier: 'cli-bucket' }),
  ]);
  const exited2 = exitOf(second.child);
  second.child.kill('SIGINT');
  expect(await exited2).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('without a build (right after npm ci) the bin runs the TypeScript sources', async () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'emulator-nobuild-'));
  fs.cpSync(path.join(packageDir, 'bin'), path.join(copy, 'bin'), { recursive: true });
  fs.cpSync(path.join(packageDir, 'src'), path.join(copy, 'src'), { recursive: true });
  fs.copyFileSync(path.join(packageDir, 'package.json'), path.join(copy, 'package.json'));
  fs.symlinkSync(path.join(packageDir, '..', '..', 'node_modules'), path.join(copy, 'node_modules'));
  const schemas = path.join(packageDir, '..', '..', 'schemas');
  const { child, url } = await start(
    ['--port', '0', '--schemas-dir', schemas],
    path.join(copy, 'bin', 'aws-emulator.js'),
  );
  expect(fs.existsSync(path.join(copy, 'dist'))).toBe(false);
  expect(await new EmulatorControlClient(url).health()).toBe(true);
  const exited = exitOf(child);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  fs.rmSync(copy, { recursive: true, force: true });
});
