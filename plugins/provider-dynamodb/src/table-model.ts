/**
 * AWS::DynamoDB::Table properties read into the shapes the DynamoDB API
 * takes. CloudFormation's names differ from the API's in places
 * (`SSESpecification.SSEEnabled` is `Enabled`, a stream is `StreamViewType`
 * alone), templates may carry numbers as strings, and a property left out
 * means AWS's default. Pure: types only from the SDK, so the hook can load
 * this module without loading the client.
 */
import type {
  AttributeDefinition,
  CreateTableCommandInput,
  ImportTableCommandInput,
  GlobalSecondaryIndex,
  KeySchemaElement,
  LocalSecondaryIndex,
  OnDemandThroughput,
  Projection,
  ProvisionedThroughput,
  SSESpecification,
  Tag,
  VectorIndex,
  WarmThroughput,
} from '@aws-sdk/client-dynamodb';

export type Props = Record<string, unknown>;

/** Every AWS::DynamoDB::Table property this pack wires (`Arn`, `StreamArn` are read-only). */
export const TABLE_HANDLED_PROPERTIES = [
  'AttributeDefinitions',
  'BillingMode',
  'ContributorInsightsSpecification',
  'DeletionProtectionEnabled',
  'GlobalSecondaryIndexes',
  'ImportSourceSpecification',
  'KeySchema',
  'KinesisStreamSpecification',
  'LocalSecondaryIndexes',
  'OnDemandThroughput',
  'PointInTimeRecoverySpecification',
  'ProvisionedThroughput',
  'ResourcePolicy',
  'SSESpecification',
  'StreamSpecification',
  'TableClass',
  'TableName',
  'Tags',
  'TimeToLiveSpecification',
  'VectorIndexes',
  'WarmThroughput',
];

/** DynamoDB's name rules: 3–255 of `[a-zA-Z0-9_.-]`. */
export const TABLE_NAME_MAX_LENGTH = 255;
export const TABLE_NAME_EXTRA_CHARACTERS = '_.-';

const obj = (v: unknown): Props | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Props) : undefined;
const list = (v: unknown): Props[] => (Array.isArray(v) ? (v as Props[]).filter((e) => obj(e)) : []);
const bool = (v: unknown): boolean => v === true || v === 'true';

