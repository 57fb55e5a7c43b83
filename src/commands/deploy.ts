import { Flags } from '@oclif/core';
import {
  appConfigFlags,
  appFlags,
  packConfigFlags,
  packFlags,
  stackSelectionFlags,
  stackSelector,
} from '../cli/app-flags';
import { approvalGate } from '../cli/approval';
import { CdkdCommand } from '../cli/base-command';
import { deployConfigFlags, deployFlags } from '../cli/deploy-flags';
import { openEngineSession } from '../cli/engine-session';
import { writeOutputsFile } from '../cli/outputs-file';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { deployInSession, selectWithParameters } from '../cli/deploy-session';
import { parseParameterArgs } from '../template/parameters';
import { deployReport, renderDeployFailure, renderDeployWarnings } from '../ui/deploy-report';
import { presentOutputs, renderOutputs } from '../ui/outputs';
import { renderProvisioningSummary } from '../ui/provisioning-summary';

export default class Deploy extends CdkdCommand {
  static override description = `Deploy the selected stacks directly through AWS APIs
Stacks deploy in dependency order (the app's dependencies and its cross-stack references; independent ones in parallel, and still when an unrelated stack fails); inside a stack every resource starts as soon as the resources it depends on are done. State is saved to S3 while the deploy runs. A deploy that adds or widens permissions asks first (--require-approval).`;

  static override examples = [
    '<%= config.bin %> deploy',
    '<%= config.bin %> deploy MyStack --parameters MyStack:Env=prod',
    '<%= config.bin %> deploy --all --stack-concurrency 2 --outputs-file outputs.json',
    '<%= config.bin %> deploy --all --require-approval never --tags team=payments',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'deploy [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...deployFlags,
    ...packFlags,
    'outputs-file': Flags.string({
      char: 'O',
      description:
        'Write the stacks\' outputs to this file as JSON ({"Stack": {"Output": value}}), also after a partial failure',
    }),
    force: Flags.boolean({
      char: 'f',
      description: 'Re-apply every resource, even when nothing changed',
      default: false,
    }),
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Deploy);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...deployConfigFlags(flags),
      ...packConfigFlags(flags),
    });
    const parameters = parseParameterArgs(flags.parameters ?? []);
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: flags.progress,
      terminal: this.terminal(config, flags),
      command: 'deploy',
    });
    try {
      const assembly = await session.synthesize();
      try {
        const stacks = selectWithParameters(assembly, stackSelector(argv as string[], flags), parameters);
        const result = await deployInSession(session, stacks, parameters, {
          force: flags.force,
          approve: approvalGate({
            level: config.requireApproval,
            terminal: session.terminal,
            logger: session.logger,
            color: config.color ?? Boolean(process.stderr.isTTY),
            pauseOutput: session.renderer.pause,
          }),
        });
        session.renderer.close();
        const provisioning = session.provisioner.stats();
        for (const line of renderProvisioningSummary(provisioning.routes, {
          registered: (type) => session.registry.registrationFor(type) !== undefined,
          cloudControlOnly: config.cloudControlOnly,
        }))
          session.logger.info(line);
        if (flags['outputs-file']) {
          const file = writeOutputsFile(flags['outputs-file'], result.stacks, config.cwd);
          session.logger.info(`Outputs written to ${file}`);
        }
        if (!this.jsonEnabled()) {
          for (const stack of result.stacks) {
            const presented = presentOutputs(stack.outputs, stack.exportNames);
            if (Object.keys(presented.outputs).length > 0)
              this.log(renderOutputs(stack.stackName, presented));
          }
        }
        if (!result.ok) throw renderDeployFailure(result);
        const warned = renderDeployWarnings(result);
        if (warned) throw warned;
        return { ...deployReport(result), provisioning };
      } finally {
        await assembly.dispose();
      }
    } finally {
      session.close();
    }
  }
}
