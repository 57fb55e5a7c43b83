#!/usr/bin/env node
// @ts-check
/**
 * The Cloud Control path under a latency profile: synthetic stacks of Cloud
 * Control resources deployed and destroyed by the BUILT cdkd CLI against the
 * emulator, with and without the emulator's Cloud Control rate limits.
 *
 *   npm run build
 *   node scripts/bench/cloud-control.js [--sizes 50,200,1000] [--shapes wide] [--chains 10]
 *                                       [--rate-limits off,on] [--call-ms 50] [--op-ms 2000|per-type]
 *                                       [--concurrency N] [--out FILE] [--cdkd DIR] [--events DIR]
 *
 * Latency profile (the emulator's `flat` profile, set after bootstrap and
 * synthesis): every API call --call-ms (default 50 ms); every Cloud Control
 * create/update/delete --op-ms from the request to SUCCESS (default 2000 ms;
 * `per-type`: SSM Parameter 1 s, SNS Topic 2 s, Logs LogGroup 3 s, Events
 * EventBus 4 s, ECR Repository 5 s).
 *
 * Per configuration, on a fresh emulator: deploy (create every resource), then
 * destroy. Reported per phase: cdkd's elapsedMs and the process wall time; the
 * critical path of the graph (a create weighs op + 3 calls: CreateResource, one
 * status check, GetResource; a delete op + 2 calls) plus the 4 calls in
 * sequence no run avoids, and elapsed / that bound; status checks per
 * operation (the emulator's count); each resource's own time over its weight
 * (from the progress lines' arrival times); peak Cloud Control requests in
 * flight, throttled attempts and the limit at the end (cdkd's --json
 * `provisioning`); throttles the emulator answered.
 * Targets (issue 16): 200 independent resources deploy in <= 25 s and destroy
 * in <= 12 s with <= 4 status checks per operation (no rate limits); with rate
 * limits, no failed resource and a bounded throttle count; elapsed / critical
 * path <= 1.10 on deep stacks. See docs/benchmarks.md.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lib = require('./lib');
const { ORCHESTRATION_LATENCY_MS } = require('./shape');

const USAGE =
  'usage: node scripts/bench/cloud-control.js [--sizes 50,200,1000] [--shapes wide,deep] [--chains 10] [--rate-limits off,on] [--call-ms 50] [--op-ms 2000|per-type] [--concurrency N] [--out FILE] [--cdkd DIR] [--events DIR]';
const SERIAL_CALLS_OUTSIDE_GRAPH = 4;
const CALLS_PER_NODE = { deploy: 3, destroy: 2 };

/**
 * Each resource's time from its `creating`/`deleting` line to its
 * `created`/`deleted` line (arrival times), over its weight.
 * @param {import('./lib').CliRun} run
 * @param {'deploy' | 'destroy'} phase
 * @param {(type: string) => number} weight
 */
function perResource(run, phase, weight) {
  const [begin, end] = phase === 'deploy' ? ['creating', 'created'] : ['deleting', 'deleted'];
  /** @type {Map<string, number>} */
  const started = new Map();
  /** @type {Map<string, number[]>} */
  const byType = new Map();
  for (const line of run.lines) {
    const m = new RegExp(`: (${begin}|${end}) (\\S+) \\((\\S+)\\)`).exec(line.text);
    if (!m) continue;
    const [, verb, id, type] = m;
    if (verb === begin) started.set(id, line.atMs);
    else if (started.has(id)) {
      const ratio = (line.atMs - /** @type {number} */ (started.get(id))) / weight(type);
      byType.set(type, [...(byType.get(type) ?? []), ratio]);
    }
  }
  const all = [...byType.values()].flat();
  const summary = (/** @type {number[]} */ r) => ({
    n: r.length,
    mean: Number((r.reduce((a, b) => a + b, 0) / Math.max(1, r.length)).toFixed(3)),
    worst: Number(Math.max(0, ...r).toFixed(3)),
  });
  return {
    ...summary(all),
    byType: Object.fromEntries([...byType].map(([type, r]) => [type, summary(r)])),
  };
}

