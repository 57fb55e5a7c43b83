/**
 * What deploy and destroy need for one invocation, built once: the client
 * factory, the state store, the provider registry (every installed pack's
 * `cdkd:providers` hook; refused while a declared pack is not ready), the
 * provisioner (with the Cloud Control timings of earlier runs, saved again on
 * close), the progress renderer, and Ctrl-C
 * handling (the first SIGINT/SIGTERM stops new work and lets the command save
 * state and release its lock; the second exits at once).
 */
import type { Config } from '@oclif/core';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig } from '../config/config';
import { ResourceProvisioner } from '../engine/provisioner';
import { pollHistoryPath, readPollHistory, writePollHistory } from '../provisioning/poll-history';
import { PollSchedule } from '../provisioning/poll-schedule';
import type { SchemaStore } from '../provisioning/schema-store';
import { openStateStore, createClientFactory } from '../state/state-store';
import type { StateStore } from '../state/state-store';
import { ProgressRenderer, chooseProgressMode } from '../ui/progress';
import type { IoHost, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { defaultEnvironmentOf, synthesize } from '../synth/synthesize';
import type { SynthesizedAssembly } from '../synth/cloud-assembly';
import { checkPacks, loadPacks } from './load-provider-packs';

export interface EngineSession {
  config: CdkdConfig;
  ioHost: IoHost;
  renderer: ProgressRenderer;
  logger: Logger;
  factory: AwsClientFactory;
  store: StateStore;
  /** The catalogue plus the org-internal types the packs bring. */
  schemas: SchemaStore;
  provisioner: ResourceProvisioner;
  /** Aborted by the first SIGINT / SIGTERM. */
  signal: AbortSignal;
  /** Synthesizes the app, with the caller's account and region as the default environment. */
  synthesize(): Promise<SynthesizedAssembly>;
  close(): void;
}

export interface EngineSessionOptions {
  config: CdkdConfig;
  oclifConfig: Config;
  /** `live`, `events`, or undefined (live on a TTY). */
  progress?: string;
  /** The command the interrupt hint names. Default: `cdkd force-unlock <stack>`. */
  unlockHint?: string;
  /** The command, for the message refusing packs that are not ready. */
  command: string;
}

export async function openEngineSession(options: EngineSessionOptions): Promise<EngineSession> {
  const { config } = options;
  const renderer = new ProgressRenderer({
    mode: chooseProgressMode(options.progress, Boolean(process.stderr.isTTY)),
    verbose: config.verbose,
  });
  const logger = createLogger(renderer);
  let registry, factory, store;
  try {
    // Packs first: a declared pack that is not ready refuses the command before any AWS call.
    const packs = await loadPacks(options.oclifConfig, config);
    checkPacks(packs, logger, { strict: config.strictPacks, command: options.command });
    registry = packs.registry;
    factory = await createClientFactory(config);
    store = await openStateStore({ config, logger, factory });
  } catch (err) {
    renderer.close();
    throw err;
  }
  const schemas = registry.schemas;
  const historyFile = pollHistoryPath(options.oclifConfig.cacheDir);
  const endpoint = factory.endpointOverride('CloudControl') ?? 'aws';
  const provisioner = new ResourceProvisioner({
    registry,
    schemas,
    factory,
    logger,
    cloudControl: { schedule: new PollSchedule({ history: readPollHistory(historyFile, endpoint) }) },
    onRetry: (logicalId, err, attempt) =>
      logger.debug(`${logicalId}: retrying after ${(err as Error).name ?? 'error'} (attempt ${attempt})`),
  });

  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      logger.warn(
        `${signal} received: finishing the operations in flight, saving state and releasing the lock. Press Ctrl-C again to quit at once.`,
      );
      controller.abort(new Error(`interrupted by ${signal}`));
      return;
    }
    renderer.close();
    process.stderr.write(
      `Quit without waiting. The stack lock may be left behind: run \`${options.unlockHint ?? 'cdkd force-unlock <stack>'}\` if the next command reports it.\n`,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  return {
    config,
    ioHost: renderer,
    renderer,
    logger,
    factory,
    store,
    schemas,
    provisioner,
    signal: controller.signal,
    synthesize: async () =>
      synthesize({ config, ioHost: renderer, defaultEnvironment: await defaultEnvironmentOf(factory) }),
    close: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        writePollHistory(historyFile, endpoint, provisioner.pollHistory());
      } catch (err) {
        logger.debug(`Could not save Cloud Control timings to ${historyFile}: ${(err as Error).message}`);
      }
      renderer.close();
    },
  };
}
