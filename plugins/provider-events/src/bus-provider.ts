/**
 * AWS::Events::EventBus through the EventBridge API. The physical id is the
 * bus name (Cloud Control's identifier and what `Ref` returns).
 *
 * Bus names are regional and the template always names the bus, so the bus's
 * ownership tags decide when CreateEventBus finds the name taken: a bus made
 * by this very create (an earlier attempt whose reply was lost) is adopted and
 * brought to the template; any other is refused with `ResourceExistsError`.
 * `Policy` is the bus's resource policy (PutPermission with the whole policy;
 * removing it removes every permission).
 */
import {
  CreateEventBusCommand,
  DeleteEventBusCommand,
  DescribeEventBusCommand,
  EventBridgeClient,
  ListTagsForResourceCommand,
  PutPermissionCommand,
  RemovePermissionCommand,
  UpdateEventBusCommand,
  type DeadLetterConfig,
  type LogConfig,
} from '@aws-sdk/client-eventbridge';
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
import { errorMessage, errorName, existsError, isNotFound, provisioningError } from './events-errors';
import { readTags, reconcileTags, tagMap } from './tags';

export const BUS_TYPE = 'AWS::Events::EventBus';

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class EventsBusProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): EventBridgeClient {
    return this.ctx.clients.get(EventBridgeClient);
  }

  private async arnOf(name: string): Promise<string> {
    return `arn:${this.ctx.partition}:events:${this.ctx.region}:${await this.ctx.accountId()}:event-bus/${name}`;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name = typeof properties.Name === 'string' ? properties.Name : '';
    if (!name)
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: Name is required.`, {
        resource: { logicalId, resourceType },
        remedy: 'Set Name to the name of the event bus.',
      });
    const arn = await this.arnOf(name);
    const resource = { logicalId, resourceType, physicalId: name };
    const signal = context.signal;
    const client = this.client();
    const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    let adopted = false;
    try {
      await client.send(
        new CreateEventBusCommand({
          Name: name,
          EventSourceName:
            typeof properties.EventSourceName === 'string' ? properties.EventSourceName : undefined,
          Description: typeof properties.Description === 'string' ? properties.Description : undefined,
          KmsKeyIdentifier:
            typeof properties.KmsKeyIdentifier === 'string' ? properties.KmsKeyIdentifier : undefined,
          DeadLetterConfig: properties.DeadLetterConfig as DeadLetterConfig | undefined,
          LogConfig: properties.LogConfig as LogConfig | undefined,
          ...(Object.keys(tags).length
            ? { Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }
            : {}),
        }),
        { abortSignal: signal },
      );
    } catch (err) {
      if (errorName(err) !== 'ResourceAlreadyExistsException')
        throw provisioningError(this.ctx, err, `creating event bus ${name}`, resource);
      const found = (
        await client.send(new ListTagsForResourceCommand({ ResourceARN: arn }), { abortSignal: signal })
      ).Tags;
      const verdict = context.ownership?.classify(found) ?? 'foreign';
      if (verdict !== 'same-intent')
        throw existsError(
          this.ctx,
          `event bus ${name}`,
          logicalId,
          resourceType,
          verdict,
          `Give ${logicalId} another Name, or delete or import the existing event bus.`,
        );
      adopted = true;
    }
    try {
      if (adopted) await this.updateSettings(name, properties, {}, signal);
      if (properties.Policy !== undefined)
        await client.send(new PutPermissionCommand({ EventBusName: name, Policy: json(properties.Policy) }), {
          abortSignal: signal,
        });
    } catch (err) {
      if (!adopted) await this.deleteQuietly(name, logicalId);
      throw provisioningError(this.ctx, err, `setting up event bus ${name}`, resource);
    }
    return { physicalId: name, attributes: { Arn: arn, Name: name } };
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
    const signal = context?.signal;
    const arn = await this.arnOf(physicalId);
    try {
      await this.updateSettings(physicalId, properties, previousProperties, signal);
      if (!same(properties.Policy, previousProperties.Policy)) {
        if (properties.Policy !== undefined)
          await client.send(
            new PutPermissionCommand({ EventBusName: physicalId, Policy: json(properties.Policy) }),
            {
              abortSignal: signal,
            },
          );
        else
          await client.send(
            new RemovePermissionCommand({ EventBusName: physicalId, RemoveAllPermissions: true }),
            {
              abortSignal: signal,
            },
          );
      }
      await reconcileTags(client, arn, properties.Tags, previousProperties.Tags, signal);
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating event bus ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
    return { physicalId, wasReplaced: false, attributes: { Arn: arn, Name: physicalId } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    // DeleteEventBus succeeds for a bus that does not exist: check the region before.
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    try {
      await this.client().send(new DeleteEventBusCommand({ Name: physicalId }), {
        abortSignal: context?.signal,
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw provisioningError(this.ctx, err, `deleting event bus ${physicalId}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName === 'Name') return physicalId;
    return attributeName === 'Arn' ? this.arnOf(physicalId) : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const bus = await client.send(new DescribeEventBusCommand({ Name: physicalId }));
      const tags = await client.send(new ListTagsForResourceCommand({ ResourceARN: bus.Arn }));
      return {
        Name: bus.Name,
        Description: bus.Description ?? '',
        KmsKeyIdentifier: bus.KmsKeyIdentifier ?? '',
        DeadLetterConfig: bus.DeadLetterConfig ?? {},
        LogConfig: bus.LogConfig ?? {},
        Policy: bus.Policy ? (JSON.parse(bus.Policy) as unknown) : {},
        Tags: readTags(tags.Tags),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading event bus ${physicalId}`, {
        resourceType: BUS_TYPE,
        physicalId,
      });
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name =
      input.knownPhysicalId ??
      (typeof input.properties.Name === 'string' ? input.properties.Name : undefined);
    if (!name) return null;
    return (await this.readCurrentState(name))
      ? { physicalId: name, attributes: { Arn: await this.arnOf(name), Name: name } }
      : null;
  }

  // -------------------------------------------------------------------------

  /**
   * UpdateEventBus for the settings that changed; a dropped one is cleared (an empty
   * description or key id, a dead-letter configuration without a queue, logging off).
   */
  private async updateSettings(
    name: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const changed = (key: string) => !same(properties[key], previous[key]);
    if (!['Description', 'KmsKeyIdentifier', 'DeadLetterConfig', 'LogConfig'].some(changed)) return;
    await this.client().send(
      new UpdateEventBusCommand({
        Name: name,
        ...(changed('Description')
          ? { Description: typeof properties.Description === 'string' ? properties.Description : '' }
          : {}),
        ...(changed('KmsKeyIdentifier')
          ? {
              KmsKeyIdentifier:
                typeof properties.KmsKeyIdentifier === 'string' ? properties.KmsKeyIdentifier : '',
            }
          : {}),
        ...(changed('DeadLetterConfig')
          ? { DeadLetterConfig: (properties.DeadLetterConfig as DeadLetterConfig) ?? {} }
          : {}),
        ...(changed('LogConfig')
          ? { LogConfig: (properties.LogConfig as LogConfig) ?? { Level: 'OFF', IncludeDetail: 'NONE' } }
          : {}),
      }),
      { abortSignal: signal },
    );
  }

  private async deleteQuietly(name: string, logicalId: string): Promise<void> {
    try {
      await this.client().send(new DeleteEventBusCommand({ Name: name }));
    } catch (err) {
      this.ctx.logger.warn(
        `${logicalId}: could not delete event bus ${name} after the failed create (${errorMessage(err)}); delete it by hand.`,
      );
    }
  }
}
