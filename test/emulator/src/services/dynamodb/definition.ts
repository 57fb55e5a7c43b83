/**
 * A table's definition checked as CreateTable checks it: names, key schemas
 * against attribute definitions, indexes, billing mode and throughput,
 * streams, encryption, class, tags. The rules and most messages are those the
 * DynamoDB API reference and its error responses document; UpdateTable
 * reuses the pieces.
 */
import { partitionOf } from '../../core/accounts';
import { uuid } from '../../core/ids';
import {
  ddbErrors,
  streamLabel,
  type AttributeDefinition,
  type GlobalIndex,
  type KeyElement,
  type LocalIndex,
  type OnDemandThroughput,
  type Projection,
  type Table,
  type Throughput,
  type VectorIndex,
  type WarmThroughput,
} from './store';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAME = /^[a-zA-Z0-9_.-]+$/;
const MAX_GSIS = 20;
const MAX_LSIS = 5;
const MAX_NON_KEY_ATTRIBUTES = 100;
export const MAX_TAGS = 50;
const STREAM_VIEW_TYPES = ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'];
const TABLE_CLASSES = ['STANDARD', 'STANDARD_INFREQUENT_ACCESS'];

export function validateName(name: unknown, member: string): string {
  if (typeof name !== 'string') throw ddbErrors.constraint(member, null, 'Member must not be null');
  if (name.length < 3 || name.length > 255)
    throw ddbErrors.validation(
      `${member === 'tableName' ? 'TableName' : 'IndexName'} must be at least 3 characters long and at most 255 characters long`,
    );
  if (!NAME.test(name))
    throw ddbErrors.constraint(
      member,
      name,
      'Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+',
    );
  return name;
}