/**
 * Throttled answers of the emulator's rate limits, by operation; undefined when the
 * emulator does not model them.
 * @param {import('./lib').Emulator} emulator
 */
async function emulatorThrottles(emulator) {
  try {
    const limits = await emulator.control('GET', 'cloudcontrol/rate-limits');
    return limits.throttled ?? {};
  } catch {
    return undefined;
  }
}

/**
 * One phase (deploy or destroy) of one configuration.
 * @param {{ phase: 'deploy' | 'destroy', emulator: import('./lib').Emulator, env: NodeJS.ProcessEnv, assembly: string, stackName: string, size: number, boundMs: number, criticalPathMs: number, weight: (type: string) => number, concurrency?: string, eventsDir?: string, label: string }} p
 */
async function runPhase(p) {
  await p.emulator.control('DELETE', 'requests');
  const throttledBefore = await emulatorThrottles(p.emulator);
  const load = os.loadavg()[0];
  const args =
    p.phase === 'deploy'
      ? ['deploy', '--app', p.assembly, '--json', '--progress', 'events']
      : ['destroy', '--app', p.assembly, '--force', '--json', '--progress', 'events'];
  // This benchmark measures the Cloud Control path: the bundled packs would take SNS and Logs.
  args.push('--cloud-control-only');
  if (p.concurrency) args.push('--concurrency', p.concurrency);
  const run = await lib.runCdkd(args, { env: p.env });
  if (p.eventsDir)
    fs.writeFileSync(
      path.join(p.eventsDir, `${p.label}-${p.phase}.events.txt`),
      run.lines.map((l) => `${Math.round(l.atMs)} ${l.text}`).join('\n'),
    );
  lib.expectSuccess(run, `${p.phase} of ${p.stackName}`);
  const payload = JSON.parse(run.stdout);
  const stack = lib.jsonStack(run);
  const done = p.phase === 'deploy' ? stack.summary.created : stack.summary.deleted;
  if (done !== p.size || stack.summary.failed)
    throw new Error(
      `${p.stackName}: ${p.phase} finished ${done} of ${p.size} (${JSON.stringify(stack.summary)})`,
    );
  const requests = await p.emulator.control('GET', 'requests');
  const ops = requests.byOperation;
  const mutations =
    (ops['cloudcontrol:CreateResource'] ?? 0) +
    (ops['cloudcontrol:UpdateResource'] ?? 0) +
    (ops['cloudcontrol:DeleteResource'] ?? 0);
  const throttledAfter = await emulatorThrottles(p.emulator);
  const emulatorThrottled =
    throttledAfter &&
    Object.entries(throttledAfter).reduce(
      (n, [op, count]) => n + Number(count) - Number(throttledBefore?.[op] ?? 0),
      0,
    );
  // A baseline build (--cdkd) may report no pools.
  const pool = payload.provisioning?.pools['cloud-control'] ?? {};
  return {
    phase: p.phase,
    loadAverage: Number(load.toFixed(2)),
    elapsedMs: stack.elapsedMs,
    processWallMs: Math.round(run.wallMs),
    criticalPathMs: p.criticalPathMs,
    boundMs: p.boundMs,
    ratio: Number((stack.elapsedMs / p.boundMs).toFixed(3)),
    statusChecksPerOperation: Number(
      ((ops['cloudcontrol:GetResourceRequestStatus'] ?? 0) / mutations).toFixed(2),
    ),
    calls: { total: requests.total, byOperation: ops },
    cdkdChecks: payload.provisioning?.cloudControl ?? [],
    peakInFlight: pool.peakInFlight,
    limitAtEnd: pool.limit,
    throttles: pool.throttles,
    backoffs: pool.backoffs,
    emulatorThrottled,
    perResource: perResource(run, p.phase, p.weight),
    cdkdCpuMs: run.cpuMs,
    maxRssMiB: Math.round(run.maxRssKb / 1024),
  };
}

