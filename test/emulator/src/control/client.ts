/**
 * A typed client for the control API, for tests and scripts. Works against an
 * emulator in the same process or one started as a separate process.
 */
import type { Fault, FaultSpec } from '../core/faults';
import type { LatencyRule } from '../core/latency';
import type { ConsistencySetting } from '../core/consistency';
import type { LatencyProfileSpec } from '../core/latency';
import type { InventoryItem } from '../core/service';
import type { SeededStack, StackSeed } from '../services/cloudformation';
import type { TypeSettings } from '../services/cloudcontrol/store';
import type { RateLimit, RateLimitsView } from '../services/cloudcontrol/rate-limits';

/** Settings of the whole emulator (`GET /_emulator/settings`). */
export interface EmulatorSettings {
  accountId: string;
  /** How long SQS refuses a deleted queue's name (QueueDeletedRecently); AWS: 60000. */
  sqsDeleteCooldownMs: number;
  /**
   * How long a DynamoDB table or index stays CREATING, UPDATING or DELETING (ms, default 0: the
   * next read sees it settled). A large value holds it there; setting 0 settles it.
   */
  dynamodbStatusDelayMs: number;
  /** How many trailing requests each DynamoDB batch call leaves unprocessed (default 0). */
  dynamodbBatchUnprocessed: number;
  /** Where Cloud Control's resource schemas come from. */
  schemas: string;
  /** How long a new Lambda function stays Pending and an update InProgress (ms); default 0. */
  lambdaStateTransitionMs: number;
  /**
   * How long Step Functions' Retry and Wait times last: N seconds take N x this many real
   * seconds (default 1, as AWS; 0: no waiting).
   */
  stepFunctionsTimeScale: number;
}

/** One log stream of a function, as the Lambda service keeps it (while no Logs service does). */
export interface LambdaLogStream {
  logStreamName: string;
  events: Array<{ timestamp: number; message: string }>;
}

export interface RequestCounts {
  total: number;
  /** `"<service>:<Operation>"` → count, e.g. `"s3:PutObject"`. */
  byOperation: Record<string, number>;
  /**
   * Resource type → `"<service>:<Operation>"` → count, for the requests that
   * name a type (Cloud Control's `TypeName`), e.g.
   * `{ "AWS::SQS::Queue": { "cloudcontrol:CreateResource": 1 } }`.
   */
  byResourceType: Record<string, Record<string, number>>;
}

/** Resource use of the emulator's process (`GET /_emulator/stats`). */
export interface EmulatorStats {
  uptimeMs: number;
  /** CPU time of the whole process (all of it is the emulator when it runs as its own process). */
  cpuUserMs: number;
  cpuSystemMs: number;
  rssBytes: number;
  /** Requests served since start or the last clear. */
  requests: number;
  /** AWS requests whose headers arrived and that are not answered yet. */
  inFlight: number;
}

export class EmulatorControlClient {
  private readonly base: string;

