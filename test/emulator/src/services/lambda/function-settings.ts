/**
 * A function's settings that have operations of their own: recursion
 * detection (Put/GetFunctionRecursionConfig), runtime management
 * (Put/GetRuntimeManagementConfig), the code signing configuration
 * (Put/Get/DeleteFunctionCodeSigningConfig), scaling of functions on a
 * capacity provider (Put/GetFunctionScalingConfig) and provisioned
 * concurrency (Put/Get/Delete/ListProvisionedConcurrencyConfig(s)).
 * The emulator keeps them; it does not act on them.
 */
import type { FunctionScalingConfig } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { resolveIn, type LambdaContext } from './context';
import { page } from './functions';
import type { LambdaFunction } from './model';
import { functionArn, lambdaTimestamp, resolveQualifier, validationError } from './names';

const CODE_SIGNING_CONFIG_ARN =
  /^arn:(aws[a-zA-Z-]*)?:lambda:[a-z]{2}((-gov)|(-iso(b?)))?-[a-z]+-\d{1}:\d{12}:code-signing-config:csc-[a-z0-9]{17}$/;

interface Qualified {
  FunctionName?: string;
  Qualifier?: string;
}

export class FunctionSettingHandlers {
  readonly operations: Operations = {
    PutFunctionRecursionConfig: (ctx, input: { FunctionName?: string; RecursiveLoop?: string }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      if (!['Allow', 'Terminate'].includes(input.RecursiveLoop ?? ''))
        throw validationError(
          'recursiveLoop',
          input.RecursiveLoop,
          'Member must satisfy enum value set: [Allow, Terminate]',
        );
      fn.settings.recursiveLoop = input.RecursiveLoop;
      return { RecursiveLoop: input.RecursiveLoop };
    },
    GetFunctionRecursionConfig: (ctx, input: { FunctionName?: string }) => ({
      RecursiveLoop: this.lambda.find(ctx, input.FunctionName).fn.settings.recursiveLoop ?? 'Terminate',
    }),
    PutRuntimeManagementConfig: (
      ctx,
      input: Qualified & { UpdateRuntimeOn?: string; RuntimeVersionArn?: string },
    ) => {
      const { fn, key } = this.versionOnly(ctx, input);
      if (!['Auto', 'FunctionUpdate', 'Manual'].includes(input.UpdateRuntimeOn ?? ''))
        throw validationError(
          'updateRuntimeOn',
          input.UpdateRuntimeOn,
          'Member must satisfy enum value set: [Auto, Manual, FunctionUpdate]',
        );
      if ((input.UpdateRuntimeOn === 'Manual') !== (input.RuntimeVersionArn !== undefined))
        throw new AwsError(
          'InvalidParameterValueException',
          input.UpdateRuntimeOn === 'Manual'
            ? 'RuntimeVersionArn must be provided when UpdateRuntimeOn is Manual.'
            : 'RuntimeVersionArn can only be provided when UpdateRuntimeOn is Manual.',
        );
      const config = {
        UpdateRuntimeOn: input.UpdateRuntimeOn!,
        ...(input.RuntimeVersionArn ? { RuntimeVersionArn: input.RuntimeVersionArn } : {}),
      };
      fn.settings.runtimeManagement = { ...fn.settings.runtimeManagement, [key]: config };
      return { ...config, FunctionArn: functionArn(fn.account, fn.region, fn.name, key) };
    },
    GetRuntimeManagementConfig: (ctx, input: Qualified) => {
      const { fn, key } = this.versionOnly(ctx, input);
      const config = fn.settings.runtimeManagement?.[key] ?? { UpdateRuntimeOn: 'Auto' };
      return { ...config, FunctionArn: functionArn(fn.account, fn.region, fn.name, key) };
    },
    PutFunctionCodeSigningConfig: (ctx, input: { FunctionName?: string; CodeSigningConfigArn?: string }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      if (!input.CodeSigningConfigArn || !CODE_SIGNING_CONFIG_ARN.test(input.CodeSigningConfigArn))
        throw validationError(
          'codeSigningConfigArn',
          input.CodeSigningConfigArn,
          `Member must satisfy regular expression pattern: ${CODE_SIGNING_CONFIG_ARN.source}`,
        );
      fn.settings.codeSigningConfigArn = input.CodeSigningConfigArn;
      return { CodeSigningConfigArn: input.CodeSigningConfigArn, FunctionName: fn.name };
    },
    GetFunctionCodeSigningConfig: (ctx, input: { FunctionName?: string }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      return { CodeSigningConfigArn: fn.settings.codeSigningConfigArn ?? '', FunctionName: fn.name };
    },
    DeleteFunctionCodeSigningConfig: (ctx, input: { FunctionName?: string }) => {
      delete this.lambda.find(ctx, input.FunctionName).fn.settings.codeSigningConfigArn;
      return {};
    },
    PutFunctionScalingConfig: (ctx, input: Qualified & { FunctionScalingConfig?: FunctionScalingConfig }) => {
      if (input.Qualifier === undefined) throw validationError('qualifier', null, 'Member must not be null');
      const { fn, key } = this.anyQualifier(ctx, input);
      if (!fn.latest.configuration.CapacityProviderConfig)
        throw new AwsError(
          'InvalidParameterValueException',
          'Function scaling configuration is only supported for functions that run on a capacity provider.',
        );
      const { MinExecutionEnvironments: min, MaxExecutionEnvironments: max } =
        input.FunctionScalingConfig ?? {};
      if (min !== undefined && max !== undefined && min > max)
        throw new AwsError(
          'InvalidParameterValueException',
          'MinExecutionEnvironments cannot be greater than MaxExecutionEnvironments.',
        );
      fn.settings.scaling = { ...fn.settings.scaling, [key]: input.FunctionScalingConfig ?? {} };
      return { FunctionState: 'Active' };
    },
    GetFunctionScalingConfig: (ctx, input: Qualified) => {
      const { fn, key } = this.anyQualifier(ctx, input);
      const config = fn.settings.scaling?.[key];
      return {
        FunctionArn: functionArn(fn.account, fn.region, fn.name, key),
        ...(config ? { AppliedFunctionScalingConfig: config, RequestedFunctionScalingConfig: config } : {}),
      };
    },
    PutProvisionedConcurrencyConfig: (
      ctx,
      input: Qualified & { ProvisionedConcurrentExecutions?: number },
    ) => {
      const { fn, key } = this.published(ctx, input);
      const wanted = input.ProvisionedConcurrentExecutions;
      if (wanted === undefined || !Number.isInteger(wanted) || wanted < 1)
        throw validationError(
          'provisionedConcurrentExecutions',
          wanted,
          'Member must have value greater than or equal to 1',
        );
      fn.settings.provisionedConcurrency = {
        ...fn.settings.provisionedConcurrency,
        [key]: { requested: wanted, LastModified: lambdaTimestamp() },
      };
      return this.provisioned(fn, key, 'IN_PROGRESS');
    },
    GetProvisionedConcurrencyConfig: (ctx, input: Qualified) => {
      const { fn, key } = this.published(ctx, input);
      return this.provisioned(fn, key, 'READY');
    },
    DeleteProvisionedConcurrencyConfig: (ctx, input: Qualified) => {
      const { fn, key } = this.published(ctx, input);
      this.provisioned(fn, key, 'READY');
      delete fn.settings.provisionedConcurrency![key];
      return {};
    },
    ListProvisionedConcurrencyConfigs: (
      ctx,
      input: { FunctionName?: string; Marker?: string; MaxItems?: number },
    ) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      const keys = Object.keys(fn.settings.provisionedConcurrency ?? {}).sort();
      const { items, nextMarker } = page(keys, (k) => k, input.Marker, input.MaxItems, 50);
      return {
        ProvisionedConcurrencyConfigs: items.map((key) => ({
          FunctionArn: functionArn(fn.account, fn.region, fn.name, key),
          ...this.provisioned(fn, key, 'READY'),
        })),
        NextMarker: nextMarker,
      };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** `$LATEST` or a version (runtime management does not take aliases). */
  private versionOnly(ctx: CallContext, input: Qualified): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const key = resolveQualifier(ref, input.Qualifier) ?? '$LATEST';
    if (key !== '$LATEST' && !/^\d+$/.test(key))
      throw validationError(
        'qualifier',
        key,
        'Member must satisfy regular expression pattern: ((?!^[0-9]+$)([a-zA-Z0-9-_]+))|(\\$LATEST)|([0-9]+)',
      );
    resolveIn(fn, key);
    return { fn, key };
  }

