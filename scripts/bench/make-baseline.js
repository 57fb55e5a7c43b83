#!/usr/bin/env node
// @ts-check
/**
 * Makes a second cdkd install to benchmark against the current build: a copy of
 * the BUILT tree in which the given source files are compiled as they were at a
 * git revision. Run both with `--cdkd DIR` to compare a change under the same
 * conditions (same machine, same minute, same emulator build).
 *
 *   npm run build
 *   node scripts/bench/make-baseline.js --rev HEAD --files src/provisioning/cloud-control-provider.ts --out /tmp/cdkd-before
 *   node scripts/bench/deploy-scale.js --cdkd /tmp/cdkd-before ...
 *
 * The copy holds bin/, package.json, oclif.manifest.json and dist/ (copied),
 * node_modules/ and schemas/ (links to this repository's).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const lib = require('./lib');

const USAGE = 'usage: node scripts/bench/make-baseline.js --rev REV --files src/a.ts[,src/b.ts] --out DIR';

function main() {
  const o = lib.parseOptions({ rev: '', files: '', out: '' }, USAGE);
  if (!o.rev || !o.files || !o.out) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  lib.ensureBuilt();
  const ts = require('typescript');
  const out = path.resolve(o.out);
  if (fs.existsSync(out)) fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const entry of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) {
    fs.cpSync(path.join(lib.ROOT, entry), path.join(out, entry), { recursive: true });
  }
  for (const entry of ['node_modules', 'schemas'])
    fs.symlinkSync(path.join(lib.ROOT, entry), path.join(out, entry));
  for (const file of lib.list(o.files)) {
    if (!/^src\/.*\.ts$/.test(file)) throw new Error(`${file}: expected a path under src/ ending in .ts`);
    const source = execFileSync('git', ['show', `${o.rev}:${file}`], { cwd: lib.ROOT, encoding: 'utf8' });
    const js = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        esModuleInterop: true,
      },
    }).outputText;
    const target = path.join(out, 'dist', file.slice('src/'.length).replace(/\.ts$/, '.js'));
    fs.writeFileSync(target, js);
    console.log(`${target}: ${file} as at ${o.rev}`);
  }
}

main();
