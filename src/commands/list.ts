import { Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { appConfigFlags, appFlags, stackSelectionFlags, stackSelector } from '../cli/app-flags';
import { createClientFactory } from '../state/state-store';
import { synthesizeApp } from '../synth/synthesize';
import { describeStacks, formatStackList } from '../synth/describe-stacks';
import type { StackDescription } from '../synth/describe-stacks';

export default class List extends CdkdCommand {
  static override description = `List the stacks of the CDK app
One stack per line on stdout (its path, and its name when that differs, as the CDK CLI prints it); --long adds each stack's environment and dependencies. Without names, lists every stack, stages included.`;

  static override aliases = ['ls'];

  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> ls --long',
    "<%= config.bin %> list 'Prod/*' --json",
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = '<%= command.id %> [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    long: Flags.boolean({
      char: 'l',
      description: "Show each stack's name, environment and dependencies",
      default: false,
    }),
  };

  async run(): Promise<StackDescription[]> {
    const { flags, argv } = await this.parse(List);
    const config = this.resolveConfig(flags, appConfigFlags(flags));
    const assembly = await synthesizeApp({
      config,
      ioHost: this.ioHost(config.verbose),
      aws: await createClientFactory(config),
    });
    try {
      const stacks = describeStacks(
        assembly.select(stackSelector(argv as string[], flags, 'all')),
        assembly.stacks,
      );
      if (!this.jsonEnabled()) this.log(formatStackList(stacks, flags.long));
      return stacks;
    } finally {
      await assembly.dispose();
    }
  }
}
