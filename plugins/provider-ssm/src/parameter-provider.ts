/**
 * AWS::SSM::Parameter through Parameter Store, as CloudFormation's handler
 * does it: PutParameter without Overwrite (with the tags) to create, a new
 * version with Overwrite only when something besides the tags changed, tags
 * reconciled with Add/RemoveTagsFromResource. The physical id is the name.
 *
 * A repeated create (its reply lost, or an interrupted deploy settled by a
 * later process) meets `ParameterAlreadyExists`; the ownership tags decide:
 * the parameter this very create made is adopted, anything else is refused.
 */
import {
  AddTagsToResourceCommand,
  DeleteParameterCommand,
  DescribeParametersCommand,
  GetParameterCommand,
  ListTagsForResourceCommand,
  PutParameterCommand,
  RemoveTagsFromResourceCommand,
  SSMClient,
  type Parameter,
  type PutParameterCommandInput,
} from '@aws-sdk/client-ssm';
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
import { createHash } from 'node:crypto';
import { parameterChanged, putInput, tagChanges, tagMap, updateInput } from './parameter-properties';
import { errorName } from './ssm-errors';

/** Tag keys cdkd's ownership marker uses; never reported as template tags. */
const OWNERSHIP_PREFIX = 'cdkd:';

/** "There are concurrent updates for a resource that supports one update at a time" (PutParameter). */
/** "The maximum length for a parameter name that you create is 1011 characters" (PutParameter). */
const MAX_NAME_LENGTH = 1011;

const TOO_MANY_UPDATES_RETRY = { maxAttempts: 6, baseDelayMs: 200, maxDelayMs: 3_000 };

