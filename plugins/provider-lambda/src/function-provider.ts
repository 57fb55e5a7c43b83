/**
 * AWS::Lambda::Function through the Lambda API. The physical id is the
 * function name (the template's, or one generated from the create's token).
 *
 * Create: CreateFunction (retrying, bounded, the errors Lambda gives while a
 * new role propagates), wait until Active, then the settings with operations
 * of their own (reserved concurrency, recursion, runtime management, scaling).
 * A name that is taken is adopted only when its ownership tags show this very
 * create made it. Update: configuration and code, each waited for, tags
 * reconciled, removed properties reset to Lambda's defaults.
 */
import {
  CreateFunctionCommand,
  DeleteFunctionCodeSigningConfigCommand,
  DeleteFunctionCommand,
  DeleteFunctionConcurrencyCommand,
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  LambdaClient,
  PutFunctionCodeSigningConfigCommand,
  PutFunctionConcurrencyCommand,
  PutFunctionRecursionConfigCommand,
  PutFunctionScalingConfigCommand,
  PutRuntimeManagementConfigCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  type CreateFunctionCommandInput,
  type FunctionConfiguration,
  type RecursiveLoop,
  type UpdateRuntimeOn,
} from '@aws-sdk/client-lambda';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceOwnership,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { functionCode, inlineFileName } from './code';
import {
  errorMessage,
  errorName,
  IAM_PROPAGATION_RETRY,
  isIamPropagation,
  isNotFound,
  provisioningError,
  resourceExists,
} from './errors';
import {
  configurationUpdate,
  createConfiguration,
  NOT_RESETTABLE,
  templateProperties,
} from './function-properties';
import { ownershipOf, physicalName } from './ownership';
import { FUNCTION_TYPE } from './properties';
import { tagChanges, tagMap, templateTags } from './tags';
import { functionActive, functionUpdated } from './waiters';

/** Lambda function names: at most 64 of `[a-zA-Z0-9-_]`. */
const NAME_OPTIONS = { maxLength: 64, extraCharacters: '-_' };

type Props = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `Fn::GetAtt` values from a function's configuration. */
export function functionAttributes(configuration: FunctionConfiguration): Record<string, unknown> {
  const applyOn = configuration.SnapStart?.ApplyOn ?? 'None';
  const status = configuration.SnapStart?.OptimizationStatus ?? 'Off';
  return {
    Arn: configuration.FunctionArn,
    SnapStartResponse: { ApplyOn: applyOn, OptimizationStatus: status },
    'SnapStartResponse.ApplyOn': applyOn,
    'SnapStartResponse.OptimizationStatus': status,
  };
}

export class LambdaFunctionProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): LambdaClient {
    return this.ctx.clients.get(LambdaClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name =
      typeof properties.FunctionName === 'string' && properties.FunctionName !== ''
        ? properties.FunctionName
        : physicalName(context, logicalId, NAME_OPTIONS);
    const resource = { logicalId, resourceType, physicalId: name };
    const ownership = ownershipOf(context);
    const signal = context.signal;
    const client = this.client();
    try {
      const input = {
        FunctionName: name,
        ...createConfiguration(properties),
        Code: await functionCode(properties.Code, properties.Runtime),
        Tags: { ...tagMap(properties.Tags), ...ownership.tags },
      };
      await this.ctx.retry(
        () =>
          client.send(new CreateFunctionCommand(input as CreateFunctionCommandInput), {
            abortSignal: signal,
          }),
        {
          ...IAM_PROPAGATION_RETRY,
          isRetryable: isIamPropagation,
        },
      );
    } catch (err) {
      if (errorName(err) !== 'ResourceConflictException' || !/already exist/i.test(errorMessage(err)))
        throw provisioningError(this.ctx, err, `creating function ${name}`, resource);
      await this.adoptOrRefuse(name, ownership, resource, err, signal);
    }
    // The function exists and is this create's: finish it, or remove it rather than leave it untracked.
    try {
      await functionActive(client, name, signal);
      await this.applySettings(name, properties, {}, 'create', signal);
      const configuration = await client.send(new GetFunctionConfigurationCommand({ FunctionName: name }), {
        abortSignal: signal,
      });
      return { physicalId: name, attributes: functionAttributes(configuration) };
    } catch (err) {
      await this.discard(name, logicalId);
      throw provisioningError(this.ctx, err, `finishing function ${name}`, resource);
    }
  }

