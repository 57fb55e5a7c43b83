/**
 * `cdkd packs install` and `cdkd packs upgrade`: the declared packs installed
 * with npm into the project's `.cdkd/packs`, and the lock written from what
 * npm installed. With a lock that matches the declarations, `npm ci` installs
 * exactly the locked bytes; `--frozen` accepts nothing else.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DeclaredPacks } from '../config/config';
import { CdkdError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { LOCK_FILE_NAME, PACKS_DIR, installedPacks, lockFilePath, packsDir } from './layout';
import { describeDrift, lockDrift, readPackLock, writePackLock } from './lock-file';
import type { PackLock, PackLockEntry } from './lock-file';
import { runNpm } from './npm';

/** The name of the generated package in `.cdkd/packs`. */
const INSTALL_PACKAGE_NAME = 'cdkd-project-packs';

/** One installed pack after `install` or `upgrade`. */
export interface InstalledPackChange {
  name: string;
  spec: string;
  version: string;
  /** The version the lock had before, if any. */
  previous?: string;
  integrity?: string;
}

export interface PacksInstallResult {
  packs: InstalledPackChange[];
  /** Packs the lock had that are no longer declared (uninstalled). */
  removed: string[];
  /** Where the packs are, relative to the project. */
  dir: string;
  /** The lock file was written (not with `--frozen`). */
  lockWritten: boolean;
}

export interface PacksInstallOptions {
  declared: DeclaredPacks;
  /** Install exactly the lock; fail when it is missing or differs from the declarations. */
  frozen?: boolean;
  logger: Logger;
}

/** A path spec (tarball or folder) made relative to `.cdkd/packs`, where npm runs; other specs unchanged. */
export function npmSpecFor(spec: string, projectDir: string): string {
  const isPath =
    spec.startsWith('file:') ||
    /^(\.{1,2}[\\/]|[\\/]|~[\\/])/.test(spec) ||
    /\.(tgz|tar\.gz|tar)$/.test(spec);
  if (!isPath || /^[a-z+]+:\/\//i.test(spec)) return spec;
  const raw = spec.startsWith('file:') ? spec.slice('file:'.length) : spec;
  if (raw.startsWith('~')) return `file:${raw}`;
  const target = path.resolve(projectDir, raw);
  return `file:${path.relative(packsDir(projectDir), target).split(path.sep).join('/')}`;
}

/** Writes the npm project `.cdkd/packs`: package.json of the declared packs, the project's .npmrc, the locked tree. */
function prepareInstallDir(declared: DeclaredPacks, lock: PackLock | undefined): string {
  const dir = packsDir(declared.projectDir);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.gitignore'), '# Written by cdkd packs install; not committed.\n*\n');
  const dependencies: Record<string, string> = {};
  for (const name of Object.keys(declared.packs).sort()) {
    dependencies[name] = npmSpecFor(declared.packs[name], declared.projectDir);
  }
  const manifest = {
    name: INSTALL_PACKAGE_NAME,
    private: true,
    description: `The provider packs declared in ${declared.declaredIn ?? 'the cdkd configuration'}; written by cdkd packs install.`,
    dependencies,
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  // npm reads the .npmrc of the folder it runs in, not the project's: give it the project's.
  const projectNpmrc = path.join(declared.projectDir, '.npmrc');
  const npmrc = path.join(dir, '.npmrc');
  if (fs.existsSync(projectNpmrc)) fs.copyFileSync(projectNpmrc, npmrc);
  else fs.rmSync(npmrc, { force: true });
  const npmLock = path.join(dir, 'package-lock.json');
  if (lock) fs.writeFileSync(npmLock, JSON.stringify(lock.npm, null, 2) + '\n');
  else fs.rmSync(npmLock, { force: true });
  return dir;
}

/** The lock of what npm installed in `.cdkd/packs`. */
function lockFromInstall(declared: DeclaredPacks): PackLock {
  const dir = packsDir(declared.projectDir);
  const npm = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const packages = (npm.packages ?? {}) as Record<string, Record<string, unknown>>;
  const packs: Record<string, PackLockEntry> = {};
  for (const [name, spec] of Object.entries(declared.packs)) {
    let entry = packages[`node_modules/${name}`];
    // A folder spec installs as a link; its version is the target's.
    if (entry?.link === true && typeof entry.resolved === 'string')
      entry = { ...packages[entry.resolved], resolved: `file:${entry.resolved}` };
    if (!entry || typeof entry.version !== 'string') {
      throw new CdkdError(`npm installed no ${name} into ${PACKS_DIR}.`, {
        code: 'PACK_NOT_INSTALLED',
        remedy: `Check the spec of ${name} (${spec}) under packs.`,
      });
    }
    packs[name] = {
      spec,
      version: entry.version,
      ...(typeof entry.resolved === 'string' ? { resolved: entry.resolved } : {}),
      ...(typeof entry.integrity === 'string' ? { integrity: entry.integrity } : {}),
    };
  }
  return { lockfileVersion: 1, packs, npm };
}

/** Refuses an installed package that is not a cdkd provider pack. */
function assertProviderPacks(declared: DeclaredPacks): void {
  const names = Object.keys(declared.packs);
  const installed = installedPacks(declared.projectDir, names);
  const notPacks = names.filter((name) => {
    const root = installed.get(name)?.root;
    if (!root) return true;
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      oclif?: { hooks?: Record<string, unknown> };
    };
    return manifest.oclif?.hooks?.['cdkd:providers'] === undefined;
  });
  if (notPacks.length > 0) {
    throw new CdkdError(
      `${notPacks.join(', ')} ${notPacks.length === 1 ? 'is not a cdkd provider pack' : 'are not cdkd provider packs'}: the package.json declares no cdkd:providers hook (oclif.hooks). The lock was not written.`,
      {
        code: 'NOT_A_PROVIDER_PACK',
        remedy: `Check the names under packs in ${declared.declaredIn ?? 'the cdkd configuration'}.`,
      },
    );
  }
}

/** What an install or upgrade did: each pack before and after, and what left the lock. */
function resultOf(lock: PackLock, before: PackLock | undefined, lockWritten: boolean): PacksInstallResult {
  const packs = Object.entries(lock.packs)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, e]) => ({
      name,
      spec: e.spec,
      version: e.version,
      ...(before?.packs[name] ? { previous: before.packs[name].version } : {}),
      ...(e.integrity ? { integrity: e.integrity } : {}),
    }));
  const removed = Object.keys(before?.packs ?? {})
    .filter((n) => !(n in lock.packs))
    .sort();
  return { packs, removed, dir: PACKS_DIR, lockWritten };
}

