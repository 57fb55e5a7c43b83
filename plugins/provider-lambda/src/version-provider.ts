/**
 * AWS::Lambda::Version: PublishVersion, then what the version carries
 * (provisioned concurrency, runtime policy, scaling). The physical id is the
 * version ARN.
 *
 * A version cannot be tagged, and PublishVersion makes a new version only when
 * the function changed since the last one (otherwise it answers that one).
 * So a create first notes the versions that exist (kept for the life of the
 * process, per idempotency token): when PublishVersion then answers a version
 * that was not among them, the version is this create's — also on a retry
 * whose earlier attempt lost its reply. When it answers one that already
 * existed, nothing changed since that version was published, and the create
 * fails as CloudFormation's does ("A version for this Lambda function
 * exists"). What this cannot tell apart is the one case where a deploy was
 * interrupted after publishing and a new process repeats the create: it then
 * fails the same way, and the remedy names the version to import.
 */
import {
  DeleteFunctionCommand,
  GetFunctionConfigurationCommand,
  PublishVersionCommand,
  PutFunctionScalingConfigCommand,
  PutProvisionedConcurrencyConfigCommand,
  PutRuntimeManagementConfigCommand,
  paginateListVersionsByFunction,
  type UpdateRuntimeOn,
} from '@aws-sdk/client-lambda';
import { VERSION_TYPE } from './properties';
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
import { assertUpdateRegion, deleteChecked, lambdaClient, same, whileUpdating } from './common';
import { errorMessage, isNotFound, provisioningError, resourceExists } from './errors';
import { functionNameOf, parseFunctionRef } from './names';
import { functionUpdated, versionActive } from './waiters';

type Props = Record<string, unknown>;

function versionOf(arn: string): string | undefined {
  return parseFunctionRef(arn)?.qualifier;
}

export class LambdaVersionProvider implements ResourceProvider {
  /** Versions that existed before each create (by token), so a retried create knows its own. */
  private readonly before = new Map<string, Set<string>>();

  constructor(private readonly ctx: ProviderContext) {}

  private async existingVersions(functionName: string): Promise<Set<string>> {
    const versions = new Set<string>();
    for await (const page of paginateListVersionsByFunction(
      { client: lambdaClient(this.ctx) },
      { FunctionName: functionName },
    ))
      for (const v of page.Versions ?? []) if (v.Version && v.Version !== '$LATEST') versions.add(v.Version);
    return versions;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const functionName = String(properties.FunctionName);
    const resource = { logicalId, resourceType };
    const client = lambdaClient(this.ctx);
    const signal = context.signal;
    let published: { FunctionArn?: string; Version?: string };
    try {
      await functionUpdated(client, functionName, signal);
      let before = this.before.get(context.idempotencyToken);
      if (!before) {
        before = await this.existingVersions(functionName);
        this.before.set(context.idempotencyToken, before);
      }
      published = await whileUpdating(this.ctx, () =>
        client.send(
          new PublishVersionCommand({
            FunctionName: functionName,
            ...(properties.Description !== undefined ? { Description: String(properties.Description) } : {}),
            ...(properties.CodeSha256 !== undefined ? { CodeSha256: String(properties.CodeSha256) } : {}),
          }),
          { abortSignal: signal },
        ),
      );
      if (before.has(published.Version!))
        throw resourceExists(
          this.ctx,
          `A version for this Lambda function exists ( ${published.Version} ). Modify the function to create a new version. (If an interrupted deploy published ${published.FunctionArn} for ${logicalId}, import it: cdkd import --resource ${logicalId}=${published.FunctionArn}.)`,
          { ...resource, physicalId: published.FunctionArn },
        );
    } catch (err) {
      throw provisioningError(this.ctx, err, `publishing a version of ${functionName}`, resource);
    }
    const arn = published.FunctionArn!;
    const version = published.Version!;
    try {
      await versionActive(client, functionNameOf(functionName), version, signal);
      await this.applySettings(functionName, version, properties, {}, signal);
    } catch (err) {
      await this.discard(functionName, version, logicalId);
      throw provisioningError(this.ctx, err, `finishing version ${arn}`, { ...resource, physicalId: arn });
    }
    this.before.delete(context.idempotencyToken);
    return { physicalId: arn, attributes: { FunctionArn: arn, Version: version } };
  }

