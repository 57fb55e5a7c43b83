/**
 * `AWS::Lambda::Function` over the Lambda store (identifier: the function
 * name). CloudFormation's inline `Code.ZipFile` is zipped as CloudFormation
 * does — one file, `index.py` for Python runtimes, else `index.js`.
 */
import type { CreateFunctionRequest, UpdateFunctionConfigurationRequest } from '@aws-sdk/client-lambda';
import {
  alreadyExists,
  inventoryItems,
  notFound,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../../core/resources';
import type { ResourceSchema } from '../../../core/resource-schema';
import type { InventoryItem, InventoryView } from '../../../core/service';
import { generatedName } from '../../cloudcontrol/generate';
import type { CodeSource } from '../code';
import type { LambdaFunction } from '../model';
import { writeZip } from '../zip';
import { callContext, defined, Extras, run, tagList, tagMap, type LambdaParts } from './common';

const TYPE = 'AWS::Lambda::Function';
type Model = Record<string, unknown>;

/** CloudFormation properties the Lambda API does not keep, remembered for reads. */
const EXTRA_PROPERTIES = ['Code', 'SnapStart', 'FunctionScalingConfig', 'PublishToLatestPublished'];

/** The settings with operations of their own, from a model (CloudFormation sets them after the create). */
function applySettings(fn: LambdaFunction, desired: Model): void {
  const settings = fn.settings;
  if (typeof desired.CodeSigningConfigArn === 'string')
    settings.codeSigningConfigArn = desired.CodeSigningConfigArn;
  else delete settings.codeSigningConfigArn;
  if (typeof desired.RecursiveLoop === 'string') settings.recursiveLoop = desired.RecursiveLoop;
  else delete settings.recursiveLoop;
  const runtime = desired.RuntimeManagementConfig as
    { UpdateRuntimeOn: string; RuntimeVersionArn?: string } | undefined;
  if (runtime) settings.runtimeManagement = { ...settings.runtimeManagement, $LATEST: runtime };
  else delete settings.runtimeManagement?.$LATEST;
}

/** The package a CloudFormation `Code` names; inline source is zipped as CloudFormation does. */
export function codeSource(code: unknown, runtime: unknown): CodeSource {
  const c = (code ?? {}) as Record<string, string | undefined>;
  if (typeof c.ZipFile === 'string') {
    const file = typeof runtime === 'string' && runtime.startsWith('python') ? 'index.py' : 'index.js';
    return { ZipFile: writeZip([{ name: file, data: Buffer.from(c.ZipFile) }]) };
  }
  return defined({
    S3Bucket: c.S3Bucket,
    S3Key: c.S3Key,
    S3ObjectVersion: c.S3ObjectVersion,
    ImageUri: c.ImageUri,
  }) as CodeSource;
}

/** The configuration members CreateFunction and UpdateFunctionConfiguration take from a model. */
function configurationInput(desired: Model): Partial<CreateFunctionRequest> {
  return defined({
    Role: desired.Role,
    Runtime: desired.Runtime,
    Handler: desired.Handler,
    Description: desired.Description,
    Timeout: desired.Timeout,
    MemorySize: desired.MemorySize,
    VpcConfig: desired.VpcConfig,
    DeadLetterConfig: desired.DeadLetterConfig,
    Environment: desired.Environment,
    KMSKeyArn: desired.KmsKeyArn,
    TracingConfig: desired.TracingConfig,
    Layers: desired.Layers,
    FileSystemConfigs: desired.FileSystemConfigs,
    ImageConfig: desired.ImageConfig,
    EphemeralStorage: desired.EphemeralStorage,
    SnapStart: desired.SnapStart,
    LoggingConfig: desired.LoggingConfig,
    CapacityProviderConfig: desired.CapacityProviderConfig,
    DurableConfig: desired.DurableConfig,
  }) as Partial<CreateFunctionRequest>;
}

/** What a property the new model leaves out goes back to (the CloudFormation handler's reset). */
function withResets(input: Partial<CreateFunctionRequest>, name: string): UpdateFunctionConfigurationRequest {
  return {
    FunctionName: name,
    Description: '',
    Timeout: 3,
    MemorySize: 128,
    Environment: { Variables: {} },
    VpcConfig: { SubnetIds: [], SecurityGroupIds: [] },
    DeadLetterConfig: { TargetArn: '' },
    KMSKeyArn: '',
    TracingConfig: { Mode: 'PassThrough' },
    Layers: [],
    FileSystemConfigs: [],
    EphemeralStorage: { Size: 512 },
    SnapStart: { ApplyOn: 'None' },
    LoggingConfig: { LogFormat: 'Text', LogGroup: `/aws/lambda/${name}` },
    ...input,
  } as UpdateFunctionConfigurationRequest;
}

export class FunctionProvider implements ResourceProvider {
  readonly typeName = TYPE;
  private readonly extras: Extras;

  constructor(private readonly parts: LambdaParts) {
    this.extras = new Extras(parts.context, TYPE);
  }

  private get store() {
    return this.parts.context.store;
  }

  /** The function's CloudFormation model (write-only properties included; Cloud Control drops them). */
  model(fn: LambdaFunction): Model {
    const c = fn.latest.configuration;
    const vpc =
      c.VpcConfig?.SubnetIds?.length || c.VpcConfig?.SecurityGroupIds?.length ? c.VpcConfig : undefined;
    return defined({
      FunctionName: fn.name,
      Arn: c.FunctionArn,
      Role: c.Role,
      Runtime: c.Runtime,
      Handler: c.Handler,
      Description: c.Description || undefined,
      Timeout: c.Timeout,
      MemorySize: c.MemorySize,
      PackageType: c.PackageType,
      Architectures: c.Architectures,
      EphemeralStorage: c.EphemeralStorage,
      TracingConfig: c.TracingConfig,
      Environment: c.Environment ? { Variables: c.Environment.Variables } : undefined,
      VpcConfig: vpc
        ? defined({
            SubnetIds: vpc.SubnetIds,
            SecurityGroupIds: vpc.SecurityGroupIds,
            Ipv6AllowedForDualStack: vpc.Ipv6AllowedForDualStack,
          })
        : undefined,
      DeadLetterConfig: c.DeadLetterConfig,
      KmsKeyArn: c.KMSKeyArn,
      Layers: c.Layers?.map((l) => l.Arn),
      FileSystemConfigs: c.FileSystemConfigs,
      ImageConfig: c.ImageConfigResponse?.ImageConfig,
      LoggingConfig: c.LoggingConfig,
      SnapStartResponse: {
        ApplyOn: c.SnapStart?.ApplyOn ?? 'None',
        OptimizationStatus: c.SnapStart?.OptimizationStatus ?? 'Off',
      },
      ReservedConcurrentExecutions: fn.reservedConcurrency,
      CapacityProviderConfig: c.CapacityProviderConfig,
      DurableConfig: c.DurableConfig,
      TenancyConfig: c.TenancyConfig,
      CodeSigningConfigArn: fn.settings.codeSigningConfigArn,
      RecursiveLoop: fn.settings.recursiveLoop,
      RuntimeManagementConfig: fn.settings.runtimeManagement?.$LATEST,
      Tags: tagList(fn.tags),
      ...this.extras.get(fn, fn.name),
    });
  }

  private stored(fn: LambdaFunction): StoredResource {
    return { identifier: fn.name, model: this.model(fn) };
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const name =
      typeof desired.FunctionName === 'string'
        ? desired.FunctionName
        : generatedName(TYPE, { maxLength: 64 });
    if (this.store.getFunction(scope.account, scope.region, name)) throw alreadyExists(schema.typeName, name);
    const ctx = callContext(scope);
    const tags = tagMap(desired.Tags);
    run(this.parts.functions.operations, 'CreateFunction', ctx, {
      FunctionName: name,
      ...configurationInput(desired),
      Code: codeSource(desired.Code, desired.Runtime),
      ...(desired.PackageType ? { PackageType: desired.PackageType } : {}),
      ...(desired.Architectures ? { Architectures: desired.Architectures } : {}),
      ...(desired.TenancyConfig ? { TenancyConfig: desired.TenancyConfig } : {}),
      ...(Object.keys(tags).length ? { Tags: tags } : {}),
    });
    const fn = this.store.getFunction(scope.account, scope.region, name)!;
    applySettings(fn, desired);
    if (typeof desired.ReservedConcurrentExecutions === 'number')
      run(this.parts.functions.operations, 'PutFunctionConcurrency', ctx, {
        FunctionName: name,
        ReservedConcurrentExecutions: desired.ReservedConcurrentExecutions,
      });
    this.extras.set(scope, name, Object.fromEntries(EXTRA_PROPERTIES.map((p) => [p, desired[p]])));
    // The handler waits for the function to be Active before it reports success.
    delete fn.latest.transition;
    return this.stored(fn);
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const fn = this.store.getFunction(scope.account, scope.region, identifier);
    return fn ? this.stored(fn) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const fn = this.store.getFunction(scope.account, scope.region, identifier);
    if (!fn) throw notFound(schema.typeName, identifier);
    const ctx = callContext(scope);
    const previous = this.extras.get(scope, identifier);
    const architecturesChanged =
      JSON.stringify(desired.Architectures ?? ['x86_64']) !==
      JSON.stringify(fn.latest.configuration.Architectures);
    if (JSON.stringify(desired.Code) !== JSON.stringify(previous.Code) || architecturesChanged) {
      run(this.parts.functions.operations, 'UpdateFunctionCode', ctx, {
        FunctionName: identifier,
        ...codeSource(desired.Code, desired.Runtime),
        Architectures: desired.Architectures ?? ['x86_64'],
      });
      delete fn.latest.transition;
    }
    run(
      this.parts.functions.operations,
      'UpdateFunctionConfiguration',
      ctx,
      withResets(configurationInput(desired), identifier),
    );
    delete fn.latest.transition;
    if (typeof desired.ReservedConcurrentExecutions === 'number')
      run(this.parts.functions.operations, 'PutFunctionConcurrency', ctx, {
        FunctionName: identifier,
        ReservedConcurrentExecutions: desired.ReservedConcurrentExecutions,
      });
    else delete fn.reservedConcurrency;
    fn.tags = tagMap(desired.Tags);
    applySettings(fn, desired);
    this.extras.set(scope, identifier, Object.fromEntries(EXTRA_PROPERTIES.map((p) => [p, desired[p]])));
    return this.stored(fn);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const fn = this.store.getFunction(scope.account, scope.region, identifier);
    if (!fn) throw notFound(schema.typeName, identifier);
    this.store.deleteFunction(fn);
    this.extras.delete(scope, identifier);
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.store.functionsIn(scope.account, scope.region).map((fn) => this.stored(fn));
  }

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(TYPE, this.store.functions.values(), (fn) => this.stored(fn));
  }
}
