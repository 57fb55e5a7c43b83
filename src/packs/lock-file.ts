/**
 * The project's pack lock (`cdkd-packs.lock.json`, committed): per declared
 * pack the spec it was resolved from, the exact version, where it came from
 * and its integrity hash, plus npm's own lock of the whole install (every
 * transitive dependency), so that another machine installs exactly the same
 * bytes (`cdkd packs install --frozen` runs `npm ci` from it).
 */
import * as fs from 'node:fs';
import { ConfigError } from '../util/errors';
import { LOCK_FILE_NAME, lockFilePath } from './layout';
import { isRecord } from '../util/objects';

export const LOCK_FILE_VERSION = 1;

/** One locked pack. */
export interface PackLockEntry {
  /** The spec declared when it was locked (`^0.2.0`, `latest`, `file:./vendor/pack.tgz`...). */
  spec: string;
  /** The exact version installed. */
  version: string;
  /** Where npm got it (a tarball URL, or a `file:` path relative to `.cdkd/packs`). */
  resolved?: string;
  /** Subresource-integrity hash of the tarball (`sha512-...`). */
  integrity?: string;
}

export interface PackLock {
  lockfileVersion: number;
  /** By package name, sorted. */
  packs: Record<string, PackLockEntry>;
  /** npm's `package-lock.json` of `.cdkd/packs`. */
  npm: Record<string, unknown>;
}

/** How the declared packs differ from the lock. */
export interface LockDrift {
  name: string;
  /** `added`: declared, not locked; `removed`: locked, not declared; `changed`: another spec. */
  kind: 'added' | 'removed' | 'changed';
  declared?: string;
  locked?: string;
}

/** The project's lock, or undefined when there is none. Refuses a file that is not a lock. */
export function readPackLock(projectDir: string): PackLock | undefined {
  const file = lockFilePath(projectDir);
  if (!fs.existsSync(file)) return undefined;
  const corrupt = (why: string) =>
    new ConfigError(`${file} is not a cdkd pack lock: ${why}.`, {
      remedy: `Restore it from version control, or delete it and run \`cdkd packs install\` to resolve the declared packs again.`,
    });
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw corrupt(`it is not valid JSON (${(err as Error).message})`);
  }
  if (!isRecord(raw)) throw corrupt('it is not a JSON object');
  if (raw.lockfileVersion !== LOCK_FILE_VERSION) {
    throw new ConfigError(
      `${file} has lockfileVersion ${JSON.stringify(raw.lockfileVersion)}; this cdkd reads version ${LOCK_FILE_VERSION}.`,
      { remedy: 'Use the cdkd version that wrote it, or delete it and run `cdkd packs install`.' },
    );
  }
  if (!isRecord(raw.packs)) throw corrupt("'packs' is not an object");
  if (!isRecord(raw.npm)) throw corrupt("'npm' is not an object");
  for (const [name, entry] of Object.entries(raw.packs)) {
    if (!isRecord(entry) || typeof entry.spec !== 'string' || typeof entry.version !== 'string') {
      throw corrupt(`the entry of ${name} has no 'spec' and 'version' strings`);
    }
  }
  return raw as unknown as PackLock;
}

/** Writes the lock: stable key order, two-space indent, trailing newline. */
export function writePackLock(projectDir: string, lock: PackLock): void {
  const packs: Record<string, PackLockEntry> = {};
  for (const name of Object.keys(lock.packs).sort()) packs[name] = lock.packs[name];
  const body = { lockfileVersion: LOCK_FILE_VERSION, packs, npm: lock.npm };
  fs.writeFileSync(lockFilePath(projectDir), JSON.stringify(body, null, 2) + '\n');
}

/** Every difference between the declared packs and the lock (all `added` without a lock). */
export function lockDrift(
  declared: Readonly<Record<string, string>>,
  lock: PackLock | undefined,
): LockDrift[] {
  const locked = lock?.packs ?? {};
  const drift: LockDrift[] = [];
  for (const name of Object.keys(declared).sort()) {
    if (!(name in locked)) drift.push({ name, kind: 'added', declared: declared[name] });
    else if (locked[name].spec !== declared[name]) {
      drift.push({ name, kind: 'changed', declared: declared[name], locked: locked[name].spec });
    }
  }
  for (const name of Object.keys(locked).sort()) {
    if (!(name in declared)) drift.push({ name, kind: 'removed', locked: locked[name].spec });
  }
  return drift;
}

/** One line per difference, for messages. */
export function describeDrift(drift: readonly LockDrift[]): string {
  return drift
    .map((d) =>
      d.kind === 'added'
        ? `${d.name} ${d.declared} is declared but not in ${LOCK_FILE_NAME}`
        : d.kind === 'removed'
          ? `${d.name} is in ${LOCK_FILE_NAME} but no longer declared`
          : `${d.name} is declared as ${d.declared} but locked from ${d.locked}`,
    )
    .join('; ');
}
