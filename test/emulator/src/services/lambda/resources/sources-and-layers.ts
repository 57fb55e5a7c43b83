/**
 * `AWS::Lambda::EventSourceMapping` (identifier: the mapping's UUID) and
 * `AWS::Lambda::LayerVersion` (identifier: the layer version ARN), over the
 * Lambda store.
 */
import {
  inventoryItems,
  notFound,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../../core/resources';
import type { ResourceSchema } from '../../../core/resource-schema';
import type { InventoryItem, InventoryView, Operations } from '../../../core/service';
import { generatedName } from '../../cloudcontrol/generate';
import { LayerHandlers } from '../layers';
import type { EventSourceMappingRecord, LayerRecord, LayerVersionRecord } from '../model';
import { layerArn } from '../names';
import { callContext, defined, Extras, run, tagList, tagMap, type LambdaParts } from './common';

type Model = Record<string, unknown>;

/** CloudFormation property → API member, where the names differ. */
const RENAMED: Record<string, string> = { KmsKeyArn: 'KMSKeyArn' };
/** Members CloudFormation sets on a mapping (create-only ones included). */
const MAPPING_PROPERTIES = [
  'AmazonManagedKafkaEventSourceConfig',
  'BatchSize',
  'BisectBatchOnFunctionError',
  'DestinationConfig',
  'DocumentDBEventSourceConfig',
  'EventSourceArn',
  'FilterCriteria',
  'FunctionResponseTypes',
  'KmsKeyArn',
  'LoggingConfig',
  'MaximumBatchingWindowInSeconds',
  'MaximumRecordAgeInSeconds',
  'MaximumRetryAttempts',
  'MetricsConfig',
  'ParallelizationFactor',
  'ProvisionedPollerConfig',
  'Queues',
  'ScalingConfig',
  'SelfManagedEventSource',
  'SelfManagedKafkaEventSourceConfig',
  'SourceAccessConfigurations',
  'StartingPosition',
  'StartingPositionTimestamp',
  'Topics',
  'TumblingWindowInSeconds',
];
const CREATE_ONLY = new Set([
  'AmazonManagedKafkaEventSourceConfig',
  'EventSourceArn',
  'SelfManagedEventSource',
  'SelfManagedKafkaEventSourceConfig',
  'StartingPosition',
  'StartingPositionTimestamp',
  'Queues',
  'Topics',
]);

export class EventSourceMappingProvider implements ResourceProvider {
  readonly typeName = 'AWS::Lambda::EventSourceMapping';
  private readonly extras: Extras;

  constructor(private readonly parts: LambdaParts) {
    this.extras = new Extras(parts.context, this.typeName);
  }

  private get ops(): Operations {
    return this.parts.eventSources.operations;
  }

  private stored(mapping: EventSourceMappingRecord): StoredResource {
    const model: Model = { Id: mapping.UUID, FunctionName: mapping.FunctionArn };
    for (const property of MAPPING_PROPERTIES) {
      const value = (mapping as unknown as Record<string, unknown>)[RENAMED[property] ?? property];
      if (value !== undefined) model[property] = value;
    }
    if (model.StartingPositionTimestamp instanceof Date)
      model.StartingPositionTimestamp = model.StartingPositionTimestamp.getTime() / 1000;
    return {
      identifier: mapping.UUID,
      model: defined({
        ...model,
        Enabled: mapping.settledState === 'Enabled',
        EventSourceMappingArn: mapping.EventSourceMappingArn,
        Tags: tagList(mapping.tags),
        ...this.extras.get(mapping, mapping.UUID),
      }),
    };
  }

  private input(desired: Model, only?: (p: string) => boolean): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    for (const property of MAPPING_PROPERTIES)
      if (desired[property] !== undefined && (!only || only(property)))
        input[RENAMED[property] ?? property] = desired[property];
    return input;
  }

  private settle(scope: ResourceScope, uuid: string): EventSourceMappingRecord {
    const mapping = this.parts.eventSources.mapping(scope, uuid);
    // The handler waits for the mapping to leave Creating / Updating.
    delete mapping.transition;
    return mapping;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const tags = tagMap(desired.Tags);
    const created = run<{ UUID: string }>(this.ops, 'CreateEventSourceMapping', callContext(scope), {
      FunctionName: desired.FunctionName,
      ...this.input(desired),
      ...(desired.Enabled !== undefined ? { Enabled: desired.Enabled } : {}),
      ...(Object.keys(tags).length ? { Tags: tags } : {}),
    });
    // The model names the function as the template did.
    this.extras.set(scope, created.UUID, { FunctionName: desired.FunctionName });
    return this.stored(this.settle(scope, created.UUID));
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const mapping = this.parts.context.store.eventSourceMappings.get(identifier);
    if (
      !mapping ||
      mapping.account !== scope.account ||
      mapping.region !== scope.region ||
      mapping.transition?.kind === 'delete'
    )
      return undefined;
    return this.stored(mapping);
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const current = this.read(scope, schema, identifier);
    if (!current) throw notFound(schema.typeName, identifier);
    this.settle(scope, identifier);
    run(this.ops, 'UpdateEventSourceMapping', callContext(scope), {
      UUID: identifier,
      FunctionName: desired.FunctionName,
      Enabled: desired.Enabled ?? true,
      ...this.input(desired, (p) => !CREATE_ONLY.has(p)),
    });
    const mapping = this.settle(scope, identifier);
    mapping.tags = tagMap(desired.Tags);
    this.extras.set(scope, identifier, { FunctionName: desired.FunctionName });
    return this.stored(mapping);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    if (!this.read(scope, schema, identifier)) throw notFound(schema.typeName, identifier);
    run(this.ops, 'DeleteEventSourceMapping', callContext(scope), { UUID: identifier });
    this.parts.context.store.eventSourceMappings.delete(identifier);
    this.extras.delete(scope, identifier);
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.parts.eventSources
      .all(scope)
      .filter((m) => m.transition?.kind !== 'delete')
      .map((m) => this.stored(m));
  }

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.parts.context.store.eventSourceMappings.values(), (m) =>
      m.transition?.kind === 'delete' ? undefined : this.stored(m),
    );
  }
}

