/**
 * DynamoDB tables per account and region: their definition, the settings
 * managed by separate calls (TTL, point-in-time recovery, contributor
 * insights, Kinesis destinations, resource policies, tags), their items, and
 * the life cycle of each (CREATING → ACTIVE, UPDATING → ACTIVE, DELETING →
 * gone; an index CREATING → ACTIVE, DELETING → gone). A transition completes
 * `statusDelayMs` after it began, judged when the table is next read, so a
 * test sets the delay to hold a table in a transitional state and to 0 to let
 * it settle. Shared with Cloud Control (`AWS::DynamoDB::Table`).
 */
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { ServiceStore } from '../../core/service';
import type { ImportRecord } from './imports';
import type { WireItem } from './values';

export interface KeyElement {
  AttributeName: string;
  KeyType: 'HASH' | 'RANGE';
}

export interface AttributeDefinition {
  AttributeName: string;
  AttributeType: 'S' | 'N' | 'B';
}

export interface Projection {
  ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  NonKeyAttributes?: string[];
}

export interface Throughput {
  ReadCapacityUnits: number;
  WriteCapacityUnits: number;
}

export interface OnDemandThroughput {
  MaxReadRequestUnits?: number;
  MaxWriteRequestUnits?: number;
}

export interface WarmThroughput {
  ReadUnitsPerSecond?: number;
  WriteUnitsPerSecond?: number;
}

/** A transition in progress: what started it and when (ms). */
export interface Transition {
  kind: 'create' | 'update' | 'delete';
  since: number;
}

export interface GlobalIndex {
  IndexName: string;
  KeySchema: KeyElement[];
  Projection: Projection;
  ProvisionedThroughput?: Throughput;
  OnDemandThroughput?: OnDemandThroughput;
  WarmThroughput?: WarmThroughput;
  /** Made by UpdateTable (reports Backfilling), not by CreateTable. */
  online: boolean;
  transition?: Transition;
  contributorInsights?: ContributorInsights;
}

export interface LocalIndex {
  IndexName: string;
  KeySchema: KeyElement[];
  Projection: Projection;
}

export interface VectorIndex {
  IndexName: string;
  VectorAttribute: { AttributeName: string };
  SearchSchema?: Array<{ AttributeName: string; SearchSchemaElementType?: string }>;
  Projection: Projection;
  Dimensions: number;
  DistanceFunction: string;
  transition?: Transition;
}

export interface ContributorInsights {
  enabled: boolean;
  mode?: string;
  since: number;
}

export interface KinesisDestination {
  StreamArn: string;
  precision?: string;
  enabled: boolean;
  since: number;
}

export interface StoredResourcePolicy {
  policy: string;
  revisionId: string;
}

export interface Table {
  account: string;
  region: string;
  name: string;
  tableId: string;
  /** ms since the epoch. */
  created: number;
  attributeDefinitions: AttributeDefinition[];
  keySchema: KeyElement[];
  billingMode: 'PROVISIONED' | 'PAY_PER_REQUEST';
  /** When the table last switched to on-demand (ms). */
  lastUpdateToPayPerRequest?: number;
  billingModeReported: boolean;
  provisionedThroughput: Throughput & {
    lastIncrease?: number;
    lastDecrease?: number;
    decreasesToday: number;
  };
  onDemandThroughput?: OnDemandThroughput;
  warmThroughput?: WarmThroughput;
  globalIndexes: GlobalIndex[];
  localIndexes: LocalIndex[];
  vectorIndexes: VectorIndex[];
  stream?: { viewType: string; label: string };
  /** The last stream's label, kept after the stream is disabled (AWS keeps the ARN for 24 hours). */
  lastStreamLabel?: string;
  sse?: { type: 'KMS'; kmsKeyArn: string };
  tableClass: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
  tableClassUpdated?: number;
  deletionProtection: boolean;
  transition?: Transition;
  ttl?: { attributeName: string; enabled: boolean; since: number };
  pitr?: { enabled: boolean; recoveryPeriodInDays: number; since: number };
  contributorInsights?: ContributorInsights;
  kinesis: KinesisDestination[];
  resourcePolicy?: StoredResourcePolicy;
  streamResourcePolicy?: StoredResourcePolicy;
  tags: Array<{ Key: string; Value: string }>;
  /** The current stream's tags. */
  streamTags?: Array<{ Key: string; Value: string }>;
  /** Items by their key (JSON of the key attributes in wire form). */
  items: Record<string, WireItem>;
}

export const ddbErrors = {
  validation: (message: string) => new AwsError('ValidationException', message),
  invalid: (message: string) =>
    new AwsError('ValidationException', `One or more parameter values were invalid: ${message}`),
  constraint: (member: string, value: unknown, constraint: string) =>
    new AwsError(
      'ValidationException',
      `1 validation error detected: Value ${value === null ? 'null' : `'${String(value)}'`} at '${member}' failed to satisfy constraint: ${constraint}`,
    ),
  tableNotFound: (name: string) =>
    new AwsError('ResourceNotFoundException', `Requested resource not found: Table: ${name} not found`),
  inUse: (table: Table) =>
    new AwsError(
      'ResourceInUseException',
      `Attempt to change a resource which is still in use: Table is being ${
        table.transition?.kind === 'create'
          ? 'created'
          : table.transition?.kind === 'delete'
            ? 'deleted'
            : 'updated'
      }: ${table.name}`,
    ),
};

export function tableArn(table: Pick<Table, 'account' | 'region' | 'name'>): string {
  return `arn:${partitionOf(table.region)}:dynamodb:${table.region}:${table.account}:table/${table.name}`;
}

