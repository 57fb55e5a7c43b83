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
import { deployFlags } from '../cli/deploy-flags';
import { openCommandAccess } from '../cli/command-access';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { scrubApp } from '../engine/scrub-app';
import { synthesizeApp } from '../synth/synthesize';
import { renderScrubReport } from '../ui/scrub-render';

export default class Scrub extends CdkdCommand {
  static override description = `Redact the secrets an earlier cdkd (or the reference tool) stored in clear in state
Synthesizes the app to learn each stack's secrets (NoEcho parameters, secretsmanager and ssm-secure references, schema write-only properties, attributes a pack declares secret), then rewrites state.json, the stack's exports-index entries and its rollback journal as a deploy of today would store them — for the stack and each of its nested stacks' child records — and purges the earlier versions that held them. Takes the stack's lock. An output key that holds a secret is reported, never renamed: change the template's Export.Name and redeploy, and rotate the secret.`;

  static override examples = [
    '<%= config.bin %> scrub --dry-run --fail',
    '<%= config.bin %> scrub MyStack',
    '<%= config.bin %> scrub --all --app cdk.out --json',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'scrub [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...packFlags,
    'dry-run': Flags.boolean({
      description: 'Report what would be rewritten, per stack and site (never the secret); change nothing',
      default: false,
    }),
    fail: Flags.boolean({
      description:
        'Exit with code 1 when anything needs scrubbing (with --dry-run: a CI gate), or, on a real run, when an output key holds a secret (the one finding scrub cannot fix)',
      default: false,
    }),
    'role-arn': deployFlags['role-arn'],
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Scrub);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...packConfigFlags(flags),
    });
    const ioHost = this.ioHost(config.verbose);
    const logger = this.logger(config.verbose);
    // The packs bring the schemas (write-only properties) of org-internal types.
    const { registry, caller, factory, store } = await openCommandAccess({
      config,
      oclifConfig: this.config,
      logger,
      command: 'scrub',
    });
    const assembly = await synthesizeApp({ config, ioHost, aws: caller });
    let result;
    try {
      result = await scrubApp({
        stacks: assembly.select(stackSelector(argv as string[], flags)),
        store,
        factory,
        schemas: registry.schemas,
        secretAttributes: (type) => registry.secretAttributesOf(type),
        dryRun: flags['dry-run'],
        logger,
      });
    } finally {
      await assembly.dispose();
    }
    if (!this.jsonEnabled()) this.log(renderScrubReport(result.stacks, { dryRun: flags['dry-run'] }));
    const payload = { dryRun: flags['dry-run'], ...result };
    const failed = flags['dry-run']
      ? result.needsScrub || result.plaintextKeys > 0
      : result.plaintextKeys > 0;
    if (flags.fail && failed) {
      if (this.jsonEnabled()) this.logJson(payload);
      this.exit(1);
    }
    return payload;
  }
}
