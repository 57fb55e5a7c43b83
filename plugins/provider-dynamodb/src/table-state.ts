/**
 * A live table read back in AWS::DynamoDB::Table's shape: DescribeTable plus
 * the settings kept by calls of their own. Used for drift and to bring a
 * table an interrupted create made to the template's settings.
 */
import {
  DescribeContinuousBackupsCommand,
  DescribeContributorInsightsCommand,
  DescribeKinesisStreamingDestinationCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetResourcePolicyCommand,
  ListTagsOfResourceCommand,
  type DynamoDBClient,
  type OnDemandThroughput,
  type Tag,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { Props } from './table-model';

/** Tags cdkd and AWS manage, left out of what is compared with the template. */
const MANAGED_TAG = /^(cdkd|aws):/;

const errorName = (err: unknown) => (err as { name?: string } | null)?.name ?? '';

async function optional<T>(call: Promise<T>, missing: string[]): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (missing.includes(errorName(err))) return undefined;
    throw err;
  }
}

async function allTags(client: DynamoDBClient, arn: string): Promise<Tag[]> {
  const tags: Tag[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn, NextToken: token }));
    tags.push(...(page.Tags ?? []));
    token = page.NextToken;
  } while (token);
  return tags;
}

const templateTags = (tags: Tag[]) =>
  tags
    .filter((t) => t.Key && !MANAGED_TAG.test(t.Key))
    .sort((a, b) => (a.Key! < b.Key! ? -1 : a.Key! > b.Key! ? 1 : 0))
    .map((t) => ({ Key: t.Key!, Value: t.Value ?? '' }));

/**
 * The table's properties as AWS holds them, or undefined when there is no
 * such table. Members AWS fills in with its defaults (the AWS managed KMS
 * key, a 35-day recovery period) are reported only where `declared` (the
 * template's properties) names them, so an unchanged table shows no drift.
 */
