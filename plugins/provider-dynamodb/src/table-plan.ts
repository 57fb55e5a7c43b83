/**
 * The DynamoDB calls that take a table from one AWS::DynamoDB::Table
 * definition to another, in the order AWS allows them: index deletions one at
 * a time, then the capacity change (billing mode, table and index
 * throughput), then index creations one at a time, then the stream (a view
 * type change is a disable and an enable), encryption, class and deletion
 * protection, then the settings managed by calls of their own (time to live,
 * point-in-time recovery, contributor insights, Kinesis, resource policies),
 * then tags. Every UpdateTable step is followed by a wait for the table and
 * its indexes to be ACTIVE. A property removed from the template is reset to
 * AWS's default (no stream, the AWS owned key, STANDARD, unprotected, TTL and
 * PITR off, no insights, no Kinesis destination, no policy); one never set
 * is left alone. Pure: no SDK at run time.
 */
import type {
  AttributeDefinition,
  GlobalSecondaryIndex,
  GlobalSecondaryIndexUpdate,
  SSESpecification,
  UpdateTableCommandInput,
  VectorIndex,
} from '@aws-sdk/client-dynamodb';
import {
  attributeDefinitions,
  billingMode,
  canonical,
  contributorInsights,
  deletionProtection,
  globalIndexes,
  kinesis,
  localIndexes,
  onDemand,
  pitr,
  sse,
  streamPolicy,
  streamTags,
  streamViewType,
  tablePolicy,
  tableClass,
  tableTags,
  throughput,
  ttl,
  vectorIndexes,
  warm,
  type Props,
} from './table-model';

/** An UpdateTable call (without TableName); a wait for ACTIVE follows it. */
export type UpdateTableStep = {
  kind: 'updateTable';
  why: string;
  input: Omit<UpdateTableCommandInput, 'TableName'>;
};

export type Step =
  | UpdateTableStep
  | { kind: 'ttl'; enabled: boolean; attributeName: string }
  | { kind: 'pitr'; enabled: boolean; recoveryPeriodInDays?: number }
  | { kind: 'contributorInsights'; indexName?: string; enabled: boolean; mode?: string }
  | { kind: 'kinesisEnable'; streamArn: string; precision?: string }
  | { kind: 'kinesisDisable'; streamArn: string }
  | { kind: 'kinesisUpdate'; streamArn: string; precision: string }
  | { kind: 'putPolicy'; target: 'table' | 'stream'; policy: string }
  | { kind: 'deletePolicy'; target: 'table' | 'stream' }
  | { kind: 'tag'; target: 'table' | 'stream'; tags: Record<string, string> }
  | { kind: 'untag'; target: 'table' | 'stream'; keys: string[] };

/** What the plan cannot do in place (DynamoDB fixes it when the table is created). */
export class NotUpdatable extends Error {}

/** An index's definition that only a delete and a re-create can change. */
const definition = (i: GlobalSecondaryIndex | VectorIndex) =>
  canonical({
    ...i,
    ProvisionedThroughput: undefined,
    OnDemandThroughput: undefined,
    WarmThroughput: undefined,
  });

function tagSteps(
  target: 'table' | 'stream',
  desired: Record<string, string>,
  previous: Record<string, string>,
): Step[] {
  const gone = Object.keys(previous).filter((k) => !(k in desired));
  const set = Object.fromEntries(Object.entries(desired).filter(([k, v]) => previous[k] !== v));
  return [
    ...(gone.length ? [{ kind: 'untag' as const, target, keys: gone }] : []),
    ...(Object.keys(set).length ? [{ kind: 'tag' as const, target, tags: set }] : []),
  ];
}

/**
 * The settings made by calls of their own, from `previous` to `desired` (a
 * create passes `{}`, and leaves the table's policy to CreateTable).
 */
