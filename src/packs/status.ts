/**
 * Whether each declared pack is ready to use: installed, at the locked
 * version, loaded, and every registration accepted. deploy, diff and destroy
 * refuse to start while a declared pack is not ready (so a type a declared pack
 * owns never falls back to Cloud Control), and `cdkd packs` lists the same.
 */
import type { DeclaredPacks } from '../config/config';
import type { ProviderRegistry } from '../provisioning/provider-registry';
import { CdkdError } from '../util/errors';
import { LOCK_FILE_NAME, PACKS_DIR } from './layout';
import type { InstalledPack } from './layout';
import type { PackLock } from './lock-file';

export type DeclaredPackState =
  'ok' | 'not-installed' | 'not-locked' | 'version-drift' | 'not-a-pack' | 'refused';

export interface DeclaredPackStatus {
  name: string;
  /** The declared spec. */
  spec: string;
  /** The locked version. */
  locked?: string;
  /** The installed version. */
  installed?: string;
  state: DeclaredPackState;
  /** What is wrong (absent when ready). */
  problem?: string;
  remedy?: string;
  /** The resource types it provisions (when loaded). */
  types: string[];
}

const INSTALL = 'Run `cdkd packs install` in the project (`cdkd packs install --frozen` in CI).';

/** The status of every declared pack, sorted by name. Without a registry, load state is not judged. */
export function declaredPackStatuses(
  declared: DeclaredPacks,
  lock: PackLock | undefined,
  installed: ReadonlyMap<string, InstalledPack>,
  registry?: Pick<ProviderRegistry, 'problems' | 'loaded' | 'allRegistrations'>,
): DeclaredPackStatus[] {
  return Object.keys(declared.packs)
    .sort()
    .map((name): DeclaredPackStatus => {
      const spec = declared.packs[name];
      const entry = lock?.packs[name];
      const base = {
        name,
        spec,
        ...(entry ? { locked: entry.version } : {}),
        ...(installed.get(name) ? { installed: installed.get(name)!.version } : {}),
        types: (registry?.allRegistrations() ?? [])
          .filter((r) => r.pluginName === name)
          .map((r) => r.resourceType)
          .sort(),
      };
      const at = installed.get(name);
      if (!at) {
        return { ...base, state: 'not-installed', problem: `not installed in ${PACKS_DIR}`, remedy: INSTALL };
      }
      if (!entry || entry.spec !== spec) {
        return {
          ...base,
          state: 'not-locked',
          problem: entry
            ? `declared as ${spec}, but ${LOCK_FILE_NAME} locks it from ${entry.spec}`
            : `not in ${LOCK_FILE_NAME}`,
          remedy: 'Run `cdkd packs install` and commit the lock it writes.',
        };
      }
      if (entry.version !== at.version) {
        return {
          ...base,
          state: 'version-drift',
          problem: `${at.version} is installed, ${LOCK_FILE_NAME} locks ${entry.version}`,
          remedy: INSTALL,
        };
      }
      if (!registry) return { ...base, state: 'ok' };
      const problems = registry.problems.filter((p) => p.pluginName === name);
      if (problems.length > 0) {
        return {
          ...base,
          state: 'refused',
          problem: [...new Set(problems.map((p) => p.message))].join(' '),
          remedy: [...new Set(problems.map((p) => p.remedy))].join(' '),
        };
      }
      if (!registry.loaded.has(name)) {
        return {
          ...base,
          state: 'not-a-pack',
          problem: 'it has no cdkd:providers hook, so it is not a provider pack',
          remedy: `Check the name under packs in ${declared.declaredIn ?? 'the cdkd configuration'}.`,
        };
      }
      return { ...base, state: 'ok' };
    });
}

/**
 * Refuses to go on while a declared pack is not ready, or, with `strict`, while
 * any pack has a problem: one error naming every pack, what is wrong and the
 * command that fixes it.
 */
export function assertPacksReady(
  statuses: readonly DeclaredPackStatus[],
  registry: Pick<ProviderRegistry, 'problems'>,
  options: { strict: boolean; command: string },
): void {
  const lines: string[] = [];
  const remedies = new Set<string>();
  for (const s of statuses) {
    if (s.state === 'ok') continue;
    lines.push(`${s.name} ${s.spec}: ${s.problem}`);
    if (s.remedy) remedies.add(s.remedy);
  }
  if (options.strict) {
    const declared = new Set(statuses.map((s) => s.name));
    for (const p of registry.problems) {
      if (declared.has(p.pluginName)) continue;
      lines.push(p.message);
      remedies.add(p.remedy);
    }
  }
  if (lines.length === 0) return;
  const what = options.strict ? 'Provider packs are' : 'Declared provider packs are';
  throw new CdkdError(
    `${what} not ready, so cdkd ${options.command} changed nothing:\n${[...new Set(lines)].map((l) => `  ${l}`).join('\n')}`,
    { code: 'PACKS_NOT_READY', remedy: [...remedies].join('\n') },
  );
}
