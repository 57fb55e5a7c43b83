/**
 * A function's configuration as CreateFunction builds it and
 * UpdateFunctionConfiguration changes it: AWS's defaults, its validation and
 * error messages, and the members computed on read (state, update status).
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  CreateFunctionRequest,
  FunctionConfiguration,
  UpdateFunctionConfigurationRequest,
} from '@aws-sdk/client-lambda';
import { Runtime } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { FunctionVersion, LambdaFunction, StoredConfiguration, Transition } from './model';
import { lambdaTimestamp, validationError } from './names';

/** Runtimes Lambda no longer accepts for new functions or updates (deprecated, creation blocked). */
const BLOCKED_RUNTIMES = new Set([
  'nodejs',
  'nodejs4.3',
  'nodejs4.3-edge',
  'nodejs6.10',
  'nodejs8.10',
  'nodejs10.x',
  'nodejs12.x',
  'nodejs14.x',
  'python2.7',
  'python3.6',
  'python3.7',
  'ruby2.5',
  'ruby2.7',
  'go1.x',
  'java8',
  'dotnetcore1.0',
  'dotnetcore2.0',
  'dotnetcore2.1',
  'dotnetcore3.1',
  'provided',
]);
const RUNTIMES = new Set<string>(Object.values(Runtime));

/** Environment variable names the runtime sets itself (Lambda refuses them). */
export const RESERVED_ENVIRONMENT_KEYS = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
];

const ROLE_ARN = /^arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role\/?[a-zA-Z_0-9+=,.@\-_/]+$/;
const LAYER_VERSION_ARN = /^arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+$/;
const MAX_ENVIRONMENT_BYTES = 4096;

export const DEFAULTS = { Timeout: 3, MemorySize: 128, EphemeralStorage: 512 } as const;

/** The members of CreateFunction and UpdateFunctionConfiguration that both validate alike. */
type ConfigInput = Partial<
  Pick<
    CreateFunctionRequest,
    | 'Runtime'
    | 'Handler'
    | 'Role'
    | 'Description'
    | 'Timeout'
    | 'MemorySize'
    | 'VpcConfig'
    | 'Environment'
    | 'DeadLetterConfig'
    | 'KMSKeyArn'
    | 'TracingConfig'
    | 'Layers'
    | 'FileSystemConfigs'
    | 'ImageConfig'
    | 'EphemeralStorage'
    | 'SnapStart'
    | 'LoggingConfig'
  >
>;

/** Checks what a layer version ARN names, returning its code size (0 for another account's layer). */
export type LayerLookup = (arn: string) => number;

function checkRange(member: string, value: unknown, min: number, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw validationError(member, value, 'Member must be an integer');
  if (value < min)
    throw validationError(member, value, `Member must have value greater than or equal to ${min}`);
  if (value > max)
    throw validationError(member, value, `Member must have value less than or equal to ${max}`);
}

function checkRuntime(runtime: unknown): void {
  if (runtime === undefined) return;
  if (typeof runtime !== 'string' || !RUNTIMES.has(runtime))
    throw validationError(
      'runtime',
      runtime,
      `Member must satisfy enum value set: [${[...RUNTIMES].join(', ')}] or be a valid ARN`,
    );
  if (BLOCKED_RUNTIMES.has(runtime)) {
    throw new AwsError(
      'InvalidParameterValueException',
      `The runtime parameter of ${runtime} is no longer supported for creating or updating AWS Lambda functions. We recommend you use a supported runtime while creating or updating functions.`,
    );
  }
}

