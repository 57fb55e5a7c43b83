#!/usr/bin/env node
// @ts-check
/**
 * Orchestration efficiency: synthetic stacks deployed by the BUILT cdkd CLI
 * against the emulator with a latency profile, wall time compared with the
 * critical path of the dependency graph under the same latencies.
 *
 *   npm run build
 *   node scripts/bench/orchestration.js [--sizes 100] [--shapes wide,deep] [--chains 10]
 *                                       [--concurrency 10|width] [--call-ms 50] [--out FILE] [--cdkd DIR] [--profile DIR] [--events DIR]
 *
 * Latency profile set through the emulator's control API:
 *   - every API call (any service, S3 included): --call-ms (default 50 ms);
 *   - Cloud Control request → SUCCESS, per type: SSM Parameter 1 s, SNS Topic
 *     2 s, Logs LogGroup 3 s, Events EventBus 4 s, ECR Repository 5 s.
 * Every resource is created through Cloud Control (the deploy runs with
 * --cloud-control-only, since the bundled packs take SNS topics and log
 * groups). A create needs at least
 * three calls (CreateResource, one GetResourceRequestStatus, GetResource), so
 * a node weighs L(type) + 3 x call-ms. Outside the graph a deploy makes four
 * calls in sequence that no schedule avoids (state read, lock, state re-read,
 * final save): 4 x call-ms.
 *
 * bound = ideal schedule of the graph at the run's concurrency (zero overhead;
 * whenever a slot is free it starts the next ready resource, in template
 * order) + 4 x call-ms. When the concurrency is at least the graph's width
 * (deep with --chains <= concurrency, or `--concurrency width`) the ideal
 * schedule IS the critical path. The strict lower bound max(critical path,
 * total work / concurrency) + 4 x call-ms is reported beside it.
 * ratio = cdkd's elapsedMs (synth excluded) / bound. Target (issue 6): <= 1.15.
 * --profile DIR: a V8 CPU profile of each deploy; --events DIR: each deploy's
 * progress lines with their arrival time (ms since the process started).
 * --cdkd DIR runs another cdkd install (see make-baseline.js) instead of this
 * repository's build, to compare two builds under the same conditions.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lib = require('./lib');
const { ORCHESTRATION_LATENCY_MS } = require('./shape');

const USAGE =
  'usage: node scripts/bench/orchestration.js [--sizes 100] [--shapes wide,deep] [--chains 10] [--concurrency N|width] [--call-ms 50] [--out FILE] [--cdkd DIR] [--profile DIR] [--events DIR]';
const CALLS_PER_CREATE = 3;
const SERIAL_CALLS_OUTSIDE_GRAPH = 4;

/**
 * Finish times of the resources from the `--progress events` lines, relative
 * to the first resource start: shows where the time went.
 * @param {import("./lib").CliRun} run
 */
function timeline(run) {
  const started = run.lines.find((l) => /: creating /.test(l.text));
  const done = run.lines.filter((l) => /: created /.test(l.text));
  if (!started || !done.length) return undefined;
  return {
    firstStartMs: Math.round(started.atMs),
    lastCreatedMs: Math.round(done[done.length - 1].atMs),
    created: done.length,
  };
}

/**
 * Per resource: its own elapsed time (from the `created X in N.Ns` lines)
 * over its type's Cloud Control latency; the mean and worst of that ratio.
 * @param {import("./lib").CliRun} run
 * @param {Map<string, { type: string }>} graph
 * @param {number} callMs
 */
function perResourceOverhead(run, graph, callMs) {
  const ratios = [];
  for (const line of run.lines) {
    const m = /: created (\S+) \((\S+)\) in ([\d.]+)s/.exec(line.text);
    if (!m) continue;
    const weight =
      ORCHESTRATION_LATENCY_MS[/** @type {keyof typeof ORCHESTRATION_LATENCY_MS} */ (m[2])] +
      CALLS_PER_CREATE * callMs;
    ratios.push((Number(m[3]) * 1000) / weight);
  }
  if (!ratios.length) return undefined;
  return {
    mean: Number((ratios.reduce((a, b) => a + b, 0) / ratios.length).toFixed(3)),
    worst: Number(Math.max(...ratios).toFixed(3)),
    n: ratios.length,
    of: graph.size,
  };
}

