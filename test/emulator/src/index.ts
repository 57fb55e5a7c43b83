/**
 * `@cdkd/aws-emulator`: a local, wire-compatible stand-in for the AWS APIs
 * cdkd calls. Start it in-process with {@link startEmulator}, or from the
 * command line with `aws-emulator --port 4566`.
 */
import { EmulatorControlClient } from './control/client';
import { StatePersistence } from './persistence';
import { EmulatorServer } from './server';
import { EmulatorState } from './state';
import type { LatencyProfileSpec } from './core/latency';
import type { ServiceModule } from './core/service';

export { EmulatorControlClient } from './control/client';
export type { EmulatorSettings, EmulatorStats, RequestCounts } from './control/client';
export type { TypeSettings } from './services/cloudcontrol/store';
export type { RateLimit, RateLimitsView } from './services/cloudcontrol/rate-limits';
export type { Fault, FaultSpec, FaultMode, FaultedCall, FaultOutcome } from './core/faults';
export type { LatencyRule, LatencyProfileSpec } from './core/latency';
export type { ConsistencyBehaviour, ConsistencySetting } from './core/consistency';
export type {
  CallContext,
  InventoryItem,
  InventoryView,
  LatencyFigures,
  OperationHandler,
  Operations,
  Platform,
  ServiceInstance,
  ServiceModule,
  ServiceSettings,
  ServiceStore,
} from './core/service';
export type { ResourceProvider, ResourceScope, StoredResource } from './core/resources';
export type { ProtocolCodec } from './core/protocols/codec';
export { AwsJsonCodec } from './core/protocols/aws-json';
export { AwsQueryCodec } from './core/protocols/aws-query';
export { RestJsonCodec } from './core/protocols/rest-json';
export { RestXmlCodec } from './core/protocols/rest-xml';
export { rawResponse } from './core/protocols/codec';
export { AwsError } from './core/errors';
export { alreadyExists, HandlerError, notFound, serviceFailure, writable } from './core/resources';
export type { SeededStack, StackOutput, StackSeed } from './services/cloudformation';

export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Default account id (default 123456789012). */
  account?: string;
  /** Folder to persist state in, so a restarted emulator keeps what was deployed. */
  stateDir?: string;
  /** Folder of hand-written resource schemas for Cloud Control (tests); default: `@aws-cdk/aws-service-spec`. */
  schemasDir?: string;
  /** Added latency: `zero` (default), `realistic`, or a flat profile (`flat:<callMs>:<cloudControlMs>` on the CLI). */
  latencyProfile?: LatencyProfileSpec;
  /** Service modules beside (or, by name, instead of) the built-in ones. */
  services?: readonly ServiceModule[];
}

export interface RunningEmulator {
  /** `http://<host>:<port>`: the value for `AWS_ENDPOINT_URL`. */
  url: string;
  port: number;
  /** Stops listening (and writes persisted state). */
  stop(): Promise<void>;
  control: EmulatorControlClient;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const state = new EmulatorState({
    account: options.account,
    schemasDir: options.schemasDir,
    services: options.services,
  });
  if (options.latencyProfile) state.applyLatencyProfile(options.latencyProfile);
  let persistence: StatePersistence | undefined;
  if (options.stateDir) {
    persistence = new StatePersistence(state, options.stateDir);
    persistence.load();
    // An explicit --account wins over the saved default account.
    if (options.account) state.accounts.defaultAccount = options.account;
    state.onChange(() => persistence!.changed());
  }
  const server = new EmulatorServer(state);
  const host = options.host ?? '127.0.0.1';
  const address = await server.listen(options.port ?? 0, host);
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${address.port}`;
  return {
    url,
    port: address.port,
    control: new EmulatorControlClient(url),
    stop: async () => {
      await server.close();
      state.stop();
      await persistence?.flush();
    },
  };
}