/** An integer that templates may carry as a string. */
export function int(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export function keySchema(v: unknown): KeySchemaElement[] {
  return list(v).map((k) => ({
    AttributeName: String(k.AttributeName),
    KeyType: k.KeyType as KeySchemaElement['KeyType'],
  }));
}

export function attributeDefinitions(v: unknown): AttributeDefinition[] {
  return list(v).map((d) => ({
    AttributeName: String(d.AttributeName),
    AttributeType: d.AttributeType as AttributeDefinition['AttributeType'],
  }));
}

export function billingMode(props: Props): 'PROVISIONED' | 'PAY_PER_REQUEST' {
  return props.BillingMode === 'PAY_PER_REQUEST' ? 'PAY_PER_REQUEST' : 'PROVISIONED';
}

export function throughput(v: unknown): ProvisionedThroughput | undefined {
  const t = obj(v);
  if (!t) return undefined;
  return { ReadCapacityUnits: int(t.ReadCapacityUnits), WriteCapacityUnits: int(t.WriteCapacityUnits) };
}

export function onDemand(v: unknown): OnDemandThroughput | undefined {
  const t = obj(v);
  if (!t) return undefined;
  return {
    ...(int(t.MaxReadRequestUnits) !== undefined ? { MaxReadRequestUnits: int(t.MaxReadRequestUnits) } : {}),
    ...(int(t.MaxWriteRequestUnits) !== undefined
      ? { MaxWriteRequestUnits: int(t.MaxWriteRequestUnits) }
      : {}),
  };
}

export function warm(v: unknown): WarmThroughput | undefined {
  const t = obj(v);
  if (!t) return undefined;
  return {
    ...(int(t.ReadUnitsPerSecond) !== undefined ? { ReadUnitsPerSecond: int(t.ReadUnitsPerSecond) } : {}),
    ...(int(t.WriteUnitsPerSecond) !== undefined ? { WriteUnitsPerSecond: int(t.WriteUnitsPerSecond) } : {}),
  };
}

export function projection(v: unknown): Projection {
  const p = obj(v) ?? {};
  const nonKey = Array.isArray(p.NonKeyAttributes)
    ? (p.NonKeyAttributes as unknown[]).map(String)
    : undefined;
  return {
    ProjectionType: ((p.ProjectionType as string | undefined) ??
      (nonKey ? 'INCLUDE' : 'ALL')) as Projection['ProjectionType'],
    ...(nonKey?.length ? { NonKeyAttributes: nonKey } : {}),
  };
}

/** The template's global secondary indexes by name, in API shape (contributor insights apart). */
export function globalIndexes(props: Props): Map<string, GlobalSecondaryIndex> {
  const provisioned = billingMode(props) === 'PROVISIONED';
  const out = new Map<string, GlobalSecondaryIndex>();
  for (const g of list(props.GlobalSecondaryIndexes)) {
    const name = String(g.IndexName);
    const t = throughput(g.ProvisionedThroughput);
    const od = onDemand(g.OnDemandThroughput);
    const w = warm(g.WarmThroughput);
    out.set(name, {
      IndexName: name,
      KeySchema: keySchema(g.KeySchema),
      Projection: projection(g.Projection),
      ...(provisioned && t ? { ProvisionedThroughput: t } : {}),
      ...(od ? { OnDemandThroughput: od } : {}),
      ...(w ? { WarmThroughput: w } : {}),
    });
  }
  return out;
}

export function localIndexes(props: Props): LocalSecondaryIndex[] {
  return list(props.LocalSecondaryIndexes).map((l) => ({
    IndexName: String(l.IndexName),
    KeySchema: keySchema(l.KeySchema),
    Projection: projection(l.Projection),
  }));
}

export function vectorIndexes(props: Props): Map<string, VectorIndex> {
  const out = new Map<string, VectorIndex>();
  for (const v of list(props.VectorIndexes)) {
    const name = String(v.IndexName);
    out.set(name, {
      IndexName: name,
      VectorAttribute: { AttributeName: String(obj(v.VectorAttribute)?.AttributeName) },
      ...(Array.isArray(v.SearchSchema)
        ? { SearchSchema: v.SearchSchema as VectorIndex['SearchSchema'] }
        : {}),
      Projection: projection(v.Projection),
      Dimensions: int(v.Dimensions),
      DistanceFunction: v.DistanceFunction as VectorIndex['DistanceFunction'],
    });
  }
  return out;
}

/** The stream view type, or undefined for no stream. */
export function streamViewType(props: Props): string | undefined {
  const s = obj(props.StreamSpecification);
  return typeof s?.StreamViewType === 'string' ? s.StreamViewType : undefined;
}

/** SSE in the API's shape: CloudFormation's `SSEEnabled` is the API's `Enabled`. Undefined: the AWS owned key. */
export function sse(props: Props): SSESpecification | undefined {
  const s = obj(props.SSESpecification);
  if (!s || !bool(s.SSEEnabled)) return undefined;
  return {
    Enabled: true,
    ...(typeof s.SSEType === 'string' ? { SSEType: s.SSEType as SSESpecification['SSEType'] } : {}),
    ...(typeof s.KMSMasterKeyId === 'string' ? { KMSMasterKeyId: s.KMSMasterKeyId } : {}),
  };
}

export function tableClass(props: Props): string {
  return typeof props.TableClass === 'string' ? props.TableClass : 'STANDARD';
}

export function deletionProtection(props: Props): boolean {
  return bool(props.DeletionProtectionEnabled);
}

export function ttl(props: Props): { attributeName: string } | undefined {
  const t = obj(props.TimeToLiveSpecification);
  return t && bool(t.Enabled) && typeof t.AttributeName === 'string'
    ? { attributeName: t.AttributeName }
    : undefined;
}

export function pitr(props: Props): { recoveryPeriodInDays?: number } | undefined {
  const p = obj(props.PointInTimeRecoverySpecification);
  if (!p || !bool(p.PointInTimeRecoveryEnabled)) return undefined;
  const days = int(p.RecoveryPeriodInDays);
  return days !== undefined ? { recoveryPeriodInDays: days } : {};
}

/** Contributor insights of the table (`''`) and of each GSI (its name), when enabled. */
export function contributorInsights(props: Props): Map<string, { mode?: string }> {
  const out = new Map<string, { mode?: string }>();
  const of = (spec: unknown) => {
    const s = obj(spec);
    return s && bool(s.Enabled) ? (typeof s.Mode === 'string' ? { mode: s.Mode } : {}) : undefined;
  };
  const table = of(props.ContributorInsightsSpecification);
  if (table) out.set('', table);
  for (const g of list(props.GlobalSecondaryIndexes)) {
    const index = of(g.ContributorInsightsSpecification);
    if (index) out.set(String(g.IndexName), index);
  }
  return out;
}

export function kinesis(props: Props): { streamArn: string; precision?: string } | undefined {
  const k = obj(props.KinesisStreamSpecification);
  if (!k || typeof k.StreamArn !== 'string') return undefined;
  return {
    streamArn: k.StreamArn,
    ...(typeof k.ApproximateCreationDateTimePrecision === 'string'
      ? { precision: k.ApproximateCreationDateTimePrecision }
      : {}),
  };
}

/** A policy document as the string the API takes (objects serialized). */
function policyOf(holder: unknown): string | undefined {
  const doc = obj(holder)?.PolicyDocument;
  if (doc === undefined || doc === null) return undefined;
  return typeof doc === 'string' ? doc : JSON.stringify(doc);
}

export const tablePolicy = (props: Props) => policyOf(props.ResourcePolicy);
export const streamPolicy = (props: Props) => policyOf(obj(props.StreamSpecification)?.ResourcePolicy);

export function tags(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of list(v)) if (typeof t.Key === 'string') out[t.Key] = String(t.Value ?? '');
  return out;
}