function checkEnvironment(variables: Record<string, string> | undefined): void {
  if (!variables) return;
  const reserved = Object.keys(variables).filter((k) => RESERVED_ENVIRONMENT_KEYS.includes(k));
  if (reserved.length)
    throw new AwsError(
      'InvalidParameterValueException',
      `Lambda was unable to configure your environment variables because the environment variables you have provided contains reserved keys that are currently not supported for modification. Reserved keys used in this request: ${reserved.join(', ')}`,
    );
  for (const key of Object.keys(variables))
    if (!/^[a-zA-Z]([a-zA-Z0-9_])+$/.test(key))
      throw validationError(
        'environment.variables',
        '[sensitive]',
        'Map keys must satisfy constraint: [Member must satisfy regular expression pattern: [a-zA-Z]([a-zA-Z0-9_])+]',
      );
  const measured = JSON.stringify(variables);
  if (Buffer.byteLength(measured) > MAX_ENVIRONMENT_BYTES)
    throw new AwsError(
      'InvalidParameterValueException',
      `Lambda was unable to configure your environment variables because the environment variables you have provided exceeded the 4KB limit. String measured: ${measured}`,
    );
}

/** Validates the members both operations share; `layers` resolves layer version ARNs. */
function validate(input: ConfigInput, layers: LayerLookup): void {
  checkRuntime(input.Runtime);
  if (input.Role !== undefined && (typeof input.Role !== 'string' || !ROLE_ARN.test(input.Role)))
    throw validationError(
      'role',
      input.Role,
      'Member must satisfy regular expression pattern: arn:(aws[a-zA-Z-]*)?:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+',
    );
  if (input.Handler !== undefined && (input.Handler.length > 128 || !/^[^\s]+$/.test(input.Handler)))
    throw validationError(
      'handler',
      input.Handler,
      'Member must satisfy regular expression pattern: [^\\s]+',
    );
  if (input.Description !== undefined && input.Description.length > 256)
    throw validationError(
      'description',
      input.Description,
      'Member must have length less than or equal to 256',
    );
  checkRange('timeout', input.Timeout, 1, 900);
  checkRange('memorySize', input.MemorySize, 128, 10240);
  checkRange('ephemeralStorage.size', input.EphemeralStorage?.Size, 512, 10240);
  checkEnvironment(input.Environment?.Variables);
  if (
    input.TracingConfig?.Mode !== undefined &&
    !['Active', 'PassThrough'].includes(input.TracingConfig.Mode)
  )
    throw validationError(
      'tracingConfig.mode',
      input.TracingConfig.Mode,
      'Member must satisfy enum value set: [Active, PassThrough]',
    );
  if (input.VpcConfig) {
    if ((input.VpcConfig.SubnetIds?.length ?? 0) > 16)
      throw validationError(
        'vpcConfig.subnetIds',
        input.VpcConfig.SubnetIds,
        'Member must have length less than or equal to 16',
      );
    if ((input.VpcConfig.SecurityGroupIds?.length ?? 0) > 5)
      throw validationError(
        'vpcConfig.securityGroupIds',
        input.VpcConfig.SecurityGroupIds,
        'Member must have length less than or equal to 5',
      );
  }
  if (input.Layers) {
    if (input.Layers.length > 5)
      throw new AwsError('InvalidParameterValueException', 'Cannot reference more than 5 layers.');
    for (const arn of input.Layers) {
      if (!LAYER_VERSION_ARN.test(arn))
        throw validationError(
          'layers',
          arn,
          'Member must satisfy constraint: [Member must satisfy regular expression pattern: arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+]',
        );
      layers(arn);
    }
  }
  const logging = input.LoggingConfig;
  if (logging) {
    if (logging.LogFormat !== undefined && !['Text', 'JSON'].includes(logging.LogFormat))
      throw validationError(
        'loggingConfig.logFormat',
        logging.LogFormat,
        'Member must satisfy enum value set: [Text, JSON]',
      );
    if ((logging.ApplicationLogLevel || logging.SystemLogLevel) && logging.LogFormat !== 'JSON')
      throw new AwsError(
        'InvalidParameterValueException',
        'To set ApplicationLogLevel or SystemLogLevel, LogFormat must be JSON.',
      );
  }
  if (
    input.SnapStart?.ApplyOn !== undefined &&
    !['None', 'PublishedVersions'].includes(input.SnapStart.ApplyOn)
  )
    throw validationError(
      'snapStart.applyOn',
      input.SnapStart.ApplyOn,
      'Member must satisfy enum value set: [PublishedVersions, None]',
    );
}

