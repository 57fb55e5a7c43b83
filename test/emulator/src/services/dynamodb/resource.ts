/**
 * A DynamoDB table seen as the CloudFormation resource `AWS::DynamoDB::Table`,
 * and the provider that lets Cloud Control create, read, update and delete
 * tables in DynamoDB's own store (identifier: the table name). Like the
 * resource handler, a request completes with the table ACTIVE: the
 * provider does not leave it in a transitional state.
 */
import { upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem, InventoryView } from '../../core/service';
import { revision, tableFromCreate } from './definition';
import { DynamoDbStore, streamArn, tableArn, type GlobalIndex, type Table } from './store';

const TYPE = 'AWS::DynamoDB::Table';

type Model = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function indexModel(index: GlobalIndex): Model {
  return {
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection,
    ...(index.ProvisionedThroughput ? { ProvisionedThroughput: index.ProvisionedThroughput } : {}),
    ...(index.OnDemandThroughput ? { OnDemandThroughput: index.OnDemandThroughput } : {}),
    ...(index.WarmThroughput ? { WarmThroughput: index.WarmThroughput } : {}),
    ...(index.contributorInsights
      ? {
          ContributorInsightsSpecification: {
            Enabled: index.contributorInsights.enabled,
            ...(index.contributorInsights.mode ? { Mode: index.contributorInsights.mode } : {}),
          },
        }
      : {}),
  };
}

/** The table's CloudFormation properties, read-only ones included. */
export function tableProperties(table: Table): Model {
  const activeKinesis = table.kinesis.find((d) => d.enabled);
  return {
    TableName: table.name,
    Arn: tableArn(table),
    ...(table.stream ? { StreamArn: streamArn(table, table.stream.label) } : {}),
    KeySchema: table.keySchema,
    AttributeDefinitions: table.attributeDefinitions,
    BillingMode: table.billingMode,
    ...(table.billingMode === 'PROVISIONED'
      ? {
          ProvisionedThroughput: {
            ReadCapacityUnits: table.provisionedThroughput.ReadCapacityUnits,
            WriteCapacityUnits: table.provisionedThroughput.WriteCapacityUnits,
          },
        }
      : {}),
    ...(table.globalIndexes.length ? { GlobalSecondaryIndexes: table.globalIndexes.map(indexModel) } : {}),
    ...(table.localIndexes.length ? { LocalSecondaryIndexes: table.localIndexes } : {}),
    ...(table.stream
      ? {
          StreamSpecification: {
            StreamViewType: table.stream.viewType,
            ...(table.streamResourcePolicy
              ? {
                  ResourcePolicy: {
                    PolicyDocument: JSON.parse(table.streamResourcePolicy.policy) as unknown,
                  },
                }
              : {}),
            ...(table.streamTags?.length ? { Tags: table.streamTags } : {}),
          },
        }
      : {}),
    ...(table.sse
      ? { SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: table.sse.kmsKeyArn } }
      : {}),
    ...(table.ttl?.enabled
      ? { TimeToLiveSpecification: { AttributeName: table.ttl.attributeName, Enabled: true } }
      : {}),
    ...(table.pitr?.enabled
      ? {
          PointInTimeRecoverySpecification: {
            PointInTimeRecoveryEnabled: true,
            RecoveryPeriodInDays: table.pitr.recoveryPeriodInDays,
          },
        }
      : {}),
    ...(table.contributorInsights?.enabled
      ? {
          ContributorInsightsSpecification: {
            Enabled: true,
            ...(table.contributorInsights.mode ? { Mode: table.contributorInsights.mode } : {}),
          },
        }
      : {}),
    ...(activeKinesis
      ? {
          KinesisStreamSpecification: {
            StreamArn: activeKinesis.StreamArn,
            ...(activeKinesis.precision
              ? { ApproximateCreationDateTimePrecision: activeKinesis.precision }
              : {}),
          },
        }
      : {}),
    TableClass: table.tableClass,
    DeletionProtectionEnabled: table.deletionProtection,
    ...(table.onDemandThroughput ? { OnDemandThroughput: table.onDemandThroughput } : {}),
    ...(table.warmThroughput ? { WarmThroughput: table.warmThroughput } : {}),
    ...(table.resourcePolicy
      ? { ResourcePolicy: { PolicyDocument: JSON.parse(table.resourcePolicy.policy) as unknown } }
      : {}),
    ...(table.vectorIndexes.length
      ? {
          VectorIndexes: table.vectorIndexes.map((v) => ({
            IndexName: v.IndexName,
            VectorAttribute: v.VectorAttribute,
            ...(v.SearchSchema ? { SearchSchema: v.SearchSchema } : {}),
            Projection: v.Projection,
            Dimensions: v.Dimensions,
            DistanceFunction: v.DistanceFunction,
          })),
        }
      : {}),
    ...(table.tags.length ? { Tags: table.tags } : {}),
  };
}

