import { Flags } from '@oclif/core';
import { loadPacks } from '../../cli/load-provider-packs';
import { CdkdCommand } from '../../cli/base-command';
import { propertyCoverage } from '../../provisioning/property-coverage';
import type { PropertyCoverage } from '../../provisioning/property-coverage';
import type { RegistrationProblem } from '../../provisioning/provider-registry';
import { formatTable } from '../../ui/table';

export interface ProviderCheckResult {
  /** True when no registration was refused (and, with --strict, no property is unaccounted). */
  ok: boolean;
  coverage: PropertyCoverage[];
  problems: RegistrationProblem[];
}

export default class ProvidersCheck extends CdkdCommand {
  static override summary = "Check provider pack registrations against cdkd's resource schemas";

  static override description =
    'Classifies every schema property of each registered type as handled, by-design, cloud-control (a template setting it goes to Cloud Control by design), read-only or unaccounted (a template setting it goes to Cloud Control). Exits non-zero when a registration is invalid, so a pack can run it in its own CI.';

  static override examples = [
    '<%= config.bin %> providers check',
    '<%= config.bin %> providers check --pack @acme/cdkd-provider-widgets',
    '<%= config.bin %> providers check --pack @acme/cdkd-provider-widgets --strict --json',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    pack: Flags.string({ description: 'Check only this pack (its declared name or its npm package name)' }),
    strict: Flags.boolean({
      description: 'Also fail when a writable property is unaccounted for',
      default: false,
    }),
  };

  async run(): Promise<ProviderCheckResult> {
    const { flags } = await this.parse(ProvidersCheck);
    const { registry } = await loadPacks(this.config, this.resolveConfig(flags));
    const schemas = registry.schemas;

    const selected = (name: { packName?: string; pack?: string; pluginName: string }): boolean =>
      flags.pack === undefined ||
      flags.pack === (name.packName ?? name.pack) ||
      flags.pack === name.pluginName;
    if (flags.pack !== undefined && !registry.packs.some(selected) && !registry.problems.some(selected)) {
      this.error(`No installed provider pack is named ${flags.pack}.`, {
        exit: 2,
        suggestions: [
          'Run `cdkd providers` to see the installed packs, or `cdkd plugins link <dir>` to add yours.',
        ],
      });
    }

    const coverage = registry
      .allRegistrations()
      .filter(selected)
      .sort((a, b) => (a.resourceType < b.resourceType ? -1 : a.resourceType > b.resourceType ? 1 : 0))
      .map((r) => propertyCoverage(r, schemas));
    const problems = registry.problems.filter(selected);
    const unaccounted = coverage.filter((c) => c.counts.unaccounted > 0);
    const ok = problems.length === 0 && !(flags.strict && unaccounted.length > 0);

    if (!this.jsonEnabled()) this.render(coverage);
    for (const text of new Set(problems.map((p) => `${p.message}\n${p.remedy}`)))
      this.logToStderr(`Error: ${text}`);
    for (const c of unaccounted) {
      const names = c.properties.filter((p) => p.status === 'unaccounted').map((p) => p.property);
      this.logToStderr(
        `${flags.strict ? 'Error' : 'Warning'}: ${c.packName}, ${c.resourceType}: ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} neither handled nor unhandled by design; a template setting ${names.length === 1 ? 'it' : 'one'} goes to Cloud Control.`,
      );
    }
    if (!ok) process.exitCode = 1;
    return { ok, coverage, problems };
  }

  private render(coverage: PropertyCoverage[]): void {
    if (coverage.length === 0) {
      this.log('No valid registration to check.');
      return;
    }
    const blocks = coverage.map((c) => {
      const { handled, unaccounted, total } = c.counts;
      const toCloudControl = c.counts['cloud-control'];
      const title = `${c.resourceType} (${c.packName}): ${handled} handled, ${c.counts['by-design']} by design, ${
        toCloudControl > 0 ? `${toCloudControl} to Cloud Control by design, ` : ''
      }${c.counts['read-only']} read-only, ${unaccounted} unaccounted of ${total}`;
      const rows = c.properties.map((p) => [p.property, p.status, p.rationale ?? '']);
      return `${title}\n${indent(formatTable(['PROPERTY', 'STATUS', 'RATIONALE'], rows))}`;
    });
    this.log(blocks.join('\n\n'));
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
