import { Flags } from '@oclif/core';
import { appConfigFlags, appFlags, stackSelectionFlags, stackSelector } from '../cli/app-flags';
import { CdkdCommand } from '../cli/base-command';
import { openEngineSession } from '../cli/engine-session';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { deployApp } from '../engine/deploy-app';
import { describeSummary } from '../engine/deploy-stack';
import { parseParameterArgs, validateParameterAssignments } from '../template/parameters';
import { parseTemplate } from '../template/types';
import { CdkdError, formatError } from '../util/errors';
import { renderOutputs } from '../ui/outputs';

export const engineFlags = {
  concurrency: Flags.integer({ description: 'Resource operations in flight at once (default: 10)', min: 1 }),
  progress: Flags.string({
    description: 'Progress display: live (default on a terminal) or events (one line per event)',
    options: ['live', 'events'],
  }),
};

export default class Deploy extends CdkdCommand {
  static override description = `Deploy the selected stacks directly through AWS APIs
Stacks deploy in dependency order (independent ones in parallel); inside a stack every resource starts as soon as the resources it depends on are done. State is saved to S3 while the deploy runs.`;

  static override examples = [
    '<%= config.bin %> deploy',
    '<%= config.bin %> deploy MyStack --parameters MyStack:Env=prod',
    '<%= config.bin %> deploy --all --concurrency 20',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'deploy [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...engineFlags,
    'stack-concurrency': Flags.integer({
      description: 'Stacks deployed at once when independent (default: 4)',
      min: 1,
    }),
    parameters: Flags.string({
      description:
        'Template parameter, as Stack:Name=value or Name=value for every stack that declares it (repeatable)',
      multiple: true,
    }),
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Deploy);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      concurrency: flags.concurrency,
      stackConcurrency: flags['stack-concurrency'],
    });
    const parameters = parseParameterArgs(flags.parameters ?? []);
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: flags.progress,
    });
    try {
      const assembly = await session.synthesize();
      try {
        const stacks = assembly.select(stackSelector(argv as string[], flags));
        validateParameterAssignments(
          parameters,
          stacks.map((s) => ({
            stackName: s.stackName,
            template: parseTemplate(s.template, `template of ${s.displayPath}`),
          })),
        );
        const result = await deployApp({
          stacks,
          store: session.store,
          provisioner: session.provisioner,
          schemas: session.schemas,
          factory: session.factory,
          ioHost: session.ioHost,
          concurrency: config.concurrency,
          stackConcurrency: config.stackConcurrency,
          parameters,
          signal: session.signal,
          cancelSignal: session.cancelSignal,
        });
        session.renderer.close();
        if (!this.jsonEnabled()) {
          for (const stack of result.stacks) {
            if (Object.keys(stack.outputs).length > 0)
              this.log(renderOutputs(stack.stackName, stack.outputs));
          }
        }
        const failures = result.stacks.flatMap((s) => s.failed.map((f) => ({ stack: s.stackName, ...f })));
        if (!result.ok) {
          const lines = failures.map((f) => `  ${f.stack}/${f.logicalId}: ${formatError(f.error)}`);
          const skipped = result.skippedStacks.length
            ? `\nNot deployed (a stack they depend on failed): ${result.skippedStacks.join(', ')}`
            : '';
          const interrupted = result.stacks.some((s) => s.interrupted);
          throw new CdkdError(
            `Deploy ${interrupted ? 'interrupted' : 'failed'}: ${result.stacks.map((s) => `${s.stackName} (${describeSummary(s.summary)})`).join('; ')}${lines.length ? `\n${lines.join('\n')}` : ''}${skipped}`,
            {
              code: interrupted ? 'DEPLOY_INTERRUPTED' : 'DEPLOY_FAILED',
              remedy:
                'Resources that finished are recorded in state; fix the cause and run cdkd deploy again to continue.',
            },
          );
        }
        return {
          stacks: result.stacks.map((s) => ({
            stackName: s.stackName,
            region: s.region,
            noChanges: s.noChanges,
            summary: s.summary,
            outputs: s.outputs,
            elapsedMs: s.elapsedMs,
            stateWrites: s.stateWrites,
          })),
        };
      } finally {
        await assembly.dispose();
      }
    } finally {
      session.close();
    }
  }
}
