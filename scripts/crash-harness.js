#!/usr/bin/env node
// @ts-check
/**
 * The crash-safety harness: does cdkd lose track of anything when the process
 * dies at a random instant, or when AWS calls fail and lose their replies?
 * It runs the BUILT CLI against the emulator (a separate process, with latency)
 * on a synthetic stack of >= 100 resources of four types (three through Cloud
 * Control, one through the SQS provider pack; deep: chains of references).
 *
 *   npm run build
 *   node scripts/crash-harness.js [--mode kill|faults] [--trials 20] [--size 100] [--fault-rate 0.1]
 *                                 [--seed N] [--out results.json]
 *
 * --mode kill (default), per trial:
 *   1. create: `cdkd deploy`, killed with SIGKILL at a random moment (after a
 *      random number of its progress lines, plus a random delay); then, once
 *      the dead process's lock has expired, a plain re-run must exit 0;
 *   2. update (every tag and each chain's first parameter change): the same;
 *   3. destroy.
 *   After each re-run: the emulator's inventory equals what state records (no
 *   orphan, no missing resource), one resource per logical id (no duplicate),
 *   nothing deposed or pending, no write-ahead log left; a no-change deploy
 *   finds nothing to do. After destroy: no app resource, no state, no lock.
 * --mode faults: each phase (create, update, destroy) runs under random faults
 *   on Cloud Control, S3 and SQS (errors and lost replies, each call with
 *   probability --fault-rate) and must converge within 3 attempts, with the
 *   same checks, and no lock left at the end.
 *
 * Random moments, not timed tests: the figure it prints is the result; the CI
 * test (test/e2e/crash-harness.test.ts) runs a couple of trials and only
 * requires that every one converges. Results in docs/benchmarks.md.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const lib = require('./bench/lib');

const USAGE =
  'usage: node scripts/crash-harness.js [--mode kill|faults] [--trials 20] [--size 100] [--chains 10] [--fault-rate 0.1] [--seed N] [--out FILE]';
const STACK = 'CrashHarness';
const STATE_BUCKET = `cdkd-state-${lib.ACCOUNT}`;
/** The dead process's lock lapses this long after its last renewal (S3's clock, to the second). */
const KILL_LOCK_TTL_SECONDS = 4;
const FAULTS_LOCK_TTL_SECONDS = 120;

/** A small seeded generator, so a run can be repeated (`--seed`). */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs cdkd and kills it with SIGKILL after `lines` progress lines plus `delayMs`
 * (or lets it finish if it ends first).
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @param {{ lines: number, delayMs: number }} at
 */
function runAndKill(args, env, at) {
  const child = spawn(process.execPath, [path.join(lib.ROOT, 'bin', 'run.js'), ...args], {
    cwd: lib.ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = 0;
  let stderr = '';
  let killed = false;
  const kill = () => {
    if (killed || child.exitCode !== null) return;
    killed = true;
    child.kill('SIGKILL');
  };
  if (at.lines === 0) setTimeout(kill, at.delayMs);
  child.stderr.on('data', (d) => {
    const text = d.toString();
    stderr += text;
    const before = seen;
    seen += text.split('\n').length - 1;
    if (before < at.lines && seen >= at.lines) setTimeout(kill, at.delayMs);
  });
  child.stdout.resume();
  return new Promise((resolve) => {
    child.on('close', (code, signal) =>
      resolve({ code, signal, killed: killed && signal === 'SIGKILL', stderr }),
    );
  });
}

/** What the emulator holds for the app (cdkd's own buckets left out). */
async function appInventory(emulator) {
  const all = await emulator.control('GET', 'inventory');
  return all.filter((r) => !/^cdkd-(state|assets)-/.test(r.identifier));
}

async function readObject(s3, key) {
  const { GetObjectCommand } = require('@aws-sdk/client-s3');
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: STATE_BUCKET, Key: key }));
    return JSON.parse(await out.Body.transformToString());
  } catch (err) {
    if (err.name === 'NoSuchKey') return undefined;
    throw err;
  }
}

