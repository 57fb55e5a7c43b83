import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { stateConfigFlags, stateFlags } from '../../cli/state-flags';
import { pushState } from '../../state/push';
import type { PushResult } from '../../state/push';
import { openStateStore } from '../../state/state-store';

export default class StatePush extends CdkdCommand {
  static override description = `Write a stack's state record from a local file to the state bucket
For the file a deploy or destroy writes when it cannot save state.json (cdkd-errored-state.<stack>.<region>.json). Refuses a file of another lineage, or older than the record in the bucket, unless --force.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> state push cdkd-errored-state.MyStack.us-east-1.json',
    '<%= config.bin %> state push ./backup.json --force',
  ];

  static override args = { file: Args.string({ description: 'The state file to push', required: true }) };
  static override flags = {
    ...stateFlags,
    force: Flags.boolean({
      char: 'f',
      description: 'Overwrite a record of another lineage, or a newer one',
      default: false,
    }),
  };

  async run(): Promise<PushResult> {
    const { args, flags } = await this.parse(StatePush);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const store = await openStateStore({ config, logger: this.logger(config.verbose) });
    const result = await pushState(store, args.file, { force: flags.force });
    this.log(
      `Pushed the state of ${result.stackName} (${result.region}) from ${args.file} to ${store.bucket.uri(result.key)}.`,
    );
    return result;
  }
}
