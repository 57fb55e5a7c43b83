import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { getStateInfo } from '../../state/inspect';
import type { StateInfo } from '../../state/inspect';
import { renderStateInfo } from '../../state/render';
import { openStateStore } from '../../state/state-store';

export default class StateInfoCommand extends CdkdCommand {
  static override description = `Show the state bucket: its name, region, where the name came from, schema version, stack count and the regions with cdkd asset storage`;

  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> state info', '<%= config.bin %> state info --json'];

  static override flags = { ...stateFlags };

  async run(): Promise<StateInfo> {
    const { flags } = await this.parse(StateInfoCommand);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const store = await openStateStore({ config, logger: this.logger(config.verbose) });
    const info = await getStateInfo(store);
    for (const line of renderStateInfo(info)) this.log(line);
    return info;
  }
}
