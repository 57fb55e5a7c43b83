#!/usr/bin/env node
'use strict';
// Runs the emulator until SIGINT/SIGTERM. Uses the build (dist/) when it is up
// to date with src/; otherwise (e.g. right after `npm ci`) it compiles src/ in
// memory with TypeScript's transpiler, so `npx aws-emulator` always works.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist', 'cli.js');
const sources = path.join(root, 'src');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function buildIsCurrent() {
  if (!fs.existsSync(built)) return false;
  if (!fs.existsSync(sources)) return true;
  return fs.statSync(built).mtimeMs >= newestSource(sources);
}

/** Lets `require` load the package's .ts sources, transpiled on the fly. */
function registerTypeScript() {
  const ts = require('typescript');
  require.extensions['.ts'] = (module, filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    module._compile(outputText, filename);
  };
}

let cli;
if (buildIsCurrent()) {
  cli = require(built);
} else {
  registerTypeScript();
  cli = require(path.join(sources, 'cli.ts'));
}

cli.main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`aws-emulator: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
