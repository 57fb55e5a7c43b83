/**
 * AWS::Lambda::Function properties ↔ the Lambda API: CreateFunction's input,
 * UpdateFunctionConfiguration's input with CloudFormation's removal semantics
 * (a property removed from the template goes back to Lambda's default — the
 * update API leaves absent members as they are), and the configuration read
 * back in template shape.
 */
import type {
  CreateFunctionRequest,
  FunctionConfiguration,
  UpdateFunctionConfigurationRequest,
} from '@aws-sdk/client-lambda';

type Props = Record<string, unknown>;

/** Members of UpdateFunctionConfiguration, by the template property that sets each. */
const CONFIGURATION_MEMBERS: ReadonlyArray<
  [property: string, member: keyof UpdateFunctionConfigurationRequest]
> = [
  ['Role', 'Role'],
  ['Runtime', 'Runtime'],
  ['Handler', 'Handler'],
  ['Description', 'Description'],
  ['Timeout', 'Timeout'],
  ['MemorySize', 'MemorySize'],
  ['VpcConfig', 'VpcConfig'],
  ['Environment', 'Environment'],
  ['DeadLetterConfig', 'DeadLetterConfig'],
  ['KmsKeyArn', 'KMSKeyArn'],
  ['TracingConfig', 'TracingConfig'],
  ['Layers', 'Layers'],
  ['FileSystemConfigs', 'FileSystemConfigs'],
  ['ImageConfig', 'ImageConfig'],
  ['EphemeralStorage', 'EphemeralStorage'],
  ['SnapStart', 'SnapStart'],
  ['LoggingConfig', 'LoggingConfig'],
  ['CapacityProviderConfig', 'CapacityProviderConfig'],
  ['DurableConfig', 'DurableConfig'],
];

/**
 * What UpdateFunctionConfiguration needs to put a removed property back to
 * Lambda's default (Lambda API reference, CreateFunction defaults; an empty
 * value clears Description, KMSKeyArn, the dead-letter target, layers, file
 * systems, VPC attachment and environment).
 */
export const CONFIGURATION_RESETS: Readonly<Record<string, unknown>> = {
  Description: '',
  Timeout: 3,
  MemorySize: 128,
  VpcConfig: { SubnetIds: [], SecurityGroupIds: [] },
  Environment: { Variables: {} },
  DeadLetterConfig: { TargetArn: '' },
  KmsKeyArn: '',
  TracingConfig: { Mode: 'PassThrough' },
  Layers: [],
  FileSystemConfigs: [],
  ImageConfig: {},
  EphemeralStorage: { Size: 512 },
  SnapStart: { ApplyOn: 'None' },
  // LoggingConfig is replaced whole: Text alone also puts the log group back to /aws/lambda/<name>.
  LoggingConfig: { LogFormat: 'Text' },
};

/** Properties Lambda cannot take back once set (no API removes them in place); a removal is reported. */
export const NOT_RESETTABLE = ['CapacityProviderConfig', 'DurableConfig', 'FunctionScalingConfig'];

/** An Environment as Lambda takes it: a present block without Variables still clears them. */
function environment(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const variables = (value as { Variables?: Record<string, unknown> }).Variables ?? {};
  return { Variables: Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(v)])) };
}

function memberValue(property: string, value: unknown): unknown {
  if (property === 'Environment') return environment(value);
  if (property === 'Timeout' || property === 'MemorySize')
    return typeof value === 'string' ? Number(value) : value;
  if (property === 'EphemeralStorage' && value && typeof value === 'object') {
    const size = (value as { Size?: unknown }).Size;
    return { Size: typeof size === 'string' ? Number(size) : size };
  }
  return value;
}

