/**
 * AWS::Lambda::Url: Create/Update/DeleteFunctionUrlConfig. The physical id is
 * the function ARN the URL serves (qualified by its alias), Cloud Control's
 * identifier. A function has at most one URL per qualifier: one that exists
 * is adopted only when it is on a function of this stack and configured as
 * the template asks.
 */
import {
  CreateFunctionUrlConfigCommand,
  DeleteFunctionUrlConfigCommand,
  GetFunctionUrlConfigCommand,
  UpdateFunctionUrlConfigCommand,
  type Cors,
  type FunctionUrlAuthType,
  type InvokeMode,
} from '@aws-sdk/client-lambda';
import { URL_TYPE } from './properties';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import {
  assertUpdateRegion,
  deleteChecked,
  functionOfStack,
  lambdaClient,
  same,
  whileUpdating,
} from './common';
import { errorMessage, errorName, isNotFound, provisioningError, resourceExists } from './errors';
import { parseFunctionRef, unqualified } from './names';

type Props = Record<string, unknown>;

/** Where a URL's physical id points: the function and the qualifier. */
function target(physicalId: string): { functionName: string; qualifier?: string } {
  const ref = parseFunctionRef(physicalId);
  return { functionName: unqualified(physicalId), ...(ref?.qualifier ? { qualifier: ref.qualifier } : {}) };
}

function attributes(functionArn: string, functionUrl: string | undefined): Record<string, unknown> {
  return { FunctionArn: functionArn, ...(functionUrl ? { FunctionUrl: functionUrl } : {}) };
}

export class LambdaUrlProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const functionName = String(properties.TargetFunctionArn);
    const qualifier = properties.Qualifier !== undefined ? String(properties.Qualifier) : undefined;
    const resource = { logicalId, resourceType };
    const client = lambdaClient(this.ctx);
    try {
      const out = await whileUpdating(this.ctx, () =>
        client.send(
          new CreateFunctionUrlConfigCommand({
            FunctionName: functionName,
            ...(qualifier ? { Qualifier: qualifier } : {}),
            AuthType: properties.AuthType as FunctionUrlAuthType,
            ...(properties.Cors !== undefined ? { Cors: properties.Cors as Cors } : {}),
            ...(properties.InvokeMode !== undefined
              ? { InvokeMode: properties.InvokeMode as InvokeMode }
              : {}),
          }),
          { abortSignal: context.signal },
        ),
      );
      return { physicalId: out.FunctionArn!, attributes: attributes(out.FunctionArn!, out.FunctionUrl) };
    } catch (err) {
      if (!(errorName(err) === 'ResourceConflictException' && /exists/i.test(errorMessage(err))))
        throw provisioningError(this.ctx, err, `creating the URL of ${functionName}`, resource);
      const existing = await client.send(
        new GetFunctionUrlConfigCommand({
          FunctionName: functionName,
          ...(qualifier ? { Qualifier: qualifier } : {}),
        }),
        { abortSignal: context.signal },
      );
      const asked =
        existing.AuthType === properties.AuthType &&
        (existing.InvokeMode ?? 'BUFFERED') === (properties.InvokeMode ?? 'BUFFERED') &&
        same(existing.Cors ?? {}, properties.Cors ?? {});
      if (asked && (await functionOfStack(this.ctx, functionName, context.stackName, context.signal)))
        return {
          physicalId: existing.FunctionArn!,
          attributes: attributes(existing.FunctionArn!, existing.FunctionUrl),
        };
      throw resourceExists(
        this.ctx,
        `The function ${functionName} already has a URL${qualifier ? ` for ${qualifier}` : ''} that is not the one this stack asks for.`,
        { ...resource, physicalId: existing.FunctionArn },
        err,
      );
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
    const { functionName, qualifier } = target(physicalId);
    try {
      const out = await whileUpdating(this.ctx, () =>
        lambdaClient(this.ctx).send(
          new UpdateFunctionUrlConfigCommand({
            FunctionName: functionName,
            ...(qualifier ? { Qualifier: qualifier } : {}),
            AuthType: properties.AuthType as FunctionUrlAuthType,
            // Removed from the template: no CORS, buffered responses (the defaults).
            Cors: (properties.Cors ?? {}) as Cors,
            InvokeMode: (properties.InvokeMode ?? 'BUFFERED') as InvokeMode,
          }),
          { abortSignal: context?.signal },
        ),
      );
      return { physicalId, wasReplaced: false, attributes: attributes(physicalId, out.FunctionUrl) };
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating the URL of ${physicalId}`, resource);
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ) {
    const { functionName, qualifier } = target(physicalId);
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting the URL of ${physicalId}`,
      () =>
        lambdaClient(this.ctx).send(
          new DeleteFunctionUrlConfigCommand({
            FunctionName: functionName,
            ...(qualifier ? { Qualifier: qualifier } : {}),
          }),
          { abortSignal: context?.signal },
        ),
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName === 'FunctionArn') return physicalId;
    if (attributeName !== 'FunctionUrl') return undefined;
    return (await this.read(physicalId))?.FunctionUrl;
  }

  private async read(physicalId: string) {
    const { functionName, qualifier } = target(physicalId);
    try {
      return await lambdaClient(this.ctx).send(
        new GetFunctionUrlConfigCommand({
          FunctionName: functionName,
          ...(qualifier ? { Qualifier: qualifier } : {}),
        }),
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading the URL of ${physicalId}`, {
        resourceType: URL_TYPE,
        physicalId,
      });
    }
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const url = await this.read(physicalId);
    if (!url) return undefined;
    const { functionName, qualifier } = target(physicalId);
    return {
      TargetFunctionArn: functionName,
      ...(qualifier ? { Qualifier: qualifier } : {}),
      AuthType: url.AuthType,
      InvokeMode: url.InvokeMode ?? 'BUFFERED',
      Cors: url.Cors ?? {},
    };
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const id = input.knownPhysicalId;
    if (!id) return null;
    const url = await this.read(id);
    return url ? { physicalId: id, attributes: attributes(id, url.FunctionUrl) } : null;
  }
}