export class SsmParameterProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): SSMClient {
    return this.ctx.clients.get(SSMClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    if (properties.Type === 'SecureString') {
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: AWS::SSM::Parameter cannot be a SecureString (CloudFormation refuses it too).`,
        {
          remedy:
            'Keep the secret in an AWS::SecretsManager::Secret, or create the SecureString outside the stack and read it with a dynamic reference.',
          resource: { logicalId, resourceType },
        },
      );
    }
    const name = this.nameFor(logicalId, properties, context);
    const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    const input = {
      ...putInput(name, properties),
      Overwrite: false,
      ...(Object.keys(tags).length > 0
        ? { Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }
        : {}),
    };
    try {
      await this.put(input, context.signal);
    } catch (err) {
      if (errorName(err) !== 'ParameterAlreadyExists')
        throw this.wrap(err, `creating parameter ${name}`, logicalId, resourceType, name);
      await this.adoptOwn(name, logicalId, resourceType, context);
    }
    return { physicalId: name, attributes: await this.attributesOf(name, context.signal, logicalId) };
  }

  /** An existing parameter of the name is ours only if this very create made it. */
  private async adoptOwn(
    name: string,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
  ): Promise<void> {
    let verdict: 'same-intent' | 'same-resource' | 'foreign' = 'foreign';
    if (context.ownership) {
      const tags = await this.client()
        .send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: name }), {
          abortSignal: context.signal,
        })
        .catch((err: unknown) => {
          throw this.wrap(err, `reading the tags of parameter ${name}`, logicalId, resourceType, name);
        });
      verdict = context.ownership.classify(tags.TagList);
    }
    if (verdict === 'same-intent') {
      this.ctx.logger.debug(`${logicalId}: parameter ${name} was made by this create earlier; adopting it`);
      return;
    }
    const Exists = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    throw new Exists(
      `${logicalId}: SSM parameter ${name} already exists and was not made by this deploy${
        verdict === 'same-resource' ? ' (it belongs to an earlier create of the same resource)' : ''
      }.`,
      {
        remedy: `Give the parameter another Name, delete ${name}, or import it into the stack.`,
        resource: { logicalId, resourceType, physicalId: name },
      },
    );
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const abortSignal = context?.signal;
    try {
      if (parameterChanged(properties, previousProperties)) {
        const { input, tierKept } = updateInput(physicalId, properties, previousProperties);
        if (tierKept)
          this.ctx.logger.warn(
            `${logicalId}: Tier was removed, but Parameter Store cannot move ${physicalId} from Advanced back to Standard; it stays Advanced.`,
          );
        await this.put({ ...input, Name: physicalId, Overwrite: true }, abortSignal);
      }
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      const removable = toRemove.filter((k) => !k.startsWith(OWNERSHIP_PREFIX));
      if (removable.length > 0)
        await client.send(
          new RemoveTagsFromResourceCommand({
            ResourceType: 'Parameter',
            ResourceId: physicalId,
            TagKeys: removable,
          }),
          { abortSignal },
        );
      if (toSet.length > 0)
        await client.send(
          new AddTagsToResourceCommand({ ResourceType: 'Parameter', ResourceId: physicalId, Tags: toSet }),
          { abortSignal },
        );
    } catch (err) {
      throw this.wrap(err, `updating parameter ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return {
      physicalId,
      wasReplaced: false,
      attributes: await this.attributesOf(physicalId, abortSignal, logicalId),
    };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    try {
      await client.send(new DeleteParameterCommand({ Name: physicalId }), { abortSignal: context?.signal });
    } catch (err) {
      if (errorName(err) !== 'ParameterNotFound')
        throw this.wrap(err, `deleting parameter ${physicalId}`, logicalId, resourceType, physicalId);
      // Gone only if we looked in the region it was created in.
      this.ctx.assertRegionMatch(
        await client.config.region(),
        context?.expectedRegion,
        resourceType,
        logicalId,
        physicalId,
      );
      this.ctx.logger.debug(`${logicalId}: parameter ${physicalId} does not exist; nothing to delete`);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    const parameter = await this.read(physicalId);
    return parameter ? attributesFrom(parameter)[attributeName] : undefined;
  }

  /** Every property the template controls, from GetParameter, DescribeParameters and the tags. */
  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const parameter = await this.read(physicalId);
      if (!parameter) return undefined;
      const [described, tags] = await Promise.all([
        client.send(
          new DescribeParametersCommand({
            ParameterFilters: [{ Key: 'Name', Option: 'Equals', Values: [physicalId] }],
          }),
        ),
        client.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: physicalId })),
      ]);
      const meta = described.Parameters?.[0];
      const policies = (meta?.Policies ?? []).map((p) => JSON.parse(p.PolicyText ?? 'null') as unknown);
      const userTags: Record<string, string> = {};
      for (const t of tags.TagList ?? [])
        if (t.Key && !t.Key.startsWith(OWNERSHIP_PREFIX)) userTags[t.Key] = t.Value ?? '';
      return {
        Name: physicalId,
        Type: parameter.Type,
        Value: parameter.Value,
        DataType: parameter.DataType ?? 'text',
        Description: meta?.Description ?? '',
        AllowedPattern: meta?.AllowedPattern ?? '',
        Tier: meta?.Tier ?? 'Standard',
        Policies: policies.length ? JSON.stringify(policies) : undefined,
        Tags: userTags,
      };
    } catch (err) {
      throw this.wrap(err, `reading parameter ${physicalId}`, undefined, 'AWS::SSM::Parameter', physicalId);
    }
  }

  /** Adopts the parameter the user names, or the template's Name. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name =
      input.knownPhysicalId ??
      (typeof input.properties.Name === 'string' ? input.properties.Name : undefined);
    if (!name) return null;
    try {
      const parameter = await this.read(name);
      return parameter ? { physicalId: name, attributes: attributesFrom(parameter) } : null;
    } catch (err) {
      throw this.wrap(err, `looking up parameter ${name}`, input.logicalId, input.resourceType, name);
    }
  }

  /**
   * The template's Name, or one derived from the create's token. Generated
   * names start with `CFN-` as CloudFormation's do: a name may not begin with
   * `aws` or `ssm` (any case), which a stack named `Ssm...` otherwise would.
   */
  private nameFor(logicalId: string, properties: Record<string, unknown>, context: CreateContext): string {
    if (typeof properties.Name === 'string' && properties.Name !== '') return properties.Name;
    if (context.generatePhysicalName)
      return `CFN-${context.generatePhysicalName({ maxLength: MAX_NAME_LENGTH - 4, extraCharacters: '-_.' })}`;
    const suffix = createHash('sha256')
      .update(context.idempotencyToken)
      .digest('hex')
      .slice(0, 12)
      .toUpperCase();
    return `CFN-${logicalId.replace(/[^A-Za-z0-9_.-]/g, '')}-${suffix}`;
  }

  /** PutParameter, retrying Parameter Store's documented one-update-at-a-time refusal. */
  private async put(input: Record<string, unknown>, abortSignal: AbortSignal | undefined): Promise<void> {
    // The template's strings as they are: Parameter Store validates Type, Tier and the rest itself.
    const command = new PutParameterCommand(input as unknown as PutParameterCommandInput);
    await this.ctx.retry(() => this.client().send(command, { abortSignal }), {
      ...TOO_MANY_UPDATES_RETRY,
      isRetryable: (err) => errorName(err) === 'TooManyUpdates',
    });
  }

  /** The parameter, or `undefined` when it does not exist. */
  private async read(name: string, abortSignal?: AbortSignal): Promise<Parameter | undefined> {
    try {
      return (await this.client().send(new GetParameterCommand({ Name: name }), { abortSignal })).Parameter;
    } catch (err) {
      if (errorName(err) === 'ParameterNotFound') return undefined;
      throw err;
    }
  }

  private async attributesOf(
    name: string,
    abortSignal: AbortSignal | undefined,
    logicalId: string,
  ): Promise<Record<string, unknown>> {
    const parameter = await this.read(name, abortSignal).catch((err: unknown) => {
      throw this.wrap(err, `reading parameter ${name}`, logicalId, 'AWS::SSM::Parameter', name);
    });
    return parameter ? attributesFrom(parameter) : {};
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
  ): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    const message = err instanceof Error ? err.message : String(err);
    return new this.ctx.errors.ProvisioningError(`SSM ${name ? `${name} ` : ''}while ${doing}: ${message}`, {
      cause: err,
      resource: { logicalId, resourceType, physicalId },
      retryable: this.ctx.isTransientError(err),
    });
  }
}

/** `Fn::GetAtt` values: Arn, Type and Value (a String or StringList: nothing secret). */
function attributesFrom(parameter: Parameter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (parameter.ARN) out.Arn = parameter.ARN;
  if (parameter.Type) out.Type = parameter.Type;
  if (parameter.Value !== undefined) out.Value = parameter.Value;
  return out;
}