const policyString = (p: Model | undefined) =>
  p?.PolicyDocument === undefined
    ? undefined
    : typeof p.PolicyDocument === 'string'
      ? p.PolicyDocument
      : JSON.stringify(p.PolicyDocument);

/** The CreateTable input a CloudFormation model describes. */
function createInput(name: string, desired: Model): Model {
  return {
    TableName: name,
    KeySchema: desired.KeySchema,
    AttributeDefinitions: desired.AttributeDefinitions ?? [],
    BillingMode: desired.BillingMode ?? 'PROVISIONED',
    ProvisionedThroughput: desired.ProvisionedThroughput,
    GlobalSecondaryIndexes: (desired.GlobalSecondaryIndexes as Model[] | undefined)?.map((g) => ({
      IndexName: g.IndexName,
      KeySchema: g.KeySchema,
      Projection: g.Projection,
      ProvisionedThroughput: g.ProvisionedThroughput,
      OnDemandThroughput: g.OnDemandThroughput,
      WarmThroughput: g.WarmThroughput,
    })),
    LocalSecondaryIndexes: desired.LocalSecondaryIndexes,
    StreamSpecification: desired.StreamSpecification
      ? { StreamEnabled: true, StreamViewType: desired.StreamSpecification.StreamViewType }
      : undefined,
    SSESpecification: desired.SSESpecification
      ? {
          Enabled: desired.SSESpecification.SSEEnabled === true,
          ...(desired.SSESpecification.SSEEnabled === true
            ? {
                SSEType: desired.SSESpecification.SSEType,
                KMSMasterKeyId: desired.SSESpecification.KMSMasterKeyId,
              }
            : {}),
        }
      : undefined,
    Tags: desired.Tags,
    TableClass: desired.TableClass,
    DeletionProtectionEnabled: desired.DeletionProtectionEnabled,
    OnDemandThroughput: desired.OnDemandThroughput,
    WarmThroughput: desired.WarmThroughput,
    ResourcePolicy: policyString(desired.ResourcePolicy),
    VectorIndexes: desired.VectorIndexes,
  };
}

/** The settings DynamoDB manages through calls of their own, set from a model (absent: off). */
function applySideSettings(table: Table, desired: Model, previous?: Table): void {
  const now = Date.now();
  const ttl = desired.TimeToLiveSpecification as Model | undefined;
  if (ttl?.Enabled === true) table.ttl = { attributeName: ttl.AttributeName, enabled: true, since: now };
  else if (previous?.ttl?.enabled) table.ttl = { ...previous.ttl, enabled: false, since: now };
  const pitr = desired.PointInTimeRecoverySpecification as Model | undefined;
  if (pitr?.PointInTimeRecoveryEnabled === true)
    table.pitr = {
      enabled: true,
      recoveryPeriodInDays: pitr.RecoveryPeriodInDays ?? 35,
      since: previous?.pitr?.since ?? now,
    };
  else if (previous?.pitr) table.pitr = { ...previous.pitr, enabled: false };
  const insights = desired.ContributorInsightsSpecification as Model | undefined;
  if (insights)
    table.contributorInsights = {
      enabled: insights.Enabled === true,
      ...(insights.Mode ? { mode: insights.Mode } : {}),
      since: now,
    };
  else if (previous?.contributorInsights?.enabled) table.contributorInsights = { enabled: false, since: now };
  for (const g of (desired.GlobalSecondaryIndexes as Model[] | undefined) ?? []) {
    const index = table.globalIndexes.find((i) => i.IndexName === g.IndexName);
    if (index && g.ContributorInsightsSpecification)
      index.contributorInsights = {
        enabled: g.ContributorInsightsSpecification.Enabled === true,
        since: now,
      };
  }
  const kinesis = desired.KinesisStreamSpecification as Model | undefined;
  table.kinesis = (previous?.kinesis ?? []).map((d) => ({
    ...d,
    enabled: d.StreamArn === kinesis?.StreamArn && d.enabled,
  }));
  if (kinesis && !table.kinesis.some((d) => d.StreamArn === kinesis.StreamArn && d.enabled))
    table.kinesis.push({
      StreamArn: kinesis.StreamArn,
      enabled: true,
      since: now,
      ...(kinesis.ApproximateCreationDateTimePrecision
        ? { precision: kinesis.ApproximateCreationDateTimePrecision }
        : {}),
    });
  const streamTags = desired.StreamSpecification?.Tags as Table['tags'] | undefined;
  if (table.stream && streamTags?.length)
    table.streamTags = streamTags.map((t) => ({ Key: t.Key, Value: t.Value }));
  else delete table.streamTags;
  const streamPolicy = policyString(desired.StreamSpecification?.ResourcePolicy);
  if (streamPolicy) table.streamResourcePolicy = { policy: streamPolicy, revisionId: revision() };
  else delete table.streamResourcePolicy;
}

