import { Args } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { loadStackView, resolveStackRegion } from '../../state/inspect';
import { renderResourceTable } from '../../state/render';
import { openStateStore } from '../../state/state-store';
import type { ResourceState } from '../../state/types';

export default class StateResources extends CdkdCommand {
  static override description = `List a stack's resources: logical id, type, provisioning layer, the provider pack and version that made it, and physical id`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state resources MyStack',
    '<%= config.bin %> state resources MyStack --region eu-west-1 --json',
  ];

  static override args = { stack: Args.string({ description: 'Stack name', required: true }) };
  static override flags = { ...stateFlags };

  async run(): Promise<Array<ResourceState & { logicalId: string }>> {
    const { args, flags } = await this.parse(StateResources);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const store = await openStateStore({ config, logger: this.logger(config.verbose) });
    const region = await resolveStackRegion(store, args.stack, flags.region, config.region);
    const { state } = await loadStackView(store, args.stack, region);
    for (const line of renderResourceTable(state.resources)) this.log(line);
    return Object.entries(state.resources).map(([logicalId, r]) => ({ logicalId, ...r }));
  }
}
