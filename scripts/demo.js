#!/usr/bin/env node
// @ts-check
/**
 * The README demo: starts the local AWS emulator, bootstraps cdkd into it,
 * deploys examples/basic-app (a real aws-cdk-lib app), shows its outputs and
 * its state record, then shows that a second deploy has nothing to do.
 *
 *   node scripts/demo.js          run the demo, then stop the emulator
 *   node scripts/demo.js --keep   leave the emulator running (Ctrl-C stops it)
 *
 * Needs a build (`npm run build`); `npm run demo` builds first.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const app = path.join(root, 'examples', 'basic-app');
const keep = process.argv.includes('--keep');

for (const built of ['dist/commands/deploy.js', 'test/emulator/dist/cli.js']) {
  if (!fs.existsSync(path.join(root, built))) {
    console.error(`Missing ${built}: run \`npm run build\` first (or use \`npm run demo\`).`);
    process.exit(1);
  }
}

/** Starts the emulator on a free port and resolves with its URL. */
function startEmulator() {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'test/emulator/bin/aws-emulator.js'), '--port', '0'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(buffer);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited with code ${code}`)));
  });
}

/** Runs `cdkd <args>` with the terminal attached, so the live progress view shows. */
function cdkd(args, env) {
  console.log(`\n$ cdkd ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/run.js'), ...args], {
      cwd: app,
      env,
      stdio: 'inherit',
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(undefined) : reject(new Error(`cdkd ${args[0]} exited with code ${code}`)),
    );
  });
}

async function main() {
  const { child, url } = /** @type {{ child: import('node:child_process').ChildProcess, url: string }} */ (
    await startEmulator()
  );
  console.log(`Local AWS emulator: ${url}`);
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL: url,
    AWS_ACCESS_KEY_ID: 'demo',
    AWS_SECRET_ACCESS_KEY: 'demo',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  try {
    await cdkd(['bootstrap'], env);
    await cdkd(['deploy'], env);
    await cdkd(['state', 'show', 'CdkdBasicApp'], env);
    await cdkd(['deploy'], env);
    if (keep) {
      console.log(
        `\nThe emulator keeps running at ${url}. In another shell:\n` +
          `  export AWS_ENDPOINT_URL=${url} AWS_ACCESS_KEY_ID=demo AWS_SECRET_ACCESS_KEY=demo AWS_REGION=us-east-1\n` +
          '  cd examples/basic-app && node ../../bin/run.js diff -c variant=v2\n' +
          'Press Ctrl-C to stop it.',
      );
      await new Promise((resolve) => child.on('exit', resolve));
      return;
    }
    console.log(
      '\nDemo complete: the stack was deployed into the local emulator, and a redeploy found nothing to change.',
    );
  } finally {
    if (!keep) child.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
