import { Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { collectGarbage } from '../engine/gc';
import type { GcResult } from '../engine/gc';
import { openStateStore } from '../state/state-store';

export default class Gc extends CdkdCommand {
  static override description = `Collect stranded custom-resource response placeholders from the state bucket
A custom resource's request gets a placeholder under custom-resource-responses/ for its handler's response; a deploy deletes it once read, but an interrupted deploy or a handler answering after the timeout leaves one behind. gc deletes those no pending operation names, and those older than the custom-resource timeout whose stack no run holds locked, with every earlier version (a response may hold a handler's secret). A placeholder a running deploy may be waiting on is never taken.`;

  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> gc --dry-run', '<%= config.bin %> gc'];

  static override flags = {
    ...stateFlags,
    'dry-run': Flags.boolean({ description: 'List what would be collected; delete nothing', default: false }),
  };

  async run(): Promise<GcResult> {
    const { flags } = await this.parse(Gc);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const logger = this.logger(config.verbose);
    const store = await openStateStore({ config, logger });
    const result = await collectGarbage({
      store,
      timeoutSeconds: config.customResourceTimeoutSeconds,
      dryRun: flags['dry-run'],
    });
    for (const w of result.warnings) logger.warn(w);
    const verb = result.dryRun ? 'Would collect' : 'Collected';
    for (const p of result.collected) this.log(`${verb} ${p.key}: ${p.reason}`);
    for (const p of result.kept) logger.info(`Kept ${p.key}: ${p.reason}`);
    for (const f of result.failed)
      logger.error(`Could not delete ${f.key} (${f.error}); the next gc tries again.`);
    this.log(
      `${verb} ${result.collected.length} custom-resource response placeholder(s) in s3://${result.bucket}; kept ${result.kept.length}${result.failed.length ? `; ${result.failed.length} could not be deleted` : ''}.`,
    );
    if (result.failed.length > 0) this.exit(1);
    return result;
  }
}
