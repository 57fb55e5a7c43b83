import { CdkdCommand } from '../cli/base-command';
import { appConfigFlags, appFlags, stackSelectionFlags, stackSelector } from '../cli/app-flags';
import { synthesize } from '../synth/synthesize';
import { formatTemplate } from '../synth/format-template';
import type { CloudFormationTemplate } from '../synth/cloud-assembly';

export default class Synth extends CdkdCommand {
  static override description = `Synthesize the CDK app and print the selected stacks' templates
Prints YAML by default (several stacks: one YAML document each), JSON with --json. Logs go to stderr.`;

  static override aliases = ['synthesize'];

  static override examples = [
    '<%= config.bin %> synth',
    '<%= config.bin %> synth MyStack --json',
    "<%= config.bin %> synth 'Prod/*' --exclusively -c env=prod",
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = '<%= command.id %> [STACKS...]';

  static override flags = { ...appFlags, ...stackSelectionFlags };

  /** With --json: the template of the only selected stack, or templates by stack path. */
  async run(): Promise<CloudFormationTemplate | Record<string, CloudFormationTemplate>> {
    const { flags, argv } = await this.parse(Synth);
    const config = this.resolveConfig(flags, appConfigFlags(flags));
    const ioHost = this.ioHost(config.verbose);
    const assembly = await synthesize({ config, ioHost });
    try {
      const stacks = assembly.select(stackSelector(argv as string[], flags));
      if (!this.jsonEnabled()) {
        this.log(stacks.map((s) => formatTemplate(s.template, 'yaml').trimEnd()).join('\n---\n'));
      }
      // Through the IoHost rather than logToStderr, which oclif silences under --json.
      this.logger(config.verbose).info(
        `Synthesized ${stacks.map((s) => s.displayName).join(', ')} to ${assembly.directory}`,
      );
      if (stacks.length === 1) return stacks[0].template;
      return Object.fromEntries(stacks.map((s) => [s.displayPath, s.template]));
    } finally {
      await assembly.dispose();
    }
  }
}
