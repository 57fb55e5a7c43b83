/**
 * What the Lambda service keeps, in the API's own shapes where it can: a
 * function's configuration is stored as the `FunctionConfiguration` the API
 * returns, minus the members computed when it is read (state, update status).
 * Everything here is JSON, so `--state-dir` stores it as it is.
 */
import type {
  AliasRoutingConfiguration,
  Cors,
  DestinationConfig,
  EventSourceMappingConfiguration,
  FunctionConfiguration,
  FunctionScalingConfig,
} from '@aws-sdk/client-lambda';

/** A function configuration as stored: the members reads compute are left out. */
export type StoredConfiguration = Omit<
  FunctionConfiguration,
  | 'State'
  | 'StateReason'
  | 'StateReasonCode'
  | 'LastUpdateStatus'
  | 'LastUpdateStatusReason'
  | 'LastUpdateStatusReasonCode'
>;

/**
 * A create or update that takes a while to settle: the function is Pending
 * (or its update InProgress) until `durationMs` — or the transition time the
 * emulator is set to now, if shorter — has passed since `startedAt`.
 */
export interface Transition {
  kind: 'create' | 'update' | 'delete';
  /** Epoch ms. */
  startedAt: number;
  durationMs: number;
}

/** `$LATEST` or a published version. */
export interface FunctionVersion {
  configuration: StoredConfiguration;
  transition?: Transition;
  /** Digest of code and configuration: PublishVersion publishes only when it changed. */
  digest: string;
}

export interface AliasRecord {
  Name: string;
  AliasArn: string;
  FunctionVersion: string;
  Description: string;
  RoutingConfig?: AliasRoutingConfiguration;
  RevisionId: string;
}

/** One statement of a resource-based policy, as GetPolicy writes it. */
export interface PolicyStatement {
  Sid: string;
  Effect: 'Allow';
  Principal: string | Record<string, string>;
  Action: string;
  Resource: string;
  Condition?: Record<string, Record<string, string>>;
}

export interface PolicyRecord {
  statements: PolicyStatement[];
  RevisionId: string;
}

export interface UrlRecord {
  FunctionUrl: string;
  FunctionArn: string;
  AuthType: string;
  Cors?: Cors;
  InvokeMode: string;
  CreationTime: string;
  LastModifiedTime: string;
}

export interface InvokeConfigRecord {
  FunctionArn: string;
  MaximumRetryAttempts?: number;
  MaximumEventAgeInSeconds?: number;
  DestinationConfig?: DestinationConfig;
  /** Epoch seconds. */
  LastModified: number;
}

/** Settings with operations of their own (see function-settings.ts), by qualifier where they have one. */
export interface FunctionSettings {
  recursiveLoop?: string;
  runtimeManagement?: Record<string, { UpdateRuntimeOn: string; RuntimeVersionArn?: string }>;
  codeSigningConfigArn?: string;
  scaling?: Record<string, FunctionScalingConfig>;
  provisionedConcurrency?: Record<string, { requested: number; LastModified: string }>;
}

export interface LambdaFunction {
  account: string;
  region: string;
  name: string;
  /** `$LATEST`. */
  latest: FunctionVersion;
  /** Published versions by number ("1", "2", ...). */
  versions: Record<string, FunctionVersion>;
  /** The number the next published version gets (never reused). */
  nextVersion: number;
  aliases: Record<string, AliasRecord>;
  /** Resource-based policies by qualifier (`''` for the unqualified function). */
  policies: Record<string, PolicyRecord>;
  /** Function URLs by qualifier (`''` for the unqualified function). */
  urls: Record<string, UrlRecord>;
  /** Asynchronous invocation configurations by qualifier (`$LATEST`, a version or an alias). */
  invokeConfigs: Record<string, InvokeConfigRecord>;
  reservedConcurrency?: number;
  settings: FunctionSettings;
  tags: Record<string, string>;
}

/** An event source mapping: the API's shape, `LastModified` as epoch seconds. */
export interface EventSourceMappingRecord extends Omit<EventSourceMappingConfiguration, 'LastModified'> {
  account: string;
  region: string;
  UUID: string;
  LastModified: number;
  /** The last create or update (Creating/Updating until it settles). */
  transition?: Transition;
  /** The state the mapping settles in (Enabled or Disabled). */
  settledState: 'Enabled' | 'Disabled';
  tags: Record<string, string>;
}

export interface LayerVersionRecord {
  Version: number;
  Description?: string;
  /** ISO 8601, `2018-11-27T15:10:45.123+0000`. */
  CreatedDate: string;
  CompatibleRuntimes?: string[];
  CompatibleArchitectures?: string[];
  LicenseInfo?: string;
  CodeSha256: string;
  CodeSize: number;
}

export interface LayerRecord {
  account: string;
  region: string;
  name: string;
  /** Never reused, even after a version is deleted. */
  nextVersion: number;
  versions: Record<string, LayerVersionRecord>;
}

/** One log event as CloudWatch Logs keeps it. */
export interface LogEvent {
  timestamp: number;
  message: string;
}
