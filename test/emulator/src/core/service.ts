/**
 * The service module contract. A service is one folder under
 * `src/services/<name>/` whose `index.ts` exports a {@link ServiceModule}, and
 * one line in `src/services/index.ts`. The server, persistence, the control
 * API and Cloud Control know services only through this contract.
 */
import type { AccountRegistry } from './accounts';
import type { ConsistencySwitches } from './consistency';
import type { FaultMode } from './faults';
import type { EmulatorRequest, EmulatorResponse } from './http';
import type { ProtocolCodec } from './protocols/codec';
import type { ResourceProvider } from './resources';

/** Who calls, where: the SigV4 scope resolved to an account, and the request itself. */
export interface CallContext {
  account: string;
  region: string;
  accessKeyId: string;
  /** ARN of the caller (root or assumed role). */
  callerArn: string;
  callerUserId: string;
  requestId: string;
  /** `http://<Host>` the client used. */
  baseUrl: string;
  presigned: boolean;
  /** The raw request, for handlers that need more than the decoded input. */
  request: EmulatorRequest;
}

/**
 * One operation: the decoded input (the SDK command's input shape: Dates for
 * timestamps, Buffers for blobs) in, the output (the SDK command's output
 * shape) out. Throw an `AwsError` (`core/errors`) to answer an error; return
 * `rawResponse(...)` to answer a response written by hand.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OperationHandler<I = any> = (ctx: CallContext, input: I) => unknown;

export type Operations = Record<string, OperationHandler>;

/**
 * A service's resources as kept for `reset`, `--state-dir` and the inventory.
 * `snapshot()` returns JSON-serializable data that `restore()` reads back
 * (Dates and Buffers converted by the store itself).
 */
export interface ServiceStore {
  /** Forgets every resource (`POST /_emulator/reset`). */
  clear(): void;
  snapshot(): unknown;
  /** Reads a snapshot back into an empty store. */
  restore(saved: unknown): void;
  /**
   * Inventory items that are not resources of a Cloud Control type the
   * service owns (those are listed from its {@link ResourceProvider}s).
   */
  inventory?(view: InventoryView): InventoryItem[];
}

/** One resource as the control API's inventory lists it. */
export interface InventoryItem {
  account: string;
  region: string;
  /** CloudFormation type name, e.g. `AWS::S3::Bucket`. */
  type: string;
  /** Cloud Control identifier (primary identifier; multi-part joined with `|`). */
  identifier: string;
  properties: Record<string, unknown>;
}

/** What the inventory is rendered for: URLs the emulator serves use the caller's host. */
export interface InventoryView {
  baseUrl: string;
}

/**
 * Added latency per operation, for the `realistic` latency profile, with the
 * source of each figure. Cloud Control figures are per type and operation:
 * the time from CreateResource (etc.) to SUCCESS.
 */
export interface LatencyFigures {
  /** SDK operations in ms; `*` is the service's default. */
  operations?: Record<string, number>;
  /** Cloud Control request → SUCCESS in ms, by CloudFormation type. */
  resourceTypes?: Record<string, { create?: number; update?: number; delete?: number }>;
  /** Where the figures come from (documentation, published measurements). */
  sources: string[];
}

/** A route of the control API a service adds (`/_emulator/<service>/...`). */
export type ControlHandler = (
  req: EmulatorRequest,
  params: string[],
) => EmulatorResponse | Promise<EmulatorResponse>;

export interface ControlRouter {
  add(method: string, pattern: RegExp, handler: ControlHandler): void;
}

/** Run-time settings of a service, merged into `GET/PUT /_emulator/settings`. */
export interface ServiceSettings {
  read(): Record<string, unknown>;
  /** Applies the keys this service knows (throw a `BadRequest` AwsError for a bad value); ignores others. */
  update(patch: Record<string, unknown>): void;
  /** Back to the defaults (on reset). */
  reset(): void;
}

/** What the emulator lends a service. */
export interface Platform {
  readonly accounts: AccountRegistry;
  /** Modelled eventual consistency: switches a service registers behaviours under. */
  readonly consistency: ConsistencySwitches;
  /** Tells persistence that resources changed outside a request (e.g. a timer finished). */
  changed(): void;
  /** Cloud Control's view of the resource types services own (undefined: the generic store). */
  resourceProvider(typeName: string): ResourceProvider | undefined;
  /** Another service's `api` (for a service that reads another's store, e.g. Lambda code from S3). */
  api<T>(service: string): T;
  /** Options the emulator was started with. */
  readonly options: { schemasDir?: string };
}

/** One emulated service, as built for one emulator instance. */
export interface ServiceInstance {
  /** Parses requests and writes answers; one of `core/protocols` or the service's own. */
  readonly protocol: ProtocolCodec;
  /** Operation name (as the model names it) → handler. An operation not listed answers the codec's unknown-operation error. */
  readonly operations: Operations;
  readonly store?: ServiceStore;
  /** The Cloud Control types the service owns, mapped onto its store. */
  readonly resources?: readonly ResourceProvider[];
  /** Figures for the `realistic` latency profile. */
  readonly latency?: LatencyFigures;
  /** Fault modes beyond `error` and `drop`, by name (`POST /_emulator/faults` with `mode`). */
  readonly faultModes?: Record<string, FaultMode>;
  readonly settings?: ServiceSettings;
  /** What other services may use (`platform.api(name)`). */
  readonly api?: unknown;
  /** Adds the service's control routes. */
  control?(router: ControlRouter): void;
  /** Stops timers and child processes (the emulator is stopping); may resolve once they have ended. */
  stop?(): void | Promise<void>;
}

export interface ServiceModule {
  /** Short name used in request counts, latency, faults: `s3`, `sqs`, `cloudcontrol`. */
  readonly name: string;
  /** SigV4 signing names (credential scope) routed to the service: `cloudcontrolapi`. */
  readonly signingNames: readonly string[];
  /** Builds the service for one emulator. */
  create(platform: Platform): ServiceInstance;
}
