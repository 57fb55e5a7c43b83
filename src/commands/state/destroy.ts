import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { confirm } from '../../cli/confirm';
import { openEngineSession } from '../../cli/engine-session';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { destroyStack } from '../../engine/destroy-stack';
import { resolveStackRegion } from '../../state/inspect';
import { renderDestroyFailure } from '../../ui/destroy-report';
import { engineFlags } from '../../cli/deploy-flags';

export default class StateDestroy extends CdkdCommand {
  static override description = `Delete a stack's AWS resources and its state, from the state record alone (no CDK app needed)
Resources are deleted in reverse dependency order; DeletionPolicy Retain recorded in state keeps a resource. Asks first on a terminal; without one (or with --ci) it refuses unless --force (or --yes).`;

  static override examples = [
    '<%= config.bin %> state destroy MyStack',
    '<%= config.bin %> state destroy MyStack --region eu-west-1 --force',
  ];

  static override enableJsonFlag = true;
  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = {
    ...stateFlags,
    ...engineFlags,
    force: Flags.boolean({
      char: 'f',
      description: 'Do not ask for confirmation (needed without a terminal)',
      default: false,
    }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(StateDestroy);
    const config = this.resolveConfig(flags, { ...stateConfigFlags(flags), concurrency: flags.concurrency });
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: flags.progress,
      terminal: this.terminal(config, flags),
      command: 'state destroy',
    });
    try {
      const region = await resolveStackRegion(session.store, args.stack, flags.region, config.region);
      if (
        !flags.force &&
        !(await confirm(`Destroy ${args.stack} (${region})? Its AWS resources will be deleted.`, {
          terminal: session.terminal,
          approveFlag: '--force',
          logger: session.logger,
          pauseOutput: session.renderer.pause,
        }))
      ) {
        session.logger.info('Cancelled; nothing was changed.');
        return { cancelled: true };
      }
      const result = await destroyStack({
        stackName: args.stack,
        region,
        store: session.store,
        provisioner: session.provisioner,
        ioHost: session.ioHost,
        concurrency: config.concurrency,
        signal: session.signal,
      });
      session.renderer.close();
      if (result.found && !result.complete) throw renderDestroyFailure([result]);
      return {
        stackName: result.stackName,
        region: result.region,
        found: result.found,
        summary: result.summary,
        elapsedMs: result.elapsedMs,
        provisioning: session.provisioner.stats(),
      };
    } finally {
      session.close();
    }
  }
}