async function listKeys(s3, prefix) {
  const { ListObjectsV2Command } = require('@aws-sdk/client-s3');
  const out = await s3.send(new ListObjectsV2Command({ Bucket: STATE_BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key);
}

/**
 * Compares the emulator's inventory with what state records after a run that exited 0.
 * @returns {Promise<{ orphans: string[], missing: string[], duplicates: number, problems: string[] }>}
 */
async function check(ctx, expectedResources) {
  const state = await readObject(ctx.s3, `cdkd/${STACK}/${lib.REGION}/state.json`);
  const inventory = await appInventory(ctx.emulator);
  const recorded = new Set(
    [...Object.values(state?.resources ?? {}), ...(state?.deposed ?? [])].map(
      (r) => `${r.resourceType} ${r.physicalId}`,
    ),
  );
  const held = new Set(inventory.map((r) => `${r.type} ${r.identifier}`));
  const orphans = [...held].filter((k) => !recorded.has(k));
  const missing = [...recorded].filter((k) => !held.has(k));
  const problems = [];
  const count = Object.keys(state?.resources ?? {}).length;
  if (count !== expectedResources)
    problems.push(`state records ${count} resources, expected ${expectedResources}`);
  if (state?.deposed?.length) problems.push(`${state.deposed.length} deposed record(s) left`);
  if (state?.pendingIntents?.length) problems.push(`${state.pendingIntents.length} pending intent(s) left`);
  const wal = await listKeys(ctx.s3, `cdkd/${STACK}/${lib.REGION}/wal/`);
  if (wal.length) problems.push(`${wal.length} write-ahead log segment(s) left`);
  return { orphans, missing, duplicates: Math.max(0, inventory.length - expectedResources), problems };
}

/** Waits until the stack's lock (if any) is gone or has been silent longer than its TTL. */
async function waitForLock(ctx, ttlSeconds) {
  const key = `cdkd/${STACK}/${lib.REGION}/lock.json`;
  if (!(await readObject(ctx.s3, key))) return false;
  await sleep(ttlSeconds * 1000 + 2500);
  return true;
}

/**
 * One phase of the kill mode: a killed run, then plain re-runs until one exits 0 (at most 3).
 * @returns {Promise<object>}
 */
async function killedPhase(ctx, name, args, rand, lines) {
  // The moment: after a random share of the lines an uninterrupted run prints, plus up to 300 ms.
  const at = { lines: Math.floor(rand() * (lines + 1)), delayMs: Math.floor(rand() * 300) };
  const first = await runAndKill(args, ctx.env, at);
  const result = { phase: name, killAt: at, killed: first.killed, reruns: 0, rerunOk: false };
  for (let attempt = 0; attempt < 3 && !result.rerunOk; attempt++) {
    result.waitedForLock = (await waitForLock(ctx, KILL_LOCK_TTL_SECONDS)) || result.waitedForLock || false;
    const rerun = await lib.runCdkd(args, { env: ctx.env });
    result.reruns++;
    result.rerunOk = rerun.code === 0;
    if (!result.rerunOk) result.lastError = rerun.stderr.split('\n').filter(Boolean).slice(-3).join(' | ');
  }
  return result;
}

/** One phase of the faults mode: up to 3 attempts under the faults. */
async function faultedPhase(ctx, name, args) {
  const result = { phase: name, attempts: 0, ok: false };
  for (let attempt = 0; attempt < 3 && !result.ok; attempt++) {
    if (attempt > 0) await waitForLock(ctx, FAULTS_LOCK_TTL_SECONDS);
    const run = await lib.runCdkd(args, { env: ctx.env });
    result.attempts++;
    result.ok = run.code === 0;
    if (!result.ok) result.lastError = run.stderr.split('\n').filter(Boolean).slice(-3).join(' | ');
  }
  return result;
}

async function injectFaults(emulator, rate) {
  const errors = rate * 0.6;
  const drops = rate * 0.4;
  const faults = [
    { service: 'cloudcontrol', error: 'ThrottlingException', probability: errors / 2 },
    { service: 'cloudcontrol', error: 500, probability: errors / 2 },
    { service: 's3', error: 'SlowDown', probability: errors / 2 },
    { service: 's3', error: 500, probability: errors / 2 },
    { service: 'sqs', error: 503, probability: errors },
    ...['CreateResource', 'UpdateResource', 'DeleteResource'].map((operation) => ({
      service: 'cloudcontrol',
      operation,
      mode: 'drop',
      probability: drops,
    })),
    ...['PutObject', 'DeleteObject'].map((operation) => ({
      service: 's3',
      operation,
      mode: 'drop',
      probability: drops,
    })),
    ...['CreateQueue', 'DeleteQueue', 'TagQueue', 'SetQueueAttributes'].map((operation) => ({
      service: 'sqs',
      operation,
      mode: 'drop',
      probability: drops,
    })),
  ];
  for (const f of faults) await emulator.control('POST', 'faults', f);
}

/**
 * Runs the trials; resolves with one record per trial and a summary.
 * @param {{ mode?: 'kill' | 'faults', trials?: number, size?: number, chains?: number, faultRate?: number, seed?: number, log?: (line: string) => void }} options
 */
async function runTrials(options = {}) {
  const mode = options.mode ?? 'kill';
  const trials = options.trials ?? 20;
  const size = options.size ?? 100;
  const chains = options.chains ?? 10;
  const rand = random(options.seed ?? Date.now());
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const emulator = await lib.startEmulator();
  const home = lib.tempDir('cdkd-crash-home-');
  const v1 = lib.tempDir('cdkd-crash-v1-');
  const v2 = lib.tempDir('cdkd-crash-v2-');
  const ttl = mode === 'kill' ? KILL_LOCK_TTL_SECONDS : FAULTS_LOCK_TTL_SECONDS;
  const env = { ...lib.cliEnv(emulator.url, home), CDKD_LOCK_TTL_SECONDS: String(ttl) };
  const s3 = lib.s3Client(emulator.url);
  const ctx = { emulator, env, s3 };
  const records = [];
  try {
    lib.expectSuccess(await lib.runCdkd(['bootstrap', '--no-assets'], { env }), 'cdkd bootstrap');
    const common = { size, shape: 'deep', chains, types: 'scale', stackName: STACK, env };
    await lib.synthesize({ ...common, outDir: v1 });
    await lib.synthesize({ ...common, outDir: v2, variant: 2 });
    // Latency, so a deploy lasts long enough to be killed anywhere: every call, and each Cloud Control request.
    await emulator.control('PUT', 'latency', [{ service: '*', ms: 10 }]);
    for (const [type, ms] of [
      ['AWS::SSM::Parameter', 150],
      ['AWS::SNS::Topic', 250],
      ['AWS::Logs::LogGroup', 350],
    ])
      await emulator.control('PUT', `cloudcontrol/types/${type}`, { latencyMs: ms });
    const deploy = (dir) => ['deploy', '--app', dir, '--progress', 'events', '--concurrency', '10'];
    const destroy = ['destroy', '--app', v1, '--force', '--progress', 'events'];
    /** Progress lines of an uninterrupted run of each phase: the range the kill moment is drawn from. */
    const lines = {};
    if (mode === 'kill') {
      for (const [name, args] of [
        ['create', deploy(v1)],
        ['update', deploy(v2)],
        ['destroy', destroy],
      ]) {
        const run = await lib.runCdkd(args, { env });
        lib.expectSuccess(run, `the calibration ${name}`);
        lines[name] = run.lines.length;
      }
      log(`calibration: ${JSON.stringify(lines)} progress lines per phase`);
    }
    for (let trial = 1; trial <= trials; trial++) {
      const started = Date.now();
      const record = { trial, phases: [], checks: [] };
      if (mode === 'faults') await injectFaults(emulator, options.faultRate ?? 0.1);
      for (const [name, args] of [
        ['create', deploy(v1)],
        ['update', deploy(v2)],
      ]) {
        const phase =
          mode === 'kill'
            ? await killedPhase(ctx, name, args, rand, lines[name])
            : await faultedPhase(ctx, name, args);
        record.phases.push(phase);
        if (mode === 'faults') await emulator.control('DELETE', 'faults');
        const checked = await check(ctx, size);
        const again = await lib.runCdkd([...args, '--json'], { env });
        checked.noChangeAfter = again.code === 0 && JSON.parse(again.stdout).stacks?.[0]?.noChanges === true;
        record.checks.push({ phase: name, ...checked });
        if (mode === 'faults') await injectFaults(emulator, options.faultRate ?? 0.1);
      }
      const destroyed =
        mode === 'kill' ? await lib.runCdkd(destroy, { env }) : await faultedPhase(ctx, 'destroy', destroy);
      if (mode === 'faults') {
        record.phases.push(destroyed);
        await emulator.control('DELETE', 'faults');
      }
      const left = await appInventory(emulator);
      const stateLeft = await listKeys(s3, `cdkd/${STACK}/`);
      record.destroy = {
        ok: mode === 'kill' ? destroyed.code === 0 : destroyed.ok,
        appResourcesLeft: left.length,
        stateObjectsLeft: stateLeft,
      };
      record.converged =
        record.phases.every((p) => (mode === 'kill' ? p.rerunOk : p.ok)) &&
        record.checks.every(
          (c) =>
            !c.orphans.length && !c.missing.length && !c.duplicates && !c.problems.length && c.noChangeAfter,
        ) &&
        record.destroy.ok &&
        left.length === 0 &&
        stateLeft.length === 0;
      record.seconds = Math.round((Date.now() - started) / 1000);
      records.push(record);
      log(
        `trial ${trial}/${trials}: ${record.converged ? 'converged' : 'FAILED'} in ${record.seconds}s` +
          ` (${record.phases.map((p) => (mode === 'kill' ? `${p.phase} killed=${p.killed} at line ${p.killAt.lines} reruns=${p.reruns}` : `${p.phase} attempts=${p.attempts}`)).join('; ')})` +
          `${record.converged ? '' : ` ${JSON.stringify({ checks: record.checks, destroy: record.destroy, phases: record.phases })}`}`,
      );
      if (left.length || stateLeft.length) {
        // Start the next trial clean, whatever this one left.
        await emulator.control('POST', 'reset');
        lib.expectSuccess(await lib.runCdkd(['bootstrap', '--no-assets'], { env }), 'cdkd bootstrap');
        await emulator.control('PUT', 'latency', [{ service: '*', ms: 10 }]);
      }
    }
  } finally {
    s3.destroy();
    await emulator.stop();
    for (const dir of [home, v1, v2]) fs.rmSync(dir, { recursive: true, force: true });
  }
  const summary = {
    mode,
    trials: records.length,
    size,
    converged: records.filter((r) => r.converged).length,
    orphans: records.reduce((n, r) => n + r.checks.reduce((m, c) => m + c.orphans.length, 0), 0),
    duplicates: records.reduce((n, r) => n + r.checks.reduce((m, c) => m + c.duplicates, 0), 0),
    appResourcesLeftAfterDestroy: records.reduce((n, r) => n + r.destroy.appResourcesLeft, 0),
    killedMidRun:
      mode === 'kill' ? records.reduce((n, r) => n + r.phases.filter((p) => p.killed).length, 0) : undefined,
    maxAttempts:
      mode === 'faults' ? Math.max(...records.flatMap((r) => r.phases.map((p) => p.attempts))) : undefined,
  };
  return { summary, records };
}

async function main() {
  const o = lib.parseOptions(
    {
      mode: 'kill',
      trials: '20',
      size: '100',
      chains: '10',
      'fault-rate': '0.1',
      seed: String(Date.now()),
      out: '',
    },
    USAGE,
  );
  if (o.mode !== 'kill' && o.mode !== 'faults') {
    process.stderr.write(`--mode is kill or faults (got "${o.mode}")\n${USAGE}\n`);
    process.exit(2);
  }
  const [trials] = lib.positiveIntegers(o.trials, 'trials');
  const [size] = lib.positiveIntegers(o.size, 'size');
  const [chains] = lib.positiveIntegers(o.chains, 'chains');
  const faultRate = Number(o['fault-rate']);
  if (!(faultRate >= 0 && faultRate < 1)) {
    process.stderr.write(`--fault-rate is a probability below 1 (got "${o['fault-rate']}")\n`);
    process.exit(2);
  }
  lib.ensureBuilt();
  const result = await runTrials({ mode: o.mode, trials, size, chains, faultRate, seed: Number(o.seed) });
  if (o.out)
    fs.writeFileSync(
      o.out,
      JSON.stringify({ ...result, seed: Number(o.seed), machine: lib.machine() }, null, 2),
    );
  const s = result.summary;
  process.stdout.write(
    `${lib.markdownTable(
      [
        'mode',
        'trials',
        'resources',
        'converged',
        'orphans',
        'duplicates',
        'app resources left after destroy',
        mode(s),
      ],
      [
        [
          s.mode,
          s.trials,
          s.size,
          `${s.converged} of ${s.trials}`,
          s.orphans,
          s.duplicates,
          s.appResourcesLeftAfterDestroy,
          s.mode === 'kill' ? `${s.killedMidRun} of ${s.trials * 2}` : s.maxAttempts,
        ],
      ],
    )}\nseed ${o.seed}\n`,
  );
  process.exit(s.converged === s.trials ? 0 : 1);
}

/** The last column's header. */
function mode(s) {
  return s.mode === 'kill' ? 'runs killed before they ended' : 'most attempts a phase needed';
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}

module.exports = { runTrials };
