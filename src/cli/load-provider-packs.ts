/**
 * Runs the `cdkd:providers` hook across every installed oclif plugin (bundled,
 * user-installed, linked) and hands the answers, unchecked, to the engine's
 * provider registry, which validates them.
 */
import type { Config } from '@oclif/core';
import type { CdkdHooks, ProvidersHookOptions } from '../plugin-api';
import { SUPPORTED_PLUGIN_API_VERSIONS } from '../plugin-api';
import { ProviderRegistry } from '../provisioning/provider-registry';
import type { CloudControlProviderFactory, LoadedPack } from '../provisioning/provider-registry';
import { SchemaStore } from '../provisioning/schema-store';

/** A pack's hook that has not answered after this long counts as failed. */
export const PROVIDERS_HOOK_TIMEOUT_MS = 30_000;

/** Every plugin's answer to the `cdkd:providers` hook, sorted by plugin name. */
export async function loadProviderPacks(config: Config): Promise<LoadedPack[]> {
  const options: ProvidersHookOptions = {
    apiVersions: SUPPORTED_PLUGIN_API_VERSIONS,
    cdkdVersion: config.version,
  };
  // captureErrors: a pack that throws becomes a failure, never the command's error.
  const { successes, failures } = await config.runHook<'cdkd:providers', CdkdHooks>(
    'cdkd:providers',
    options,
    PROVIDERS_HOOK_TIMEOUT_MS,
    true,
  );
  const packs: LoadedPack[] = [
    ...successes.map((s) => ({
      pluginName: s.plugin.name,
      pluginType: s.plugin.type,
      result: s.result as unknown,
    })),
    ...failures.map((f) => ({
      pluginName: f.plugin.name,
      pluginType: f.plugin.type,
      error: f.error as unknown,
    })),
  ];
  return packs.sort((a, b) => (a.pluginName < b.pluginName ? -1 : a.pluginName > b.pluginName ? 1 : 0));
}

/** The provider registry of this installation. */
export async function loadProviderRegistry(
  config: Config,
  options: { schemas?: SchemaStore; cloudControl?: CloudControlProviderFactory } = {},
): Promise<ProviderRegistry> {
  const packs = await loadProviderPacks(config);
  return ProviderRegistry.fromPacks(packs, options.schemas ?? SchemaStore.default(), {
    cloudControl: options.cloudControl,
  });
}
