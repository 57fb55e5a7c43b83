/**
 * Runs npm for `cdkd packs`: the npm that `cdkd plugins install` uses (the one
 * `@oclif/plugin-plugins` pins), else the `npm` on PATH. npm reads the
 * project's `.npmrc` (copied into the install folder, see project-packs.ts), the
 * user's and the environment's configuration as it always does, so scoped
 * registries and their credentials work unchanged.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CdkdError } from '../util/errors';
import type { Logger } from '../util/io-host';

/** `[command, ...leading args]` that run npm. */
export function npmCommand(): string[] {
  try {
    const from = path.dirname(require.resolve('@oclif/plugin-plugins'));
    const manifest = require.resolve('npm/package.json', { paths: [from] });
    const bin = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.npm;
    if (bin) return [process.execPath, path.join(path.dirname(manifest), bin)];
  } catch {
    // Fall through to the npm on PATH.
  }
  return [process.platform === 'win32' ? 'npm.cmd' : 'npm'];
}

export interface NpmResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm <args>` in `cwd`. Never runs packages' install scripts, never
 * audits or asks for funding. Fails with npm's own explanation.
 */
export function runNpm(
  args: string[],
  options: { cwd: string; logger: Logger; what: string },
): Promise<NpmResult> {
  const [command, ...lead] = npmCommand();
  const full = [...lead, ...args, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'];
  options.logger.debug(`${options.cwd}: npm ${[...args].join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, full, {
      cwd: options.cwd,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (err) =>
      reject(
        new CdkdError(`Could not run npm to ${options.what}: ${err.message}`, {
          code: 'NPM_FAILED',
          remedy: 'Install Node.js with npm, or reinstall cdkd.',
        }),
      ),
    );
    child.on('close', (code) => {
      for (const line of stderr.split('\n').filter(Boolean)) options.logger.debug(`npm: ${line}`);
      if (code === 0) return resolve({ stdout, stderr });
      const tail = stderr
        .split('\n')
        .filter((l) => /\berr(or)?!?\b/i.test(l))
        .slice(-8)
        .join('\n');
      reject(
        new CdkdError(
          `npm could not ${options.what} (exit ${code}):\n${tail || stderr.trim() || stdout.trim()}`,
          {
            code: 'NPM_FAILED',
            remedy:
              "Check the packs' names and versions, the registries in the project's .npmrc and your credentials for them; run with --verbose for npm's full output.",
          },
        ),
      );
    });
  });
}