/**
 * @param {{ size: number, shape: string, chains: number, rateLimits: boolean, callMs: number, opMs: number | 'per-type', concurrency?: string, eventsDir?: string }} c
 */
function runConfiguration(c) {
  const stackName = `CC-${c.shape}-${c.size}`;
  const label = `${stackName}-${c.rateLimits ? 'limited' : 'unlimited'}`;
  return lib.withBootstrappedEmulator(async ({ emulator, env, assembly }) => {
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
    const opMs = (/** @type {string} */ type) =>
      c.opMs === 'per-type'
        ? ORCHESTRATION_LATENCY_MS[/** @type {keyof typeof ORCHESTRATION_LATENCY_MS} */ (type)]
        : c.opMs;
    /** @param {'deploy' | 'destroy'} phase */
    const bounds = (phase) => {
      const weight = (/** @type {string} */ type) => opMs(type) + CALLS_PER_NODE[phase] * c.callMs;
      const criticalPathMs = lib.criticalPath(graph, (id) => weight(/** @type {any} */ (graph.get(id)).type));
      return { weight, criticalPathMs, boundMs: criticalPathMs + SERIAL_CALLS_OUTSIDE_GRAPH * c.callMs };
    };

    await lib.setLatencyProfile(
      emulator,
      c.callMs,
      c.opMs === 'per-type' ? ORCHESTRATION_LATENCY_MS : c.opMs,
    );
    if (c.rateLimits) {
      try {
        await emulator.control('PUT', 'cloudcontrol/rate-limits', { enabled: true });
      } catch (err) {
        throw new Error(
          `--rate-limits on needs the emulator's Cloud Control rate limits (PUT /_emulator/cloudcontrol/rate-limits): ${/** @type {Error} */ (err).message}`,
        );
      }
    }
    const common = {
      emulator,
      env,
      assembly,
      stackName,
      size: graph.size,
      concurrency: c.concurrency,
      eventsDir: c.eventsDir,
      label,
    };
    const deploy = await runPhase({ ...common, phase: 'deploy', ...bounds('deploy') });
    const destroy = await runPhase({ ...common, phase: 'destroy', ...bounds('destroy') });
    return {
      stack: stackName,
      shape: c.shape,
      size: c.size,
      chains: c.shape === 'deep' ? c.chains : undefined,
      rateLimits: c.rateLimits,
      callMs: c.callMs,
      opMs: c.opMs,
      concurrency: c.concurrency ?? 'adaptive',
      deploy,
      destroy,
    };
  });
}

/** @param {any[]} results */
function report(results) {
  const s = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);
  const rows = results.flatMap((r) =>
    [r.deploy, r.destroy].map((p) => [
      r.shape + (r.chains ? ` (${r.chains} chains)` : ''),
      r.size,
      r.rateLimits ? 'on' : 'off',
      p.phase,
      s(p.elapsedMs),
      s(p.processWallMs),
      s(p.boundMs),
      p.ratio.toFixed(3),
      p.statusChecksPerOperation.toFixed(2),
      `${p.perResource.mean.toFixed(3)}, ${p.perResource.worst.toFixed(3)}`,
      p.peakInFlight ?? 'n/a',
      `${p.throttles ?? 'n/a'} / ${p.emulatorThrottled ?? 'n/a'}`,
      p.backoffs === undefined ? 'n/a' : `${p.backoffs}, ${p.limitAtEnd}`,
    ]),
  );
  const main = lib.markdownTable(
    [
      'shape',
      'resources',
      'rate limits',
      'phase',
      'cdkd elapsed s',
      'process wall s',
      'critical path + 4 calls s',
      'elapsed / critical path',
      'status checks per op',
      'per-resource time / weight (mean, worst)',
      'peak CC requests in flight',
      'throttles (cdkd / emulator)',
      'backoffs, limit at end',
    ],
    rows,
  );
  const perType = lib.markdownTable(
    [
      'shape',
      'resources',
      'rate limits',
      'phase',
      'type',
      'requests',
      'checks per request',
      'time / weight (mean, worst)',
    ],
    results.flatMap((r) =>
      [r.deploy, r.destroy].flatMap((p) =>
        p.cdkdChecks.map((/** @type {any} */ t) => {
          const slack = p.perResource.byType[t.typeName];
          return [
            r.shape,
            r.size,
            r.rateLimits ? 'on' : 'off',
            p.phase,
            t.typeName,
            t.requests,
            (t.checks / t.requests).toFixed(2),
            slack ? `${slack.mean.toFixed(3)}, ${slack.worst.toFixed(3)}` : '?',
          ];
        }),
      ),
    ),
  );
  return `${main}\n\nPer type:\n\n${perType}`;
}

