/**
 * Where a project's packs live: the committed lock file at the project root,
 * and the installed packs under `.cdkd/packs` (an npm project cdkd manages;
 * not committed), the analogue of `.terraform.lock.hcl` and `.terraform/`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The lock file, committed next to `cdk.json`. */
export const LOCK_FILE_NAME = 'cdkd-packs.lock.json';

/** The folder `cdkd packs install` installs into, relative to the project. */
export const PACKS_DIR = path.join('.cdkd', 'packs');

export function lockFilePath(projectDir: string): string {
  return path.join(projectDir, LOCK_FILE_NAME);
}

export function packsDir(projectDir: string): string {
  return path.join(projectDir, PACKS_DIR);
}

/** The folder of an installed pack. */
export function installedPackDir(projectDir: string, name: string): string {
  return path.join(packsDir(projectDir), 'node_modules', ...name.split('/'));
}

/** One pack installed in the project. */
export interface InstalledPack {
  name: string;
  version: string;
  /** Its package folder. */
  root: string;
}

/** The packs among `names` that are installed in the project, by name. */
export function installedPacks(projectDir: string, names: readonly string[]): Map<string, InstalledPack> {
  const out = new Map<string, InstalledPack>();
  for (const name of names) {
    const root = installedPackDir(projectDir, name);
    const manifest = readJson(path.join(root, 'package.json'));
    if (manifest && manifest.name === name && typeof manifest.version === 'string') {
      out.set(name, { name, version: manifest.version, root: fs.realpathSync(root) });
    }
  }
  return out;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
