#!/usr/bin/env node
// @ts-check
/**
 * The 75-resource app of issue 12's side-by-side measurement: 25 SSM
 * parameters, 25 SQS queues and 25 Secrets Manager secrets, all independent,
 * deployed and destroyed by the BUILT cdkd CLI against the emulator with every
 * API call taking --call-ms (default 50) and every Cloud Control operation
 * --op-ms (default 2000): once without the installable packs (parameters and
 * secrets go through Cloud Control, queues through the bundled SQS pack), once
 * with @cdkd/provider-ssm and @cdkd/provider-secretsmanager installed from
 * their `npm pack` tarballs.
 *
 *   npm run build
 *   node scripts/bench/side-by-side.js [--per-type 25] [--call-ms 50] [--op-ms 2000] [--out FILE]
 *
 * Reported per configuration and phase: cdkd's own elapsed time (--json
 * elapsedMs), the process wall time, and the requests by service. The
 * reference tool's figures on the same app and latencies (issue 12): deploy
 * 3.7 s, destroy 6.9 s; the packs' target is to beat both.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const lib = require('./lib');

const USAGE =
  'usage: node scripts/bench/side-by-side.js [--per-type 25] [--call-ms 50] [--op-ms 2000] [--out FILE]';
const PACKS = ['provider-ssm', 'provider-secretsmanager'];
const STACK = 'SideBySide';

/** @param {number} perType */
function appSource(perType) {
  const cdkLib = JSON.stringify(require.resolve('aws-cdk-lib', { paths: [lib.ROOT] }));
  return `const cdk = require(${cdkLib});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'SideBySide', { stackName: ${JSON.stringify(STACK)}, analyticsReporting: false });
for (let i = 0; i < ${perType}; i++) {
  new cdk.aws_ssm.CfnParameter(stack, 'Parameter' + i, { type: 'String', value: 'value ' + i });
  new cdk.aws_sqs.CfnQueue(stack, 'Queue' + i, {});
  new cdk.aws_secretsmanager.CfnSecret(stack, 'Secret' + i, { secretString: 'secret ' + i });
}
app.synth();
`;
}

/** Requests by service since the last call (and the counts cleared). */
async function requestsByService(/** @type {lib.Emulator} */ emulator) {
  const { byOperation } = await emulator.control('GET', 'requests');
  await emulator.control('DELETE', 'requests');
  /** @type {Record<string, number>} */
  const out = {};
  for (const [op, n] of Object.entries(byOperation)) {
    const service = op.split(':')[0];
    out[service] = (out[service] ?? 0) + Number(n);
  }
  return out;
}

/**
 * @param {{ packs: boolean, perType: number, callMs: number, opMs: number, tarballs: string[] }} o
 */
async function measure(o) {
  return lib.withBootstrappedEmulator(async ({ emulator, env, assembly }) => {
    const appDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-side-by-side-'));
    try {
      fs.writeFileSync(path.join(appDir, 'app.js'), appSource(o.perType));
      if (o.packs) {
        for (const tarball of o.tarballs)
          lib.expectSuccess(
            await lib.runCdkd(['plugins', 'install', `file:${tarball}`], { env }),
            `installing ${tarball}`,
          );
      }
      const app = ['--app', `node ${path.join(appDir, 'app.js')}`, '-o', assembly];
      lib.expectSuccess(await lib.runCdkd(['synth', ...app, '--quiet'], { env }), 'cdkd synth');
      await lib.setLatencyProfile(emulator, o.callMs, o.opMs);
      await requestsByService(emulator);
      /** @type {Record<string, unknown>} */
      const result = { packs: o.packs };
      for (const phase of ['deploy', 'destroy']) {
        const args =
          phase === 'deploy' ? ['deploy', ...app, '--json'] : ['destroy', ...app, '--force', '--json'];
        const run = await lib.runCdkd(args, { env });
        lib.expectSuccess(run, `cdkd ${phase}`);
        const stack = lib.jsonStack(run);
        result[phase] = {
          elapsedMs: stack.elapsedMs,
          wallMs: Math.round(run.wallMs),
          requests: await requestsByService(emulator),
        };
      }
      return result;
    } finally {
      fs.rmSync(appDir, { recursive: true, force: true });
    }
  });
}

async function main() {
  const opts = lib.parseOptions({ 'per-type': '25', 'call-ms': '50', 'op-ms': '2000', out: '' }, USAGE);
  lib.ensureBuilt();
  const perType = Number(opts['per-type']);
  const callMs = Number(opts['call-ms']);
  const opMs = Number(opts['op-ms']);
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-side-by-side-packs-'));
  const tarballs = PACKS.map((pack) => {
    const packed = spawnSync('npm', ['pack', '--pack-destination', packDir, '--json'], {
      cwd: path.join(lib.ROOT, 'plugins', pack),
      encoding: 'utf8',
    });
    if (packed.status !== 0) throw new Error(`npm pack of ${pack} failed:\n${packed.stderr}`);
    return path.join(packDir, JSON.parse(packed.stdout)[0].filename);
  });
  try {
    const results = [];
    for (const packs of [false, true]) {
      const r = await measure({ packs, perType, callMs, opMs, tarballs });
      results.push(r);
      process.stderr.write(`${JSON.stringify(r)}\n`);
    }
    const report = {
      resources: perType * 3,
      callMs,
      opMs,
      reference: { deployMs: 3700, destroyMs: 6900 },
      results,
    };
    const text = JSON.stringify(report, null, 2);
    if (opts.out) fs.writeFileSync(String(opts.out), `${text}\n`);
    process.stdout.write(`${text}\n`);
  } finally {
    fs.rmSync(packDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