/**
 * @param {{ size: number, shape: string, chains: number, concurrency: string, callMs: number, profileDir?: string, eventsDir?: string }} c
 */
function runConfiguration(c) {
  const stackName = `Orch-${c.shape}-${c.size}`;
  return lib.withBootstrappedEmulator(async ({ emulator, env, s3, assembly }) => {
    const { template } = await lib.synthesize({
      size: c.size,
      shape: c.shape,
      chains: c.chains,
      types: 'orchestration',
      stackName,
      outDir: assembly,
      env,
    });
    const graph = lib.templateGraph(template);
    const width = lib.sourceCount(graph);
    const concurrency = c.concurrency === 'width' ? Math.max(10, width) : Number(c.concurrency);
    const weight = (/** @type {string} */ id) => {
      const type = /** @type {{ type: string }} */ (graph.get(id)).type;
      const latency = ORCHESTRATION_LATENCY_MS[/** @type {keyof typeof ORCHESTRATION_LATENCY_MS} */ (type)];
      if (latency === undefined) throw new Error(`${id}: no latency for ${type}`);
      return latency + CALLS_PER_CREATE * c.callMs;
    };
    const criticalPathMs = lib.criticalPath(graph, weight);
    const scheduleMs = lib.idealSchedule(graph, weight, concurrency);
    const boundMs = scheduleMs + SERIAL_CALLS_OUTSIDE_GRAPH * c.callMs;
    const totalWorkMs = [...graph.keys()].reduce((sum, id) => sum + weight(id), 0);
    const lowerBoundMs =
      Math.max(criticalPathMs, totalWorkMs / concurrency) + SERIAL_CALLS_OUTSIDE_GRAPH * c.callMs;

    // The profile applies to the deploy only (bootstrap and synth ran without it).
    await lib.setLatencyProfile(emulator, c.callMs, ORCHESTRATION_LATENCY_MS);
    await emulator.control('DELETE', 'requests');
    const load = os.loadavg()[0];
    const statsBefore = await emulator.control('GET', 'stats');
    const nodeOptions = lib.cpuProfileOptions(c.profileDir, stackName);
    const deploy = await lib.runCdkd(
      // --cloud-control-only: the model weighs every node as a Cloud Control create; the bundled packs would take SNS and Logs.
      [
        'deploy',
        '--app',
        assembly,
        '--json',
        '--progress',
        'events',
        '--cloud-control-only',
        '--concurrency',
        String(concurrency),
      ],
      { env, nodeOptions },
    );
    if (c.eventsDir)
      fs.writeFileSync(
        path.join(c.eventsDir, `${stackName}.events.txt`),
        deploy.lines.map((l) => `${Math.round(l.atMs)} ${l.text}`).join('\n'),
      );
    lib.expectSuccess(deploy, `deploy of ${stackName}`);
    const statsAfter = await emulator.control('GET', 'stats');
    const requests = await emulator.control('GET', 'requests');
    const stack = lib.jsonStack(deploy);
    if (stack.summary.created !== graph.size)
      throw new Error(`${stackName}: created ${stack.summary.created} of ${graph.size}`);
    const ops = requests.byOperation;
    const final = await lib.readState(s3, stackName);
    return {
      stack: stackName,
      shape: c.shape,
      size: c.size,
      chains: c.shape === 'deep' ? c.chains : undefined,
      width,
      concurrency,
      callMs: c.callMs,
      criticalPathMs,
      scheduleMs,
      boundMs,
      lowerBoundMs: Math.round(lowerBoundMs),
      elapsedMs: stack.elapsedMs,
      ratio: Number((stack.elapsedMs / boundMs).toFixed(3)),
      ratioToLowerBound: Number((stack.elapsedMs / lowerBoundMs).toFixed(3)),
      processWallMs: Math.round(deploy.wallMs),
      maxRssMiB: Math.round(deploy.maxRssKb / 1024),
      cdkdCpuMs: deploy.cpuMs,
      emulatorCpuMs: lib.emulatorCpuMs(statsBefore, statsAfter),
      loadAverage: Number(load.toFixed(2)),
      calls: {
        total: requests.total,
        createResource: ops['cloudcontrol:CreateResource'] ?? 0,
        getResourceRequestStatus: ops['cloudcontrol:GetResourceRequestStatus'] ?? 0,
        getResource: ops['cloudcontrol:GetResource'] ?? 0,
        stateWrites: stack.stateWrites.writes,
      },
      state: {
        writes: stack.stateWrites.writes,
        bytes: stack.stateWrites.bytes,
        finalBytes: final?.bytes,
        bytesOverFinal: final ? Number((stack.stateWrites.bytes / final.bytes).toFixed(2)) : undefined,
      },
      perResource: perResourceOverhead(deploy, graph, c.callMs),
      timeline: timeline(deploy),
    };
  });
}