export class LayerVersionProvider implements ResourceProvider {
  readonly typeName = 'AWS::Lambda::LayerVersion';
  private readonly ops: Operations;
  private readonly extras: Extras;

  constructor(private readonly parts: LambdaParts) {
    this.ops = new LayerHandlers(parts.context).operations;
    this.extras = new Extras(parts.context, this.typeName);
  }

  private stored(layer: LayerRecord, version: LayerVersionRecord): StoredResource {
    const arn = layerArn(layer.account, layer.region, layer.name, version.Version);
    return {
      identifier: arn,
      model: defined({
        LayerName: layer.name,
        LayerVersionArn: arn,
        Description: version.Description,
        CompatibleRuntimes: version.CompatibleRuntimes,
        CompatibleArchitectures: version.CompatibleArchitectures,
        LicenseInfo: version.LicenseInfo,
        ...this.extras.get(layer, arn),
      }),
    };
  }

  private find(scope: ResourceScope, identifier: string): [LayerRecord, LayerVersionRecord] | undefined {
    const m = /^arn:[^:]+:lambda:([^:]+):(\d{12}):layer:([^:]+):(\d+)$/.exec(identifier);
    if (!m || m[1] !== scope.region || m[2] !== scope.account) return undefined;
    const layer = this.parts.context.store.getLayer(m[2], m[1], m[3]!);
    const version = layer?.versions[m[4]!];
    return layer && version ? [layer, version] : undefined;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const published = run<{ LayerVersionArn: string }>(this.ops, 'PublishLayerVersion', callContext(scope), {
      LayerName: typeof desired.LayerName === 'string' ? desired.LayerName : generatedName(this.typeName),
      Content: desired.Content,
      Description: desired.Description,
      CompatibleRuntimes: desired.CompatibleRuntimes,
      CompatibleArchitectures: desired.CompatibleArchitectures,
      LicenseInfo: desired.LicenseInfo,
    });
    this.extras.set(scope, published.LayerVersionArn, { Content: desired.Content });
    const [layer, version] = this.find(scope, published.LayerVersionArn)!;
    return this.stored(layer, version);
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const found = this.find(scope, identifier);
    return found ? this.stored(...found) : undefined;
  }

  /** Every property is create-only: a layer version never changes. */
  update(scope: ResourceScope, schema: ResourceSchema, identifier: string): StoredResource {
    const found = this.read(scope, schema, identifier);
    if (!found) throw notFound(schema.typeName, identifier);
    return found;
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const found = this.find(scope, identifier);
    if (!found) throw notFound(schema.typeName, identifier);
    run(this.ops, 'DeleteLayerVersion', callContext(scope), {
      LayerName: found[0].name,
      VersionNumber: found[1].Version,
    });
    this.extras.delete(scope, identifier);
  }

  private all(): Array<{ account: string; region: string; layer: LayerRecord; version: LayerVersionRecord }> {
    return [...this.parts.context.store.layers.values()].flatMap((layer) =>
      Object.values(layer.versions).map((version) => ({
        account: layer.account,
        region: layer.region,
        layer,
        version,
      })),
    );
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.all()
      .filter((l) => l.account === scope.account && l.region === scope.region)
      .map((l) => this.stored(l.layer, l.version));
  }

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.all(), (l) => this.stored(l.layer, l.version));
  }
}
