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
import { checkPacks, loadPacks } from '../cli/load-provider-packs';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { diffApp } from '../engine/diff-app';
import { openStateStore, createClientFactory } from '../state/state-store';
import { defaultEnvironmentOf, synthesize } from '../synth/synthesize';
import { parseParameterArgs, validateParameterAssignments } from '../template/parameters';
import { parseTemplate } from '../template/types';
import { renderStackPlan, summarizePlan } from '../ui/diff-render';

export default class Diff extends CdkdCommand {
  static override description = `Show what a deploy would change, against the state in S3
Per stack: each resource's action ([+] create, [~] update, [-/+] replace, [-] delete) with its property changes, and the output changes. Reads state without taking the lock; changes nothing.`;

  static override examples = [
    '<%= config.bin %> diff',
    '<%= config.bin %> diff MyStack --fail',
    '<%= config.bin %> diff --all --json',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'diff [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...packFlags,
    fail: Flags.boolean({ description: 'Exit with code 1 when there are changes', default: false }),
    parameters: Flags.string({
      description: 'Template parameter, as Stack:Name=value or Name=value (repeatable)',
      multiple: true,
    }),
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Diff);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...packConfigFlags(flags),
    });
    const ioHost = this.ioHost(config.verbose);
    const logger = this.logger(config.verbose);
    // The plan reads the schemas of the org-internal types the packs bring; a declared pack must be ready.
    const packs = await loadPacks(this.config, config);
    checkPacks(packs, logger, { strict: config.strictPacks, command: 'diff' });
    const factory = await createClientFactory(config);
    const store = await openStateStore({ config, logger, factory });
    const assembly = await synthesize({
      config,
      ioHost,
      defaultEnvironment: await defaultEnvironmentOf(factory),
    });
    let plans;
    try {
      const stacks = assembly.select(stackSelector(argv as string[], flags));
      const parameters = parseParameterArgs(flags.parameters ?? []);
      validateParameterAssignments(
        parameters,
        stacks.map((s) => ({
          stackName: s.stackName,
          template: parseTemplate(s.template, `template of ${s.displayPath}`),
        })),
      );
      plans = await diffApp({ stacks, store, schemas: packs.registry.schemas, factory, parameters });
    } finally {
      await assembly.dispose();
    }
    if (!this.jsonEnabled()) {
      const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
      for (const plan of plans) this.log(renderStackPlan(plan, { color }));
      for (const plan of plans) logger.info(`${plan.stackName}: ${summarizePlan(plan)}`);
    }
    const changed = plans.some((p) => p.hasChanges);
    if (flags.fail && changed) {
      if (this.jsonEnabled()) this.logJson({ stacks: plans });
      this.exit(1);
    }
    return { stacks: plans };
  }
}