export const tableTags = (props: Props) => tags(props.Tags);
export const streamTags = (props: Props) => tags(obj(props.StreamSpecification)?.Tags);

export function toTagList(map: Record<string, string>): Tag[] {
  return Object.entries(map).map(([Key, Value]) => ({ Key, Value }));
}

/** JSON with sorted keys, so two spellings of one value compare equal. */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, sort((v as Props)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/** Everything CreateTable itself takes; the settings made by calls of their own come after. */
export function createTableInput(
  name: string,
  props: Props,
  allTags: Record<string, string>,
): CreateTableCommandInput {
  const mode = billingMode(props);
  const gsis = [...globalIndexes(props).values()];
  const lsis = localIndexes(props);
  const vectors = [...vectorIndexes(props).values()];
  const view = streamViewType(props);
  const encryption = sse(props);
  const od = onDemand(props.OnDemandThroughput);
  const w = warm(props.WarmThroughput);
  const policy = tablePolicy(props);
  return {
    TableName: name,
    KeySchema: keySchema(props.KeySchema),
    AttributeDefinitions: attributeDefinitions(props.AttributeDefinitions),
    BillingMode: mode,
    ...(mode === 'PROVISIONED' ? { ProvisionedThroughput: throughput(props.ProvisionedThroughput) } : {}),
    ...(gsis.length ? { GlobalSecondaryIndexes: gsis } : {}),
    ...(lsis.length ? { LocalSecondaryIndexes: lsis } : {}),
    ...(vectors.length ? { VectorIndexes: vectors } : {}),
    ...(view ? { StreamSpecification: { StreamEnabled: true, StreamViewType: view as 'NEW_IMAGE' } } : {}),
    ...(encryption ? { SSESpecification: encryption } : {}),
    ...(props.TableClass !== undefined
      ? { TableClass: tableClass(props) as CreateTableCommandInput['TableClass'] }
      : {}),
    ...(deletionProtection(props) ? { DeletionProtectionEnabled: true } : {}),
    ...(od ? { OnDemandThroughput: od } : {}),
    ...(w ? { WarmThroughput: w } : {}),
    ...(policy ? { ResourcePolicy: policy } : {}),
    ...(Object.keys(allTags).length ? { Tags: toTagList(allTags) } : {}),
  };
}

/** The ImportTable request of a table whose template imports its data from S3. */
export function importTableInput(name: string, props: Props, clientToken: string): ImportTableCommandInput {
  const source = obj(props.ImportSourceSpecification) ?? {};
  const created = createTableInput(name, importedPart(props), {});
  return {
    ClientToken: clientToken,
    S3BucketSource: source.S3BucketSource as ImportTableCommandInput['S3BucketSource'],
    InputFormat: source.InputFormat as ImportTableCommandInput['InputFormat'],
    ...(source.InputFormatOptions
      ? { InputFormatOptions: source.InputFormatOptions as ImportTableCommandInput['InputFormatOptions'] }
      : {}),
    ...(source.InputCompressionType ? { InputCompressionType: source.InputCompressionType as 'GZIP' } : {}),
    TableCreationParameters: {
      TableName: name,
      AttributeDefinitions: created.AttributeDefinitions,
      KeySchema: created.KeySchema,
      BillingMode: created.BillingMode,
      ...(created.ProvisionedThroughput ? { ProvisionedThroughput: created.ProvisionedThroughput } : {}),
      ...(created.OnDemandThroughput ? { OnDemandThroughput: created.OnDemandThroughput } : {}),
      ...(created.SSESpecification ? { SSESpecification: created.SSESpecification } : {}),
      ...(created.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: created.GlobalSecondaryIndexes } : {}),
      ...(created.VectorIndexes ? { VectorIndexes: created.VectorIndexes } : {}),
    },
  };
}

/**
 * The part of a template ImportTable itself makes (its TableCreationParameters);
 * everything else is applied after the import as an update from this.
 */
export function importedPart(props: Props): Props {
  const picked: Props = {};
  for (const key of [
    'TableName',
    'KeySchema',
    'AttributeDefinitions',
    'BillingMode',
    'ProvisionedThroughput',
    'OnDemandThroughput',
    'SSESpecification',
    'VectorIndexes',
  ])
    if (props[key] !== undefined) picked[key] = props[key];
  if (props.GlobalSecondaryIndexes !== undefined)
    picked.GlobalSecondaryIndexes = list(props.GlobalSecondaryIndexes).map((g) => {
      const { ContributorInsightsSpecification: _insights, ...rest } = g;
      return rest;
    });
  return picked;
}