/** CreateFunction's configuration members (code, name, tags and packaging are the caller's). */
export function createConfiguration(props: Props): Partial<CreateFunctionRequest> {
  const input: Record<string, unknown> = {};
  for (const [property, member] of CONFIGURATION_MEMBERS)
    if (props[property] !== undefined) input[member] = memberValue(property, props[property]);
  for (const property of ['PackageType', 'Architectures', 'TenancyConfig', 'CodeSigningConfigArn'])
    if (props[property] !== undefined) input[property] = props[property];
  if (props.PublishToLatestPublished === true || props.PublishToLatestPublished === 'true')
    input.PublishTo = 'LATEST_PUBLISHED';
  return input as Partial<CreateFunctionRequest>;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * UpdateFunctionConfiguration's input for a change from `previous` to `props`:
 * changed members set, removed ones reset, never-set ones left out. Undefined
 * when nothing in the configuration changed.
 */
export function configurationUpdate(
  functionName: string,
  props: Props,
  previous: Props,
): UpdateFunctionConfigurationRequest | undefined {
  const input: Record<string, unknown> = {};
  for (const [property, member] of CONFIGURATION_MEMBERS) {
    const now = props[property];
    const before = previous[property];
    if (now !== undefined) {
      if (!same(now, before)) input[member] = memberValue(property, now);
    } else if (before !== undefined && property in CONFIGURATION_RESETS)
      input[member] = CONFIGURATION_RESETS[property];
  }
  if (!Object.keys(input).length) return undefined;
  return { FunctionName: functionName, ...input };
}

/** The configuration as the template would write it (for drift and import). */
export function templateProperties(configuration: FunctionConfiguration): Props {
  const props: Props = {
    FunctionName: configuration.FunctionName,
    Role: configuration.Role,
    Description: configuration.Description ?? '',
    Timeout: configuration.Timeout,
    MemorySize: configuration.MemorySize,
    PackageType: configuration.PackageType,
    Architectures: configuration.Architectures,
    EphemeralStorage: configuration.EphemeralStorage,
    TracingConfig: configuration.TracingConfig,
    Environment: { Variables: configuration.Environment?.Variables ?? {} },
    Layers: (configuration.Layers ?? []).map((l) => l.Arn),
    FileSystemConfigs: configuration.FileSystemConfigs ?? [],
    LoggingConfig: configuration.LoggingConfig,
    KmsKeyArn: configuration.KMSKeyArn ?? '',
    DeadLetterConfig: configuration.DeadLetterConfig ?? {},
    VpcConfig: configuration.VpcConfig
      ? {
          SubnetIds: configuration.VpcConfig.SubnetIds ?? [],
          SecurityGroupIds: configuration.VpcConfig.SecurityGroupIds ?? [],
        }
      : { SubnetIds: [], SecurityGroupIds: [] },
    SnapStart: { ApplyOn: configuration.SnapStart?.ApplyOn ?? 'None' },
  };
  if (configuration.Runtime) props.Runtime = configuration.Runtime;
  if (configuration.Handler) props.Handler = configuration.Handler;
  if (configuration.ImageConfigResponse?.ImageConfig)
    props.ImageConfig = configuration.ImageConfigResponse.ImageConfig;
  if (configuration.CapacityProviderConfig)
    props.CapacityProviderConfig = configuration.CapacityProviderConfig;
  if (configuration.DurableConfig) props.DurableConfig = configuration.DurableConfig;
  if (configuration.TenancyConfig) props.TenancyConfig = configuration.TenancyConfig;
  return props;
}

/** Every AWS::Lambda::Function property this pack wires. */
export const FUNCTION_HANDLED_PROPERTIES = [
  ...CONFIGURATION_MEMBERS.map(([property]) => property),
  'Architectures',
  'Code',
  'CodeSigningConfigArn',
  'FunctionName',
  'FunctionScalingConfig',
  'PackageType',
  'PublishToLatestPublished',
  'RecursiveLoop',
  'ReservedConcurrentExecutions',
  'RuntimeManagementConfig',
  'Tags',
  'TenancyConfig',
].sort();
