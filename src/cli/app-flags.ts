/**
 * Flags shared by every command that synthesizes the CDK app (synth, list,
 * deploy, diff, destroy...): where the app is, its context, and which stacks
 * to act on. Spread them into a command's `flags`; stack names come as
 * variadic arguments (`static strict = false`, then `argv`).
 */
import { Flags } from '@oclif/core';
import type { ConfigFlags } from '../config/config';
import type { StackSelector } from '../synth/stack-selection';

/** `--app`, `--context/-c`, `--output`. */
export const appFlags = {
  app: Flags.string({
    char: 'a',
    description:
      'Command that runs the CDK app (e.g. "node bin/app.js"), or a cloud assembly directory. Default: "app" in cdk.json',
    helpGroup: 'APP',
  }),
  context: Flags.string({
    char: 'c',
    description: 'Context value for the app, as key=value (repeatable)',
    multiple: true,
    helpGroup: 'APP',
  }),
  output: Flags.string({
    char: 'o',
    description: 'Cloud assembly output directory (default: cdk.out)',
    helpGroup: 'APP',
  }),
};

/** `--all`, `--exclusively`. */
export const stackSelectionFlags = {
  all: Flags.boolean({ description: "Select all of the app's top-level stacks", default: false }),
  exclusively: Flags.boolean({
    char: 'e',
    description: 'Only the named stacks: do not add the stacks they depend on',
    default: false,
  }),
};

/** `--strict-packs`, for the commands that provision or plan (deploy, diff, destroy). */
export const packFlags = {
  'strict-packs': Flags.boolean({
    description:
      'Refuse to start when any provider pack failed to load or had a registration refused, not only a declared one; never move a resource whose pack is missing to Cloud Control',
  }),
  'cloud-control-only': Flags.boolean({
    description:
      'Send every resource to Cloud Control, whatever provider packs are installed (to compare, or to rule out a pack); recorded in state as usual',
  }),
};

/** The config settings the pack flags carry (absent flag: not given). */
export function packConfigFlags(flags: {
  'strict-packs'?: boolean;
  'cloud-control-only'?: boolean;
}): ConfigFlags {
  return {
    ...(flags['strict-packs'] ? { strictPacks: true } : {}),
    ...(flags['cloud-control-only'] ? { cloudControlOnly: true } : {}),
  };
}

/** The config settings the app flags carry. */
export function appConfigFlags(flags: { app?: string; context?: string[]; output?: string }): ConfigFlags {
  return { app: flags.app, context: flags.context, output: flags.output };
}

/** The stack selector the selection flags and the STACKS arguments describe. */
export function stackSelector(
  patterns: readonly string[],
  flags: { all?: boolean; exclusively?: boolean },
  whenEmpty: StackSelector['whenEmpty'] = 'single',
): StackSelector {
  return { patterns, all: flags.all, exclusively: flags.exclusively, whenEmpty };
}