/**
 * Installs the declared packs into `.cdkd/packs` and writes the lock. With a
 * lock that matches the declarations, installs exactly the locked tree.
 */
export async function installProjectPacks(options: PacksInstallOptions): Promise<PacksInstallResult> {
  const { declared, logger } = options;
  const projectDir = declared.projectDir;
  const before = readPackLock(projectDir);
  const drift = lockDrift(declared.packs, before);
  const names = Object.keys(declared.packs);
  if (options.frozen) {
    if (!before && names.length > 0) {
      throw new CdkdError(`--frozen needs ${LOCK_FILE_NAME}, and ${projectDir} has none.`, {
        code: 'PACKS_LOCK_DRIFT',
        remedy: 'Run `cdkd packs install` without --frozen, and commit the lock it writes.',
      });
    }
    if (drift.length > 0) {
      throw new CdkdError(`${LOCK_FILE_NAME} does not match the declared packs: ${describeDrift(drift)}.`, {
        code: 'PACKS_LOCK_DRIFT',
        remedy: 'Run `cdkd packs install` without --frozen to update the lock, and commit it.',
      });
    }
  }
  if (names.length === 0) {
    fs.rmSync(packsDir(projectDir), { recursive: true, force: true });
    if (before) fs.rmSync(lockFilePath(projectDir), { force: true });
    return {
      packs: [],
      removed: Object.keys(before?.packs ?? {}).sort(),
      dir: PACKS_DIR,
      lockWritten: false,
    };
  }

  const exact = before !== undefined && drift.length === 0;
  const dir = prepareInstallDir(declared, before);
  await runNpm(exact ? ['ci'] : ['install'], {
    cwd: dir,
    logger,
    what: exact ? `install the packs locked in ${LOCK_FILE_NAME}` : 'install the declared packs',
  });
  assertProviderPacks(declared);
  const lock = lockFromInstall(declared);
  if (options.frozen) {
    const differs = Object.entries(before!.packs).filter(([n, e]) => lock.packs[n]?.version !== e.version);
    if (differs.length > 0) {
      throw new CdkdError(
        `npm installed other versions than ${LOCK_FILE_NAME} locks: ${differs.map(([n, e]) => `${n} ${lock.packs[n]?.version} (locked ${e.version})`).join(', ')}.`,
        {
          code: 'PACKS_LOCK_DRIFT',
          remedy: 'Run `cdkd packs install` without --frozen and commit the lock.',
        },
      );
    }
  } else {
    writePackLock(projectDir, lock);
  }
  return resultOf(lock, before, !options.frozen);
}

export interface PacksUpgradeOptions {
  declared: DeclaredPacks;
  /** Only these packs (default: every declared pack). */
  names?: string[];
  logger: Logger;
}

/**
 * Moves the declared packs to the newest versions their specs allow (`npm
 * update`), rewrites the lock and reports each pack's version before and after.
 */
export async function upgradeProjectPacks(options: PacksUpgradeOptions): Promise<PacksInstallResult> {
  const { declared, logger } = options;
  const unknown = (options.names ?? []).filter((n) => !(n in declared.packs));
  if (unknown.length > 0) {
    throw new CdkdError(
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not declared under packs.`,
      {
        code: 'PACK_NOT_DECLARED',
        remedy: `Declare ${unknown.length === 1 ? 'it' : 'them'} in ${declared.declaredIn ?? 'cdk.json (context.cdkd.packs)'} first, then run \`cdkd packs install\`.`,
      },
    );
  }
  const before = readPackLock(declared.projectDir);
  if (Object.keys(declared.packs).length === 0) return installProjectPacks({ declared, logger });
  const dir = prepareInstallDir(declared, before);
  // Installs first (the lock may lag the declarations), then moves within the ranges.
  await runNpm(['install'], { cwd: dir, logger, what: 'install the declared packs' });
  await runNpm(['update', ...(options.names ?? [])], {
    cwd: dir,
    logger,
    what: 'upgrade the declared packs',
  });
  assertProviderPacks(declared);
  const lock = lockFromInstall(declared);
  writePackLock(declared.projectDir, lock);
  return resultOf(lock, before, true);
}