export function streamArn(table: Table, label: string): string {
  return `${tableArn(table)}/stream/${label}`;
}

/** Account, region and table name of a table, index or stream ARN. */
export function parseDynamoArn(
  arn: string,
): { account: string; region: string; name: string; stream?: string; index?: string } | undefined {
  const m =
    /^arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):(\d{12}):table\/([a-zA-Z0-9_.-]{3,255})(?:\/(stream|index)\/(.+))?$/.exec(
      arn,
    );
  if (!m) return undefined;
  return {
    region: m[1]!,
    account: m[2]!,
    name: m[3]!,
    ...(m[4] === 'stream' ? { stream: m[5]! } : m[4] === 'index' ? { index: m[5]! } : {}),
  };
}

/** A stream label as DynamoDB makes it: the ISO time without the zone (`2026-01-02T03:04:05.678`). */
export function streamLabel(at = Date.now()): string {
  return new Date(at).toISOString().replace(/Z$/, '');
}

export class DynamoDbStore implements ServiceStore {
  readonly tables = new Map<string, Table>();
  /** ImportTable requests by import ARN. */
  readonly imports = new Map<string, ImportRecord>();
  /** How long a table or index transition takes, in ms (settings key `dynamodbStatusDelayMs`). */
  statusDelayMs = 0;
  /** Trailing requests each batch call leaves unprocessed (settings key `dynamodbBatchUnprocessed`). */
  batchUnprocessed = 0;

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  /** Completes what has finished: a table's and its indexes' transitions, a deletion. */
  private settle(table: Table, now = Date.now()): Table | undefined {
    const done = (t?: { since: number }) => t !== undefined && now - t.since >= this.statusDelayMs;
    for (const index of [...table.globalIndexes, ...table.vectorIndexes]) {
      if (!done(index.transition)) continue;
      if (index.transition!.kind === 'delete') {
        table.globalIndexes = table.globalIndexes.filter((i) => i !== index);
        table.vectorIndexes = table.vectorIndexes.filter((i) => i !== index);
        pruneDefinitions(table);
      } else delete index.transition;
    }
    const busyIndex = [...table.globalIndexes, ...table.vectorIndexes].some((i) => i.transition);
    if (done(table.transition) && !busyIndex) {
      if (table.transition!.kind === 'delete') {
        this.tables.delete(DynamoDbStore.key(table.account, table.region, table.name));
        return undefined;
      }
      delete table.transition;
    }
    return table;
  }

  /** The table as it is now (a finished deletion makes it undefined). */
  get(account: string, region: string, name: string): Table | undefined {
    const table = this.tables.get(DynamoDbStore.key(account, region, name));
    return table && this.settle(table);
  }

  /** The table, or ResourceNotFoundException. `name` may be the table's ARN. */
  require(account: string, region: string, nameOrArn: string): Table {
    const name = this.nameOf(account, region, nameOrArn);
    const table = this.get(account, region, name);
    if (!table) throw ddbErrors.tableNotFound(name);
    return table;
  }

  /** A table name, or the name in a table ARN of this account and region. */
  nameOf(account: string, region: string, nameOrArn: string): string {
    if (!nameOrArn.startsWith('arn:')) return nameOrArn;
    const parsed = parseDynamoArn(nameOrArn);
    if (!parsed || parsed.account !== account || parsed.region !== region)
      throw ddbErrors.validation(`Invalid TableArn: ${nameOrArn}`);
    return parsed.name;
  }

  /** Tables of an account and region, sorted by name. */
  list(account: string, region: string): Table[] {
    return [...this.tables.values()]
      .filter((t) => t.account === account && t.region === region)
      .map((t) => this.settle(t))
      .filter((t): t is Table => t !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Every table of every account and region, settled. */
  all(): Table[] {
    return [...this.tables.values()].map((t) => this.settle(t)).filter((t): t is Table => t !== undefined);
  }

  add(table: Omit<Table, 'tableId' | 'created' | 'items' | 'kinesis'>): Table {
    const key = DynamoDbStore.key(table.account, table.region, table.name);
    const existing = this.tables.get(key);
    if (existing && this.settle(existing))
      throw new AwsError('ResourceInUseException', `Table already exists: ${table.name}`);
    const now = Date.now();
    const full: Table = { ...table, tableId: uuid(), created: now, items: {}, kinesis: [] };
    full.transition = { kind: 'create', since: now };
    this.tables.set(key, full);
    return full;
  }

  /** Starts the table's deletion (DELETING until the delay passes). */
  remove(table: Table): void {
    table.transition = { kind: 'delete', since: Date.now() };
  }

  clear(): void {
    this.tables.clear();
    this.imports.clear();
  }

  snapshot(): { tables: Table[]; imports: ImportRecord[] } {
    return { tables: [...this.tables.values()], imports: [...this.imports.values()] };
  }

  restore(saved: unknown): void {
    const data = saved as { tables?: Table[]; imports?: ImportRecord[] };
    for (const t of data.tables ?? []) this.tables.set(DynamoDbStore.key(t.account, t.region, t.name), t);
    for (const i of data.imports ?? []) this.imports.set(i.importArn, i);
  }
}

/** Drops attribute definitions no key schema uses any more (as DynamoDB does after an index is deleted). */
export function pruneDefinitions(table: Table): void {
  const used = new Set(
    [
      table.keySchema,
      ...table.globalIndexes.map((i) => i.KeySchema),
      ...table.localIndexes.map((i) => i.KeySchema),
    ]
      .flat()
      .map((k) => k.AttributeName),
  );
  table.attributeDefinitions = table.attributeDefinitions.filter((d) => used.has(d.AttributeName));
}
