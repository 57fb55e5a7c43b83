import { Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { migrateLegacyStateBucket } from '../../state/migrate';
import type { MigrateResult } from '../../state/migrate';
import { createClientFactory } from '../../state/state-store';
import { ValidationError } from '../../util/errors';

export default class StateMigrate extends CdkdCommand {
  static override description = `Copy state from the legacy bucket cdkd-state-<account>-<region> to cdkd-state-<account>
Run once per region that has a legacy bucket. Refuses while a lock exists in the source; never overwrites a key the destination already has; keeps the source unless --remove-legacy.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state migrate --region us-east-1 --dry-run',
    '<%= config.bin %> state migrate --region us-east-1',
    '<%= config.bin %> state migrate --region us-east-1 --remove-legacy',
  ];

  static override flags = {
    ...stateFlags,
    'dry-run': Flags.boolean({ description: 'Show what would be copied; change nothing', default: false }),
    'remove-legacy': Flags.boolean({
      description: 'Delete the legacy bucket (all versions) after a verified copy',
      default: false,
    }),
  };

  async run(): Promise<MigrateResult> {
    const { flags } = await this.parse(StateMigrate);
    if (!flags.region) {
      throw new ValidationError('cdkd state migrate needs --region: the region in the legacy bucket name.', {
        remedy: 'Run it once per region, e.g. cdkd state migrate --region us-east-1.',
      });
    }
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const factory = await createClientFactory(config);
    const result = await migrateLegacyStateBucket({
      factory,
      region: flags.region,
      destinationBucket: config.stateBucket,
      dryRun: flags['dry-run'],
      removeLegacy: flags['remove-legacy'],
      logger: this.logger(config.verbose),
    });
    const verb = result.dryRun ? 'Would copy' : 'Copied';
    this.log(`${verb} ${result.copied.length} object(s) from ${result.source} to ${result.destination}.`);
    if (result.skipped.length)
      this.log(`Kept ${result.skipped.length} object(s) the destination already had.`);
    if (result.destinationCreated)
      this.log(`${result.dryRun ? 'Would create' : 'Created'} ${result.destination}.`);
    if (result.sourceRemoved) this.log(`Deleted ${result.source}.`);
    else if (!result.dryRun) this.log(`${result.source} was kept; re-run with --remove-legacy to delete it.`);
    return result;
  }
}