  /** @param baseUrl the emulator's URL, e.g. `http://127.0.0.1:4566`. */
  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** True when the emulator answers `GET /_emulator/health` with 200. */
  async health(): Promise<boolean> {
    try {
      const res = await fetch(`${this.base}/_emulator/health`);
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** CPU and memory of the emulator's process, for benchmarks. */
  stats(): Promise<EmulatorStats> {
    return this.call('GET', '/stats');
  }

  /** Forgets every resource, request count, latency rule, fault and seeded stack. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }

  /** Every resource of every service, in every account and region. */
  inventory(): Promise<InventoryItem[]> {
    return this.call('GET', '/inventory');
  }

  requests(): Promise<RequestCounts> {
    return this.call('GET', '/requests');
  }

  async clearRequests(): Promise<void> {
    await this.call('DELETE', '/requests');
  }

  /** Sets added latency for a service (and operation); `ms: 0` removes the rule. */
  setLatency(rule: LatencyRule | LatencyRule[]): Promise<LatencyRule[]> {
    return this.call('PUT', '/latency', rule);
  }

  latency(): Promise<LatencyRule[]> {
    return this.call('GET', '/latency');
  }

  async clearLatency(): Promise<void> {
    await this.call('DELETE', '/latency');
  }

  /** Injects a fault; returns it with its id. */
  addFault(spec: FaultSpec): Promise<Fault> {
    return this.call('POST', '/faults', spec);
  }

  faults(): Promise<Fault[]> {
    return this.call('GET', '/faults');
  }

  async removeFault(id: string): Promise<void> {
    await this.call('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  /** Moves the emulator's clock (S3 Last-Modified, the Date header) `offsetMs` ahead of the host's. */
  async setClockOffset(offsetMs: number): Promise<void> {
    await this.call('PUT', '/clock', { offsetMs });
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }

  /** The default account (used by any access key that is not an assumed role's). */
  async accountId(): Promise<string> {
    return (await this.call<{ accountId: string }>('GET', '/account')).accountId;
  }

  async setAccountId(accountId: string): Promise<void> {
    await this.call('PUT', '/account', { accountId });
  }

  /** Seeds (or replaces) a CloudFormation stack that DescribeStacks and ListExports report. */
  seedStack(seed: StackSeed): Promise<SeededStack> {
    return this.call('POST', '/cloudformation/stacks', seed);
  }

  stacks(): Promise<SeededStack[]> {
    return this.call('GET', '/cloudformation/stacks');
  }

  async removeStack(stackName: string, options: { account?: string; region?: string } = {}): Promise<void> {
    const q = new URLSearchParams();
    if (options.account) q.set('account', options.account);
    if (options.region) q.set('region', options.region);
    const suffix = q.size ? `?${q.toString()}` : '';
    await this.call('DELETE', `/cloudformation/stacks/${encodeURIComponent(stackName)}${suffix}`);
  }

  /** Seeds (or overwrites) an SSM parameter, reserved names such as `/aws/service/...` included. */
  seedParameter(parameter: {
    name: string;
    value: string;
    type?: 'String' | 'StringList' | 'SecureString';
    account?: string;
    region?: string;
  }): Promise<{ name: string; version: number }> {
    return this.call('POST', '/ssm/parameters', parameter);
  }

  /**
   * Adds an AWS managed policy (`arn:aws:iam::aws:policy<path><name>`) beyond the built-in set,
   * for apps that attach one the emulator does not know. `document` defaults to allow-all.
   */
  seedAwsManagedPolicy(policy: {
    name: string;
    path?: string;
    description?: string;
    document?: unknown;
  }): Promise<{ arn: string }> {
    return this.call('POST', '/iam/aws-managed-policies', policy);
  }

  /**
   * Cloud Control behaviour of a resource type (`*` for every type): latency
   * from request to SUCCESS, non-provisionable (UnsupportedActionException),
   * or requests that fail with a handler error code. Merged with earlier settings.
   */
  setTypeSettings(typeName: string, settings: TypeSettings): Promise<TypeSettings> {
    return this.call('PUT', `/cloudcontrol/types/${encodeURIComponent(typeName)}`, settings);
  }

  /** Shorthand: the time Cloud Control takes from CreateResource (etc.) to SUCCESS for a type. */
  setTypeLatency(typeName: string, latencyMs: number): Promise<TypeSettings> {
    return this.setTypeSettings(typeName, { latencyMs });
  }

  /** Shorthand: make a type non-provisionable (Cloud Control answers UnsupportedActionException). */
  setTypeProvisionable(typeName: string, provisionable: boolean): Promise<TypeSettings> {
    return this.setTypeSettings(typeName, { provisionable });
  }

  /**
   * Cloud Control's modelled request-rate limits: switch them on or off, and
   * set `{ rate, burst }` per operation (`null` removes one). Answers the
   * limits and the throttled counts.
   */
  setCloudControlRateLimits(update: {
    enabled?: boolean;
    limits?: Record<string, RateLimit | null>;
  }): Promise<RateLimitsView> {
    return this.call('PUT', '/cloudcontrol/rate-limits', update);
  }

  /** The rate limits and how many calls each operation had throttled since the last reset. */
  cloudControlRateLimits(): Promise<RateLimitsView> {
    return this.call('GET', '/cloudcontrol/rate-limits');
  }

  typeSettings(): Promise<Record<string, TypeSettings>> {
    return this.call('GET', '/cloudcontrol/types');
  }

  async clearTypeSettings(typeName?: string): Promise<void> {
    await this.call(
      'DELETE',
      typeName ? `/cloudcontrol/types/${encodeURIComponent(typeName)}` : '/cloudcontrol/types',
    );
  }

  /** Applies a latency profile (replacing latency rules and Cloud Control type latencies). */
  setLatencyProfile(
    profile: LatencyProfileSpec,
  ): Promise<{ profile: LatencyProfileSpec; rules: LatencyRule[] }> {
    return this.call('PUT', '/latency/profile', profile);
  }

  latencyProfile(): Promise<LatencyProfileSpec> {
    return this.call('GET', '/latency/profile');
  }

  /** Every modelled eventual-consistency behaviour and whether it is on. */
  consistency(): Promise<ConsistencySetting[]> {
    return this.call('GET', '/consistency');
  }

  /** Switches a behaviour on or off (and sets its lag). */
  setConsistency(
    name: string,
    setting: { enabled?: boolean; delayMs?: number },
  ): Promise<ConsistencySetting> {
    return this.call('PUT', `/consistency/${encodeURIComponent(name)}`, setting);
  }

  settings(): Promise<EmulatorSettings> {
    return this.call('GET', '/settings');
  }

  updateSettings(
    settings: Partial<
      Pick<
        EmulatorSettings,
        | 'sqsDeleteCooldownMs'
        | 'lambdaStateTransitionMs'
        | 'dynamodbStatusDelayMs'
        | 'dynamodbBatchUnprocessed'
        | 'stepFunctionsTimeScale'
      >
    >,
  ): Promise<EmulatorSettings> {
    return this.call('PUT', '/settings', settings);
  }

  /** A Lambda function's log streams (by function name, or `{ logGroupName }`), kept while no Logs service keeps them. */
  lambdaLogs(
    target: string | { logGroupName: string },
    options: { account?: string; region?: string } = {},
  ): Promise<LambdaLogStream[]> {
    const q = new URLSearchParams(typeof target === 'string' ? { function: target } : target);
    if (options.account) q.set('account', options.account);
    if (options.region) q.set('region', options.region);
    return this.call('GET', `/lambda/logs?${q.toString()}`);
  }

  /** Resolves when no Step Functions execution is running. */
  async waitForExecutions(): Promise<void> {
    await this.call('POST', '/stepfunctions/executions/wait');
  }

  /** Resolves when no asynchronous (Event) Lambda invocation is running. */
  async waitForLambdaInvocations(): Promise<void> {
    await this.call('POST', '/lambda/invocations/wait');
  }

  /** Any control route, for routes this client does not wrap yet. */
  async call<T>(method: string, path: string, payload?: unknown): Promise<T> {
    const res = await fetch(`${this.base}/_emulator${path}`, {
      method,
      headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await res.text();
    const value = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const message = (value as { message?: string } | undefined)?.message ?? text;
      throw new Error(`emulator control ${method} ${path} failed (${res.status}): ${message}`);
    }
    return value as T;
  }
}