function loggingConfig(
  logging: ConfigInput['LoggingConfig'],
  functionName: string,
): NonNullable<StoredConfiguration['LoggingConfig']> {
  const format = logging?.LogFormat ?? 'Text';
  return {
    LogFormat: format,
    ...(format === 'JSON'
      ? {
          ApplicationLogLevel: logging?.ApplicationLogLevel ?? 'INFO',
          SystemLogLevel: logging?.SystemLogLevel ?? 'INFO',
        }
      : {}),
    LogGroup: logging?.LogGroup || `/aws/lambda/${functionName}`,
  };
}

function vpcConfig(vpc: ConfigInput['VpcConfig']): StoredConfiguration['VpcConfig'] {
  if (!vpc) return undefined;
  return {
    SubnetIds: vpc.SubnetIds ?? [],
    SecurityGroupIds: vpc.SecurityGroupIds ?? [],
    // The emulator does not look the VPC up from the subnets.
    VpcId: vpc.SubnetIds?.length ? 'vpc-emulated' : '',
    ...(vpc.Ipv6AllowedForDualStack !== undefined
      ? { Ipv6AllowedForDualStack: vpc.Ipv6AllowedForDualStack }
      : {}),
  };
}

function environment(variables: Record<string, string> | undefined): StoredConfiguration['Environment'] {
  return variables && Object.keys(variables).length ? { Variables: { ...variables } } : undefined;
}

/** The $LATEST configuration CreateFunction makes. */
export function createConfiguration(
  input: CreateFunctionRequest,
  name: string,
  arn: string,
  code: { CodeSha256: string; CodeSize: number },
  layers: LayerLookup,
): StoredConfiguration {
  validate(input, layers);
  const packageType = input.PackageType ?? 'Zip';
  if (packageType === 'Zip' && (!input.Runtime || !input.Handler))
    throw new AwsError(
      'InvalidParameterValueException',
      'Runtime and Handler are mandatory parameters for functions created with deployment packages.',
    );
  if (
    input.Architectures &&
    (input.Architectures.length !== 1 || !['x86_64', 'arm64'].includes(input.Architectures[0]!))
  )
    throw validationError(
      'architectures',
      input.Architectures,
      'Member must have length less than or equal to 1',
    );
  return {
    FunctionName: name,
    FunctionArn: arn,
    ...(input.Runtime ? { Runtime: input.Runtime } : {}),
    Role: input.Role,
    ...(input.Handler ? { Handler: input.Handler } : {}),
    CodeSize: code.CodeSize,
    Description: input.Description ?? '',
    Timeout: input.Timeout ?? DEFAULTS.Timeout,
    MemorySize: input.MemorySize ?? DEFAULTS.MemorySize,
    LastModified: lambdaTimestamp(),
    CodeSha256: code.CodeSha256,
    Version: '$LATEST',
    ...(input.VpcConfig ? { VpcConfig: vpcConfig(input.VpcConfig) } : {}),
    ...(input.DeadLetterConfig?.TargetArn
      ? { DeadLetterConfig: { TargetArn: input.DeadLetterConfig.TargetArn } }
      : {}),
    ...(environment(input.Environment?.Variables)
      ? { Environment: environment(input.Environment?.Variables) }
      : {}),
    ...(input.KMSKeyArn ? { KMSKeyArn: input.KMSKeyArn } : {}),
    TracingConfig: { Mode: input.TracingConfig?.Mode ?? 'PassThrough' },
    RevisionId: randomUUID(),
    ...(input.Layers?.length ? { Layers: input.Layers.map((Arn) => ({ Arn, CodeSize: layers(Arn) })) } : {}),
    ...(input.FileSystemConfigs?.length ? { FileSystemConfigs: input.FileSystemConfigs } : {}),
    PackageType: packageType,
    ...(input.ImageConfig ? { ImageConfigResponse: { ImageConfig: input.ImageConfig } } : {}),
    Architectures: input.Architectures ?? ['x86_64'],
    EphemeralStorage: { Size: input.EphemeralStorage?.Size ?? DEFAULTS.EphemeralStorage },
    SnapStart: { ApplyOn: input.SnapStart?.ApplyOn ?? 'None', OptimizationStatus: 'Off' },
    ...(input.Runtime
      ? {
          RuntimeVersionConfig: {
            RuntimeVersionArn: `arn:aws:lambda:${arn.split(':')[3]}::runtime:${createHash('sha256').update(input.Runtime).digest('hex')}`,
          },
        }
      : {}),
    LoggingConfig: loggingConfig(input.LoggingConfig, name),
    ...(input.CapacityProviderConfig ? { CapacityProviderConfig: input.CapacityProviderConfig } : {}),
    ...(input.DurableConfig ? { DurableConfig: input.DurableConfig } : {}),
    ...(input.TenancyConfig ? { TenancyConfig: input.TenancyConfig } : {}),
  };
}