export class TableProvider implements ResourceProvider {
  readonly typeName = TYPE;

  constructor(private readonly ddb: DynamoDbStore) {}

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.ddb.all(), (t) => ({
      identifier: t.name,
      model: tableProperties(t),
    }));
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    if (desired.ImportSourceSpecification !== undefined)
      throw new HandlerError(
        'InvalidRequest',
        'ImportSourceSpecification (a table imported from S3) is not supported by the emulator.',
      );
    const name = typeof desired.TableName === 'string' ? desired.TableName : `Table-${upperAlnum(12)}`;
    if (this.ddb.get(scope.account, scope.region, name)) throw alreadyExists(TYPE, name);
    let table: Table;
    try {
      table = this.ddb.add(tableFromCreate(scope.account, scope.region, createInput(name, desired)));
    } catch (err) {
      throw serviceFailure(err, 'DynamoDb');
    }
    applySideSettings(table, desired);
    delete table.transition;
    return { identifier: name, model: tableProperties(table) };
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const table = this.ddb.get(scope.account, scope.region, identifier);
    return table && table.transition?.kind !== 'delete'
      ? { identifier, model: tableProperties(table) }
      : undefined;
  }

  update(scope: ResourceScope, _schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const table = this.ddb.get(scope.account, scope.region, identifier);
    if (!table) throw notFound(TYPE, identifier);
    let next;
    try {
      next = tableFromCreate(scope.account, scope.region, createInput(identifier, desired));
    } catch (err) {
      throw serviceFailure(err, 'DynamoDb');
    }
    const previous: Table = { ...table, kinesis: table.kinesis.map((d) => ({ ...d })) };
    // Everything but the identity, the items and the life cycle comes from the new definition.
    for (const optional of [
      'sse',
      'stream',
      'onDemandThroughput',
      'warmThroughput',
      'resourcePolicy',
    ] as const)
      if (!(optional in next)) delete table[optional];
    Object.assign(table, next, {
      ...(table.billingMode === next.billingMode
        ? { lastUpdateToPayPerRequest: table.lastUpdateToPayPerRequest }
        : {}),
      tableId: table.tableId,
      created: table.created,
      items: table.items,
      stream: next.stream && table.stream?.viewType === next.stream.viewType ? table.stream : next.stream,
      lastStreamLabel: table.stream?.label ?? table.lastStreamLabel,
    });
    for (const index of table.globalIndexes) {
      const before = previous.globalIndexes.find((i) => i.IndexName === index.IndexName);
      index.online = before ? before.online : true;
    }
    applySideSettings(table, desired, previous);
    delete table.transition;
    return { identifier, model: tableProperties(table) };
  }

  delete(scope: ResourceScope, _schema: ResourceSchema, identifier: string): void {
    const table = this.ddb.get(scope.account, scope.region, identifier);
    if (!table || table.transition?.kind === 'delete') throw notFound(TYPE, identifier);
    if (table.deletionProtection)
      throw new HandlerError(
        'InvalidRequest',
        'Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first. (Service: DynamoDb, Status Code: 400)',
      );
    this.ddb.tables.delete(DynamoDbStore.key(scope.account, scope.region, identifier));
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.ddb
      .list(scope.account, scope.region)
      .filter((t) => t.transition?.kind !== 'delete')
      .map((t) => ({ identifier: t.name, model: tableProperties(t) }));
  }
}