async function main() {
  const o = lib.parseOptions(
    {
      sizes: '50,200,1000',
      shapes: 'wide',
      chains: '10',
      'rate-limits': 'off',
      'call-ms': '50',
      'op-ms': '2000',
      concurrency: '',
      out: '',
      cdkd: '',
      events: '',
    },
    USAGE,
  );
  const sizes = lib.positiveIntegers(o.sizes, 'sizes');
  const shapeList = lib.shapes(o.shapes);
  const [chains] = lib.positiveIntegers(o.chains, 'chains');
  const limits = lib.list(o['rate-limits']);
  if (!limits.length || limits.some((l) => l !== 'on' && l !== 'off')) {
    process.stderr.write(`--rate-limits takes off and/or on (got "${o['rate-limits']}")\n`);
    process.exit(2);
  }
  const callMs = lib.wholeMilliseconds(o['call-ms'], 'call-ms');
  const opMs = o['op-ms'] === 'per-type' ? 'per-type' : lib.wholeMilliseconds(o['op-ms'], 'op-ms');
  if (o.concurrency) lib.positiveIntegers(o.concurrency, 'concurrency');
  lib.useCdkd(o.cdkd || undefined);
  lib.ensureBuilt();
  const eventsDir = lib.outputDir(o.events);
  const results = [];
  for (const limit of limits) {
    results.push(
      ...(await lib.runEach({ ...o, out: '' }, sizes, shapeList, (size, shape) =>
        runConfiguration({
          size,
          shape,
          chains,
          rateLimits: limit === 'on',
          callMs,
          opMs,
          concurrency: o.concurrency || undefined,
          eventsDir,
        }),
      )),
    );
  }
  if (o.out)
    fs.writeFileSync(o.out, `${JSON.stringify({ machine: lib.machine(), options: o, results }, null, 2)}\n`);
  console.log(report(results));
  console.log();
  for (const r of results) {
    const tag = `${r.stack}${r.rateLimits ? ' (rate limits on)' : ''}`;
    if (r.shape === 'deep')
      for (const p of [r.deploy, r.destroy])
        console.log(
          `${tag} ${p.phase}: elapsed / critical path = ${p.ratio.toFixed(3)}: ${p.ratio <= 1.1 ? 'MET' : 'MISSED'} (<= 1.10)`,
        );
    if (r.shape === 'wide' && r.size === 200 && !r.rateLimits) {
      const checks = (r.deploy.statusChecksPerOperation + r.destroy.statusChecksPerOperation) / 2;
      console.log(
        `${tag}: deploy ${(r.deploy.processWallMs / 1000).toFixed(1)} s (<= 25 s: ${r.deploy.processWallMs <= 25_000 ? 'MET' : 'MISSED'}), destroy ${(r.destroy.processWallMs / 1000).toFixed(1)} s (<= 12 s: ${r.destroy.processWallMs <= 12_000 ? 'MET' : 'MISSED'}), ${checks.toFixed(2)} status checks per op (<= 4: ${checks <= 4 ? 'MET' : 'MISSED'})`,
      );
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
