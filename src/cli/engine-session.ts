/**
 * What deploy, destroy and diff need for one invocation, built once: the client
 * factory, the state store, the provider registry (every installed pack's
 * `cdkd:providers` hook), the provisioner, the progress renderer, and Ctrl-C
 * handling: the first SIGINT/SIGTERM stops new work and lets the operations in
 * flight finish; the second cancels them (a Cloud Control wait is cancelled
 * with CancelResourceRequest) and the command saves state and releases its lock
 * — every operation was announced in the write-ahead log, so whatever was in
 * flight is settled by the next run; a third exits at once.
 */
import type { Config } from '@oclif/core';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig } from '../config/config';
import { ResourceProvisioner } from '../engine/provisioner';
import { SchemaStore } from '../provisioning/schema-store';
import { openStateStore, createClientFactory } from '../state/state-store';
import type { StateStore } from '../state/state-store';
import { ProgressRenderer, chooseProgressMode } from '../ui/progress';
import type { IoHost, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { defaultEnvironmentOf, synthesize } from '../synth/synthesize';
import type { SynthesizedAssembly } from '../synth/cloud-assembly';
import { loadProviderRegistry } from './load-provider-packs';

export interface EngineSession {
  config: CdkdConfig;
  ioHost: IoHost;
  renderer: ProgressRenderer;
  logger: Logger;
  factory: AwsClientFactory;
  store: StateStore;
  schemas: SchemaStore;
  provisioner: ResourceProvisioner;
  /** Aborted by the first SIGINT / SIGTERM: stop starting new work. */
  signal: AbortSignal;
  /** Aborted by the second: cancel the work in flight. */
  cancelSignal: AbortSignal;
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
}

export async function openEngineSession(options: EngineSessionOptions): Promise<EngineSession> {
  const { config } = options;
  const renderer = new ProgressRenderer({
    mode: chooseProgressMode(options.progress, Boolean(process.stderr.isTTY)),
    verbose: config.verbose,
  });
  const logger = createLogger(renderer);
  const factory = await createClientFactory(config);
  const store = await openStateStore({ config, logger, factory });
  const schemas = SchemaStore.default();
  const registry = await loadProviderRegistry(options.oclifConfig, { schemas });
  for (const problem of registry.problems) logger.warn(problem.message);
  const provisioner = new ResourceProvisioner({
    registry,
    schemas,
    factory,
    logger,
    onRetry: (logicalId, err, attempt) =>
      logger.debug(`${logicalId}: retrying after ${(err as Error).name ?? 'error'} (attempt ${attempt})`),
  });

  const controller = new AbortController();
  const cancel = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      logger.warn(
        `${signal} received: finishing the operations in flight, saving state and releasing the lock. Press Ctrl-C again to cancel them.`,
      );
      controller.abort(new Error(`interrupted by ${signal}`));
      return;
    }
    if (interrupts === 2) {
      logger.warn(
        `${signal} received again: cancelling the operations in flight (the next run settles them), saving state and releasing the lock. Press Ctrl-C again to quit at once.`,
      );
      cancel.abort(new Error(`cancelled by ${signal}`));
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
    cancelSignal: cancel.signal,
    synthesize: async () =>
      synthesize({ config, ioHost: renderer, defaultEnvironment: await defaultEnvironmentOf(factory) }),
    close: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      renderer.close();
    },
  };
}
