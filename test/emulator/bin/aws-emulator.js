#!/usr/bin/env node
'use strict';
// Runs the emulator until SIGINT/SIGTERM. Build first: `npm run build -w @cdkd/aws-emulator`.
require('../dist/cli.js')
  .main(process.argv.slice(2))
  .catch((err) => {
    process.stderr.write(`aws-emulator: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
