#!/usr/bin/env node
// @ts-check
/**
 * Scale benchmark: synthetic stacks of N resources (wide and deep) deployed by
 * the BUILT cdkd CLI against the emulator at zero latency.
 *
 *   npm run build
 *   node scripts/bench/deploy-scale.js [--sizes 100,1000,2000] [--shapes wide,deep] [--chains 10]
 *                                      [--concurrency 10] [--out results.json] [--profile DIR]
 *
 * Per size and shape, with a fresh emulator process each time: bootstrap,
 * synthesize the stack once (not measured), then
 *   1. deploy (create every resource): cdkd's own elapsedMs (synth excluded),
 *      peak RSS and CPU of the cdkd process, state writes and bytes as cdkd
 *      counts them and as S3 stored them (one object version per write),
 *      the final state size;
 *   2. a no-change redeploy (the fast path: no lock, no write);
 *   3. destroy.
 * --profile DIR writes a V8 CPU profile of each deploy process into DIR.
 * --cdkd DIR runs another cdkd install (see make-baseline.js) instead of this
 * repository's build, to compare two builds under the same conditions.
 * Targets (issue 6): 2000 resources in under 30 s; state bytes written at most
 * 10x the final state size. See docs/benchmarks.md.
 */
'use strict';
const os = require('node:os');
const lib = require('./lib');

const USAGE =
  'usage: node scripts/bench/deploy-scale.js [--sizes 100,1000,2000] [--shapes wide,deep] [--chains 10] [--concurrency 10] [--out FILE] [--cdkd DIR] [--profile DIR]';

/**
 * One size and shape, on its own emulator.
 * @param {{ size: number, shape: string, chains: number, concurrency: number, profileDir?: string }} c
 */
function runConfiguration(c) {
  const stackName = `Scale-${c.shape}-${c.size}`;
  return lib.withBootstrappedEmulator(async ({ emulator, env, s3, assembly }) => {
    const { template, synthMs } = await lib.synthesize({
      size: c.size,
      shape: c.shape,
      chains: c.chains,
      types: 'scale',
      stackName,
      outDir: assembly,
      env,
    });
    const graph = lib.templateGraph(template);
    const progress = ['--json', '--progress', 'events', '--concurrency', String(c.concurrency)];
    const nodeOptions = lib.cpuProfileOptions(c.profileDir, stackName);

    // 1. create
    await emulator.control('DELETE', 'requests');
    const load = os.loadavg()[0];
    const statsBefore = await emulator.control('GET', 'stats');
    const deploy = await lib.runCdkd(['deploy', '--app', assembly, ...progress], { env, nodeOptions });
    lib.expectSuccess(deploy, `deploy of ${stackName}`);
    const statsAfter = await emulator.control('GET', 'stats');
    const requests = await emulator.control('GET', 'requests');
    const stack = lib.jsonStack(deploy);
    const final = await lib.readState(s3, stackName);
    const versions = await lib.stateVersionSizes(s3, stackName);
    if (!final || final.resources !== graph.size)
      throw new Error(`${stackName}: state records ${final?.resources} resources, expected ${graph.size}`);

    // 2. no-change redeploy
    await emulator.control('DELETE', 'requests');
    const redeploy = await lib.runCdkd(['deploy', '--app', assembly, ...progress], { env });
    lib.expectSuccess(redeploy, `redeploy of ${stackName}`);
    const redeployRequests = await emulator.control('GET', 'requests');
    const again = lib.jsonStack(redeploy);

    // 3. destroy
    await emulator.control('DELETE', 'requests');
    const destroy = await lib.runCdkd(['destroy', '--app', assembly, '--force', ...progress], { env });
    lib.expectSuccess(destroy, `destroy of ${stackName}`);
    const destroyedIn = /destroyed \(.*\) in ([\d.]+)s/.exec(destroy.stderr);
    if (await lib.readState(s3, stackName))
      throw new Error(`${stackName}: state.json is still there after destroy`);

    const ops = requests.byOperation;
    const bytesStored = versions.reduce((a, b) => a + b, 0);
    return {
      stack: stackName,
      shape: c.shape,
      size: c.size,
      chains: c.shape === 'deep' ? c.chains : undefined,
      concurrency: c.concurrency,
      synthMs,
      loadAverage: Number(load.toFixed(2)),
      deploy: {
        elapsedMs: stack.elapsedMs,
        processWallMs: Math.round(deploy.wallMs),
        maxRssMiB: Math.round(deploy.maxRssKb / 1024),
        cdkdCpuMs: deploy.cpuMs,
        emulatorCpuMs: lib.emulatorCpuMs(statsBefore, statsAfter),
        summary: stack.summary,
        stateWrites: stack.stateWrites,
        s3: {
          stateVersions: versions.length,
          stateBytesStored: bytesStored,
          putObject: ops['s3:PutObject'] ?? 0,
          requests: requests.total,
          byOperation: ops,
        },
        finalStateBytes: final.bytes,
        bytesOverFinal: Number((stack.stateWrites.bytes / final.bytes).toFixed(2)),
      },
      redeploy: {
        noChanges: again.noChanges,
        elapsedMs: again.elapsedMs,
        processWallMs: Math.round(redeploy.wallMs),
        maxRssMiB: Math.round(redeploy.maxRssKb / 1024),
        writes:
          (redeployRequests.byOperation['s3:PutObject'] ?? 0) +
          (redeployRequests.byOperation['s3:DeleteObject'] ?? 0),
        providerCalls: Object.entries(redeployRequests.byOperation)
          .filter(([op]) => /^(cloudcontrol|sqs|ssm|sns|logs):/.test(op))
          .reduce((a, [, n]) => a + Number(n), 0),
      },
      destroy: {
        elapsedMs: destroyedIn ? Math.round(Number(destroyedIn[1]) * 1000) : undefined,
        processWallMs: Math.round(destroy.wallMs),
        maxRssMiB: Math.round(destroy.maxRssKb / 1024),
      },
    };
  });
}

