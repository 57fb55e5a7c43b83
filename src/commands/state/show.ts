import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { loadStackView, resolveStackRegion } from '../../state/inspect';
import type { StackView, StackViewMeta } from '../../state/inspect';
import { renderStackView } from '../../state/render';
import { openStateStore } from '../../state/state-store';

export default class StateShow extends CdkdCommand {
  static override description = `Show a stack's full state record: metadata, lock, outputs and every resource
--show-nested appends each nested-stack child's record. --json prints {state, lock} (with --show-nested, {state, lock, children}).`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state show MyStack',
    '<%= config.bin %> state show MyParent --show-nested --json',
  ];

  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = {
    ...stateFlags,
    'show-nested': Flags.boolean({
      description: "Also show every nested-stack child's record",
      default: false,
    }),
  };

  async run(): Promise<StackView> {
    const { args, flags } = await this.parse(StateShow);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const store = await openStateStore({ config, logger: this.logger(config.verbose) });
    const region = await resolveStackRegion(store, args.stack, flags.region, config.region);
    const meta = new Map<StackView, StackViewMeta>();
    const view = await loadStackView(store, args.stack, region, { nested: flags['show-nested'], meta });
    for (const line of renderStackView(view, meta)) this.log(line);
    return view;
  }
}
