import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { confirm } from '../cli/confirm';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { forceUnlockStack } from '../state/inspect';
import type { ForceUnlockCandidate, ForceUnlockResult } from '../state/inspect';
import { lockingStackName } from '../state/keys';
import { formatLock } from '../state/render';
import { openStateStore } from '../state/state-store';

export default class ForceUnlock extends CdkdCommand {
  static override description = `Remove a stack's lock, whoever holds it
For a lock left by a process that died (a killed CI job, say). A lock that has not expired belongs to a process that may still be running: removing it makes that process stop at its next renewal, and lets a second writer in. Such a lock is removed only after confirmation on a terminal, or with --force.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> force-unlock MyStack',
    '<%= config.bin %> force-unlock MyStack --region eu-west-1',
  ];

  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = {
    ...stateFlags,
    force: Flags.boolean({
      char: 'f',
      description: 'Remove a lock that has not expired without asking',
      default: false,
    }),
  };

  async run(): Promise<ForceUnlockResult | { cancelled: true }> {
    const { args, flags } = await this.parse(ForceUnlock);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const logger = this.logger(config.verbose);
    const store = await openStateStore({ config, logger });
    const terminal = this.terminal(config, flags);
    const locking = lockingStackName(args.stack);
    if (locking !== args.stack)
      logger.info(
        `${args.stack} is a nested stack: it has no lock of its own and works under the lock of ${locking}, which is the one removed.`,
      );
    const confirmLive = async (lock: ForceUnlockCandidate): Promise<boolean> =>
      flags.force ||
      confirm(
        `The lock of ${locking} (${lock.region}) has not expired: ${formatLock(lock.lock)}. Its process may still be running; removing the lock makes it stop at its next renewal. Remove it?`,
        { terminal, approveFlag: '--force', logger },
      );
    const result = await forceUnlockStack(store, args.stack, flags.region, config.region, confirmLive);
    if (result === 'cancelled') {
      logger.info('Cancelled; the lock was left in place.');
      return { cancelled: true };
    }
    if (!result.removed) {
      this.log(`${result.stackName} (${result.region}) is not locked.`);
    } else {
      if (!result.removed.expired) logger.warn(`The removed lock was live: ${formatLock(result.removed)}.`);
      this.log(`Unlocked ${result.stackName} (${result.region}).`);
    }
    return result;
  }
}
