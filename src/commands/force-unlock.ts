import { Args } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { forceUnlockStack } from '../state/inspect';
import type { ForceUnlockResult } from '../state/inspect';
import { formatLock } from '../state/render';
import { openStateStore } from '../state/state-store';

export default class ForceUnlock extends CdkdCommand {
  static override description = `Remove a stack's lock, whoever holds it
For a lock left by a process that died (a killed CI job, say). Removing the lock of an operation that is still running lets a second writer in: check first.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> force-unlock MyStack',
    '<%= config.bin %> force-unlock MyStack --region eu-west-1',
  ];

  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = { ...stateFlags };

  async run(): Promise<ForceUnlockResult> {
    const { args, flags } = await this.parse(ForceUnlock);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const logger = this.logger(config.verbose);
    const store = await openStateStore({ config, logger });
    const result = await forceUnlockStack(store, args.stack, flags.region, config.region);
    if (!result.removed) {
      this.log(`${args.stack} (${result.region}) is not locked.`);
    } else {
      if (!result.removed.expired) logger.warn(`The removed lock was live: ${formatLock(result.removed)}.`);
      this.log(`Unlocked ${args.stack} (${result.region}).`);
    }
    return result;
  }
}
