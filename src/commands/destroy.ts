import { Flags } from '@oclif/core';
import {
  appConfigFlags,
  appFlags,
  packConfigFlags,
  packFlags,
  stackSelectionFlags,
  stackSelector,
} from '../cli/app-flags';
import { CdkdCommand } from '../cli/base-command';
import { confirm } from '../cli/confirm';
import { openEngineSession } from '../cli/engine-session';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { engineFlags } from '../cli/deploy-flags';
import { stackRegion } from '../engine/deploy-app';
import { destroyApp } from '../engine/destroy-app';
import { withDependents } from '../engine/stack-graph';
import { renderDestroyFailure, renderDestroyWarnings } from '../ui/destroy-report';

export default class Destroy extends CdkdCommand {
  static override description = `Delete the selected stacks' AWS resources and their state
Resources are deleted in reverse dependency order (independent ones in parallel), from what state records; stacks that depend on a selected stack (through the app's dependencies or a cross-stack reference) are destroyed first. DeletionPolicy Retain keeps a resource in AWS; DeletionPolicy Snapshot is honoured through a provider pack that can take the snapshot, otherwise the destroy is refused before anything is deleted. Asks first on a terminal; without one (or with --ci) it refuses unless --force (or --yes), as the CDK CLI does.`;

  static override examples = ['<%= config.bin %> destroy MyStack', '<%= config.bin %> destroy --all --force'];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'destroy [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...engineFlags,
    ...packFlags,
    force: Flags.boolean({
      char: 'f',
      description: 'Do not ask for confirmation (needed without a terminal)',
      default: false,
    }),
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Destroy);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...packConfigFlags(flags),
      concurrency: flags.concurrency,
    });
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: flags.progress,
      terminal: this.terminal(config, flags),
      command: 'destroy',
    });
    try {
      const assembly = await session.synthesize();
      try {
        const selected = assembly.select({ ...stackSelector(argv as string[], flags), exclusively: true });
        const regionOf = (s: (typeof selected)[number]) => stackRegion(s, session.factory);
        const stacks = flags.exclusively ? selected : withDependents(selected, assembly.stacks, regionOf);
        const names = stacks.map((s) => `${s.stackName} (${stackRegion(s, session.factory)})`).join(', ');
        if (
          !flags.force &&
          !(await confirm(`Destroy ${names}? Their AWS resources will be deleted.`, {
            terminal: session.terminal,
            approveFlag: '--force',
            logger: session.logger,
            pauseOutput: session.renderer.pause,
          }))
        ) {
          session.logger.info('Cancelled; nothing was changed.');
          return { cancelled: true };
        }
        const result = await destroyApp({
          stacks,
          store: session.store,
          provisioner: session.provisioner,
          factory: session.factory,
          ioHost: session.ioHost,
          concurrency: config.concurrency,
          stackConcurrency: config.stackConcurrency,
          signal: session.signal,
          cancelSignal: session.cancelSignal,
        });
        session.renderer.close();
        if (!result.ok) throw renderDestroyFailure(result.stacks, result.keptStacks);
        const warned = renderDestroyWarnings(result.stacks);
        if (warned) throw warned;
        return {
          stacks: result.stacks.map((s) => ({
            stackName: s.stackName,
            region: s.region,
            found: s.found,
            summary: s.summary,
            elapsedMs: s.elapsedMs,
          })),
          provisioning: session.provisioner.stats(),
        };
      } finally {
        await assembly.dispose();
      }
    } finally {
      session.close();
    }
  }
}
