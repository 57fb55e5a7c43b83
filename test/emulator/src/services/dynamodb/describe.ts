/** A table as DescribeTable (and CreateTable, UpdateTable, DeleteTable) describe it. */
import { itemSize } from './values';
import { streamArn, tableArn, type GlobalIndex, type Table, type Transition } from './store';

const DEFAULT_WARM = { ReadUnitsPerSecond: 12000, WriteUnitsPerSecond: 4000 };

export function tableStatus(table: Table): string {
  if (!table.transition) return 'ACTIVE';
  return { create: 'CREATING', update: 'UPDATING', delete: 'DELETING' }[table.transition.kind];
}

function indexStatus(transition: Transition | undefined): string {
  if (!transition) return 'ACTIVE';
  return { create: 'CREATING', update: 'UPDATING', delete: 'DELETING' }[transition.kind];
}

function indexArn(table: Table, name: string): string {
  return `${tableArn(table)}/index/${name}`;
}

function sizeOf(table: Table): { bytes: number; count: number } {
  const items = Object.values(table.items);
  return { bytes: items.reduce((n, i) => n + itemSize(i), 0), count: items.length };
}

function describeGlobal(table: Table, index: GlobalIndex) {
  const status = indexStatus(index.transition);
  return {
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection,
    IndexStatus: status,
    ...(index.online ? { Backfilling: status === 'CREATING' } : {}),
    ProvisionedThroughput: {
      NumberOfDecreasesToday: 0,
      ReadCapacityUnits: index.ProvisionedThroughput?.ReadCapacityUnits ?? 0,
      WriteCapacityUnits: index.ProvisionedThroughput?.WriteCapacityUnits ?? 0,
    },
    IndexSizeBytes: 0,
    ItemCount: 0,
    IndexArn: indexArn(table, index.IndexName),
    ...(index.OnDemandThroughput ? { OnDemandThroughput: index.OnDemandThroughput } : {}),
    WarmThroughput: { ...DEFAULT_WARM, ...index.WarmThroughput, Status: status },
  };
}

export function describeTable(table: Table) {
  const { bytes, count } = sizeOf(table);
  const status = tableStatus(table);
  const t = table.provisionedThroughput;
  return {
    AttributeDefinitions: table.attributeDefinitions,
    TableName: table.name,
    KeySchema: table.keySchema,
    TableStatus: status,
    CreationDateTime: new Date(table.created),
    ProvisionedThroughput: {
      ...(t.lastIncrease ? { LastIncreaseDateTime: new Date(t.lastIncrease) } : {}),
      ...(t.lastDecrease ? { LastDecreaseDateTime: new Date(t.lastDecrease) } : {}),
      NumberOfDecreasesToday: t.decreasesToday,
      ReadCapacityUnits: t.ReadCapacityUnits,
      WriteCapacityUnits: t.WriteCapacityUnits,
    },
    TableSizeBytes: bytes,
    ItemCount: count,
    TableArn: tableArn(table),
    TableId: table.tableId,
    ...(table.billingModeReported || table.billingMode === 'PAY_PER_REQUEST'
      ? {
          BillingModeSummary: {
            BillingMode: table.billingMode,
            ...(table.lastUpdateToPayPerRequest
              ? { LastUpdateToPayPerRequestDateTime: new Date(table.lastUpdateToPayPerRequest) }
              : {}),
          },
        }
      : {}),
    ...(table.localIndexes.length
      ? {
          LocalSecondaryIndexes: table.localIndexes.map((i) => ({
            IndexName: i.IndexName,
            KeySchema: i.KeySchema,
            Projection: i.Projection,
            IndexSizeBytes: 0,
            ItemCount: 0,
            IndexArn: indexArn(table, i.IndexName),
          })),
        }
      : {}),
    ...(table.globalIndexes.length
      ? { GlobalSecondaryIndexes: table.globalIndexes.map((i) => describeGlobal(table, i)) }
      : {}),
    ...(table.vectorIndexes.length
      ? {
          VectorIndexes: table.vectorIndexes.map((i) => ({
            IndexName: i.IndexName,
            SearchSchema: i.SearchSchema,
            Projection: i.Projection,
            VectorAttribute: i.VectorAttribute,
            Dimensions: i.Dimensions,
            DistanceFunction: i.DistanceFunction,
            IndexStatus: indexStatus(i.transition),
            IndexSizeBytes: 0,
            ItemCount: 0,
            IndexArn: indexArn(table, i.IndexName),
          })),
        }
      : {}),
    ...(table.stream
      ? { StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream.viewType } }
      : {}),
    ...(table.stream || table.lastStreamLabel
      ? {
          LatestStreamLabel: table.stream?.label ?? table.lastStreamLabel,
          LatestStreamArn: streamArn(table, (table.stream?.label ?? table.lastStreamLabel)!),
        }
      : {}),
    ...(table.sse
      ? { SSEDescription: { Status: 'ENABLED', SSEType: 'KMS', KMSMasterKeyArn: table.sse.kmsKeyArn } }
      : {}),
    ...(table.tableClass !== 'STANDARD' || table.tableClassUpdated
      ? {
          TableClassSummary: {
            TableClass: table.tableClass,
            ...(table.tableClassUpdated ? { LastUpdateDateTime: new Date(table.tableClassUpdated) } : {}),
          },
        }
      : {}),
    DeletionProtectionEnabled: table.deletionProtection,
    ...(table.onDemandThroughput ? { OnDemandThroughput: table.onDemandThroughput } : {}),
    WarmThroughput: { ...DEFAULT_WARM, ...table.warmThroughput, Status: status },
  };
}
