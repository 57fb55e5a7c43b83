#!/usr/bin/env node
// @ts-check
/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`, or `--profile DIR` of the
 * deploy benchmarks): self time per function and per package/folder, so the
 * report can say where a deploy's CPU goes.
 *
 *   node scripts/bench/profile-summary.js FILE.cpuprofile [--top 25]
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function main() {
  const file = process.argv[2];
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
  if (!file || !fs.existsSync(file)) {
    process.stderr.write('usage: node scripts/bench/profile-summary.js FILE.cpuprofile [--top 25]\n');
    process.exit(2);
  }
  /** @type {{ nodes: Array<{ id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }>, samples: number[], timeDeltas: number[], startTime: number, endTime: number }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} */
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  /** @type {Map<string, number>} */
  const byFunction = new Map();
  /** @type {Map<string, number>} */
  const byArea = new Map();
  for (const [id, us] of selfUs) {
    const frame = /** @type {any} */ (byId.get(id)).callFrame;
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const fn = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const area = areaOf(frame.url, frame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const ms = (/** @type {number} */ us) => (us / 1000).toFixed(0).padStart(7);
  const pct = (/** @type {number} */ us) => `${((100 * us) / total).toFixed(1)}%`.padStart(6);
  console.log(
    `profile ${path.basename(file)}: ${(total / 1e6).toFixed(2)} s sampled over ${((profile.endTime - profile.startTime) / 1e6).toFixed(2)} s`,
  );
  console.log('\nself time by area');
  for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${ms(us)} ms ${pct(us)}  ${area}`);
  console.log('\nself time by function');
  for (const [fn, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${ms(us)} ms ${pct(us)}  ${fn}`);
}

/** @param {string} url */
function shortUrl(url) {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  return url.replace(/^file:\/\//, '').replace(/^.*\/(dist|plugins|test)\//, '$1/');
}

/** Package (for node_modules), cdkd layer (for dist/<layer>), or the V8/Node category. @param {string} url @param {string} fn */
function areaOf(url, fn) {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = /\/dist\/([^/]+)\//.exec(url);
  if (dist) return `cdkd ${dist[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  return shortUrl(url);
}

main();
