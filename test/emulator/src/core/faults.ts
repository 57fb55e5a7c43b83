/**
 * Fault injection: chosen calls of any operation of any service answer an
 * error, take effect with their reply lost, or whatever a service's own fault
 * mode does. Faults match by service, operation and, optionally, members of
 * the decoded input (`match: { Key: "locks/app.json" }`, `typeName` for
 * Cloud Control's `TypeName`).
 */
import type { AwsError } from './errors';
import type { EmulatorResponse } from './http';
import { uuid } from './ids';
import type { CallContext } from './service';

/** How a fault is set up through the control API. */
export interface FaultSpec {
  /** Service short name (`s3`, `sts`, `cloudcontrol`, `cloudformation`, `sqs`, `ssm`, ...) or `*`. */
  service: string;
  /** Operation name (`PutObject`); absent or `*` for every operation of the service. */
  operation?: string;
  /**
   * `error` (default): answer with an error instead of running the operation.
   * `drop`: run the operation, then close the connection without answering (a lost reply).
   * `error-after`: run the operation, then answer the error (it took effect anyway).
   * Or a mode the service registers (its `faultModes`).
   */
  mode?: string;
  /** Error code (`ThrottlingException`, `SlowDown`, ...) or HTTP status (500, 503). Default 500. */
  error?: string | number;
  /** HTTP status for a named error code, when the default for that code is not wanted. */
  status?: number;
  message?: string;
  /** Affect only the next N matching calls. Default 1 when no probability is given. */
  count?: number;
  /** Affect each matching call with this probability (0..1), until the count runs out or the fault is removed. */
  probability?: number;
  /**
   * Draws for `probability` from a generator seeded with this number instead of
   * `Math.random`, so the sequence of fire / pass decisions repeats run to run.
   */
  seed?: number;
  /**
   * Fire at most this many times for one SDK call: every attempt of one `send`
   * carries the same `amz-sdk-invocation-id` header, so a client whose retries
   * outnumber this cap always gets through (calls without the header are not capped).
   */
  maxPerCall?: number;
  /** For Cloud Control: only requests for this resource type (same as `match: { TypeName }`). */
  typeName?: string;
  /** Only calls whose decoded input has these values (top-level members, compared as strings). */
  match?: Record<string, string>;
  /** Parameters of a service's own fault mode. */
  params?: Record<string, unknown>;
}

export interface Fault extends FaultSpec {
  id: string;
  mode: string;
  /** Calls left (undefined = unlimited). */
  remaining?: number;
  /** How many times it fired. */
  fired: number;
}

/** mulberry32: a small seeded generator, enough for reproducible fault draws. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the registry keeps beside a fault: its draw source and per-call counts. */
interface FaultDraws {
  random: () => number;
  perCall: Map<string, number>;
}

/** A call a fault fired on, handed to its mode. */
export interface FaultedCall {
  fault: Fault;
  service: string;
  operation: string;
  input: unknown;
  ctx: CallContext;
  /** Runs the operation; resolves with its response (an error response when it failed). */
  run(): Promise<EmulatorResponse>;
  /** The error the fault names, in the service's codes. */
  error(): AwsError;
}

/** What to answer: a response, an error, or nothing at all (the connection is closed). */
export type FaultOutcome = { response: EmulatorResponse } | { error: AwsError } | 'drop';

export type FaultMode = (call: FaultedCall) => Promise<FaultOutcome>;

/** The modes every service has. */
export const BUILTIN_FAULT_MODES: Record<string, FaultMode> = {
  error: (call) => Promise.resolve({ error: call.error() }),
  drop: async (call) => {
    await call.run();
    return 'drop';
  },
  'error-after': async (call) => {
    await call.run();
    return { error: call.error() };
  },
};

/** Default HTTP status of well-known error codes. */
const CODE_STATUS: Record<string, number> = {
  SlowDown: 503,
  ServiceUnavailable: 503,
  ServiceUnavailableException: 503,
  RequestLimitExceeded: 503,
  InternalError: 500,
  InternalFailure: 500,
  InternalServerError: 500,
  InternalServiceError: 500,
  ServiceInternalError: 500,
  ConditionalRequestConflict: 409,
  ConcurrentModificationException: 400,
  ThrottlingException: 400,
  Throttling: 400,
  ThrottledException: 400,
  TooManyRequestsException: 400,
  RequestThrottled: 400,
  RequestTimeout: 400,
  AccessDenied: 403,
  AccessDeniedException: 403,
};

export function statusOfCode(code: string): number {
  return CODE_STATUS[code] ?? 400;
}

function matches(fault: Fault, input: unknown): boolean {
  const wanted: Record<string, string> = {
    ...(fault.typeName ? { TypeName: fault.typeName } : {}),
    ...fault.match,
  };
  const keys = Object.keys(wanted);
  if (!keys.length) return true;
  if (!input || typeof input !== 'object') return false;
  const record = input as Record<string, unknown>;
  return keys.every((k) => record[k] !== undefined && String(record[k]) === wanted[k]);
}

export class FaultRegistry {
  private faults: Fault[] = [];
  private readonly draws = new WeakMap<Fault, FaultDraws>();

  add(spec: FaultSpec): Fault {
    const fault: Fault = {
      ...spec,
      id: uuid(),
      mode: spec.mode ?? 'error',
      remaining: spec.count ?? (spec.probability === undefined ? 1 : undefined),
      fired: 0,
    };
    this.draws.set(fault, {
      random: spec.seed === undefined ? Math.random : seededRandom(spec.seed),
      perCall: new Map(),
    });
    this.faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  /** True when some fault may fire for the service (lets the server skip the lookup). */
  any(): boolean {
    return this.faults.length > 0;
  }

  /**
   * The fault that fires for this call, if any (consumes one of its calls).
   * `invocationId`: the SDK call the request is an attempt of, for `maxPerCall`.
   */
  take(service: string, operation: string, input: unknown, invocationId?: string): Fault | undefined {
    if (!this.faults.length) return undefined;
    for (const fault of this.faults) {
      if (fault.service !== '*' && fault.service !== service) continue;
      if (fault.operation && fault.operation !== '*' && fault.operation !== operation) continue;
      if (!matches(fault, input)) continue;
      const draws = this.draws.get(fault)!;
      const firedForCall = invocationId ? (draws.perCall.get(invocationId) ?? 0) : 0;
      if (fault.maxPerCall !== undefined && invocationId && firedForCall >= fault.maxPerCall) continue;
      if (fault.probability !== undefined && draws.random() >= fault.probability) continue;
      if (invocationId && fault.maxPerCall !== undefined) draws.perCall.set(invocationId, firedForCall + 1);
      fault.fired++;
      if (fault.remaining !== undefined) {
        fault.remaining--;
        if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
      }
      return fault;
    }
    return undefined;
  }
}
