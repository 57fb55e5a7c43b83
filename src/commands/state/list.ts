import { Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { buildStackTree, listStackSummaries } from '../../state/inspect';
import type { StackSummary, StackTreeNode } from '../../state/inspect';
import { renderStackListLong, renderStackTree, stackRefLine } from '../../state/render';
import { openStateStore } from '../../state/state-store';

export default class StateList extends CdkdCommand {
  static override description = `List the stacks recorded in the state bucket
Stdout is the payload: one "Stack (region)" per line (or JSON with --json); every log line goes to stderr. --long adds resource count, last modified and lock status; --tree nests nested-stack children under their parents.`;

  static override aliases = ['state:ls'];
  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state list',
    '<%= config.bin %> state ls --long',
    '<%= config.bin %> state list --tree --json',
  ];

  static override flags = {
    ...stateFlags,
    long: Flags.boolean({
      char: 'l',
      description: 'Show resource count, last modified and lock status',
      default: false,
    }),
    tree: Flags.boolean({ description: 'Show nested stacks under their parents', default: false }),
  };

  async run(): Promise<StackSummary[] | StackTreeNode[]> {
    const { flags } = await this.parse(StateList);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const store = await openStateStore({ config, logger: this.logger(config.verbose) });
    const stacks = await listStackSummaries(store, { details: flags.long || flags.tree });
    if (flags.tree) {
      const tree = buildStackTree(stacks);
      for (const line of renderStackTree(tree)) this.log(line);
      return tree;
    }
    const lines = flags.long ? renderStackListLong(stacks) : stacks.map(stackRefLine);
    for (const line of lines) this.log(line);
    return stacks;
  }
}
