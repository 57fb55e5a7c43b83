/**
 * Loads the provider packs of one invocation: every installed oclif plugin
 * (bundled, user-installed, linked) plus the project's declared packs from
 * `.cdkd/packs` (added to oclif's plugins, replacing a user-installed plugin
 * of the same name), runs their `cdkd:providers` hook with a deadline, and
 * hands the answers, unchecked, to the engine's provider registry, which
 * validates them. A hook that misses the deadline is abandoned: its promise is
 * left behind, and bin/run.js exits once the command is done, whatever the
 * pack still holds open.
 */
import { Plugin } from '@oclif/core';
import type { Config } from '@oclif/core';
import type { CdkdConfig } from '../config/config';
import type { ProvidersHookOptions } from '../plugin-api';
import { SUPPORTED_PLUGIN_API_VERSIONS } from '../plugin-api';
import type { CdkdHooks } from '../plugin-api';
import { installedPacks } from '../packs/layout';
import type { InstalledPack } from '../packs/layout';
import { readPackLock } from '../packs/lock-file';
import type { PackLock } from '../packs/lock-file';
import { assertPacksReady, declaredPackStatuses } from '../packs/status';
import type { DeclaredPackStatus } from '../packs/status';
import { ProviderRegistry } from '../provisioning/provider-registry';
import type { LoadedPack } from '../provisioning/provider-registry';
import { SchemaStore } from '../provisioning/schema-store';
import type { Logger } from '../util/io-host';

/** What the packs of this invocation are, and whether the declared ones are ready. */
export interface PackSession {
  registry: ProviderRegistry;
  /** The declared packs' status (empty when the project declares none). */
  statuses: DeclaredPackStatus[];
  lock?: PackLock;
  installed: ReadonlyMap<string, InstalledPack>;
  /** Things worth one line each (a project pack replacing a user-installed one). */
  notes: string[];
}

/** Makes the project's installed packs oclif plugins of this invocation. */
async function addProjectPlugins(
  config: Config,
  installed: ReadonlyMap<string, InstalledPack>,
  notes: string[],
): Promise<LoadedPack[]> {
  const failures: LoadedPack[] = [];
  for (const pack of installed.values()) {
    const existing = config.plugins.get(pack.name);
    try {
      const plugin = new Plugin({ root: pack.root, type: 'project', name: pack.name });
      await plugin.load();
      config.plugins.set(pack.name, plugin);
      if (existing && existing.type !== 'core') {
        notes.push(
          `The project's ${pack.name} ${pack.version} is used; your ${existing.type}-installed ${existing.version} is not.`,
        );
      }
    } catch (err) {
      failures.push({
        pluginName: pack.name,
        pluginType: 'project',
        pluginVersion: pack.version,
        error: err,
      });
    }
  }
  return failures;
}

/** Every plugin's answer to the `cdkd:providers` hook, sorted by plugin name. */
export async function runProvidersHook(config: Config, timeoutMs: number): Promise<LoadedPack[]> {
  const options: ProvidersHookOptions = {
    apiVersions: SUPPORTED_PLUGIN_API_VERSIONS,
    cdkdVersion: config.version,
  };
  // captureErrors: a pack that throws becomes a failure, never the command's error.
  const { successes, failures } = await config.runHook<'cdkd:providers', CdkdHooks>(
    'cdkd:providers',
    options,
    timeoutMs,
    true,
  );
  const timedOut = (err: unknown): unknown =>
    err instanceof Error && /^Timed out after \d+ ms\.?$/.test(err.message)
      ? new Error(
          `its cdkd:providers hook did not answer within ${timeoutMs / 1000} s and was abandoned (CDKD_PACK_HOOK_TIMEOUT_SECONDS sets the limit)`,
        )
      : err;
  const packs: LoadedPack[] = [
    ...successes.map((s) => ({
      pluginName: s.plugin.name,
      pluginType: s.plugin.type,
      pluginVersion: s.plugin.version,
      result: s.result as unknown,
    })),
    ...failures.map((f) => ({
      pluginName: f.plugin.name,
      pluginType: f.plugin.type,
      pluginVersion: f.plugin.version,
      error: timedOut(f.error),
    })),
  ];
  return packs.sort((a, b) => (a.pluginName < b.pluginName ? -1 : a.pluginName > b.pluginName ? 1 : 0));
}

/** The packs of this invocation: the registry, and the declared packs' status. */
export async function loadPacks(
  oclifConfig: Config,
  config: Pick<CdkdConfig, 'packs' | 'strictPacks' | 'packHookTimeoutSeconds' | 'cloudControlOnly'>,
): Promise<PackSession> {
  const declared = config.packs;
  const lock = readPackLock(declared.projectDir);
  const installed = installedPacks(declared.projectDir, Object.keys(declared.packs));
  const notes: string[] = [];
  const failed = await addProjectPlugins(oclifConfig, installed, notes);
  const answers = await runProvidersHook(oclifConfig, config.packHookTimeoutSeconds * 1000);
  const registry = ProviderRegistry.fromPacks([...answers, ...failed], SchemaStore.default(), {
    strictPacks: config.strictPacks,
    cloudControlOnly: config.cloudControlOnly,
  });
  return {
    registry,
    statuses: declaredPackStatuses(declared, lock, installed, registry),
    lock,
    installed,
    notes,
  };
}

/**
 * For deploy, diff and destroy: refuses to start while a declared pack (with
 * `--strict-packs`, any pack) is not ready, and otherwise says, once each, what
 * is wrong with the other packs, with the remedy.
 */
export function checkPacks(
  session: PackSession,
  logger: Logger,
  options: { strict: boolean; command: string },
): void {
  assertPacksReady(session.statuses, session.registry, options);
  reportPackProblems(session, logger);
}

/** Every problem of a pack that is not declared, and every note, as warnings: each once, with its remedy. */
export function reportPackProblems(session: PackSession, logger: Logger): void {
  const declared = new Set(session.statuses.map((s) => s.name));
  const said = new Set<string>();
  for (const p of session.registry.problems) {
    if (declared.has(p.pluginName) || said.has(p.message)) continue;
    said.add(p.message);
    logger.warn(`${p.message}\n${p.remedy}`);
  }
  for (const note of session.notes) logger.info(note);
}
