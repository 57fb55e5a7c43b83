/**
 * UpdateTable: validated as a whole before anything changes, then applied.
 * As DynamoDB enforces: the table must be ACTIVE (ResourceInUseException
 * otherwise); one global secondary index is created or deleted per call, and
 * not while another is being created or deleted (LimitExceededException);
 * switching to provisioned capacity needs throughput for the table and every
 * index; a stream is enabled only when none is, disabled only when one is.
 */
import { AwsError } from '../../core/errors';
import {
  checkDefinitionsCoverKeys,
  checkIndexes,
  validateDefinitions,
  validateGlobalIndex,
  validateOnDemand,
  validateSse,
  validateStream,
  validateTableClass,
  validateThroughput,
  validateVectorIndex,
  validateWarm,
} from './definition';
import {
  ddbErrors,
  streamLabel,
  type AttributeDefinition,
  type GlobalIndex,
  type Table,
  type Throughput,
} from './store';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ONE_INDEX_AT_A_TIME = () =>
  new AwsError(
    'LimitExceededException',
    'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table',
  );

const CHANGE_MEMBERS = [
  'ProvisionedThroughput',
  'BillingMode',
  'GlobalSecondaryIndexUpdates',
  'StreamSpecification',
  'SSESpecification',
  'ReplicaUpdates',
  'TableClass',
  'DeletionProtectionEnabled',
  'OnDemandThroughput',
  'WarmThroughput',
  'VectorIndexUpdates',
];

function indexInUse(table: Table, index: GlobalIndex): AwsError {
  const doing =
    index.transition?.kind === 'create'
      ? 'created'
      : index.transition?.kind === 'delete'
        ? 'deleted'
        : 'updated';
  return new AwsError(
    'ResourceInUseException',
    `Attempt to change a resource which is still in use: Index is being ${doing}. Table: ${table.name} Index: ${index.IndexName}`,
  );
}

function sameThroughput(a: Throughput, b: Throughput): boolean {
  return a.ReadCapacityUnits === b.ReadCapacityUnits && a.WriteCapacityUnits === b.WriteCapacityUnits;
}