  /** A function of the same name exists: adopt it if this create made it, else refuse. */
  private async adoptOrRefuse(
    name: string,
    ownership: ResourceOwnership,
    resource: { logicalId: string; resourceType: string; physicalId: string },
    conflict: unknown,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    let tags: Record<string, string> | undefined;
    try {
      tags = (
        await this.client().send(new GetFunctionCommand({ FunctionName: name }), { abortSignal: signal })
      ).Tags;
    } catch (err) {
      throw provisioningError(this.ctx, err, `reading the existing function ${name}`, resource);
    }
    const verdict = ownership.classify(tags);
    if (verdict === 'same-intent') {
      this.ctx.logger.debug(
        `${resource.logicalId}: function ${name} was made by an earlier attempt of this create; adopting it`,
      );
      return;
    }
    throw resourceExists(
      this.ctx,
      `A Lambda function named ${name} already exists${verdict === 'same-resource' ? ' (made by cdkd for this resource by another deploy)' : ' and was not made by this stack'}.`,
      resource,
      conflict,
    );
  }

  /** Best-effort removal of a function this create made but could not finish. */
  private async discard(name: string, logicalId: string): Promise<void> {
    this.ctx.logger.warn(
      `${logicalId}: deleting function ${name}, which was created but could not be finished`,
    );
    try {
      await this.client().send(new DeleteFunctionCommand({ FunctionName: name }));
    } catch (err) {
      if (!isNotFound(err))
        this.ctx.logger.warn(
          `${logicalId}: could not delete function ${name} (${errorMessage(err)}); delete it with: aws lambda delete-function --function-name ${name}`,
        );
    }
  }

