import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { confirm } from '../../cli/confirm';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { orphanStack, resolveStackRegion } from '../../state/inspect';
import type { OrphanResult } from '../../state/inspect';
import { openStateStore } from '../../state/state-store';

export default class StateOrphan extends CdkdCommand {
  static override description = `Stop tracking a stack: delete its state record without touching its AWS resources
The resources keep running; cdkd forgets them. Refuses while another process holds the stack's lock. Asks first unless --force.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state orphan MyStack',
    '<%= config.bin %> state orphan MyStack --region us-west-2 --force',
  ];

  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = {
    ...stateFlags,
    force: Flags.boolean({ char: 'f', description: 'Do not ask for confirmation', default: false }),
  };

  async run(): Promise<OrphanResult | { cancelled: true }> {
    const { args, flags } = await this.parse(StateOrphan);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const logger = this.logger(config.verbose);
    const store = await openStateStore({ config, logger });
    const region = await resolveStackRegion(store, args.stack, flags.region, config.region);
    if (
      !flags.force &&
      !(await confirm(
        `Forget stack ${args.stack} (${region})? Its state record is deleted; its AWS resources are NOT deleted and cdkd will no longer manage them.`,
        { terminal: this.terminal(config, flags), approveFlag: '--force', logger },
      ))
    ) {
      logger.info('Cancelled; nothing was changed.');
      return { cancelled: true };
    }
    const result = await orphanStack(store, args.stack, region);
    this.log(
      `Removed the state of ${result.stackName} (${result.region}); its AWS resources were left as they are.`,
    );
    if (result.remainingChildren.length > 0) {
      logger.warn(
        `Nested-stack records remain: ${result.remainingChildren.join(', ')}. Orphan them too with cdkd state orphan <name> --region ${region}.`,
      );
    }
    return result;
  }
}