/** @param {any[]} results */
function report(results) {
  const s = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);
  return lib.markdownTable(
    [
      'shape',
      'resources',
      'concurrency',
      'critical path s',
      'bound s (ideal schedule)',
      'cdkd elapsed s',
      'wall / bound',
      'wall / strict lower bound',
      'polls per create',
      'per-resource time / weight (mean, worst)',
      'state writes, bytes / final',
      'cdkd CPU s',
      'emulator CPU s',
    ],
    results.map((r) => [
      r.shape + (r.chains ? ` (${r.chains} chains)` : ''),
      r.size,
      r.concurrency,
      s(r.criticalPathMs),
      s(r.boundMs),
      s(r.elapsedMs),
      r.ratio.toFixed(3),
      r.ratioToLowerBound.toFixed(3),
      (r.calls.getResourceRequestStatus / r.calls.createResource).toFixed(1),
      r.perResource ? `${r.perResource.mean.toFixed(3)}, ${r.perResource.worst.toFixed(3)}` : '?',
      `${r.state.writes}, ${r.state.bytesOverFinal}x`,
      s(r.cdkdCpuMs),
      s(r.emulatorCpuMs),
    ]),
  );
}

async function main() {
  const o = lib.parseOptions(
    {
      sizes: '100',
      shapes: 'wide,deep',
      chains: '10',
      concurrency: '10',
      'call-ms': '50',
      out: '',
      cdkd: '',
      profile: '',
      events: '',
    },
    USAGE,
  );
  const sizes = lib.positiveIntegers(o.sizes, 'sizes');
  const shapeList = lib.shapes(o.shapes);
  const [chains] = lib.positiveIntegers(o.chains, 'chains');
  if (o.concurrency !== 'width' && !/^[1-9]\d*$/.test(o.concurrency)) {
    process.stderr.write(`--concurrency takes a positive integer or "width" (got "${o.concurrency}")\n`);
    process.exit(2);
  }
  const callMs = lib.wholeMilliseconds(o['call-ms'], 'call-ms');
  lib.useCdkd(o.cdkd || undefined);
  lib.ensureBuilt();
  const profileDir = lib.outputDir(o.profile);
  const eventsDir = lib.outputDir(o.events);
  const results = await lib.runEach(o, sizes, shapeList, (size, shape) =>
    runConfiguration({ size, shape, chains, concurrency: o.concurrency, callMs, profileDir, eventsDir }),
  );
  console.log(report(results));
  console.log();
  for (const r of results)
    console.log(
      `${r.stack}: wall / bound = ${r.ratio.toFixed(3)}: ${r.ratio <= 1.15 ? 'MET' : 'MISSED'} (target <= 1.15)`,
    );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
