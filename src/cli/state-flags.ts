/**
 * Flags shared by every command that reads or writes cdkd state (the `state`
 * commands, bootstrap, force-unlock, and deploy / destroy / diff): which state
 * bucket and key prefix. Spread them into a command's `flags`.
 */
import { Flags } from '@oclif/core';
import type { ConfigFlags } from '../config/config';

/** `--state-bucket`, `--state-prefix`. */
export const stateFlags = {
  'state-bucket': Flags.string({
    description:
      'S3 bucket holding cdkd state (default: CDKD_STATE_BUCKET, cdk.json context.cdkd.stateBucket, then cdkd-state-<account>)',
    helpGroup: 'STATE',
  }),
  'state-prefix': Flags.string({
    description: 'Key prefix of stack records in the state bucket (default: cdkd)',
    helpGroup: 'STATE',
  }),
};

/** The config settings the state flags carry. */
export function stateConfigFlags(flags: { 'state-bucket'?: string; 'state-prefix'?: string }): ConfigFlags {
  return { stateBucket: flags['state-bucket'], statePrefix: flags['state-prefix'] };
}
