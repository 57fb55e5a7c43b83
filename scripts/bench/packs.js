#!/usr/bin/env node
// @ts-check
/**
 * Provider packs against Cloud Control: the same realistic app
 * (scripts/bench/packs-app.js: Lambda functions with roles, policies, log
 * groups and schedule rules; buckets with policies; topics with queue
 * subscriptions; tables; parameters) deployed and destroyed by the BUILT cdkd
 * CLI on the emulator's realistic latency profile, once with every
 * first-party pack (the bundled ones, plus the installable ones built in
 * plugins/, linked into the run's own cdkd home) and once with
 * --cloud-control-only.
 *
 *   npm run build
 *   node scripts/bench/packs.js [--units 4,14] [--modes packs,cloud-control-only] [--out FILE] [--events DIR]
 *
 * A unit is 14 resources (4 units = 56, 14 units = 196). Each mode runs on a
 * fresh emulator. Reported per mode and phase: cdkd's elapsedMs, how the
 * resources were provisioned (deploy --json provisioning.routes), and the
 * phase's elapsed time over the critical path of the resources' own measured
 * durations (from the progress lines: how close the orchestration comes to
 * the best any scheduler could do with those latencies); then Cloud Control ÷
 * packs per phase. Target (issue 12): packs >= 3x faster for deploy and for
 * destroy, and within 1.10x of their own critical path. See docs/benchmarks.md.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const USAGE =
  'usage: node scripts/bench/packs.js [--units 4,14] [--modes packs,cloud-control-only] [--out FILE] [--events DIR]';
const APP = path.join(__dirname, 'packs-app.js');
const MODES = ['packs', 'cloud-control-only'];

/** The installable first-party packs built in this repository, to link into the packs run. */
function installablePackDirs() {
  const plugins = path.join(lib.ROOT, 'plugins');
  return fs
    .readdirSync(plugins)
    .map((name) => path.join(plugins, name))
    .filter((dir) => {
      const pkgFile = path.join(dir, 'package.json');
      if (!fs.existsSync(pkgFile) || !fs.existsSync(path.join(dir, 'dist'))) return false;
      const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
      const bundled = (require(path.join(lib.ROOT, 'package.json')).oclif?.plugins ?? []).includes(pkg.name);
      return /^@cdkd\/provider-/.test(pkg.name) && pkg.oclif?.hooks?.['cdkd:providers'] && !bundled;
    });
}

/**
 * Each resource's duration from its `creating`/`deleting` line to its
 * `created`/`deleted` line, and the span from the first start to the last end.
 * @param {import('./lib').CliRun} run
 * @param {'deploy' | 'destroy'} phase
 */
function measuredDurations(run, phase) {
  const [begin, end] = phase === 'deploy' ? ['creating', 'created'] : ['deleting', 'deleted'];
  /** @type {Map<string, number>} */
  const started = new Map();
  /** @type {Map<string, number>} */
  const took = new Map();
  let first = Infinity;
  let last = 0;
  for (const line of run.lines) {
    const m = new RegExp(`: (${begin}|${end}) (\\S+) \\((\\S+)\\)`).exec(line.text);
    if (!m) continue;
    const [, verb, id] = m;
    if (verb === begin) {
      started.set(id, line.atMs);
      first = Math.min(first, line.atMs);
    } else if (started.has(id)) {
      took.set(id, line.atMs - /** @type {number} */ (started.get(id)));
      last = Math.max(last, line.atMs);
    }
  }
  return { took, spanMs: last > first ? last - first : 0 };
}

/**
 * @param {{ mode: string, phase: 'deploy' | 'destroy', assembly: string, env: NodeJS.ProcessEnv, template: any, eventsDir?: string, label: string }} p
 */
async function runPhase(p) {
  const args =
    p.phase === 'deploy'
      ? ['deploy', '--app', p.assembly, '--json', '--progress', 'events', '--require-approval', 'never']
      : ['destroy', '--app', p.assembly, '--force', '--json', '--progress', 'events'];
  if (p.mode === 'cloud-control-only') args.push('--cloud-control-only');
  const run = await lib.runCdkd(args, { env: p.env });
  if (p.eventsDir)
    fs.writeFileSync(
      path.join(p.eventsDir, `${p.label}-${p.phase}.events.txt`),
      run.lines.map((l) => `${Math.round(l.atMs)} ${l.text}`).join('\n'),
    );
  lib.expectSuccess(run, `${p.phase} (${p.mode})`);
  const stack = lib.jsonStack(run);
  if (stack.summary.failed) throw new Error(`${p.phase} (${p.mode}): ${JSON.stringify(stack.summary)}`);
  const graph = lib.templateGraph(p.template);
  const { took, spanMs } = measuredDurations(run, p.phase);
  // Destroy runs the graph reversed: the same longest path.
  const critical = lib.criticalPath(graph, (id) => took.get(id) ?? 0);
  const routes = p.phase === 'deploy' ? JSON.parse(run.stdout).provisioning?.routes : undefined;
  return {
    elapsedMs: stack.elapsedMs,
    wallMs: Math.round(run.wallMs),
    spanMs: Math.round(spanMs),
    criticalPathMs: Math.round(critical),
    overCriticalPath: critical > 0 ? Number((spanMs / critical).toFixed(3)) : null,
    ...(routes ? { routes } : {}),
  };
}

