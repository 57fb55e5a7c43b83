/**
 * The types this pack registers and the template properties it wires for
 * each, without loading the SDK (the hook reads these; providers load the
 * Lambda client only when cdkd first uses them).
 */
export { FUNCTION_HANDLED_PROPERTIES } from './function-properties';

export const FUNCTION_TYPE = 'AWS::Lambda::Function';
export const PERMISSION_TYPE = 'AWS::Lambda::Permission';

export const PERMISSION_HANDLED_PROPERTIES = [
  'Action',
  'EventSourceToken',
  'FunctionName',
  'FunctionUrlAuthType',
  'InvokedViaFunctionUrl',
  'Principal',
  'PrincipalOrgID',
  'SourceAccount',
  'SourceArn',
];

export const VERSION_TYPE = 'AWS::Lambda::Version';

export const VERSION_HANDLED_PROPERTIES = [
  'CodeSha256',
  'Description',
  'FunctionName',
  'FunctionScalingConfig',
  'ProvisionedConcurrencyConfig',
  'RuntimePolicy',
];

export const ALIAS_TYPE = 'AWS::Lambda::Alias';

export const ALIAS_HANDLED_PROPERTIES = [
  'Description',
  'FunctionName',
  'FunctionVersion',
  'Name',
  'ProvisionedConcurrencyConfig',
  'RoutingConfig',
];

export const URL_TYPE = 'AWS::Lambda::Url';

export const URL_HANDLED_PROPERTIES = ['AuthType', 'Cors', 'InvokeMode', 'Qualifier', 'TargetFunctionArn'];

export const EVENT_INVOKE_CONFIG_TYPE = 'AWS::Lambda::EventInvokeConfig';

export const EVENT_INVOKE_CONFIG_HANDLED_PROPERTIES = [
  'DestinationConfig',
  'FunctionName',
  'MaximumEventAgeInSeconds',
  'MaximumRetryAttempts',
  'Qualifier',
];

export const LAYER_VERSION_TYPE = 'AWS::Lambda::LayerVersion';

export const LAYER_VERSION_HANDLED_PROPERTIES = [
  'CompatibleArchitectures',
  'CompatibleRuntimes',
  'Content',
  'Description',
  'LayerName',
  'LicenseInfo',
];

export const EVENT_SOURCE_MAPPING_TYPE = 'AWS::Lambda::EventSourceMapping';
/** Template properties that pass to Create/UpdateEventSourceMapping under the same name. */
export const MAPPING_PASS_THROUGH = [
  'AmazonManagedKafkaEventSourceConfig',
  'BatchSize',
  'BisectBatchOnFunctionError',
  'DestinationConfig',
  'DocumentDBEventSourceConfig',
  'EventSourceArn',
  'FilterCriteria',
  'FunctionResponseTypes',
  'LoggingConfig',
  'MaximumBatchingWindowInSeconds',
  'MaximumRecordAgeInSeconds',
  'MaximumRetryAttempts',
  'MetricsConfig',
  'ParallelizationFactor',
  'ProvisionedPollerConfig',
  'Queues',
  'ScalingConfig',
  'SelfManagedEventSource',
  'SelfManagedKafkaEventSourceConfig',
  'SourceAccessConfigurations',
  'StartingPosition',
  'StartingPositionTimestamp',
  'Topics',
  'TumblingWindowInSeconds',
];
/** Set only at create (replacements, decided by cdkd). */
export const CREATE_ONLY_MAPPING_PROPERTIES = new Set([
  'AmazonManagedKafkaEventSourceConfig',
  'EventSourceArn',
  'Queues',
  'SelfManagedEventSource',
  'SelfManagedKafkaEventSourceConfig',
  'StartingPosition',
  'StartingPositionTimestamp',
  'Topics',
]);

export const EVENT_SOURCE_MAPPING_HANDLED_PROPERTIES = [
  ...MAPPING_PASS_THROUGH,
  'Enabled',
  'FunctionName',
  'KmsKeyArn',
  'Tags',
].sort();