/**
 * The writes of a deploy as cdkd counts them (write-ahead log segments plus
 * state.json folds) and as S3 saw them (state.json versions; every PutObject).
 * @param {any} deploy
 */
function writesCell(deploy) {
  const w = deploy.stateWrites;
  const split = w.segments ? `${w.segments.writes} + ${w.folds.writes}` : `${w.writes}`;
  return `${split} (${deploy.s3.stateVersions}; ${deploy.s3.putObject})`;
}

/** @param {any[]} results */
function report(results) {
  const s = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);
  const rows = results.map((r) => [
    r.shape,
    r.size,
    s(r.deploy.elapsedMs),
    s(r.deploy.processWallMs),
    r.deploy.maxRssMiB,
    s(r.deploy.cdkdCpuMs),
    s(r.deploy.emulatorCpuMs),
    writesCell(r.deploy),
    `${lib.formatBytes(r.deploy.stateWrites.bytes)} (${lib.formatBytes(r.deploy.stateWrites.folds?.bytes ?? r.deploy.stateWrites.bytes)} in state.json, S3 ${lib.formatBytes(r.deploy.s3.stateBytesStored)})`,
    lib.formatBytes(r.deploy.finalStateBytes),
    `${r.deploy.bytesOverFinal}x`,
    `${s(r.redeploy.elapsedMs)} / ${s(r.redeploy.processWallMs)}`,
    r.destroy.elapsedMs === undefined ? '?' : s(r.destroy.elapsedMs),
  ]);
  return lib.markdownTable(
    [
      'shape',
      'resources',
      'deploy s (cdkd elapsedMs)',
      'process wall s',
      'peak RSS MiB',
      'cdkd CPU s',
      'emulator CPU s',
      'state writes: log segments + state.json (S3 state.json versions; s3:PutObject)',
      'bytes written (of which state.json; S3 state.json versions)',
      'final state',
      'bytes / final',
      'no-change redeploy s (elapsed / wall)',
      'destroy s',
    ],
    rows,
  );
}

/** @param {any[]} results */
function targets(results) {
  const lines = [];
  for (const r of results) {
    if (r.size >= 2000)
      lines.push(
        `${r.stack}: deploy ${(r.deploy.elapsedMs / 1000).toFixed(2)} s ${r.deploy.elapsedMs < 30_000 ? '<' : '>='} 30 s: ${r.deploy.elapsedMs < 30_000 ? 'MET' : 'MISSED'}`,
      );
    lines.push(
      `${r.stack}: state bytes written ${r.deploy.bytesOverFinal}x the final state: ${r.deploy.bytesOverFinal <= 10 ? 'MET' : 'MISSED'} (target <= 10x)`,
    );
    // state.json versions are the folds; log segments are deleted by version once folded, so S3
    // keeps none of them: they show in the PutObject count (one more for the lock).
    const folds = r.deploy.stateWrites.folds ?? r.deploy.stateWrites;
    if (folds.writes !== r.deploy.s3.stateVersions || folds.bytes !== r.deploy.s3.stateBytesStored)
      lines.push(
        `${r.stack}: cdkd counted ${folds.writes} writes of state.json (${folds.bytes} B), S3 holds ${r.deploy.s3.stateVersions} versions (${r.deploy.s3.stateBytesStored} B)`,
      );
    if (r.deploy.stateWrites.writes + 1 !== r.deploy.s3.putObject)
      lines.push(
        `${r.stack}: cdkd counted ${r.deploy.stateWrites.writes} state writes; S3 answered ${r.deploy.s3.putObject} PutObject (expected one more, the lock)`,
      );
    if (!r.redeploy.noChanges || r.redeploy.writes || r.redeploy.providerCalls)
      lines.push(`${r.stack}: the no-change redeploy was not a no-op (${JSON.stringify(r.redeploy)})`);
  }
  return lines.join('\n');
}

async function main() {
  const o = lib.parseOptions(
    {
      sizes: '100,1000,2000',
      shapes: 'wide,deep',
      chains: '10',
      concurrency: '10',
      out: '',
      cdkd: '',
      profile: '',
    },
    USAGE,
  );
  const sizes = lib.positiveIntegers(o.sizes, 'sizes');
  const shapeList = lib.shapes(o.shapes);
  const [chains] = lib.positiveIntegers(o.chains, 'chains');
  lib.useCdkd(o.cdkd || undefined);
  lib.ensureBuilt();
  const profileDir = lib.outputDir(o.profile);
  const [concurrency] = lib.positiveIntegers(o.concurrency, 'concurrency');
  const results = await lib.runEach(o, sizes, shapeList, (size, shape) =>
    runConfiguration({ size, shape, chains, concurrency, profileDir }),
  );
  console.log(report(results));
  console.log();
  console.log(targets(results));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