async function main() {
  const options = lib.parseOptions({ units: '4,14', modes: MODES.join(','), out: '', events: '' }, USAGE);
  const unitList = lib.positiveIntegers(options.units, '--units');
  const modes = lib.list(options.modes);
  if (modes.some((m) => !MODES.includes(m))) {
    process.stderr.write(`--modes takes ${MODES.join(' and/or ')} (got "${options.modes}")\n${USAGE}\n`);
    process.exit(2);
  }
  lib.ensureBuilt();
  const eventsDir = options.events ? lib.outputDir(options.events) : undefined;
  const linked = installablePackDirs();
  process.stderr.write(
    `${JSON.stringify({ machine: lib.machine(), units: unitList, modes, linkedPacks: linked.map((d) => path.basename(d)) })}\n`,
  );
  const results = [];
  for (const units of unitList) {
    /** @type {Record<string, any>} */
    const byMode = {};
    for (const mode of modes) {
      byMode[mode] = await lib.withBootstrappedEmulator(async ({ emulator, env, assembly }) => {
        if (mode === 'packs')
          for (const dir of linked)
            lib.expectSuccess(await lib.runCdkd(['plugins', 'link', dir], { env }), `link ${dir}`);
        const synth = await lib.runCdkd(
          ['synth', '--app', `node ${APP}`, '-o', assembly, '-q', '-c', `units=${units}`],
          { env },
        );
        lib.expectSuccess(synth, 'cdkd synth of the packs app');
        const template = JSON.parse(fs.readFileSync(path.join(assembly, 'PacksBench.template.json'), 'utf8'));
        const resources = Object.values(template.Resources).filter(
          (r) => r.Type !== 'AWS::CDK::Metadata',
        ).length;
        await emulator.control('PUT', 'latency/profile', { name: 'realistic' });
        const label = `${units}u-${mode}`;
        const common = { mode, assembly, env, template, eventsDir, label };
        const deploy = await runPhase({ ...common, phase: 'deploy' });
        const destroy = await runPhase({ ...common, phase: 'destroy' });
        return { resources, deploy, destroy };
      });
      process.stderr.write(`${JSON.stringify({ units, mode, ...byMode[mode] })}\n`);
    }
    const ratio = (/** @type {'deploy' | 'destroy'} */ phase) =>
      byMode.packs && byMode['cloud-control-only']
        ? Number((byMode['cloud-control-only'][phase].elapsedMs / byMode.packs[phase].elapsedMs).toFixed(2))
        : null;
    results.push({
      units,
      ...byMode,
      cloudControlOverPacks: { deploy: ratio('deploy'), destroy: ratio('destroy') },
    });
  }
  const headers = [
    'resources',
    'mode',
    'deploy s',
    'destroy s',
    'deploy / critical path',
    'destroy / critical path',
    'by SDK packs',
    'by Cloud Control',
  ];
  const rows = [];
  for (const r of results) {
    for (const mode of modes) {
      const m = r[mode];
      const routes = m.deploy.routes ?? { sdk: {}, cloudControl: {} };
      const count = (/** @type {Record<string, number>} */ c) => Object.values(c).reduce((a, b) => a + b, 0);
      rows.push([
        m.resources,
        mode,
        (m.deploy.elapsedMs / 1000).toFixed(1),
        (m.destroy.elapsedMs / 1000).toFixed(1),
        m.deploy.overCriticalPath,
        m.destroy.overCriticalPath,
        count(routes.sdk),
        count(routes.cloudControl),
      ]);
    }
  }
  const table = lib.markdownTable(headers, rows);
  const ratios = results
    .map(
      (r) =>
        `${r[modes[0]].resources} resources: Cloud Control / packs = ${r.cloudControlOverPacks.deploy ?? 'n/a'}x deploy, ${r.cloudControlOverPacks.destroy ?? 'n/a'}x destroy`,
    )
    .join('\n');
  process.stdout.write(`${table}\n\n${ratios}\n`);
  if (options.out)
    fs.writeFileSync(options.out, `${JSON.stringify({ machine: lib.machine(), results }, null, 2)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
