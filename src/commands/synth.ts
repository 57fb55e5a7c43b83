import { Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { appConfigFlags, appFlags, stackSelectionFlags, stackSelector } from '../cli/app-flags';
import { createClientFactory } from '../state/state-store';
import { synthesizeApp } from '../synth/synthesize';
import { formatTemplate } from '../synth/format-template';
import type { CloudFormationTemplate } from '../synth/cloud-assembly';

export default class Synth extends CdkdCommand {
  static override description = `Synthesize the CDK app and print the selected stacks' templates
Prints YAML by default (several stacks: one YAML document each), JSON with --json, nothing with --quiet. Logs go to stderr. The app sees the same environment as under deploy (CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION from your credentials, when they resolve), so both produce the same templates.`;

  static override aliases = ['synthesize'];

  static override examples = [
    '<%= config.bin %> synth',
    '<%= config.bin %> synth MyStack --json',
    "<%= config.bin %> synth 'Prod/*' --exclusively -c env=prod",
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = '<%= command.id %> [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    quiet: Flags.boolean({
      char: 'q',
      description: 'Do not print the templates (the cloud assembly is still written)',
      default: false,
    }),
  };

  /** With --json: the template of the only selected stack, or templates by stack path. */
  async run(): Promise<CloudFormationTemplate | Record<string, CloudFormationTemplate> | undefined> {
    const { flags, argv } = await this.parse(Synth);
    const config = this.resolveConfig(flags, appConfigFlags(flags));
    const ioHost = this.ioHost(config.verbose);
    const assembly = await synthesizeApp({ config, ioHost, aws: await createClientFactory(config) });
    try {
      const stacks = assembly.select(stackSelector(argv as string[], flags));
      if (!this.jsonEnabled() && !flags.quiet) {
        this.log(stacks.map((s) => formatTemplate(s.template, 'yaml').trimEnd()).join('\n---\n'));
      }
      // Through the IoHost rather than logToStderr, which oclif silences under --json.
      this.logger(config.verbose).info(
        `Synthesized ${stacks.map((s) => s.displayName).join(', ')} to ${assembly.directory}`,
      );
      if (flags.quiet) return undefined;
      if (stacks.length === 1) return stacks[0].template;
      return Object.fromEntries(stacks.map((s) => [s.displayPath, s.template]));
    } finally {
      await assembly.dispose();
    }
  }
}