function settingSteps(desired: Props, previous: Props, forCreate: boolean): Step[] {
  const steps: Step[] = [];
  const ttlNow = ttl(desired);
  const ttlBefore = ttl(previous);
  if (ttlBefore && ttlBefore.attributeName !== ttlNow?.attributeName)
    steps.push({ kind: 'ttl', enabled: false, attributeName: ttlBefore.attributeName });
  if (ttlNow && ttlNow.attributeName !== ttlBefore?.attributeName)
    steps.push({ kind: 'ttl', enabled: true, attributeName: ttlNow.attributeName });

  const pitrNow = pitr(desired);
  const pitrBefore = pitr(previous);
  if (pitrNow && canonical(pitrNow) !== canonical(pitrBefore))
    steps.push({ kind: 'pitr', enabled: true, ...pitrNow });
  else if (!pitrNow && pitrBefore) steps.push({ kind: 'pitr', enabled: false });

  const insightsNow = contributorInsights(desired);
  const insightsBefore = contributorInsights(previous);
  const indexNames = new Set(globalIndexes(desired).keys());
  for (const [name, spec] of insightsNow)
    if (canonical(spec) !== canonical(insightsBefore.get(name)))
      steps.push({
        kind: 'contributorInsights',
        ...(name ? { indexName: name } : {}),
        enabled: true,
        ...spec,
      });
  for (const name of insightsBefore.keys())
    // An index that is gone took its insights with it.
    if (!insightsNow.has(name) && (name === '' || indexNames.has(name)))
      steps.push({ kind: 'contributorInsights', ...(name ? { indexName: name } : {}), enabled: false });

  const kinesisNow = kinesis(desired);
  const kinesisBefore = kinesis(previous);
  if (kinesisBefore && kinesisBefore.streamArn !== kinesisNow?.streamArn)
    steps.push({ kind: 'kinesisDisable', streamArn: kinesisBefore.streamArn });
  if (kinesisNow && kinesisNow.streamArn !== kinesisBefore?.streamArn)
    steps.push({ kind: 'kinesisEnable', ...kinesisNow });
  else if (kinesisNow?.precision && kinesisNow.precision !== kinesisBefore?.precision)
    steps.push({ kind: 'kinesisUpdate', streamArn: kinesisNow.streamArn, precision: kinesisNow.precision });

  for (const [target, of] of [
    ['table', tablePolicy],
    ['stream', streamPolicy],
  ] as const) {
    if (forCreate && target === 'table') continue;
    const now = of(desired);
    const before = of(previous);
    // A new stream starts without a policy.
    const streamRenewed = target === 'stream' && streamViewType(desired) !== streamViewType(previous);
    if (
      now &&
      (streamRenewed || canonical(JSON.parse(now)) !== (before ? canonical(JSON.parse(before)) : undefined))
    )
      steps.push({ kind: 'putPolicy', target, policy: now });
    else if (!now && before && !streamRenewed) steps.push({ kind: 'deletePolicy', target });
  }
  return steps;
}