  private anyQualifier(ctx: CallContext, input: Qualified): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const key = resolveQualifier(ref, input.Qualifier) ?? '$LATEST';
    resolveIn(fn, key);
    return { fn, key };
  }

  /** A published version or an alias: provisioned concurrency is not for $LATEST. */
  private published(ctx: CallContext, input: Qualified): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const key = resolveQualifier(ref, input.Qualifier);
    if (key === undefined) throw validationError('qualifier', null, 'Member must not be null');
    if (key === '$LATEST')
      throw new AwsError(
        'InvalidParameterValueException',
        'Provisioned Concurrency Configs cannot be applied to unpublished function versions.',
      );
    resolveIn(fn, key);
    return { fn, key };
  }

  private provisioned(fn: LambdaFunction, key: string, status: string): Record<string, unknown> {
    const config = fn.settings.provisionedConcurrency?.[key];
    if (!config)
      throw new AwsError(
        'ProvisionedConcurrencyConfigNotFoundException',
        'No Provisioned Concurrency Config found for this function',
      );
    return {
      RequestedProvisionedConcurrentExecutions: config.requested,
      AvailableProvisionedConcurrentExecutions: status === 'READY' ? config.requested : 0,
      AllocatedProvisionedConcurrentExecutions: status === 'READY' ? config.requested : 0,
      Status: status,
      LastModified: config.LastModified,
    };
  }
}
