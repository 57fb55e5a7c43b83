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
import { deployConfigFlags, deployFlags } from '../cli/deploy-flags';
import { openCommandAccess } from '../cli/command-access';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { diffApp } from '../engine/diff-app';
import { canProvisionType } from '../engine/provisionable';
import { synthesizeApp } from '../synth/synthesize';
import { selectWithParameters } from '../cli/deploy-session';
import { planForOutput } from '../plan/nested-plans';
import { parseParameterArgs } from '../template/parameters';
import {
  renderPropertyViolations,
  renderSecurityChanges,
  renderStackPlan,
  summarizePlan,
} from '../ui/diff-render';

export default class Diff extends CdkdCommand {
  static override description = `Show what a deploy would change, against the state in S3
Per stack: each resource's action ([+] create, [~] update, [-/+] replace, [-] delete) with its property changes, the output changes, the security changes (IAM statements, managed policies, security-group rules) and the resources cdkd cannot deploy. Reads state without taking the lock; changes nothing.`;

  static override examples = [
    '<%= config.bin %> diff',
    '<%= config.bin %> diff MyStack --fail',
    '<%= config.bin %> diff --all --json',
  ];

  static override enableJsonFlag = true;
  static override strict = false;
  static override usage = 'diff [STACKS...]';

  static override flags = {
    ...appFlags,
    ...stackSelectionFlags,
    ...stateFlags,
    ...packFlags,
    fail: Flags.boolean({ description: 'Exit with code 1 when there are changes', default: false }),
    parameters: deployFlags.parameters,
    tags: deployFlags.tags,
    'role-arn': deployFlags['role-arn'],
  };

  async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(Diff);
    const config = this.resolveConfig(flags, {
      ...appConfigFlags(flags),
      ...stateConfigFlags(flags),
      ...deployConfigFlags(flags),
      ...packConfigFlags(flags),
    });
    const ioHost = this.ioHost(config.verbose);
    const logger = this.logger(config.verbose);
    // The plan reads the schemas of the org-internal types the packs bring; a declared pack must be ready.
    const { registry, caller, factory, store } = await openCommandAccess({
      config,
      oclifConfig: this.config,
      logger,
      command: 'diff',
    });
    const assembly = await synthesizeApp({ config, ioHost, aws: caller });
    let diffs;
    try {
      const parameters = parseParameterArgs(flags.parameters ?? []);
      const stacks = selectWithParameters(assembly, stackSelector(argv as string[], flags), parameters);
      diffs = await diffApp({
        stacks,
        store,
        schemas: registry.schemas,
        factory,
        parameters,
        tags: config.tags,
        canProvision: (type) => canProvisionType(type, registry),
        canSnapshot: (record) => registry.canSnapshot(record.resourceType, record),
        ioHost,
      });
    } finally {
      await assembly.dispose();
    }
    const color = config.color ?? Boolean(process.stdout.isTTY);
    if (!this.jsonEnabled()) {
      for (const { plan, security, unprovisionable, violations } of diffs) {
        this.log(renderStackPlan(plan, { color }));
        const securityText = renderSecurityChanges(security, { color });
        if (securityText) this.log(securityText);
        for (const r of unprovisionable)
          this.log(`[!] ${r.logicalId} (${r.resourceType}): cdkd cannot deploy it: ${r.reason}. ${r.remedy}`);
        const violationsText = renderPropertyViolations(violations);
        if (violationsText) this.log(violationsText);
      }
      for (const { plan } of diffs) logger.info(`${plan.stackName}: ${summarizePlan(plan)}`);
    }
    for (const { plan, violations } of diffs) {
      if (violations.length === 0) continue;
      logger.warn(
        `${plan.stackName}: cdkd deploy will refuse this stack: ${violations.length} resource propert${violations.length === 1 ? 'y breaks' : 'ies break'} ${violations.length === 1 ? 'its' : 'their'} schema (listed above). Fix them in the app before deploying.`,
      );
    }
    for (const { plan, unprovisionable } of diffs) {
      if (unprovisionable.length === 0) continue;
      logger.warn(
        `${plan.stackName}: cdkd deploy will refuse this stack: ${unprovisionable.map((r) => `${r.logicalId} (${r.resourceType})`).join(', ')} cannot be deployed by cdkd. ${[...new Set(unprovisionable.map((r) => r.remedy))].join(' ')}`,
      );
    }
    const payload = {
      stacks: diffs.map(({ plan, security, unprovisionable, violations }) => ({
        ...planForOutput(plan),
        permissionChanges: security.change,
        unprovisionable,
        propertyViolations: violations,
      })),
    };
    if (flags.fail && diffs.some((d) => d.plan.hasChanges)) {
      if (this.jsonEnabled()) this.logJson(payload);
      this.exit(1);
    }
    return payload;
  }
}
