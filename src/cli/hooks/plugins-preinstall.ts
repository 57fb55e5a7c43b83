/**
 * oclif's `plugins:preinstall` hook of the cdkd CLI: `cdkd plugins install`
 * installs provider packs, and only those its user means.
 *
 * - A short name is a first-party pack: with `scope: cdkd` and
 *   `pluginPrefix: provider` oclif looks for `@cdkd/provider-<short>` first,
 *   and when the registry has none it would fall back to the unrelated npm
 *   package `<short>`; that fallback is refused.
 * - A pack bundled with cdkd is not installed again: the message says so
 *   (instead of "not in the registry").
 */
import type { Hook } from '@oclif/core';

/** The first-party packs cdkd bundles: its oclif plugins that are not oclif's own. */
export function bundledPacks(plugins: readonly (string | { name: string })[] | undefined): string[] {
  return (plugins ?? [])
    .map((p) => (typeof p === 'string' ? p : p.name))
    .filter((name) => !name.startsWith('@oclif/'));
}

/** Why `cdkd plugins install <name>` is refused, or undefined when it may go on. */
export function preinstallRefusal(
  name: string,
  oclif: { scope?: string; pluginPrefix?: string; plugins?: (string | { name: string })[] },
): string | undefined {
  const bundled = bundledPacks(oclif.plugins);
  const short = name.startsWith('@') ? undefined : name;
  const full = short && oclif.scope ? `@${oclif.scope}/${oclif.pluginPrefix ?? 'plugin'}-${short}` : name;
  if (bundled.includes(name) || bundled.includes(full)) {
    return `${full} is bundled with cdkd: it is installed already and needs no install (\`cdkd providers\` lists its types). A project pins another version by declaring it under packs and running \`cdkd packs install\`.`;
  }
  if (short && !short.startsWith('cdkd-provider-')) {
    return `"${short}" is short for ${full}, which the registry does not have; cdkd will not install the unrelated npm package "${short}" in its place. Install a pack by its full name (for example @acme/cdkd-provider-${short}); an unscoped pack's name starts with cdkd-provider-.`;
  }
  return undefined;
}

const hook: Hook<'plugins:preinstall'> = async function (options) {
  if (options.plugin.type !== 'npm') return;
  const refusal = preinstallRefusal(options.plugin.name, this.config.pjson.oclif);
  if (refusal) this.error(refusal, { exit: 2 });
};

export default hook;
