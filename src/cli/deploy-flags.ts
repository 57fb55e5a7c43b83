/**
 * The flags of the commands that deploy (deploy, watch) and destroy: cdkd's
 * own, and the CDK CLI's with the meaning a CDK user expects.
 */
import { Flags } from '@oclif/core';
import { REQUIRE_APPROVAL_LEVELS } from '../config/config';
import type { ConfigFlags } from '../config/config';
import { PROGRESS_OPTIONS } from '../ui/progress';

/** `--concurrency`, `--progress`: every command that changes resources. */
export const engineFlags = {
  concurrency: Flags.integer({
    description:
      "Cap on one stack's resource operations in flight at once (default: no cap; the limits adapt to AWS, up to 250 Cloud Control requests and 200 SDK provider calls). Not the CDK CLI's --concurrency, which counts stacks: that is --stack-concurrency here",
    min: 1,
  }),
  progress: Flags.string({
    description:
      'Progress display: bar (or live: the resources in flight, redrawn; the default on a terminal), events (one line per event; the default without a terminal or in CI), errors-only',
    options: [...PROGRESS_OPTIONS],
  }),
};

/** The flags of a deploy (`cdkd deploy`, `cdkd watch`). */
export const deployFlags = {
  ...engineFlags,
  'stack-concurrency': Flags.integer({
    description: "Stacks deployed at once when independent (default: 4; the CDK CLI's --concurrency)",
    min: 1,
  }),
  parameters: Flags.string({
    description:
      'Template parameter, as Stack:Name=value or Name=value for every stack that declares it (repeatable)',
    multiple: true,
  }),
  tags: Flags.string({
    char: 't',
    description:
      "Stack tag Key=Value (repeatable), applied to every taggable resource as CloudFormation applies stack tags; replaces the app's stack tags. Also: tags in cdk.json",
    multiple: true,
  }),
  'role-arn': Flags.string({
    char: 'r',
    description: 'IAM role to assume for every AWS call of the deploy (state, assets, resources)',
  }),
  'no-rollback': Flags.boolean({
    char: 'R',
    description:
      "Keep a failed deploy's partial state instead of reverting it (the default reverts what the deploy did, as CloudFormation does); the rollback journal it leaves lets cdkd rollback revert it later",
    default: false,
  }),
  'require-approval': Flags.string({
    description:
      'Which changes need approval before a stack deploys: never, any-change (every change), broadening (default: added or widened IAM permissions, resource policies, security-group rules). Asked on a terminal; refused without one unless approved by this flag or --yes',
    options: [...REQUIRE_APPROVAL_LEVELS],
  }),
};

/** The configuration settings the deploy flags carry. */
export function deployConfigFlags(flags: {
  concurrency?: number;
  'stack-concurrency'?: number;
  tags?: string[];
  'role-arn'?: string;
  'require-approval'?: string;
  'no-rollback'?: boolean;
}): ConfigFlags {
  return {
    concurrency: flags.concurrency,
    stackConcurrency: flags['stack-concurrency'],
    tags: flags.tags,
    roleArn: flags['role-arn'],
    requireApproval: flags['require-approval'],
    ...(flags['no-rollback'] ? { rollback: false } : {}),
  };
}
