import { CdkdCommand } from '../../cli/base-command';
import { loadPacks } from '../../cli/load-provider-packs';
import type { PackSession } from '../../cli/load-provider-packs';
import type { ProviderOverride, RegistrationProblem } from '../../provisioning/provider-registry';
import { formatTable } from '../../ui/table';

/** One row of `cdkd providers`. */
export interface ProviderListEntry {
  resourceType: string;
  /** The pack's declared name. */
  pack: string;
  /** The pack's version. */
  version?: string;
  /** The oclif plugin that carries it. */
  plugin: string;
  /** core (bundled), user (installed), link (linked) or project (`cdkd packs install`). */
  install: string;
  /** The type's schema came with the pack (an org-internal type). */
  ownSchema: boolean;
  handled: number;
  /** Properties unhandled by design, and those whose resources go to Cloud Control by design. */
  byDesign: number;
  /** Properties a template can set (read-only ones excluded). */
  total: number;
}

export interface ProviderListResult {
  providers: ProviderListEntry[];
  overrides: ProviderOverride[];
  problems: RegistrationProblem[];
}

export default class Providers extends CdkdCommand {
  static override summary = 'List provider packs and the resource types they provision';

  static override description =
    'Every resource type a provider pack registers, with its pack and how many of its properties the pack handles. A resource of another type, or one that sets a property its pack does not handle, goes through Cloud Control.';

  static override examples = ['<%= config.bin %> providers', '<%= config.bin %> providers --json'];

  static override enableJsonFlag = true;

  async run(): Promise<ProviderListResult> {
    const { flags } = await this.parse(Providers);
    const packs = await loadPacks(this.config, this.resolveConfig(flags));
    const { registry } = packs;
    const schemas = registry.schemas;
    const providers = registry.registrations().map((r) => ({
      resourceType: r.resourceType,
      pack: r.packName,
      ...(r.packVersion ? { version: r.packVersion } : {}),
      plugin: r.pluginName,
      install: r.pluginType,
      ownSchema: r.ownSchema !== undefined,
      handled: r.handledProperties.size,
      byDesign: r.unhandledByDesign.size + r.cloudControlByDesign.size,
      total: schemas.writablePropertyNames(r.resourceType).length,
    }));
    const result = { providers, overrides: registry.overrides, problems: registry.problems };

    for (const warning of packWarnings(packs)) this.logToStderr(`Warning: ${warning}`);
    if (!this.jsonEnabled()) {
      for (const o of registry.overrides) {
        this.logToStderr(`Note: ${o.packName} overrides ${o.overriddenPack} for ${o.resourceType}.`);
      }
      if (providers.length === 0) {
        this.log('No provider pack registers any resource type; every resource goes through Cloud Control.');
      } else {
        this.log(
          formatTable(
            ['TYPE', 'PACK', 'VERSION', 'INSTALL', 'HANDLED', 'BY-DESIGN', 'TOTAL'],
            providers.map((p) => [
              p.resourceType,
              p.pack,
              p.version ?? '-',
              p.install,
              String(p.handled),
              String(p.byDesign),
              String(p.total),
            ]),
          ),
        );
      }
    }
    return result;
  }
}

/**
 * What is wrong with the packs, each said once with its remedy: the declared
 * packs that are not ready, then every other pack's problems.
 */
export function packWarnings(packs: PackSession): string[] {
  const out = new Set<string>();
  for (const s of packs.statuses) {
    if (s.state !== 'ok')
      out.add(`Declared pack ${s.name} ${s.spec}: ${s.problem}\n${s.remedy ?? ''}`.trimEnd());
  }
  const declared = new Set(packs.statuses.map((s) => s.name));
  for (const p of packs.registry.problems) {
    if (
      declared.has(p.pluginName) &&
      packs.statuses.some((s) => s.name === p.pluginName && s.state === 'refused')
    ) {
      continue;
    }
    out.add(`${p.message}\n${p.remedy}`);
  }
  return [...out];
}
