import { Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { loadPacks } from '../../cli/load-provider-packs';
import { LOCK_FILE_NAME } from '../../packs/layout';
import { installProjectPacks } from '../../packs/project-packs';
import type { PacksInstallResult } from '../../packs/project-packs';
import { renderPackChanges } from '../../ui/packs';

export default class PacksInstall extends CdkdCommand {
  static override summary = "Install the project's declared provider packs, as locked";

  static override description = `Installs the packs declared under "packs" (cdkd config file) or context.cdkd.packs (cdk.json) into .cdkd/packs with npm, which reads the project's .npmrc (scoped registries, credentials). With a ${LOCK_FILE_NAME} that matches the declarations it installs exactly what the lock records (npm ci); otherwise it resolves the declared ranges, keeping locked versions that still satisfy them, and writes the lock: commit it. --frozen installs only from the lock and fails on any drift (CI, a teammate's machine). Packs' install scripts never run.`;

  static override examples = ['<%= config.bin %> packs install', '<%= config.bin %> packs install --frozen'];

  static override enableJsonFlag = true;

  static override flags = {
    frozen: Flags.boolean({
      description: `Install exactly the lock; fail when ${LOCK_FILE_NAME} is missing or differs from the declared packs`,
      default: false,
    }),
  };

  async run(): Promise<PacksInstallResult> {
    const { flags } = await this.parse(PacksInstall);
    const config = this.resolveConfig(flags);
    const logger = this.logger(config.verbose);
    const result = await installProjectPacks({ declared: config.packs, frozen: flags.frozen, logger });
    if (!this.jsonEnabled()) {
      for (const line of renderPackChanges(result, flags.frozen ? 'install-frozen' : 'install'))
        this.log(line);
    }
    // Load what was installed, so a pack that will not work is named now rather than at deploy.
    const session = await loadPacks(this.config, config);
    for (const s of session.statuses) {
      if (s.state !== 'ok') logger.warn(`${s.name}: ${s.problem}\n${s.remedy ?? ''}`.trimEnd());
    }
    return result;
  }
}
