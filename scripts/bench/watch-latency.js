#!/usr/bin/env node
// @ts-check
/**
 * Save-to-deployed latency of `cdkd watch` for a one-function change: a copy of
 * examples/lambda-asset-app (a Lambda function whose code is a directory
 * asset, and its role) is watched by the BUILT cdkd against the emulator (a
 * separate process, zero latency); each trial appends a line to the handler
 * and measures the time until watch reports the function deployed. For scale,
 * each trial also runs the same change as a one-off `cdkd deploy` (a new
 * process: start-up, synthesis, publish, deploy) and a one-off `cdkd synth -q`
 * (the floor: a change cannot deploy before the app is synthesized), in the
 * same conditions.
 *
 *   npm run build
 *   node scripts/bench/watch-latency.js [--trials 5] [--out results.json] [--cdkd DIR]
 *
 * Reported per mode: median, min and max in ms; for watch also the share of
 * the latency spent before cdkd's line reports the deploy (file event,
 * synthesis, publish, deploy) as cdkd measures it. See docs/benchmarks.md.
 */
'use strict';
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const lib = require('./lib');

const USAGE = 'usage: node scripts/bench/watch-latency.js [--trials 5] [--out FILE] [--cdkd DIR]';
const SOURCE = path.join(lib.ROOT, 'examples', 'lambda-asset-app');

/** A long-running `cdkd watch`, with its stderr lines and the time each arrived. */
function startWatch(dir, env) {
  const child = spawn(process.execPath, [lib.cdkdBin(), 'watch', '-c', 'stackName=BenchWatch'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  /** @type {Array<{ at: number, text: string }>} */
  const lines = [];
  /** @type {Array<{ pattern: RegExp, from: number, resolve: (line: { at: number, text: string }) => void }>} */
  let waiters = [];
  let partial = '';
  child.stderr.on('data', (d) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    const at = performance.now();
    for (const text of parts) lines.push({ at, text });
    waiters = waiters.filter((w) => {
      const found = lines.slice(w.from).find((l) => w.pattern.test(l.text));
      if (found) w.resolve(found);
      return !found;
    });
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  return {
    lines,
    /** @param {RegExp} pattern @param {number} from */
    waitFor: (pattern, from) =>
      /** @type {Promise<{ at: number, text: string }>} */ (
        new Promise((resolve, reject) => {
          exited.then(() => reject(new Error(`cdkd watch exited:\n${lines.map((l) => l.text).join('\n')}`)));
          waiters.push({ pattern, from, resolve });
        })
      ),
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** @param {number[]} values */
function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const median =
    sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return {
    medianMs: Math.round(median),
    minMs: Math.round(sorted[0]),
    maxMs: Math.round(sorted[sorted.length - 1]),
  };
}

async function main() {
  const options = lib.parseOptions({ trials: '5', out: '', cdkd: '' }, USAGE);
  const [trials] = lib.positiveIntegers(options.trials, 'trials');
  lib.useCdkd(options.cdkd || undefined);
  lib.ensureBuilt();
  const result = await lib.withBootstrappedEmulator(async ({ env }) => {
    const dir = lib.tempDir('cdkd-bench-watch-');
    try {
      for (const f of ['app.js', 'cdk.json', 'handler/index.js']) {
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        fs.copyFileSync(path.join(SOURCE, f), path.join(dir, f));
      }
      const appEnv = { ...env, NODE_PATH: path.join(lib.ROOT, 'node_modules') };
      const handler = path.join(dir, 'handler', 'index.js');
      const watch = startWatch(dir, appEnv);
      const deployed = /✓ (initial deploy|handler\/index\.js changed) → BenchWatch deployed .* in ([\d.]+)s$/;
      await watch.waitFor(/✓ initial deploy → BenchWatch deployed/, 0);
      const watchMs = [];
      const reportedMs = [];
      for (let i = 0; i < trials; i++) {
        const from = watch.lines.length;
        const saved = performance.now();
        fs.appendFileSync(handler, `// watch trial ${i}\n`);
        const line = await watch.waitFor(deployed, from);
        watchMs.push(line.at - saved);
        reportedMs.push(Number(deployed.exec(line.text)?.[2]) * 1000);
      }
      await watch.stop();
      // The same one-function change as a one-off deploy, for scale, and synthesis alone (its floor).
      const synthMs = [];
      for (let i = 0; i < trials; i++) {
        const run = await lib.runCdkd(['synth', '-q', '-c', 'stackName=BenchWatch'], {
          env: appEnv,
          cwd: dir,
        });
        lib.expectSuccess(run, 'cdkd synth');
        synthMs.push(run.wallMs);
      }
      const deployMs = [];
      for (let i = 0; i < trials; i++) {
        fs.appendFileSync(handler, `// deploy trial ${i}\n`);
        const run = await lib.runCdkd(
          ['deploy', '--require-approval', 'never', '-c', 'stackName=BenchWatch'],
          {
            env: appEnv,
            cwd: dir,
          },
        );
        lib.expectSuccess(run, 'cdkd deploy');
        deployMs.push(run.wallMs);
      }
      return {
        trials,
        watch: { ...stats(watchMs), reportedByCdkd: stats(reportedMs) },
        deploy: stats(deployMs),
        synth: stats(synthMs),
        watchOverDeploy: Number((stats(watchMs).medianMs / stats(deployMs).medianMs).toFixed(2)),
      };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  const report = { machine: lib.machine(), options, result };
  console.log(JSON.stringify(report, null, 2));
  if (options.out) fs.writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
