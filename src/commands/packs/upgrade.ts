import { Args } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { loadPacks } from '../../cli/load-provider-packs';
import { LOCK_FILE_NAME } from '../../packs/layout';
import { upgradeProjectPacks } from '../../packs/project-packs';
import type { PacksInstallResult } from '../../packs/project-packs';
import { renderPackChanges } from '../../ui/packs';

export default class PacksUpgrade extends CdkdCommand {
  static override summary = 'Move the declared provider packs to the newest versions their ranges allow';

  static override description = `Runs npm update in .cdkd/packs for the named packs (default: every declared pack), staying within the declared ranges, rewrites ${LOCK_FILE_NAME} and shows each pack's version from -> to. To go beyond a range, change it under packs and run \`cdkd packs install\`.`;

  static override examples = [
    '<%= config.bin %> packs upgrade',
    '<%= config.bin %> packs upgrade @acme/cdkd-provider-billing',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'packs upgrade [PACKS...]';

  static override args = {
    packs: Args.string({ description: 'Declared packs to upgrade (default: all)' }),
  };

  async run(): Promise<PacksInstallResult> {
    const { flags, argv } = await this.parse(PacksUpgrade);
    const config = this.resolveConfig(flags);
    const logger = this.logger(config.verbose);
    const names = argv as string[];
    const result = await upgradeProjectPacks({
      declared: config.packs,
      ...(names.length ? { names } : {}),
      logger,
    });
    if (!this.jsonEnabled()) for (const line of renderPackChanges(result, 'upgrade')) this.log(line);
    const session = await loadPacks(this.config, config);
    for (const s of session.statuses) {
      if (s.state !== 'ok') logger.warn(`${s.name}: ${s.problem}\n${s.remedy ?? ''}`.trimEnd());
    }
    return result;
  }
}
