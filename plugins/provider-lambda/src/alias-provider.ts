/**
 * AWS::Lambda::Alias: CreateAlias / UpdateAlias / DeleteAlias, and the
 * alias's provisioned concurrency. The physical id is the alias ARN.
 *
 * Aliases carry no tags. Their name is the template's, so a repeated create
 * meets "Alias already exists": the alias is adopted only when it hangs off a
 * function of this stack and is exactly what the template asks for; any other
 * is refused.
 */
import {
  CreateAliasCommand,
  DeleteAliasCommand,
  DeleteProvisionedConcurrencyConfigCommand,
  GetAliasCommand,
  PutProvisionedConcurrencyConfigCommand,
  UpdateAliasCommand,
  type AliasConfiguration,
  type AliasRoutingConfiguration,
} from '@aws-sdk/client-lambda';
import { ALIAS_TYPE } from './properties';
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
import { functionNameOf, parseFunctionRef } from './names';

type Props = Record<string, unknown>;

/** CloudFormation's `[{ FunctionVersion, FunctionWeight }]` as the API's `{ version: weight }`. */
export function routingConfig(routing: unknown): AliasRoutingConfiguration {
  const weights = ((routing as { AdditionalVersionWeights?: unknown } | undefined)
    ?.AdditionalVersionWeights ?? []) as Array<{
    FunctionVersion: string;
    FunctionWeight: number | string;
  }>;
  return {
    AdditionalVersionWeights: Object.fromEntries(
      weights.map((w) => [w.FunctionVersion, Number(w.FunctionWeight)]),
    ),
  };
}

function routingProperty(routing: AliasRoutingConfiguration | undefined): Props | undefined {
  const weights = Object.entries(routing?.AdditionalVersionWeights ?? {});
  return weights.length
    ? {
        AdditionalVersionWeights: weights.map(([FunctionVersion, FunctionWeight]) => ({
          FunctionVersion,
          FunctionWeight,
        })),
      }
    : undefined;
}

/** The alias matches the template: version, description, routing. */
function matches(alias: AliasConfiguration, props: Props): boolean {
  return (
    alias.FunctionVersion === String(props.FunctionVersion) &&
    (alias.Description ?? '') === String(props.Description ?? '') &&
    same(
      routingConfig(props.RoutingConfig).AdditionalVersionWeights,
      alias.RoutingConfig?.AdditionalVersionWeights ?? {},
    )
  );
}