export function validateKeySchema(keySchema: unknown, member: string): KeyElement[] {
  if (!Array.isArray(keySchema) || keySchema.length === 0)
    throw ddbErrors.constraint(member, null, 'Member must not be null');
  if (keySchema.length > 2)
    throw ddbErrors.constraint(member, '[...]', 'Member must have length less than or equal to 2');
  const elements = keySchema as KeyElement[];
  if (elements[0]!.KeyType !== 'HASH')
    throw ddbErrors.validation('Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
  if (elements[1] && elements[1].KeyType !== 'RANGE')
    throw ddbErrors.validation('Invalid KeySchema: The second KeySchemaElement is not a RANGE key type');
  if (elements[1] && elements[1].AttributeName === elements[0]!.AttributeName)
    throw ddbErrors.validation(
      'Both the Hash Key and the Range Key element in the KeySchema have the same name',
    );
  return elements.map((e) => ({ AttributeName: e.AttributeName, KeyType: e.KeyType }));
}

export function validateDefinitions(definitions: unknown): AttributeDefinition[] {
  if (!Array.isArray(definitions))
    throw ddbErrors.constraint('attributeDefinitions', null, 'Member must not be null');
  const seen = new Set<string>();
  for (const d of definitions as AttributeDefinition[]) {
    if (!['S', 'N', 'B'].includes(d.AttributeType))
      throw ddbErrors.constraint(
        'attributeDefinitions.member.attributeType',
        d.AttributeType,
        'Member must satisfy enum value set: [B, N, S]',
      );
    if (seen.has(d.AttributeName))
      throw ddbErrors.invalid(`Duplicate AttributeName in AttributeDefinitions: ${d.AttributeName}`);
    seen.add(d.AttributeName);
  }
  return (definitions as AttributeDefinition[]).map((d) => ({
    AttributeName: d.AttributeName,
    AttributeType: d.AttributeType,
  }));
}

/** Every key attribute is defined, and every definition is some key's. */
export function checkDefinitionsCoverKeys(
  definitions: AttributeDefinition[],
  keySchemas: KeyElement[][],
): void {
  const defined = definitions.map((d) => d.AttributeName);
  const keys = [...new Set(keySchemas.flat().map((k) => k.AttributeName))];
  const missing = keys.filter((k) => !defined.includes(k));
  if (missing.length)
    throw ddbErrors.invalid(
      `Some index key attributes are not defined in AttributeDefinitions. Keys: [${missing.join(', ')}], AttributeDefinitions: [${defined.join(', ')}]`,
    );
  if (defined.some((d) => !keys.includes(d)))
    throw ddbErrors.invalid(
      'Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions',
    );
}

export function validateProjection(projection: unknown, indexName: string): Projection {
  const p = (projection ?? {}) as Projection;
  const type = p.ProjectionType ?? 'INCLUDE';
  if (!['ALL', 'KEYS_ONLY', 'INCLUDE'].includes(type))
    throw ddbErrors.constraint(
      'projection.projectionType',
      type,
      'Member must satisfy enum value set: [ALL, KEYS_ONLY, INCLUDE]',
    );
  if (type === 'INCLUDE' && !p.NonKeyAttributes?.length)
    throw ddbErrors.invalid(
      `ProjectionType is INCLUDE, but NonKeyAttributes is not specified for index: ${indexName}`,
    );
  if (type !== 'INCLUDE' && p.NonKeyAttributes?.length)
    throw ddbErrors.invalid(
      `ProjectionType is ${type}, but NonKeyAttributes is specified for index: ${indexName}`,
    );
  return {
    ProjectionType: type,
    ...(type === 'INCLUDE' ? { NonKeyAttributes: [...p.NonKeyAttributes!] } : {}),
  };
}

export function validateThroughput(value: unknown, member: string): Throughput {
  const t = value as Partial<Throughput> | undefined;
  for (const unit of ['ReadCapacityUnits', 'WriteCapacityUnits'] as const) {
    const n = t?.[unit];
    if (typeof n !== 'number')
      throw ddbErrors.invalid(
        'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED',
      );
    if (!Number.isInteger(n) || n < 1)
      throw ddbErrors.constraint(
        `${member}.${unit.charAt(0).toLowerCase()}${unit.slice(1)}`,
        n,
        'Member must have value greater than or equal to 1',
      );
  }
  return { ReadCapacityUnits: t!.ReadCapacityUnits!, WriteCapacityUnits: t!.WriteCapacityUnits! };
}

export function validateOnDemand(value: unknown): OnDemandThroughput | undefined {
  if (value === undefined) return undefined;
  const v = value as OnDemandThroughput;
  for (const unit of ['MaxReadRequestUnits', 'MaxWriteRequestUnits'] as const) {
    const n = v[unit];
    if (n !== undefined && (!Number.isInteger(n) || (n !== -1 && n < 1)))
      throw ddbErrors.invalid(`${unit} must be -1 (no maximum) or at least 1`);
  }
  return { ...v };
}

export function validateWarm(value: unknown): WarmThroughput | undefined {
  if (value === undefined) return undefined;
  const v = value as WarmThroughput;
  if (v.ReadUnitsPerSecond !== undefined && v.ReadUnitsPerSecond < 12000)
    throw ddbErrors.invalid('ReadUnitsPerSecond for warm throughput must be at least 12000');
  if (v.WriteUnitsPerSecond !== undefined && v.WriteUnitsPerSecond < 4000)
    throw ddbErrors.invalid('WriteUnitsPerSecond for warm throughput must be at least 4000');
  return { ...v };
}

/** A GSI of CreateTable or of an UpdateTable Create action. */
export function validateGlobalIndex(
  input: Input,
  billingMode: Table['billingMode'],
  online: boolean,
): GlobalIndex {
  const name = validateName(input.IndexName, 'indexName');
  const keySchema = validateKeySchema(input.KeySchema, 'globalSecondaryIndexes.member.keySchema');
  const index: GlobalIndex = {
    IndexName: name,
    KeySchema: keySchema,
    Projection: validateProjection(input.Projection, name),
    online,
  };
  if (billingMode === 'PROVISIONED') {
    if (!input.ProvisionedThroughput)
      throw ddbErrors.invalid(`ProvisionedThroughput must be specified for index: ${name}`);
    index.ProvisionedThroughput = validateThroughput(
      input.ProvisionedThroughput,
      'globalSecondaryIndexes.member.provisionedThroughput',
    );
  } else if (input.ProvisionedThroughput) {
    throw ddbErrors.invalid(
      `ProvisionedThroughput should not be specified for index: ${name} when BillingMode is PAY_PER_REQUEST`,
    );
  }
  const onDemand = validateOnDemand(input.OnDemandThroughput);
  if (onDemand) index.OnDemandThroughput = onDemand;
  const warm = validateWarm(input.WarmThroughput);
  if (warm) index.WarmThroughput = warm;
  return index;
}

function validateLocalIndex(input: Input, tableKey: KeyElement[]): LocalIndex {
  const name = validateName(input.IndexName, 'indexName');
  const keySchema = validateKeySchema(input.KeySchema, 'localSecondaryIndexes.member.keySchema');
  if (!tableKey[1])
    throw ddbErrors.invalid(
      'Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex',
    );
  if (!keySchema[1]) throw ddbErrors.invalid(`Index KeySchema does not have a range key for index: ${name}`);
  if (keySchema[0]!.AttributeName !== tableKey[0]!.AttributeName)
    throw ddbErrors.invalid(
      `Index KeySchema does not have the same leading hash key as table KeySchema for index: ${name}`,
    );
  return { IndexName: name, KeySchema: keySchema, Projection: validateProjection(input.Projection, name) };
}

function validateVectorIndex(input: Input): VectorIndex {
  const name = validateName(input.IndexName, 'indexName');
  if (!input.VectorAttribute?.AttributeName)
    throw ddbErrors.constraint('vectorIndexes.member.vectorAttribute', null, 'Member must not be null');
  if (!Number.isInteger(input.Dimensions) || input.Dimensions < 1)
    throw ddbErrors.constraint(
      'vectorIndexes.member.dimensions',
      input.Dimensions,
      'Member must have value greater than or equal to 1',
    );
  if (typeof input.DistanceFunction !== 'string')
    throw ddbErrors.constraint('vectorIndexes.member.distanceFunction', null, 'Member must not be null');
  return {
    IndexName: name,
    VectorAttribute: { AttributeName: input.VectorAttribute.AttributeName },
    ...(input.SearchSchema ? { SearchSchema: input.SearchSchema.map((s: Input) => ({ ...s })) } : {}),
    Projection: validateProjection(input.Projection ?? { ProjectionType: 'ALL' }, name),
    Dimensions: input.Dimensions,
    DistanceFunction: input.DistanceFunction,
  };
}

/** No two indexes (of any kind) share a name; the non-key attribute total stays within its limit. */
export function checkIndexes(globals: GlobalIndex[], locals: LocalIndex[]): void {
  const names = [...globals, ...locals].map((i) => i.IndexName);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw ddbErrors.invalid(`Duplicate index name: ${dup}`);
  if (globals.length > MAX_GSIS)
    throw ddbErrors.invalid(`GlobalSecondaryIndex count exceeds the per-table limit of ${MAX_GSIS}`);
  if (locals.length > MAX_LSIS)
    throw ddbErrors.invalid(`LocalSecondaryIndex count exceeds the per-table limit of ${MAX_LSIS}`);
  const nonKey = [...globals, ...locals].reduce(
    (n, i) => n + (i.Projection.NonKeyAttributes?.length ?? 0),
    0,
  );
  if (nonKey > MAX_NON_KEY_ATTRIBUTES)
    throw ddbErrors.invalid(
      `The number of projected non-key attributes exceeds the limit of ${MAX_NON_KEY_ATTRIBUTES}`,
    );
}

export function validateStream(spec: unknown, tableName: string): { viewType: string } | undefined {
  if (spec === undefined) return undefined;
  const s = spec as { StreamEnabled?: boolean; StreamViewType?: string };
  if (typeof s.StreamEnabled !== 'boolean')
    throw ddbErrors.constraint('streamSpecification.streamEnabled', null, 'Member must not be null');
  if (!s.StreamEnabled) {
    if (s.StreamViewType !== undefined)
      throw ddbErrors.invalid(
        `StreamViewType may not be specified when StreamEnabled is false for table: ${tableName}`,
      );
    return undefined;
  }
  if (!s.StreamViewType || !STREAM_VIEW_TYPES.includes(s.StreamViewType))
    throw ddbErrors.constraint(
      'streamSpecification.streamViewType',
      s.StreamViewType ?? null,
      `Member must satisfy enum value set: [${STREAM_VIEW_TYPES.join(', ')}]`,
    );
  return { viewType: s.StreamViewType };
}

/** SSE as DynamoDB reports it: KMS with the given key, or the AWS managed key `alias/aws/dynamodb`. */
export function validateSse(spec: unknown, account: string, region: string): Table['sse'] {
  if (spec === undefined) return undefined;
  const s = spec as { Enabled?: boolean; SSEType?: string; KMSMasterKeyId?: string };
  if (!s.Enabled) {
    if (s.SSEType !== undefined || s.KMSMasterKeyId !== undefined)
      throw ddbErrors.invalid('SSEType and KMSMasterKeyId can only be specified when SSE is enabled');
    return undefined;
  }
  if (s.SSEType !== undefined && s.SSEType !== 'KMS')
    throw ddbErrors.constraint(
      'sSESpecification.sSEType',
      s.SSEType,
      'Member must satisfy enum value set: [KMS]',
    );
  return { type: 'KMS', kmsKeyArn: kmsKeyArn(s.KMSMasterKeyId, account, region) };
}

/** The key ARN DynamoDB reports for a key id, ARN or alias (the AWS managed key when none is given). */
function kmsKeyArn(keyId: string | undefined, account: string, region: string): string {
  const prefix = `arn:${partitionOf(region)}:kms:${region}:${account}`;
  if (keyId === undefined || keyId === 'alias/aws/dynamodb')
    return `${prefix}:key/${managedKeyId(account, region)}`;
  if (keyId.startsWith('arn:')) return keyId;
  if (keyId.startsWith('alias/')) return `${prefix}:${keyId}`;
  return `${prefix}:key/${keyId}`;
}

/** The AWS managed DynamoDB key of an account and region: one stable id per pair. */
function managedKeyId(account: string, region: string): string {
  const hex = Buffer.from(`${account}${region}aws/dynamodb`).toString('hex').padEnd(32, '0').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function validateTableClass(value: unknown): Table['tableClass'] {
  if (typeof value !== 'string' || !TABLE_CLASSES.includes(value))
    throw ddbErrors.constraint(
      'tableClass',
      value,
      `Member must satisfy enum value set: [${TABLE_CLASSES.join(', ')}]`,
    );
  return value as Table['tableClass'];
}

export function validateTags(tags: unknown): Array<{ Key: string; Value: string }> {
  if (tags === undefined) return [];
  const list = tags as Array<{ Key: string; Value: string }>;
  for (const t of list) {
    if (typeof t.Key !== 'string' || t.Key.length < 1 || t.Key.length > 128)
      throw ddbErrors.constraint('tags.member.key', t.Key, 'Member must have length between 1 and 128');
    if (typeof t.Value !== 'string' || t.Value.length > 256)
      throw ddbErrors.constraint(
        'tags.member.value',
        t.Value,
        'Member must have length less than or equal to 256',
      );
    if (t.Key.startsWith('aws:'))
      throw ddbErrors.validation(
        'One or more parameter values were invalid: tag keys starting with "aws:" are reserved for AWS use',
      );
  }
  return list.map((t) => ({ Key: t.Key, Value: t.Value }));
}

/** Everything CreateTable decides from its input, for the store to add. */
export function tableFromCreate(
  account: string,
  region: string,
  input: Input,
): Omit<Table, 'tableId' | 'created' | 'items' | 'kinesis'> {
  const name = validateName(input.TableName, 'tableName');
  const keySchema = validateKeySchema(input.KeySchema, 'keySchema');
  const definitions = validateDefinitions(input.AttributeDefinitions);
  const billingMode = (input.BillingMode ?? 'PROVISIONED') as Table['billingMode'];
  if (billingMode !== 'PROVISIONED' && billingMode !== 'PAY_PER_REQUEST')
    throw ddbErrors.constraint(
      'billingMode',
      billingMode,
      'Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]',
    );
  let throughput: Throughput = { ReadCapacityUnits: 0, WriteCapacityUnits: 0 };
  if (billingMode === 'PROVISIONED') {
    if (!input.ProvisionedThroughput)
      throw ddbErrors.invalid(
        'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED',
      );
    throughput = validateThroughput(input.ProvisionedThroughput, 'provisionedThroughput');
  } else if (input.ProvisionedThroughput) {
    throw ddbErrors.invalid(
      'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
    );
  }
  const globals = ((input.GlobalSecondaryIndexes ?? []) as Input[]).map((g) =>
    validateGlobalIndex(g, billingMode, false),
  );
  const locals = ((input.LocalSecondaryIndexes ?? []) as Input[]).map((l) =>
    validateLocalIndex(l, keySchema),
  );
  checkIndexes(globals, locals);
  checkDefinitionsCoverKeys(definitions, [
    keySchema,
    ...globals.map((g) => g.KeySchema),
    ...locals.map((l) => l.KeySchema),
  ]);
  const stream = validateStream(input.StreamSpecification, name);
  const tags = validateTags(input.Tags);
  if (tags.length > MAX_TAGS) throw ddbErrors.invalid(`The number of tags exceeds the limit of ${MAX_TAGS}`);
  const onDemand = validateOnDemand(input.OnDemandThroughput);
  if (onDemand && billingMode !== 'PAY_PER_REQUEST')
    throw ddbErrors.invalid('OnDemandThroughput can only be specified when BillingMode is PAY_PER_REQUEST');
  if (input.ResourcePolicy !== undefined) checkPolicy(input.ResourcePolicy);
  const now = Date.now();
  return {
    account,
    region,
    name,
    attributeDefinitions: definitions,
    keySchema,
    billingMode,
    billingModeReported: input.BillingMode !== undefined,
    ...(billingMode === 'PAY_PER_REQUEST' ? { lastUpdateToPayPerRequest: now } : {}),
    provisionedThroughput: { ...throughput, decreasesToday: 0 },
    ...(onDemand ? { onDemandThroughput: onDemand } : {}),
    ...(input.WarmThroughput ? { warmThroughput: validateWarm(input.WarmThroughput) } : {}),
    globalIndexes: globals,
    localIndexes: locals,
    vectorIndexes: ((input.VectorIndexes ?? []) as Input[]).map(validateVectorIndex),
    ...(stream ? { stream: { viewType: stream.viewType, label: streamLabel(now) } } : {}),
    ...(input.SSESpecification ? { sse: validateSse(input.SSESpecification, account, region) } : {}),
    tableClass: input.TableClass !== undefined ? validateTableClass(input.TableClass) : 'STANDARD',
    deletionProtection: input.DeletionProtectionEnabled === true,
    ...(input.ResourcePolicy !== undefined
      ? { resourcePolicy: { policy: input.ResourcePolicy, revisionId: revision() } }
      : {}),
    tags,
  };
}

export { validateVectorIndex };

/** A resource policy must be a JSON object (IAM evaluates the rest). */
export function checkPolicy(policy: unknown): void {
  try {
    const parsed = JSON.parse(String(policy)) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
  } catch {
    throw ddbErrors.validation('Invalid policy document: the policy must be a JSON object');
  }
}

/** A resource policy revision id (a timestamp-like number, as DynamoDB returns). */
export function revision(): string {
  return `${Date.now()}${uuid().replace(/\D/g, '').slice(0, 6)}`;
}