  private async discard(functionName: string, version: string, logicalId: string): Promise<void> {
    try {
      await lambdaClient(this.ctx).send(
        new DeleteFunctionCommand({ FunctionName: functionNameOf(functionName), Qualifier: version }),
      );
    } catch (err) {
      this.ctx.logger.warn(
        `${logicalId}: could not delete version ${version} of ${functionName} after a failed create (${errorMessage(err)})`,
      );
    }
  }

  private async applySettings(
    functionName: string,
    version: string,
    props: Props,
    previous: Props,
    signal?: AbortSignal,
  ) {
    const client = lambdaClient(this.ctx);
    const name = functionNameOf(functionName);
    const provisioned = props.ProvisionedConcurrencyConfig as
      { ProvisionedConcurrentExecutions?: number } | undefined;
    if (provisioned && !same(provisioned, previous.ProvisionedConcurrencyConfig))
      await client.send(
        new PutProvisionedConcurrencyConfigCommand({
          FunctionName: name,
          Qualifier: version,
          ProvisionedConcurrentExecutions: Number(provisioned.ProvisionedConcurrentExecutions),
        }),
        { abortSignal: signal },
      );
    const runtime = props.RuntimePolicy as
      { UpdateRuntimeOn?: string; RuntimeVersionArn?: string } | undefined;
    if (runtime && !same(runtime, previous.RuntimePolicy))
      await client.send(
        new PutRuntimeManagementConfigCommand({
          FunctionName: name,
          Qualifier: version,
          UpdateRuntimeOn: (runtime.UpdateRuntimeOn ?? 'Auto') as UpdateRuntimeOn,
          ...(runtime.RuntimeVersionArn ? { RuntimeVersionArn: runtime.RuntimeVersionArn } : {}),
        }),
        { abortSignal: signal },
      );
    if (
      props.FunctionScalingConfig !== undefined &&
      !same(props.FunctionScalingConfig, previous.FunctionScalingConfig)
    )
      await client.send(
        new PutFunctionScalingConfigCommand({
          FunctionName: name,
          Qualifier: version,
          FunctionScalingConfig: props.FunctionScalingConfig as Record<string, number>,
        }),
        { abortSignal: signal },
      );
  }

  /** Only FunctionScalingConfig changes in place; every other property is create-only. */
  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    await assertUpdateRegion(this.ctx, { logicalId, resourceType, physicalId }, context?.expectedRegion);
    const version = versionOf(physicalId)!;
    try {
      await this.applySettings(
        String(properties.FunctionName),
        version,
        { FunctionScalingConfig: properties.FunctionScalingConfig },
        { FunctionScalingConfig: previousProperties.FunctionScalingConfig },
        context?.signal,
      );
      if (
        properties.FunctionScalingConfig === undefined &&
        previousProperties.FunctionScalingConfig !== undefined
      )
        this.ctx.logger.warn(
          `${logicalId}: FunctionScalingConfig was removed, but Lambda cannot take it back from ${physicalId}; it stays as it was`,
        );
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating version ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
    return { physicalId, wasReplaced: false, attributes: { FunctionArn: physicalId, Version: version } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ) {
    const ref = parseFunctionRef(physicalId);
    if (!ref?.qualifier)
      throw provisioningError(
        this.ctx,
        new Error(`${physicalId} is not a version ARN`),
        `deleting version ${physicalId}`,
        { logicalId, resourceType, physicalId },
      );
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting version ${physicalId}`,
      () =>
        lambdaClient(this.ctx).send(
          new DeleteFunctionCommand({ FunctionName: ref.name, Qualifier: ref.qualifier }),
          {
            abortSignal: context?.signal,
          },
        ),
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName === 'FunctionArn') return physicalId;
    if (attributeName === 'Version') return versionOf(physicalId);
    return undefined;
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    try {
      const out = await lambdaClient(this.ctx).send(
        new GetFunctionConfigurationCommand({ FunctionName: physicalId }),
      );
      return {
        FunctionName: out.FunctionName,
        Description: out.Description ?? '',
        CodeSha256: out.CodeSha256,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading version ${physicalId}`, {
        resourceType: VERSION_TYPE,
        physicalId,
      });
    }
  }

  /** A version is named by its ARN. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    if (!input.knownPhysicalId) return null;
    return (await this.readCurrentState(input.knownPhysicalId))
      ? {
          physicalId: input.knownPhysicalId,
          attributes: { FunctionArn: input.knownPhysicalId, Version: versionOf(input.knownPhysicalId) },
        }
      : null;
  }
}