export async function readTable(
  client: DynamoDBClient,
  name: string,
  declared: Props = {},
): Promise<{ table: TableDescription; properties: Props } | undefined> {
  const declaredSse = (declared.SSESpecification ?? {}) as Props;
  const declaredPitr = (declared.PointInTimeRecoverySpecification ?? {}) as Props;
  const table = (
    await optional(client.send(new DescribeTableCommand({ TableName: name })), ['ResourceNotFoundException'])
  )?.Table;
  if (!table || table.TableStatus === 'DELETING') return undefined;
  const arn = table.TableArn!;
  const streamArn = table.StreamSpecification?.StreamEnabled ? table.LatestStreamArn : undefined;
  const [ttl, backups, insights, kinesis, policy, streamPolicy, tags, streamTags] = await Promise.all([
    client.send(new DescribeTimeToLiveCommand({ TableName: name })),
    client.send(new DescribeContinuousBackupsCommand({ TableName: name })),
    client.send(new DescribeContributorInsightsCommand({ TableName: name })),
    client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: name })),
    optional(client.send(new GetResourcePolicyCommand({ ResourceArn: arn })), ['PolicyNotFoundException']),
    streamArn
      ? optional(client.send(new GetResourcePolicyCommand({ ResourceArn: streamArn })), [
          'PolicyNotFoundException',
        ])
      : undefined,
    allTags(client, arn),
    streamArn ? allTags(client, streamArn) : [],
  ]);
  const indexInsights = await Promise.all(
    (table.GlobalSecondaryIndexes ?? []).map((g) =>
      client.send(new DescribeContributorInsightsCommand({ TableName: name, IndexName: g.IndexName })),
    ),
  );
  const on = (status?: string) => status === 'ENABLED' || status === 'ENABLING';
  const mode = billingModeOf(table);
  const pitr = backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription;
  const destination = kinesis.KinesisDataStreamDestinations?.find(
    (d) => d.DestinationStatus === 'ACTIVE' || d.DestinationStatus === 'ENABLING',
  );
  const parse = (doc?: string) => (doc ? (JSON.parse(doc) as unknown) : undefined);
  const properties: Props = {
    TableName: name,
    KeySchema: table.KeySchema ?? [],
    AttributeDefinitions: table.AttributeDefinitions ?? [],
    BillingMode: mode,
    ...(mode === 'PROVISIONED'
      ? {
          ProvisionedThroughput: {
            ReadCapacityUnits: table.ProvisionedThroughput?.ReadCapacityUnits,
            WriteCapacityUnits: table.ProvisionedThroughput?.WriteCapacityUnits,
          },
        }
      : {}),
    GlobalSecondaryIndexes: (table.GlobalSecondaryIndexes ?? []).map((g, i) => ({
      IndexName: g.IndexName,
      KeySchema: g.KeySchema,
      Projection: g.Projection,
      ...(mode === 'PROVISIONED'
        ? {
            ProvisionedThroughput: {
              ReadCapacityUnits: g.ProvisionedThroughput?.ReadCapacityUnits,
              WriteCapacityUnits: g.ProvisionedThroughput?.WriteCapacityUnits,
            },
          }
        : {}),
      ...onDemandLimits(g.OnDemandThroughput),
      ...(on(indexInsights[i]!.ContributorInsightsStatus)
        ? {
            ContributorInsightsSpecification: {
              Enabled: true,
              ...(indexInsights[i]!.ContributorInsightsMode
                ? { Mode: indexInsights[i]!.ContributorInsightsMode }
                : {}),
            },
          }
        : {}),
    })),
    LocalSecondaryIndexes: (table.LocalSecondaryIndexes ?? []).map((l) => ({
      IndexName: l.IndexName,
      KeySchema: l.KeySchema,
      Projection: l.Projection,
    })),
    ...(table.StreamSpecification?.StreamEnabled
      ? {
          StreamSpecification: {
            StreamViewType: table.StreamSpecification.StreamViewType,
            ...(streamPolicy?.Policy
              ? { ResourcePolicy: { PolicyDocument: parse(streamPolicy.Policy) } }
              : {}),
            ...(streamTags.length ? { Tags: templateTags(streamTags) } : {}),
          },
        }
      : {}),
    SSESpecification:
      table.SSEDescription?.Status === 'ENABLED'
        ? {
            SSEEnabled: true,
            ...(declaredSse.SSEType !== undefined ? { SSEType: table.SSEDescription.SSEType } : {}),
            ...(declaredSse.KMSMasterKeyId !== undefined
              ? { KMSMasterKeyId: table.SSEDescription.KMSMasterKeyArn }
              : {}),
          }
        : { SSEEnabled: false },
    TableClass: table.TableClassSummary?.TableClass ?? 'STANDARD',
    DeletionProtectionEnabled: table.DeletionProtectionEnabled ?? false,
    TimeToLiveSpecification: on(ttl.TimeToLiveDescription?.TimeToLiveStatus)
      ? { AttributeName: ttl.TimeToLiveDescription!.AttributeName, Enabled: true }
      : { Enabled: false },
    PointInTimeRecoverySpecification:
      pitr?.PointInTimeRecoveryStatus === 'ENABLED'
        ? {
            PointInTimeRecoveryEnabled: true,
            ...(declaredPitr.RecoveryPeriodInDays !== undefined || pitr.RecoveryPeriodInDays !== 35
              ? { RecoveryPeriodInDays: pitr.RecoveryPeriodInDays }
              : {}),
          }
        : { PointInTimeRecoveryEnabled: false },
    ContributorInsightsSpecification: on(insights.ContributorInsightsStatus)
      ? {
          Enabled: true,
          ...(insights.ContributorInsightsMode ? { Mode: insights.ContributorInsightsMode } : {}),
        }
      : { Enabled: false },
    ...(destination
      ? {
          KinesisStreamSpecification: {
            StreamArn: destination.StreamArn,
            ...(destination.ApproximateCreationDateTimePrecision
              ? { ApproximateCreationDateTimePrecision: destination.ApproximateCreationDateTimePrecision }
              : {}),
          },
        }
      : {}),
    ...onDemandLimits(table.OnDemandThroughput),
    ...(policy?.Policy ? { ResourcePolicy: { PolicyDocument: parse(policy.Policy) } } : {}),
    Tags: templateTags(tags),
  };
  return { table, properties };
}

/** On-demand maximums as a template sets them: -1 is DynamoDB's "no maximum", what a template leaving them out means. */
function onDemandLimits(t: OnDemandThroughput | undefined): Props {
  const set = Object.entries(t ?? {}).filter(([, v]) => typeof v === 'number' && v !== -1);
  return set.length ? { OnDemandThroughput: Object.fromEntries(set) } : {};
}

export function billingModeOf(table: TableDescription): 'PROVISIONED' | 'PAY_PER_REQUEST' {
  return table.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST' ? 'PAY_PER_REQUEST' : 'PROVISIONED';
}