/** UpdateFunctionConfiguration: members given replace the current ones; absent ones stay. */
export function updateConfiguration(
  current: StoredConfiguration,
  input: UpdateFunctionConfigurationRequest,
  layers: LayerLookup,
): StoredConfiguration {
  validate(input, layers);
  const next: StoredConfiguration = { ...current };
  if (input.Role !== undefined) next.Role = input.Role;
  if (input.Runtime !== undefined) next.Runtime = input.Runtime;
  if (input.Handler !== undefined) next.Handler = input.Handler;
  if (input.Description !== undefined) next.Description = input.Description;
  if (input.Timeout !== undefined) next.Timeout = input.Timeout;
  if (input.MemorySize !== undefined) next.MemorySize = input.MemorySize;
  if (input.VpcConfig !== undefined) next.VpcConfig = vpcConfig(input.VpcConfig);
  if (input.Environment?.Variables !== undefined) {
    next.Environment = environment(input.Environment.Variables);
    if (!next.Environment) delete next.Environment;
  }
  if (input.DeadLetterConfig !== undefined) {
    if (input.DeadLetterConfig.TargetArn)
      next.DeadLetterConfig = { TargetArn: input.DeadLetterConfig.TargetArn };
    else delete next.DeadLetterConfig;
  }
  if (input.KMSKeyArn !== undefined) {
    if (input.KMSKeyArn) next.KMSKeyArn = input.KMSKeyArn;
    else delete next.KMSKeyArn;
  }
  if (input.TracingConfig?.Mode !== undefined) next.TracingConfig = { Mode: input.TracingConfig.Mode };
  if (input.Layers !== undefined) {
    if (input.Layers.length) next.Layers = input.Layers.map((Arn) => ({ Arn, CodeSize: layers(Arn) }));
    else delete next.Layers;
  }
  if (input.FileSystemConfigs !== undefined) {
    if (input.FileSystemConfigs.length) next.FileSystemConfigs = input.FileSystemConfigs;
    else delete next.FileSystemConfigs;
  }
  // ImageConfig and LoggingConfig are replaced whole, as Lambda does.
  if (input.ImageConfig !== undefined) next.ImageConfigResponse = { ImageConfig: input.ImageConfig };
  if (input.EphemeralStorage?.Size !== undefined)
    next.EphemeralStorage = { Size: input.EphemeralStorage.Size };
  if (input.SnapStart?.ApplyOn !== undefined)
    next.SnapStart = { ApplyOn: input.SnapStart.ApplyOn, OptimizationStatus: 'Off' };
  if (input.LoggingConfig !== undefined)
    next.LoggingConfig = loggingConfig(input.LoggingConfig, current.FunctionName!);
  return touch(next);
}

