/**
 * AWS::Lambda::EventSourceMapping: Create/Update/DeleteEventSourceMapping,
 * each waited for until the mapping has settled. The physical id is the
 * mapping's UUID.
 *
 * Lambda allows one mapping per source and function: a repeated create meets
 * a conflict naming the existing mapping, which is adopted when its ownership
 * tags show this very create made it, else refused. Creating right after the
 * function's role gained access to the source can meet IAM propagation
 * ("execution role does not have permissions"): retried, bounded.
 */
import {
  CreateEventSourceMappingCommand,
  DeleteEventSourceMappingCommand,
  GetEventSourceMappingCommand,
  ListEventSourceMappingsCommand,
  ListTagsCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateEventSourceMappingCommand,
  type CreateEventSourceMappingRequest,
  type EventSourceMappingConfiguration,
  type UpdateEventSourceMappingRequest,
} from '@aws-sdk/client-lambda';
import {
  CREATE_ONLY_MAPPING_PROPERTIES as CREATE_ONLY,
  EVENT_SOURCE_MAPPING_TYPE,
  MAPPING_PASS_THROUGH as PASS_THROUGH,
} from './properties';
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
import { assertUpdateRegion, deleteChecked, lambdaClient, same } from './common';
import {
  errorMessage,
  errorName,
  IAM_PROPAGATION_RETRY,
  isIamPropagation,
  isNotFound,
  provisioningError,
  resourceExists,
} from './errors';
import { ownershipOf } from './ownership';
import { tagChanges, tagMap, templateTags } from './tags';
import { mappingSettled } from './waiters';

/**
 * What UpdateEventSourceMapping needs to put a removed property back to
 * Lambda's default (the API leaves absent members as they are). BatchSize
 * and the batching window depend on the source kind.
 */
function resetValue(property: string, eventSourceArn: string | undefined): unknown {
  const service = eventSourceArn?.split(':')[2];
  switch (property) {
    case 'BatchSize':
      return service === 'sqs' ? 10 : 100;
    case 'MaximumBatchingWindowInSeconds':
      return service === 'sqs' || service === 'kinesis' || service === 'dynamodb' ? 0 : 500;
    case 'BisectBatchOnFunctionError':
      return false;
    case 'MaximumRecordAgeInSeconds':
    case 'MaximumRetryAttempts':
      return -1;
    case 'ParallelizationFactor':
      return 1;
    case 'TumblingWindowInSeconds':
      return 0;
    case 'FunctionResponseTypes':
    case 'SourceAccessConfigurations':
      return [];
    case 'FilterCriteria':
      return { Filters: [] };
    case 'DestinationConfig':
      return { OnFailure: {} };
    case 'ScalingConfig':
      return {};
    case 'MetricsConfig':
      return { Metrics: [] };
    case 'KmsKeyArn':
      return '';
    default:
      return undefined;
  }
}

function member(property: string): string {
  return property === 'KmsKeyArn' ? 'KMSKeyArn' : property;
}

function value(property: string, raw: unknown): unknown {
  if (property === 'StartingPositionTimestamp' && (typeof raw === 'number' || typeof raw === 'string'))
    return new Date(Number(raw) * 1000);
  if (
    [
      'BatchSize',
      'MaximumBatchingWindowInSeconds',
      'MaximumRecordAgeInSeconds',
      'MaximumRetryAttempts',
      'ParallelizationFactor',
      'TumblingWindowInSeconds',
    ].includes(property)
  )
    return typeof raw === 'string' ? Number(raw) : raw;
  return raw;
}

function attributes(mapping: EventSourceMappingConfiguration): Record<string, unknown> {
  return { Id: mapping.UUID, EventSourceMappingArn: mapping.EventSourceMappingArn };
}

/** The UUID Lambda names in its "already exists ... UUID <uuid>" conflict. */
function conflictingUuid(err: unknown): string | undefined {
  return /UUID ([0-9a-f-]{36})/.exec(errorMessage(err))?.[1];
}

export class LambdaEventSourceMappingProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const client = lambdaClient(this.ctx);
    const ownership = ownershipOf(context);
    const signal = context.signal;
    const resource = { logicalId, resourceType };
    const input: Record<string, unknown> = { FunctionName: String(properties.FunctionName) };
    for (const property of [...PASS_THROUGH, 'KmsKeyArn'])
      if (properties[property] !== undefined) input[member(property)] = value(property, properties[property]);
    if (properties.Enabled !== undefined)
      input.Enabled = properties.Enabled === true || properties.Enabled === 'true';
    input.Tags = { ...tagMap(properties.Tags), ...ownership.tags };
    let mapping: EventSourceMappingConfiguration;
    try {
      mapping = await this.ctx.retry(
        () =>
          client.send(
            new CreateEventSourceMappingCommand(input as unknown as CreateEventSourceMappingRequest),
            { abortSignal: signal },
          ),
        { ...IAM_PROPAGATION_RETRY, isRetryable: isIamPropagation },
      );
    } catch (err) {
      if (errorName(err) !== 'ResourceConflictException')
        throw provisioningError(
          this.ctx,
          err,
          `creating the event source mapping of ${String(properties.FunctionName)}`,
          resource,
        );
      mapping = await this.adoptOrRefuse(properties, err, ownership.classify.bind(ownership), signal);
    }
    const uuid = mapping.UUID!;
    try {
      await mappingSettled(client, uuid, { signal });
    } catch (err) {
      await client.send(new DeleteEventSourceMappingCommand({ UUID: uuid })).catch(() => undefined);
      throw provisioningError(this.ctx, err, `waiting for event source mapping ${uuid}`, {
        ...resource,
        physicalId: uuid,
      });
    }
    return { physicalId: uuid, attributes: attributes(mapping) };
  }

  private async adoptOrRefuse(
    properties: Props,
    conflict: unknown,
    classify: ReturnType<typeof ownershipOf>['classify'],
    signal?: AbortSignal,
  ): Promise<EventSourceMappingConfiguration> {
    const client = lambdaClient(this.ctx);
    let uuid = conflictingUuid(conflict);
    if (!uuid) {
      const listed = await client.send(
        new ListEventSourceMappingsCommand({
          FunctionName: String(properties.FunctionName),
          ...(properties.EventSourceArn ? { EventSourceArn: String(properties.EventSourceArn) } : {}),
        }),
        { abortSignal: signal },
      );
      uuid = listed.EventSourceMappings?.[0]?.UUID;
    }
    if (uuid) {
      const mapping = await client.send(new GetEventSourceMappingCommand({ UUID: uuid }), {
        abortSignal: signal,
      });
      const tags = (
        await client.send(new ListTagsCommand({ Resource: mapping.EventSourceMappingArn }), {
          abortSignal: signal,
        })
      ).Tags;
      if (classify(tags) === 'same-intent') return mapping;
    }
    throw resourceExists(
      this.ctx,
      `An event source mapping from ${String(properties.EventSourceArn)} to ${String(properties.FunctionName)} already exists${uuid ? ` (${uuid})` : ''} and was not made by this create.`,
      { resourceType: EVENT_SOURCE_MAPPING_TYPE, physicalId: uuid },
      conflict,
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
    const resource = { logicalId, resourceType, physicalId };
    await assertUpdateRegion(this.ctx, resource, context?.expectedRegion);
    const client = lambdaClient(this.ctx);
    const signal = context?.signal;
    const input: Record<string, unknown> = { UUID: physicalId };
    for (const property of [...PASS_THROUGH, 'KmsKeyArn']) {
      if (CREATE_ONLY.has(property)) continue;
      const now = properties[property];
      if (now !== undefined) {
        if (!same(now, previousProperties[property])) input[member(property)] = value(property, now);
      } else if (previousProperties[property] !== undefined) {
        const reset = resetValue(property, String(properties.EventSourceArn ?? ''));
        if (reset !== undefined) input[member(property)] = reset;
      }
    }
    if (!same(properties.FunctionName, previousProperties.FunctionName))
      input.FunctionName = String(properties.FunctionName);
    const enabled =
      properties.Enabled === undefined ? true : properties.Enabled === true || properties.Enabled === 'true';
    const wasEnabled =
      previousProperties.Enabled === undefined
        ? true
        : previousProperties.Enabled === true || previousProperties.Enabled === 'true';
    if (enabled !== wasEnabled) input.Enabled = enabled;
    try {
      await mappingSettled(client, physicalId, { signal });
      let mapping: EventSourceMappingConfiguration;
      if (Object.keys(input).length > 1) {
        mapping = await this.ctx.retry(
          () =>
            client.send(
              new UpdateEventSourceMappingCommand(input as unknown as UpdateEventSourceMappingRequest),
              { abortSignal: signal },
            ),
          { ...IAM_PROPAGATION_RETRY, isRetryable: isIamPropagation },
        );
        await mappingSettled(client, physicalId, { signal });
      } else
        mapping = await client.send(new GetEventSourceMappingCommand({ UUID: physicalId }), {
          abortSignal: signal,
        });
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      if (toRemove.length)
        await client.send(
          new UntagResourceCommand({ Resource: mapping.EventSourceMappingArn, TagKeys: toRemove }),
          { abortSignal: signal },
        );
      if (Object.keys(toSet).length)
        await client.send(new TagResourceCommand({ Resource: mapping.EventSourceMappingArn, Tags: toSet }), {
          abortSignal: signal,
        });
      return { physicalId, wasReplaced: false, attributes: attributes(mapping) };
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating event source mapping ${physicalId}`, resource);
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ) {
    const client = lambdaClient(this.ctx);
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting event source mapping ${physicalId}`,
      async () => {
        await client.send(new DeleteEventSourceMappingCommand({ UUID: physicalId }), {
          abortSignal: context?.signal,
        });
        await mappingSettled(client, physicalId, { gone: true, signal: context?.signal });
      },
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName === 'Id') return physicalId;
    if (attributeName !== 'EventSourceMappingArn') return undefined;
    try {
      return (await lambdaClient(this.ctx).send(new GetEventSourceMappingCommand({ UUID: physicalId })))
        .EventSourceMappingArn;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const client = lambdaClient(this.ctx);
    try {
      const mapping = await client.send(new GetEventSourceMappingCommand({ UUID: physicalId }));
      const props: Props = {
        FunctionName: mapping.FunctionArn,
        Enabled: mapping.State !== 'Disabled' && mapping.State !== 'Disabling',
      };
      for (const property of [...PASS_THROUGH, 'KmsKeyArn']) {
        const v = (mapping as unknown as Record<string, unknown>)[member(property)];
        if (v !== undefined) props[property] = v instanceof Date ? v.getTime() / 1000 : v;
      }
      props.Tags = templateTags(
        (await client.send(new ListTagsCommand({ Resource: mapping.EventSourceMappingArn }))).Tags,
      );
      return props;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading event source mapping ${physicalId}`, {
        resourceType: EVENT_SOURCE_MAPPING_TYPE,
        physicalId,
      });
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const client = lambdaClient(this.ctx);
    try {
      if (input.knownPhysicalId) {
        const mapping = await client.send(new GetEventSourceMappingCommand({ UUID: input.knownPhysicalId }));
        return { physicalId: mapping.UUID!, attributes: attributes(mapping) };
      }
      if (
        typeof input.properties.FunctionName !== 'string' ||
        typeof input.properties.EventSourceArn !== 'string'
      )
        return null;
      const listed = await client.send(
        new ListEventSourceMappingsCommand({
          FunctionName: input.properties.FunctionName,
          EventSourceArn: input.properties.EventSourceArn,
        }),
      );
      const mapping = listed.EventSourceMappings?.[0];
      return mapping ? { physicalId: mapping.UUID!, attributes: attributes(mapping) } : null;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw provisioningError(this.ctx, err, 'looking up the event source mapping', {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}

type Props = Record<string, unknown>;
