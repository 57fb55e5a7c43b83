import { loadProviderRegistry } from '../../cli/load-provider-packs';
import { CdkdCommand } from '../../cli/base-command';
import { SchemaStore } from '../../provisioning/schema-store';
import type { ProviderOverride, RegistrationProblem } from '../../provisioning/provider-registry';
import { formatTable } from '../../ui/table';

/** One row of `cdkd providers`. */
export interface ProviderListEntry {
  resourceType: string;
  /** The pack's declared name. */
  pack: string;
  /** The oclif plugin that carries it. */
  plugin: string;
  /** core (bundled), user (installed) or link (linked). */
  install: string;
  handled: number;
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
    await this.parse(Providers);
    const schemas = SchemaStore.default();
    const registry = await loadProviderRegistry(this.config, { schemas });
    const providers = registry.registrations().map((r) => ({
      resourceType: r.resourceType,
      pack: r.packName,
      plugin: r.pluginName,
      install: r.pluginType,
      handled: r.handledProperties.size,
      byDesign: r.unhandledByDesign.size,
      total: schemas.writablePropertyNames(r.resourceType).length,
    }));
    const result = { providers, overrides: registry.overrides, problems: registry.problems };

    for (const problem of new Set(registry.problems.map((p) => p.message)))
      this.logToStderr(`Warning: ${problem}`);
    if (!this.jsonEnabled()) {
      for (const o of registry.overrides) {
        this.logToStderr(`Note: ${o.packName} overrides ${o.overriddenPack} for ${o.resourceType}.`);
      }
      if (providers.length === 0) {
        this.log('No provider pack registers any resource type; every resource goes through Cloud Control.');
      } else {
        this.log(
          formatTable(
            ['TYPE', 'PACK', 'INSTALL', 'HANDLED', 'BY-DESIGN', 'TOTAL'],
            providers.map((p) => [
              p.resourceType,
              p.pack,
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