export class LambdaAliasProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const functionName = String(properties.FunctionName);
    const name = String(properties.Name);
    const resource = { logicalId, resourceType };
    const client = lambdaClient(this.ctx);
    const signal = context.signal;
    let alias: AliasConfiguration;
    try {
      alias = await whileUpdating(this.ctx, () =>
        client.send(
          new CreateAliasCommand({
            FunctionName: functionName,
            Name: name,
            FunctionVersion: String(properties.FunctionVersion),
            ...(properties.Description !== undefined ? { Description: String(properties.Description) } : {}),
            ...(properties.RoutingConfig !== undefined
              ? { RoutingConfig: routingConfig(properties.RoutingConfig) }
              : {}),
          }),
          { abortSignal: signal },
        ),
      );
    } catch (err) {
      if (!(errorName(err) === 'ResourceConflictException' && /already exists/i.test(errorMessage(err))))
        throw provisioningError(this.ctx, err, `creating alias ${name} of ${functionName}`, resource);
      alias = await this.adoptOrRefuse(functionName, name, properties, context, err);
    }
    const arn = alias.AliasArn!;
    try {
      await this.provisionedConcurrency(functionName, name, properties, {}, signal);
    } catch (err) {
      await client
        .send(new DeleteAliasCommand({ FunctionName: functionName, Name: name }))
        .catch(() => undefined);
      throw provisioningError(this.ctx, err, `setting the provisioned concurrency of ${arn}`, {
        ...resource,
        physicalId: arn,
      });
    }
    return { physicalId: arn, attributes: { AliasArn: arn } };
  }

  private async adoptOrRefuse(
    functionName: string,
    name: string,
    properties: Props,
    context: CreateContext,
    conflict: unknown,
  ): Promise<AliasConfiguration> {
    const alias = await lambdaClient(this.ctx).send(
      new GetAliasCommand({ FunctionName: functionName, Name: name }),
      {
        abortSignal: context.signal,
      },
    );
    if (
      matches(alias, properties) &&
      (await functionOfStack(this.ctx, functionName, context.stackName, context.signal))
    )
      return alias;
    throw resourceExists(
      this.ctx,
      `The alias ${alias.AliasArn} already exists and is not the one this stack asks for.`,
      { resourceType: ALIAS_TYPE, physicalId: alias.AliasArn },
      conflict,
    );
  }

  private async provisionedConcurrency(
    functionName: string,
    alias: string,
    props: Props,
    previous: Props,
    signal?: AbortSignal,
  ) {
    const now = props.ProvisionedConcurrencyConfig as
      { ProvisionedConcurrentExecutions?: number } | undefined;
    const before = previous.ProvisionedConcurrencyConfig;
    if (same(now, before)) return;
    const client = lambdaClient(this.ctx);
    if (now)
      await client.send(
        new PutProvisionedConcurrencyConfigCommand({
          FunctionName: functionName,
          Qualifier: alias,
          ProvisionedConcurrentExecutions: Number(now.ProvisionedConcurrentExecutions),
        }),
        { abortSignal: signal },
      );
    else
      await client
        .send(
          new DeleteProvisionedConcurrencyConfigCommand({ FunctionName: functionName, Qualifier: alias }),
          { abortSignal: signal },
        )
        .catch((err: unknown) => {
          if (errorName(err) !== 'ProvisionedConcurrencyConfigNotFoundException') throw err;
        });
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const resource = { logicalId, resourceType, physicalId };
    await assertUpdateRegion(this.ctx, resource, context?.expectedRegion);
    const ref = parseFunctionRef(physicalId)!;
    const functionName = String(properties.FunctionName ?? ref.name);
    try {
      await whileUpdating(this.ctx, () =>
        lambdaClient(this.ctx).send(
          new UpdateAliasCommand({
            FunctionName: functionName,
            Name: ref.qualifier,
            FunctionVersion: String(properties.FunctionVersion),
            // Removed from the template: back to no description and no weighted routing.
            Description: properties.Description !== undefined ? String(properties.Description) : '',
            RoutingConfig: routingConfig(properties.RoutingConfig),
          }),
          { abortSignal: context?.signal },
        ),
      );
      await this.provisionedConcurrency(
        functionName,
        ref.qualifier!,
        properties,
        previousProperties,
        context?.signal,
      );
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating alias ${physicalId}`, resource);
    }
    return { physicalId, wasReplaced: false, attributes: { AliasArn: physicalId } };
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
        new Error(`${physicalId} is not an alias ARN`),
        `deleting alias ${physicalId}`,
        { logicalId, resourceType, physicalId },
      );
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting alias ${physicalId}`,
      () =>
        whileUpdating(this.ctx, () =>
          lambdaClient(this.ctx).send(
            new DeleteAliasCommand({ FunctionName: ref.name, Name: ref.qualifier }),
            {
              abortSignal: context?.signal,
            },
          ),
        ),
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'AliasArn' ? physicalId : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const ref = parseFunctionRef(physicalId);
    if (!ref?.qualifier) return undefined;
    try {
      const alias = await lambdaClient(this.ctx).send(
        new GetAliasCommand({ FunctionName: ref.name, Name: ref.qualifier }),
      );
      return {
        FunctionName: functionNameOf(physicalId),
        Name: alias.Name,
        FunctionVersion: alias.FunctionVersion,
        Description: alias.Description ?? '',
        ...(routingProperty(alias.RoutingConfig)
          ? { RoutingConfig: routingProperty(alias.RoutingConfig) }
          : {}),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading alias ${physicalId}`, {
        resourceType: ALIAS_TYPE,
        physicalId,
      });
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const arn =
      input.knownPhysicalId ??
      (typeof input.properties.FunctionName === 'string' && typeof input.properties.Name === 'string'
        ? await this.aliasArn(input.properties.FunctionName, input.properties.Name)
        : undefined);
    if (!arn || !(await this.readCurrentState(arn))) return null;
    return { physicalId: arn, attributes: { AliasArn: arn } };
  }

  private async aliasArn(functionName: string, name: string): Promise<string | undefined> {
    try {
      return (
        await lambdaClient(this.ctx).send(new GetAliasCommand({ FunctionName: functionName, Name: name }))
      ).AliasArn;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
