/**
 * `cdkd plugins install ./cdkd-provider-events-0.1.0.tgz` installs that
 * tarball (or folder). oclif reads an argument with a `/` as a GitHub
 * repository and one without as an npm package name; one that names a path
 * on disk is given to npm as a `file:` spec instead, resolved against the
 * directory the command runs in (npm itself runs in oclif's data folder). A
 * package name is only ever a path when such a file is there. Used by the
 * `plugins:preinstall` hook (`plugins-preinstall.ts`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const GITHUB = 'https://github.com/';

/** The `file:` spec for a plugin argument that names a local tarball or folder, or undefined. */
export function localPluginSpec(url: string, cwd: string): string | undefined {
  const candidate = url.startsWith(GITHUB) ? url.slice(GITHUB.length) : url;
  if (/^[a-z+]+:\/\//i.test(candidate) || candidate.startsWith('file:')) return undefined;
  const resolved = path.resolve(cwd, candidate);
  return fs.existsSync(resolved) ? `file:${resolved}` : undefined;
}

/** What oclif parsed a `plugins install` argument into (the object it installs from afterwards). */
export interface ParsedPlugin {
  type: 'npm' | 'repo';
  name?: string;
  url?: string;
}

/**
 * Points `plugin` at the local path its argument names, if it names one;
 * true when it did. A bare file name (`pack-0.1.0.tgz`) reaches oclif as an
 * npm package name, anything with a `/` as a repository.
 */
export function pointAtLocalPath(plugin: ParsedPlugin, cwd: string): boolean {
  const given = plugin.type === 'repo' ? plugin.url : plugin.name;
  const spec = given === undefined ? undefined : localPluginSpec(given, cwd);
  if (!spec) return false;
  plugin.type = 'repo';
  plugin.url = spec;
  return true;
}
