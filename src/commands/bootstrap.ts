import { Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { confirm } from '../cli/confirm';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { bootstrap, destroyBootstrap } from '../state/bootstrap';
import type { BootstrapResult, DestroyBootstrapResult } from '../state/bootstrap';
import { renderBootstrapResult, renderDestroyBootstrapResult } from '../state/render';
import { openStateStore } from '../state/state-store';

export default class Bootstrap extends CdkdCommand {
  static override description = `Create the cdkd state bucket and the region's asset storage
The state bucket (once per account) gets versioning, AES-256 encryption, a public access block and an account-only bucket policy; the region's asset bucket the same hardening without versioning, and the marker cdkd-bootstrap/<region>.json records it. Safe to run again: it changes only what is missing. --destroy tears the region's asset storage down (and, with --include-state-bucket, the state bucket), refusing while stacks remain.`;

  static override enableJsonFlag = true;
  static override examples = [
    '<%= config.bin %> bootstrap',
    '<%= config.bin %> bootstrap --region eu-west-1 --no-assets',
    '<%= config.bin %> bootstrap --destroy --region eu-west-1',
  ];

  static override flags = {
    ...stateFlags,
    assets: Flags.boolean({
      description: "Set up the region's asset storage and marker (--no-assets: only the state bucket)",
      default: true,
      allowNo: true,
    }),
    'asset-bucket': Flags.string({
      description: 'Asset bucket name (default: cdkd-assets-<account>-<region>)',
    }),
    'container-repo': Flags.string({
      description:
        'Container asset ECR repository name recorded in the marker (default: cdkd-container-assets-<account>-<region>)',
    }),
    destroy: Flags.boolean({
      description: "Tear down the region's asset storage and marker",
      default: false,
    }),
    'include-state-bucket': Flags.boolean({
      description: 'With --destroy: also delete the state bucket (only when no stack remains)',
      default: false,
      dependsOn: ['destroy'],
    }),
    force: Flags.boolean({
      char: 'f',
      description: 'With --destroy: do not ask for confirmation',
      default: false,
    }),
  };

  async run(): Promise<BootstrapResult | DestroyBootstrapResult | { cancelled: true }> {
    const { flags } = await this.parse(Bootstrap);
    const config = this.resolveConfig(flags, stateConfigFlags(flags));
    const logger = this.logger(config.verbose);
    const store = await openStateStore({ config, logger, mustExist: flags.destroy });
    const region = store.factory.region;

    if (flags.destroy) {
      const what = flags['include-state-bucket']
        ? `the asset storage of ${region} and the state bucket ${store.bucket.name}`
        : `the asset storage of ${region}`;
      const question = `Delete ${what}, with all their contents?`;
      const terminal = this.terminal(config, flags);
      if (!flags.force && !(await confirm(question, { terminal, approveFlag: '--force', logger }))) {
        logger.info('Cancelled; nothing was changed.');
        return { cancelled: true };
      }
      const result = await destroyBootstrap({
        factory: store.factory,
        stateBucket: store.bucket,
        backend: store.backend,
        region,
        includeStateBucket: flags['include-state-bucket'],
        logger,
      });
      for (const line of renderDestroyBootstrapResult(result, store.bucket.name)) this.log(line);
      return result;
    }

    const result = await bootstrap({
      factory: store.factory,
      stateBucket: store.bucket,
      region,
      assets: flags.assets,
      assetBucketName: flags['asset-bucket'],
      containerRepositoryName: flags['container-repo'],
      logger,
    });
    for (const line of renderBootstrapResult(result)) this.log(line);
    return result;
  }
}
