/**
 * What deploy, destroy, diff and watch need for one invocation, built once: the
 * client factory (acting as `--role-arn` when given), the state store, the
 * provider registry (every installed pack's `cdkd:providers` hook; refused
 * while a declared pack is not ready), the provisioner (with the Cloud Control
 * timings of earlier runs, saved again on close), the progress renderer, who
 * can answer questions, and Ctrl-C handling: the first SIGINT/SIGTERM stops
 * new work and lets the operations in flight finish; the second cancels them
 * (a Cloud Control wait is cancelled with CancelResourceRequest) and the
 * command saves state and releases its locks — every operation was announced
 * in the write-ahead log, so whatever was in flight is settled by the next
 * run; a third exits at once, naming the locks that may be left.
 */
import type { Config } from '@oclif/core';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CdkdConfig } from '../config/config';
import { STACK_EVENT } from '../engine/events';
import type { StackEvent } from '../engine/events';
import { ResourceProvisioner } from '../engine/provisioner';
import { pollHistoryPath, readPollHistory, writePollHistory } from '../provisioning/poll-history';
import { PollSchedule } from '../provisioning/poll-schedule';
import type { ProviderRegistry } from '../provisioning/provider-registry';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StateStore } from '../state/state-store';
import { ProgressRenderer, chooseProgressMode } from '../ui/progress';
import type { IoHost, IoMessage, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { synthesizeApp } from '../synth/synthesize';
import type { SynthesizedAssembly } from '../synth/cloud-assembly';
import type { Terminal } from './confirm';
import { openCommandAccess } from './command-access';
import type { CommandAccess } from './command-access';

export interface EngineSession {
  config: CdkdConfig;
  ioHost: IoHost;
  renderer: ProgressRenderer;
  logger: Logger;
  factory: AwsClientFactory;
  store: StateStore;
  /** The catalogue plus the org-internal types the packs bring. */
  schemas: SchemaStore;
  /** The provider packs' registrations of this invocation. */
  registry: ProviderRegistry;
  provisioner: ResourceProvisioner;
  terminal: Terminal;
  /** Aborted by the first SIGINT / SIGTERM: stop starting new work. */
  signal: AbortSignal;
  /** Aborted by the second: cancel the work in flight. */
  cancelSignal: AbortSignal;
  /** Synthesizes the app as every command does ({@link synthesizeApp}). */
  synthesize(): Promise<SynthesizedAssembly>;
  close(): void;
}

export interface EngineSessionOptions {
  config: CdkdConfig;
  oclifConfig: Config;
  terminal: Terminal;
  /** `--progress`: `bar` / `live`, `events`, `errors-only`, or undefined (live on a terminal). */
  progress?: string;
  /** Where messages go instead of the progress renderer (watch's compact view). */
  ioHost?: IoHost;
  /** The command, for the message refusing packs that are not ready. */
  command: string;
}

export async function openEngineSession(options: EngineSessionOptions): Promise<EngineSession> {
  const { config } = options;
  const renderer = new ProgressRenderer({
    mode: chooseProgressMode(options.progress, Boolean(process.stderr.isTTY), config.ci),
    verbose: config.verbose,
    color: config.color ?? Boolean(process.stderr.isTTY),
    // A pipe or file (CI logs, a wrapper) gets the lines of each event-loop turn in one write; a terminal line by line.
    batch: !process.stderr.isTTY,
  });
  const locked = new LockedStacks(options.ioHost ?? renderer);
  const logger = createLogger(locked);
  let access: CommandAccess;
  try {
    access = await openCommandAccess({
      config,
      oclifConfig: options.oclifConfig,
      logger,
      command: options.command,
    });
  } catch (err) {
    renderer.close();
    throw err;
  }
  const { registry, caller, factory, store } = access;
  const schemas = registry.schemas;
  const historyFile = pollHistoryPath(options.oclifConfig.cacheDir);
  const endpoint = factory.endpointOverride('CloudControl') ?? 'aws';
  const provisioner = new ResourceProvisioner({
    registry,
    schemas,
    factory,
    logger,
    cloudControl: { schedule: new PollSchedule({ history: readPollHistory(historyFile, endpoint) }) },
    customResources: { responses: store.bucket, timeoutSeconds: config.customResourceTimeoutSeconds },
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
        `${signal} received: finishing the operations in flight, saving state and releasing the locks. Press Ctrl-C again to cancel them.`,
      );
      controller.abort(new Error(`interrupted by ${signal}`));
      return;
    }
    if (interrupts === 2) {
      logger.warn(
        `${signal} received again: cancelling the operations in flight (the next run settles them), saving state and releasing the locks. Press Ctrl-C again to quit at once (locks may then be left behind).`,
      );
      cancel.abort(new Error(`cancelled by ${signal}`));
      return;
    }
    renderer.close();
    process.stderr.write(`Quit without waiting.${locked.unlockHint()}\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  return {
    config,
    ioHost: locked,
    renderer,
    logger,
    factory,
    store,
    schemas,
    registry,
    provisioner,
    terminal: options.terminal,
    signal: controller.signal,
    cancelSignal: cancel.signal,
    synthesize: () => synthesizeApp({ config, ioHost: locked, aws: caller }),
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

/**
 * Passes every message on, and keeps the stacks whose deploy or destroy has
 * started and not ended: the ones whose lock a hard exit may leave behind.
 */
class LockedStacks implements IoHost {
  private readonly stacks = new Map<string, { stackName: string; region: string }>();

  constructor(private readonly next: IoHost) {}

  notify(msg: IoMessage): void {
    if (msg.code === STACK_EVENT) {
      const e = msg.data as StackEvent;
      const key = `${e.stackName}|${e.region}`;
      if (e.phase === 'planned') this.stacks.set(key, { stackName: e.stackName, region: e.region });
      else if (e.phase !== 'started') this.stacks.delete(key);
    }
    this.next.notify(msg);
  }

  /** What to run if a lock stays behind; empty when no stack was being changed. */
  unlockHint(): string {
    const stacks = [...this.stacks.values()];
    if (stacks.length === 0) return '';
    const commands = stacks.map((s) => `cdkd force-unlock ${s.stackName} --region ${s.region}`);
    return ` The lock${stacks.length > 1 ? 's' : ''} of ${stacks.map((s) => s.stackName).join(', ')} may be left behind; if the next command reports ${stacks.length > 1 ? 'them' : 'it'}, run: ${commands.join('; ')}`;
  }
}