/** A configuration after a change: new revision id and modification time. */
export function touch(configuration: StoredConfiguration): StoredConfiguration {
  return { ...configuration, RevisionId: randomUUID(), LastModified: lambdaTimestamp() };
}

/** Digest of what PublishVersion compares: code and configuration, not the revision or times. */
export function configurationDigest(configuration: StoredConfiguration): string {
  const { RevisionId: _r, LastModified: _l, FunctionArn: _a, Version: _v, ...rest } = configuration;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

export function newVersion(configuration: StoredConfiguration, transitionMs: number): FunctionVersion {
  return {
    configuration,
    digest: configurationDigest(configuration),
    ...(transitionMs > 0
      ? { transition: { kind: 'create', startedAt: Date.now(), durationMs: transitionMs } }
      : {}),
  };
}

/** True while a transition of this kind has not settled, given the transition time set now. */
export function inTransition(
  transition: Transition | undefined,
  kind: Transition['kind'],
  transitionMs: number,
  now = Date.now(),
): boolean {
  return (
    transition !== undefined &&
    transition.kind === kind &&
    now - transition.startedAt < Math.min(transition.durationMs, transitionMs)
  );
}

/**
 * Forgets a create or update that has settled, so a later, longer transition
 * time does not revive it. (A settled delete is for the owner to act on.)
 */
export function settle<T extends { transition?: Transition }>(
  holder: T,
  transitionMs: number,
  now = Date.now(),
): T {
  const t = holder.transition;
  if (t && t.kind !== 'delete' && !inTransition(t, t.kind, transitionMs, now)) delete holder.transition;
  return holder;
}

export function isPending(version: FunctionVersion, transitionMs: number, now = Date.now()): boolean {
  return inTransition(settle(version, transitionMs, now).transition, 'create', transitionMs, now);
}

export function isUpdating(version: FunctionVersion, transitionMs: number, now = Date.now()): boolean {
  return inTransition(settle(version, transitionMs, now).transition, 'update', transitionMs, now);
}

/** Marks an update started: InProgress until it settles. */
export function startUpdate(version: FunctionVersion, transitionMs: number): void {
  version.digest = configurationDigest(version.configuration);
  if (transitionMs > 0)
    version.transition = { kind: 'update', startedAt: Date.now(), durationMs: transitionMs };
  else delete version.transition;
}

/** State and update status as of `now`. */
export function renderConfiguration(
  version: FunctionVersion,
  transitionMs: number,
  now = Date.now(),
): FunctionConfiguration {
  const out: FunctionConfiguration = { ...version.configuration };
  if (isPending(version, transitionMs, now)) {
    out.State = 'Pending';
    out.StateReason = 'The function is being created.';
    out.StateReasonCode = 'Creating';
    return out;
  }
  out.State = 'Active';
  if (isUpdating(version, transitionMs, now)) {
    out.LastUpdateStatus = 'InProgress';
    out.LastUpdateStatusReason = 'The function is being created.';
    out.LastUpdateStatusReasonCode = 'Creating' as FunctionConfiguration['LastUpdateStatusReasonCode'];
  } else out.LastUpdateStatus = 'Successful';
  return out;
}

/** ResourceConflictException while the function is Pending or an update is in progress. */
export function assertNotBusy(fn: LambdaFunction, transitionMs: number): void {
  const latest = fn.latest;
  if (isPending(latest, transitionMs))
    throw new AwsError(
      'ResourceConflictException',
      'The operation cannot be performed at this time. The function is currently in the following state: Pending',
    );
  if (isUpdating(latest, transitionMs))
    throw new AwsError(
      'ResourceConflictException',
      `The operation cannot be performed at this time. An update is in progress for resource: ${latest.configuration.FunctionArn}`,
    );
}

/** PreconditionFailedException when a given RevisionId is not the current one. */
export function assertRevision(given: string | undefined, current: string | undefined): void {
  if (given !== undefined && given !== current)
    throw new AwsError(
      'PreconditionFailedException',
      'The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to retrieve the latest Revision Id',
    );
}
