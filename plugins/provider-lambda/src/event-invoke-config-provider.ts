/**
 * AWS::Lambda::EventInvokeConfig: PutFunctionEventInvokeConfig (which
 * replaces the whole configuration, so a property removed from the template
 * goes back to Lambda's default on update) and
 * DeleteFunctionEventInvokeConfig. The physical id is
 * `<FunctionName>|<Qualifier>`, Cloud Control's identifier. Put converges, so a
 * repeated create is safe; a configuration that already exists on a function
 * of another stack is refused, not overwritten.
 */
import {
  DeleteFunctionEventInvokeConfigCommand,
  GetFunctionEventInvokeConfigCommand,
  PutFunctionEventInvokeConfigCommand,
  type DestinationConfig,
} from '@aws-sdk/client-lambda';
import { EVENT_INVOKE_CONFIG_TYPE } from './properties';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { assertUpdateRegion, deleteChecked, functionOfStack, lambdaClient, whileUpdating } from './common';
import { isNotFound, provisioningError, resourceExists } from './errors';

export const MALFORMED_EVENT_INVOKE_CONFIG_ID =
  'the physical id is not "<FunctionName>|<Qualifier>", so the configuration cannot be addressed; delete it yourself (aws lambda delete-function-event-invoke-config), then drop the record from state (cdkd state orphan)';

type Props = Record<string, unknown>;

function split(physicalId: string): { functionName: string; qualifier: string } | undefined {
  const bar = physicalId.lastIndexOf('|');
  if (bar <= 0 || bar === physicalId.length - 1) return undefined;
  return { functionName: physicalId.slice(0, bar), qualifier: physicalId.slice(bar + 1) };
}

export class LambdaEventInvokeConfigProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private put(functionName: string, qualifier: string, props: Props, signal?: AbortSignal) {
    return whileUpdating(this.ctx, () =>
      lambdaClient(this.ctx).send(
        new PutFunctionEventInvokeConfigCommand({
          FunctionName: functionName,
          Qualifier: qualifier,
          ...(props.MaximumRetryAttempts !== undefined
            ? { MaximumRetryAttempts: Number(props.MaximumRetryAttempts) }
            : {}),
          ...(props.MaximumEventAgeInSeconds !== undefined
            ? { MaximumEventAgeInSeconds: Number(props.MaximumEventAgeInSeconds) }
            : {}),
          ...(props.DestinationConfig !== undefined
            ? { DestinationConfig: props.DestinationConfig as DestinationConfig }
            : {}),
        }),
        { abortSignal: signal },
      ),
    );
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const functionName = String(properties.FunctionName);
    const qualifier = String(properties.Qualifier);
    const physicalId = `${functionName}|${qualifier}`;
    const resource = { logicalId, resourceType, physicalId };
    try {
      if (
        (await this.exists(functionName, qualifier, context.signal)) &&
        !(await functionOfStack(this.ctx, functionName, context.stackName, context.signal))
      )
        throw resourceExists(
          this.ctx,
          `The function ${functionName} (${qualifier}) already has an asynchronous invocation configuration.`,
          resource,
        );
      await this.put(functionName, qualifier, properties, context.signal);
    } catch (err) {
      throw provisioningError(
        this.ctx,
        err,
        `configuring asynchronous invocation of ${functionName}`,
        resource,
      );
    }
    return { physicalId };
  }

  private async exists(functionName: string, qualifier: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await lambdaClient(this.ctx).send(
        new GetFunctionEventInvokeConfigCommand({ FunctionName: functionName, Qualifier: qualifier }),
        {
          abortSignal: signal,
        },
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    _previous: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const resource = { logicalId, resourceType, physicalId };
    await assertUpdateRegion(this.ctx, resource, context?.expectedRegion);
    const parts = split(physicalId)!;
    try {
      await this.put(parts.functionName, parts.qualifier, properties, context?.signal);
    } catch (err) {
      throw provisioningError(
        this.ctx,
        err,
        `updating the asynchronous invocation configuration of ${physicalId}`,
        resource,
      );
    }
    return { physicalId, wasReplaced: false };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    const parts = split(physicalId);
    if (!parts) {
      this.ctx.logger.warn(`${logicalId}: ${MALFORMED_EVENT_INVOKE_CONFIG_ID}`);
      return { outcome: 'skipped', reason: MALFORMED_EVENT_INVOKE_CONFIG_ID };
    }
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting ${physicalId}`,
      () =>
        lambdaClient(this.ctx).send(
          new DeleteFunctionEventInvokeConfigCommand({
            FunctionName: parts.functionName,
            Qualifier: parts.qualifier,
          }),
          { abortSignal: context?.signal },
        ),
    );
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const parts = split(physicalId);
    if (!parts) return undefined;
    try {
      const out = await lambdaClient(this.ctx).send(
        new GetFunctionEventInvokeConfigCommand({
          FunctionName: parts.functionName,
          Qualifier: parts.qualifier,
        }),
      );
      const destination = (side: 'OnSuccess' | 'OnFailure') =>
        out.DestinationConfig?.[side]?.Destination
          ? { Destination: out.DestinationConfig[side]!.Destination }
          : undefined;
      const destinations = {
        ...(destination('OnSuccess') ? { OnSuccess: destination('OnSuccess') } : {}),
        ...(destination('OnFailure') ? { OnFailure: destination('OnFailure') } : {}),
      };
      return {
        FunctionName: parts.functionName,
        Qualifier: parts.qualifier,
        ...(out.MaximumRetryAttempts !== undefined ? { MaximumRetryAttempts: out.MaximumRetryAttempts } : {}),
        ...(out.MaximumEventAgeInSeconds !== undefined
          ? { MaximumEventAgeInSeconds: out.MaximumEventAgeInSeconds }
          : {}),
        ...(Object.keys(destinations).length ? { DestinationConfig: destinations } : {}),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading ${physicalId}`, {
        resourceType: EVENT_INVOKE_CONFIG_TYPE,
        physicalId,
      });
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const id =
      input.knownPhysicalId ??
      (typeof input.properties.FunctionName === 'string' && typeof input.properties.Qualifier === 'string'
        ? `${input.properties.FunctionName}|${input.properties.Qualifier}`
        : undefined);
    if (!id) return null;
    return (await this.readCurrentState(id)) ? { physicalId: id } : null;
  }
}