export function updateTable(table: Table, input: Input): void {
  if (table.transition) throw ddbErrors.inUse(table);
  if (!CHANGE_MEMBERS.some((m) => input[m] !== undefined))
    throw ddbErrors.validation(
      'At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required',
    );
  for (const unsupported of ['ReplicaUpdates', 'GlobalTableWitnessUpdates', 'MultiRegionConsistency'])
    if (input[unsupported] !== undefined)
      throw ddbErrors.validation(`${unsupported}: global tables are not supported by this emulator`);

  const now = Date.now();
  const billingMode = (input.BillingMode ?? table.billingMode) as Table['billingMode'];
  if (billingMode !== 'PROVISIONED' && billingMode !== 'PAY_PER_REQUEST')
    throw ddbErrors.constraint(
      'billingMode',
      billingMode,
      'Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]',
    );
  const toProvisioned = billingMode === 'PROVISIONED' && table.billingMode === 'PAY_PER_REQUEST';

  // Table throughput.
  let throughput: Throughput | undefined;
  if (billingMode === 'PROVISIONED') {
    if (input.ProvisionedThroughput !== undefined)
      throughput = validateThroughput(input.ProvisionedThroughput, 'provisionedThroughput');
    else if (toProvisioned)
      throw ddbErrors.invalid(
        'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED',
      );
  } else if (input.ProvisionedThroughput !== undefined) {
    throw ddbErrors.invalid(
      'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
    );
  }
  const onlyThroughput = CHANGE_MEMBERS.every((m) => m === 'ProvisionedThroughput' || input[m] === undefined);
  if (throughput && onlyThroughput && sameThroughput(throughput, table.provisionedThroughput)) {
    const t = table.provisionedThroughput;
    throw ddbErrors.validation(
      `The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnitsForTable: ${t.ReadCapacityUnits} Requested ReadCapacityUnitsForTable: ${throughput.ReadCapacityUnits} Current WriteCapacityUnitsForTable: ${t.WriteCapacityUnits} Requested WriteCapacityUnitsForTable: ${throughput.WriteCapacityUnits}`,
    );
  }

  // Global secondary indexes.
  const updates = (input.GlobalSecondaryIndexUpdates ?? []) as Input[];
  const creates = updates.filter((u) => u.Create).map((u) => u.Create as Input);
  const deletes = updates.filter((u) => u.Delete).map((u) => String(u.Delete.IndexName));
  const indexUpdates = updates.filter((u) => u.Update).map((u) => u.Update as Input);
  if (creates.length + deletes.length > 1) throw ONE_INDEX_AT_A_TIME();
  if (
    creates.length + deletes.length > 0 &&
    table.globalIndexes.some((i) => i.transition && i.transition.kind !== 'update')
  )
    throw ONE_INDEX_AT_A_TIME();
  const find = (name: string) => table.globalIndexes.find((i) => i.IndexName === name);
  for (const name of deletes) {
    const index = find(name);
    if (!index)
      throw new AwsError(
        'ResourceNotFoundException',
        `Requested resource not found: Index: ${name} not found`,
      );
    if (index.transition) throw indexInUse(table, index);
  }
  const updatedThroughput = new Map<string, Input>();
  for (const u of indexUpdates) {
    const index = find(String(u.IndexName));
    if (!index)
      throw new AwsError(
        'ResourceNotFoundException',
        `Requested resource not found: Index: ${u.IndexName} not found`,
      );
    if (index.transition) throw indexInUse(table, index);
    if (u.ProvisionedThroughput !== undefined) {
      if (billingMode === 'PAY_PER_REQUEST')
        throw ddbErrors.invalid(
          `ProvisionedThroughput should not be specified for index: ${index.IndexName} when BillingMode is PAY_PER_REQUEST`,
        );
      validateThroughput(
        u.ProvisionedThroughput,
        'globalSecondaryIndexUpdates.member.update.provisionedThroughput',
      );
    }
    if (u.OnDemandThroughput !== undefined) validateOnDemand(u.OnDemandThroughput);
    if (u.WarmThroughput !== undefined) validateWarm(u.WarmThroughput);
    updatedThroughput.set(index.IndexName, u);
  }
  const created = creates.map((c) => validateGlobalIndex(c, billingMode, true));
  if (toProvisioned)
    for (const index of table.globalIndexes)
      if (
        !deletes.includes(index.IndexName) &&
        !updatedThroughput.get(index.IndexName)?.ProvisionedThroughput
      )
        throw ddbErrors.invalid(`ProvisionedThroughput must be specified for index: ${index.IndexName}`);

  let definitions: AttributeDefinition[] = table.attributeDefinitions;
  if (created.length) {
    if (find(created[0]!.IndexName) || table.localIndexes.some((l) => l.IndexName === created[0]!.IndexName))
      throw ddbErrors.invalid(`An index with name ${created[0]!.IndexName} already exists`);
    const given =
      input.AttributeDefinitions !== undefined ? validateDefinitions(input.AttributeDefinitions) : [];
    for (const d of given) {
      const current = definitions.find((x) => x.AttributeName === d.AttributeName);
      if (current && current.AttributeType !== d.AttributeType)
        throw ddbErrors.invalid(
          `Cannot change the type of attribute ${d.AttributeName} from ${current.AttributeType} to ${d.AttributeType}`,
        );
    }
    definitions = [
      ...definitions,
      ...given.filter((d) => !definitions.some((x) => x.AttributeName === d.AttributeName)),
    ];
    const remaining = table.globalIndexes.filter((i) => !deletes.includes(i.IndexName));
    checkIndexes([...remaining, ...created], table.localIndexes);
    checkDefinitionsCoverKeys(definitions, [
      table.keySchema,
      ...[...table.globalIndexes, ...created].map((i) => i.KeySchema),
      ...table.localIndexes.map((i) => i.KeySchema),
    ]);
  }

  // Vector indexes: the same one-at-a-time rule.
  const vectorUpdates = (input.VectorIndexUpdates ?? []) as Input[];
  if (vectorUpdates.length > 1) throw ONE_INDEX_AT_A_TIME();
  const vectorCreate = vectorUpdates[0]?.Create ? validateVectorIndex(vectorUpdates[0].Create) : undefined;
  const vectorDelete = vectorUpdates[0]?.Delete ? String(vectorUpdates[0].Delete.IndexName) : undefined;
  if (vectorDelete && !table.vectorIndexes.some((v) => v.IndexName === vectorDelete))
    throw new AwsError(
      'ResourceNotFoundException',
      `Requested resource not found: Index: ${vectorDelete} not found`,
    );

  // Stream, encryption, class, protection, on-demand and warm throughput.
  let stream: { viewType: string } | undefined | null = null;
  if (input.StreamSpecification !== undefined) {
    stream = validateStream(input.StreamSpecification, table.name);
    if (stream && table.stream)
      throw ddbErrors.invalid(`Table already has an enabled stream: TableName: ${table.name}`);
    if (!stream && !table.stream)
      throw ddbErrors.invalid(`Table does not have an enabled stream: TableName: ${table.name}`);
  }
  const sse =
    input.SSESpecification !== undefined
      ? validateSse(input.SSESpecification, table.account, table.region)
      : null;
  const tableClass = input.TableClass !== undefined ? validateTableClass(input.TableClass) : undefined;
  const onDemand = validateOnDemand(input.OnDemandThroughput);
  if (onDemand && billingMode !== 'PAY_PER_REQUEST')
    throw ddbErrors.invalid('OnDemandThroughput can only be specified when BillingMode is PAY_PER_REQUEST');
  const warm = validateWarm(input.WarmThroughput);

  // Everything is valid: apply.
  if (billingMode !== table.billingMode) {
    table.billingMode = billingMode;
    table.billingModeReported = true;
    if (billingMode === 'PAY_PER_REQUEST') {
      table.lastUpdateToPayPerRequest = now;
      table.provisionedThroughput = { ReadCapacityUnits: 0, WriteCapacityUnits: 0, decreasesToday: 0 };
      for (const index of table.globalIndexes) delete index.ProvisionedThroughput;
    }
  } else if (input.BillingMode !== undefined) {
    table.billingModeReported = true;
  }
  if (throughput) {
    const t = table.provisionedThroughput;
    const up =
      throughput.ReadCapacityUnits > t.ReadCapacityUnits ||
      throughput.WriteCapacityUnits > t.WriteCapacityUnits;
    const down =
      throughput.ReadCapacityUnits < t.ReadCapacityUnits ||
      throughput.WriteCapacityUnits < t.WriteCapacityUnits;
    table.provisionedThroughput = {
      ...throughput,
      decreasesToday: t.decreasesToday + (down ? 1 : 0),
      ...(up || t.lastIncrease ? { lastIncrease: up ? now : t.lastIncrease } : {}),
      ...(down || t.lastDecrease ? { lastDecrease: down ? now : t.lastDecrease } : {}),
    };
  }
  for (const [name, u] of updatedThroughput) {
    const index = find(name)!;
    if (u.ProvisionedThroughput)
      index.ProvisionedThroughput = validateThroughput(u.ProvisionedThroughput, 'update');
    if (u.OnDemandThroughput) index.OnDemandThroughput = validateOnDemand(u.OnDemandThroughput);
    if (u.WarmThroughput) index.WarmThroughput = validateWarm(u.WarmThroughput);
    index.transition = { kind: 'update', since: now };
  }
  for (const name of deletes) find(name)!.transition = { kind: 'delete', since: now };
  for (const index of created) {
    index.transition = { kind: 'create', since: now };
    table.globalIndexes.push(index);
  }
  table.attributeDefinitions = definitions;
  if (vectorCreate) table.vectorIndexes.push({ ...vectorCreate, transition: { kind: 'create', since: now } });
  if (vectorDelete)
    table.vectorIndexes.find((v) => v.IndexName === vectorDelete)!.transition = {
      kind: 'delete',
      since: now,
    };
  if (stream !== null) {
    // A stream's policy and tags are the stream's: a new stream starts without them.
    delete table.streamResourcePolicy;
    delete table.streamTags;
    if (stream) {
      // A new stream never reuses the previous stream's label (and so its ARN).
      let at = now;
      while (streamLabel(at) === table.lastStreamLabel) at++;
      table.stream = { viewType: stream.viewType, label: streamLabel(at) };
    } else {
      table.lastStreamLabel = table.stream!.label;
      delete table.stream;
    }
  }
  if (sse !== null) {
    if (sse) table.sse = sse;
    else delete table.sse;
  }
  if (tableClass !== undefined && tableClass !== table.tableClass) {
    table.tableClass = tableClass;
    table.tableClassUpdated = now;
  }
  if (input.DeletionProtectionEnabled !== undefined)
    table.deletionProtection = input.DeletionProtectionEnabled === true;
  if (onDemand) table.onDemandThroughput = onDemand;
  if (warm) table.warmThroughput = warm;
  const protectionOnly = CHANGE_MEMBERS.every(
    (m) => m === 'DeletionProtectionEnabled' || input[m] === undefined,
  );
  if (!protectionOnly) table.transition = { kind: 'update', since: now };
}