/** The whole update, from `previous` to `desired`. Throws NotUpdatable for a change DynamoDB cannot make. */
export function updateSteps(desired: Props, previous: Props): Step[] {
  if (canonical(localIndexes(desired)) !== canonical(localIndexes(previous)))
    throw new NotUpdatable('LocalSecondaryIndexes');
  const steps: Step[] = [];
  const definitions: AttributeDefinition[] = attributeDefinitions(desired.AttributeDefinitions);

  // 1. Index deletions: removed indexes, and indexes whose definition changed (re-created below).
  const gsisNow = globalIndexes(desired);
  const gsisBefore = globalIndexes(previous);
  const redefined = [...gsisNow.keys()].filter(
    (n) => gsisBefore.has(n) && definition(gsisNow.get(n)!) !== definition(gsisBefore.get(n)!),
  );
  for (const name of gsisBefore.keys())
    if (!gsisNow.has(name) || redefined.includes(name))
      steps.push({
        kind: 'updateTable',
        why: `deleting index ${name}`,
        input: { GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] },
      });
  const vectorsNow = vectorIndexes(desired);
  const vectorsBefore = vectorIndexes(previous);
  const vectorsRedefined = [...vectorsNow.keys()].filter(
    (n) => vectorsBefore.has(n) && definition(vectorsNow.get(n)!) !== definition(vectorsBefore.get(n)!),
  );
  for (const name of vectorsBefore.keys())
    if (!vectorsNow.has(name) || vectorsRedefined.includes(name))
      steps.push({
        kind: 'updateTable',
        why: `deleting vector index ${name}`,
        input: { VectorIndexUpdates: [{ Delete: { IndexName: name } }] },
      });

  // 2. Capacity: billing mode, table throughput, kept indexes' throughput, on-demand maximums, warm throughput.
  const mode = billingMode(desired);
  const switched = mode !== billingMode(previous);
  const capacity: Omit<UpdateTableCommandInput, 'TableName'> = {};
  if (switched) capacity.BillingMode = mode;
  const t = throughput(desired.ProvisionedThroughput);
  if (
    mode === 'PROVISIONED' &&
    t &&
    (switched || canonical(t) !== canonical(throughput(previous.ProvisionedThroughput)))
  )
    capacity.ProvisionedThroughput = t;
  const od = onDemand(desired.OnDemandThroughput);
  const odBefore = onDemand(previous.OnDemandThroughput);
  if (mode === 'PAY_PER_REQUEST' && od && canonical(od) !== canonical(odBefore))
    capacity.OnDemandThroughput = od;
  // Removed maximums go back to none (-1), AWS's value for "no maximum".
  else if (mode === 'PAY_PER_REQUEST' && !od && odBefore && !switched)
    capacity.OnDemandThroughput = { MaxReadRequestUnits: -1, MaxWriteRequestUnits: -1 };
  const w = warm(desired.WarmThroughput);
  if (w && canonical(w) !== canonical(warm(previous.WarmThroughput))) capacity.WarmThroughput = w;
  const indexCapacity: GlobalSecondaryIndexUpdate[] = [];
  for (const [name, index] of gsisNow) {
    const before = gsisBefore.get(name);
    if (!before || redefined.includes(name)) continue;
    const update: NonNullable<GlobalSecondaryIndexUpdate['Update']> = { IndexName: name };
    if (
      mode === 'PROVISIONED' &&
      index.ProvisionedThroughput &&
      (switched || canonical(index.ProvisionedThroughput) !== canonical(before.ProvisionedThroughput))
    )
      update.ProvisionedThroughput = index.ProvisionedThroughput;
    if (
      mode === 'PAY_PER_REQUEST' &&
      index.OnDemandThroughput &&
      canonical(index.OnDemandThroughput) !== canonical(before.OnDemandThroughput)
    )
      update.OnDemandThroughput = index.OnDemandThroughput;
    if (index.WarmThroughput && canonical(index.WarmThroughput) !== canonical(before.WarmThroughput))
      update.WarmThroughput = index.WarmThroughput;
    if (Object.keys(update).length > 1) indexCapacity.push({ Update: update });
  }
  if (indexCapacity.length) capacity.GlobalSecondaryIndexUpdates = indexCapacity;
  if (Object.keys(capacity).length)
    steps.push({ kind: 'updateTable', why: 'changing capacity', input: capacity });

  // 3. Index creations, one per call.
  for (const [name, index] of gsisNow)
    if (!gsisBefore.has(name) || redefined.includes(name))
      steps.push({
        kind: 'updateTable',
        why: `creating index ${name}`,
        input: {
          // The new index's key attributes only: DynamoDB adds them to the table's, and a definition
          // no key uses yet (an index created in a later step) is refused.
          AttributeDefinitions: definitions.filter((d) =>
            index.KeySchema!.some((k) => k.AttributeName === d.AttributeName),
          ),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                ...index,
                IndexName: name,
                KeySchema: index.KeySchema!,
                Projection: index.Projection!,
              },
            },
          ],
        },
      });
  for (const [name, index] of vectorsNow)
    if (!vectorsBefore.has(name) || vectorsRedefined.includes(name))
      steps.push({
        kind: 'updateTable',
        why: `creating vector index ${name}`,
        input: { VectorIndexUpdates: [{ Create: index as never }] },
      });

  // 4. Stream (a view type change is a new stream), encryption, class, deletion protection.
  const view = streamViewType(desired);
  const viewBefore = streamViewType(previous);
  if (viewBefore && view !== viewBefore)
    steps.push({
      kind: 'updateTable',
      why: 'disabling the stream',
      input: { StreamSpecification: { StreamEnabled: false } },
    });
  if (view && view !== viewBefore)
    steps.push({
      kind: 'updateTable',
      why: 'enabling the stream',
      input: { StreamSpecification: { StreamEnabled: true, StreamViewType: view as 'NEW_IMAGE' } },
    });
  const encryption = sse(desired);
  const encryptionBefore = sse(previous);
  if (canonical(encryption) !== canonical(encryptionBefore))
    steps.push({
      kind: 'updateTable',
      why: 'changing encryption',
      input: { SSESpecification: encryption ?? ({ Enabled: false } satisfies SSESpecification) },
    });
  if (tableClass(desired) !== tableClass(previous))
    steps.push({
      kind: 'updateTable',
      why: 'changing the table class',
      input: { TableClass: tableClass(desired) as 'STANDARD' },
    });
  if (deletionProtection(desired) !== deletionProtection(previous))
    steps.push({
      kind: 'updateTable',
      why: 'changing deletion protection',
      input: { DeletionProtectionEnabled: deletionProtection(desired) },
    });

  // 5. Settings made by calls of their own, 6. tags.
  steps.push(...settingSteps(desired, previous, false));
  steps.push(...tagSteps('table', tableTags(desired), tableTags(previous)));
  // A new stream has no tags yet: tag it whole.
  steps.push(...tagSteps('stream', streamTags(desired), view !== viewBefore ? {} : streamTags(previous)));
  return steps;
}

/** What a create does after CreateTable: the settings kept by calls of their own, and the stream's tags. */
export function createSteps(desired: Props): Step[] {
  return [...settingSteps(desired, {}, true), ...tagSteps('stream', streamTags(desired), {})];
}
