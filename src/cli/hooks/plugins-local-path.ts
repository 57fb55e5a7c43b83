/**
 * oclif's `plugins:preinstall` hook of the cdkd CLI: `cdkd plugins install
 * ./cdkd-provider-events-0.1.0.tgz` installs that tarball (or folder). oclif
 * reads any argument with a `/` as a GitHub repository; a path that exists
 * on disk is given to npm as a `file:` spec instead, resolved against the
 * directory the command runs in (npm itself runs in oclif's data folder).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hook } from '@oclif/core';

const GITHUB = 'https://github.com/';

/** The `file:` spec for a plugin argument that names a local tarball or folder, or undefined. */
export function localPluginSpec(url: string, cwd: string): string | undefined {
  const candidate = url.startsWith(GITHUB) ? url.slice(GITHUB.length) : url;
  if (/^[a-z+]+:\/\//i.test(candidate) || candidate.startsWith('file:')) return undefined;
  const resolved = path.resolve(cwd, candidate);
  return fs.existsSync(resolved) ? `file:${resolved}` : undefined;
}

const hook: Hook<'plugins:preinstall'> = async function (options) {
  const { plugin } = options;
  if (plugin.type !== 'repo') return;
  // oclif installs from this same object once the hook returns.
  const spec = localPluginSpec(plugin.url, process.cwd());
  if (spec) plugin.url = spec;
};

export default hook;