  /**
   * The settings that have operations of their own, from `previous` to `props`:
   * set when given and changed, put back to Lambda's default when removed.
   */
  private async applySettings(
    name: string,
    props: Props,
    previous: Props,
    phase: 'create' | 'update',
    signal?: AbortSignal,
  ): Promise<void> {
    const client = this.client();
    const options = { abortSignal: signal };
    const changed = (property: string) => !same(props[property], previous[property]);
    if (changed('ReservedConcurrentExecutions')) {
      if (props.ReservedConcurrentExecutions !== undefined)
        await client.send(
          new PutFunctionConcurrencyCommand({
            FunctionName: name,
            ReservedConcurrentExecutions: Number(props.ReservedConcurrentExecutions),
          }),
          options,
        );
      else await client.send(new DeleteFunctionConcurrencyCommand({ FunctionName: name }), options);
    }
    if (
      changed('RecursiveLoop') &&
      (props.RecursiveLoop !== undefined || previous.RecursiveLoop !== undefined)
    )
      await client.send(
        new PutFunctionRecursionConfigCommand({
          FunctionName: name,
          RecursiveLoop: (props.RecursiveLoop ?? 'Terminate') as RecursiveLoop,
        }),
        options,
      );
    if (changed('RuntimeManagementConfig')) {
      const config = props.RuntimeManagementConfig as
        { UpdateRuntimeOn?: string; RuntimeVersionArn?: string } | undefined;
      await client.send(
        new PutRuntimeManagementConfigCommand({
          FunctionName: name,
          UpdateRuntimeOn: (config?.UpdateRuntimeOn ?? 'Auto') as UpdateRuntimeOn,
          ...(config?.RuntimeVersionArn ? { RuntimeVersionArn: config.RuntimeVersionArn } : {}),
        }),
        options,
      );
    }
    // On create, CreateFunction took the code signing configuration.
    if (phase === 'update' && changed('CodeSigningConfigArn')) {
      if (typeof props.CodeSigningConfigArn === 'string')
        await client.send(
          new PutFunctionCodeSigningConfigCommand({
            FunctionName: name,
            CodeSigningConfigArn: props.CodeSigningConfigArn,
          }),
          options,
        );
      else await client.send(new DeleteFunctionCodeSigningConfigCommand({ FunctionName: name }), options);
    }
    if (props.FunctionScalingConfig !== undefined && changed('FunctionScalingConfig'))
      await client.send(
        new PutFunctionScalingConfigCommand({
          FunctionName: name,
          Qualifier: '$LATEST',
          FunctionScalingConfig: props.FunctionScalingConfig as Record<string, number>,
        }),
        options,
      );
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    const resource = { logicalId, resourceType, physicalId };
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const signal = context?.signal;
    try {
      const configuration = configurationUpdate(physicalId, properties, previousProperties);
      if (configuration) {
        await functionUpdated(client, physicalId, signal);
        await this.ctx.retry(
          () => client.send(new UpdateFunctionConfigurationCommand(configuration), { abortSignal: signal }),
          { ...IAM_PROPAGATION_RETRY, isRetryable: isIamPropagation },
        );
      }
      const inline = typeof (properties.Code as { ZipFile?: unknown } | undefined)?.ZipFile === 'string';
      const codeChanged =
        !same(properties.Code, previousProperties.Code) ||
        // Inline source is named after the runtime: a switch between Node.js and Python renames it.
        (inline && inlineFileName(properties.Runtime) !== inlineFileName(previousProperties.Runtime)) ||
        !same(properties.Architectures, previousProperties.Architectures) ||
        (properties.PublishToLatestPublished !== previousProperties.PublishToLatestPublished &&
          properties.PublishToLatestPublished === true);
      if (codeChanged) {
        await functionUpdated(client, physicalId, signal);
        await client.send(
          new UpdateFunctionCodeCommand({
            FunctionName: physicalId,
            ...(await functionCode(properties.Code, properties.Runtime)),
            Architectures: (properties.Architectures as Array<'x86_64' | 'arm64'> | undefined) ?? ['x86_64'],
            ...(properties.PublishToLatestPublished === true
              ? { PublishTo: 'LATEST_PUBLISHED' as const }
              : {}),
          }),
          { abortSignal: signal },
        );
      }
      await functionUpdated(client, physicalId, signal);
      const current = await client.send(new GetFunctionConfigurationCommand({ FunctionName: physicalId }), {
        abortSignal: signal,
      });
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      if (toRemove.length)
        await client.send(new UntagResourceCommand({ Resource: current.FunctionArn, TagKeys: toRemove }), {
          abortSignal: signal,
        });
      if (Object.keys(toSet).length)
        await client.send(new TagResourceCommand({ Resource: current.FunctionArn, Tags: toSet }), {
          abortSignal: signal,
        });
      await this.applySettings(physicalId, properties, previousProperties, 'update', signal);
      for (const property of NOT_RESETTABLE)
        if (properties[property] === undefined && previousProperties[property] !== undefined)
          this.ctx.logger.warn(
            `${logicalId}: ${property} was removed from the template, but Lambda cannot take it back from function ${physicalId} in place; it stays as it was (replace the function to remove it)`,
          );
      return { physicalId, wasReplaced: false, attributes: functionAttributes(current) };
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating function ${physicalId}`, resource);
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const region = await client.config.region();
    this.ctx.assertRegionMatch(
      region,
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await client.send(new DeleteFunctionCommand({ FunctionName: physicalId }), {
        abortSignal: context?.signal,
      });
    } catch (err) {
      if (isNotFound(err)) {
        this.ctx.assertRegionMatch(region, context?.expectedRegion, resourceType, logicalId, physicalId);
        this.ctx.logger.debug(`${logicalId}: function ${physicalId} does not exist; nothing to delete`);
        return;
      }
      throw provisioningError(this.ctx, err, `deleting function ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    try {
      const configuration = await this.client().send(
        new GetFunctionConfigurationCommand({ FunctionName: physicalId }),
      );
      return functionAttributes(configuration)[attributeName];
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    try {
      const out = await this.client().send(new GetFunctionCommand({ FunctionName: physicalId }));
      if (!out.Configuration) return undefined;
      return {
        ...templateProperties(out.Configuration),
        Tags: templateTags(out.Tags),
        ...(out.Concurrency?.ReservedConcurrentExecutions !== undefined
          ? { ReservedConcurrentExecutions: out.Concurrency.ReservedConcurrentExecutions }
          : {}),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading function ${physicalId}`, {
        resourceType: FUNCTION_TYPE,
        physicalId,
      });
    }
  }

  /** Adopts the function the user names (name or ARN), or the template's FunctionName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const named =
      input.knownPhysicalId ??
      (typeof input.properties.FunctionName === 'string' ? input.properties.FunctionName : undefined);
    if (!named) return null;
    try {
      const configuration = await this.client().send(
        new GetFunctionConfigurationCommand({ FunctionName: named }),
      );
      return { physicalId: configuration.FunctionName!, attributes: functionAttributes(configuration) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw provisioningError(this.ctx, err, `looking up function ${named}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}
