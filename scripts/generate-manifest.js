#!/usr/bin/env node
// Writes oclif.manifest.json from the built commands in dist/ (the same thing
// `oclif manifest` does, without its dependency tree). With --check, exits 1
// when the committed manifest differs from what the build would produce.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { Plugin } = require('@oclif/core');

async function buildManifest(root) {
  const plugin = new Plugin({
    root,
    type: 'core',
    ignoreManifest: true,
    errorOnManifestCreate: true,
    respectNoCacheDefault: true,
  });
  await plugin.load();
  // oclif loads command files concurrently, so their order varies from run to run: sort them.
  const manifest = {
    ...plugin.manifest,
    commands: Object.fromEntries(
      Object.entries(plugin.manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

async function main() {
  const root = path.resolve(__dirname, '..');
  const file = path.join(root, 'oclif.manifest.json');
  const text = await buildManifest(root);
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== text) {
      process.stderr.write('oclif.manifest.json is stale: run `npm run build` and commit the result.\n');
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(file, text);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
