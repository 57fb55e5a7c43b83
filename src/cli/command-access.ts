/**
 * What every command that reads the app against state opens first: the
 * provider packs (a declared pack that is not ready refuses the command before
 * any AWS call), the caller's client factory, the factory acting as
 * `--role-arn`, and the state store. One opening, so the order and the pack
 * check are the same for deploy, destroy, diff, watch and scrub.
 */
import type { Config } from '@oclif/core';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig } from '../config/config';
import type { ProviderRegistry } from '../provisioning/provider-registry';
import { actingAs, createClientFactory, openStateStore } from '../state/state-store';
import type { StateStore } from '../state/state-store';
import type { Logger } from '../util/io-host';
import { checkPacks, loadPacks } from './load-provider-packs';

export interface CommandAccess {
  /** Every installed pack's registrations (and the schemas of the types they bring). */
  registry: ProviderRegistry;
  /**
   * The caller's own clients: the app is synthesized with the caller's
   * environment, as the CDK CLI and `cdkd synth` do.
   */
  caller: AwsClientFactory;
  /** The clients AWS calls go through (`--role-arn` when given). */
  factory: AwsClientFactory;
  store: StateStore;
}

export async function openCommandAccess(options: {
  config: CdkdConfig;
  oclifConfig: Config;
  logger: Logger;
  /** The command, for the message refusing packs that are not ready. */
  command: string;
}): Promise<CommandAccess> {
  const { config, logger } = options;
  const packs = await loadPacks(options.oclifConfig, config);
  checkPacks(packs, logger, { strict: config.strictPacks, command: options.command });
  const caller = await createClientFactory(config);
  const factory = actingAs(caller, config);
  const store = await openStateStore({ config, logger, factory });
  return { registry: packs.registry, caller, factory, store };
}
