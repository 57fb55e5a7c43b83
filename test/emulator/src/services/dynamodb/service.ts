/**
 * DynamoDB operations: tables (create, describe, update, delete, list), the
 * settings AWS manages through calls of their own (time to live, continuous
 * backups, contributor insights, Kinesis streaming destinations, resource
 * policies, tags), and the basic item operations.
 */
import { updateItem } from './update-item';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { S3Store } from '../s3/store';
import { checkPolicy, MAX_TAGS, revision, tableFromCreate, validateName, validateTags } from './definition';
import { describeTable } from './describe';
import { DynamoDbImports } from './imports';
import { deleteItem, getItem, putItem, query, scan } from './items';
import { ddbErrors, parseDynamoArn, type DynamoDbStore, type Table } from './store';
import { updateTable } from './update-table';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MAX_TABLES_PER_REGION = 2500;
const DAY = 24 * 3_600_000;

function requireTableName(input: Input): string {
  if (typeof input.TableName !== 'string')
    throw ddbErrors.constraint('tableName', null, 'Member must not be null');
  return input.TableName;
}

function ttlDescription(table: Table, delayMs: number) {
  const ttl = table.ttl;
  if (!ttl) return { TimeToLiveStatus: 'DISABLED' };
  const settled = Date.now() - ttl.since >= delayMs;
  return {
    TimeToLiveStatus: ttl.enabled ? (settled ? 'ENABLED' : 'ENABLING') : settled ? 'DISABLED' : 'DISABLING',
    ...(ttl.enabled || !settled ? { AttributeName: ttl.attributeName } : {}),
  };
}

function backupsDescription(table: Table) {
  const now = Date.now();
  const pitr = table.pitr;
  return {
    ContinuousBackupsStatus: 'ENABLED',
    PointInTimeRecoveryDescription: pitr?.enabled
      ? {
          PointInTimeRecoveryStatus: 'ENABLED',
          RecoveryPeriodInDays: pitr.recoveryPeriodInDays,
          EarliestRestorableDateTime: new Date(Math.max(pitr.since, now - pitr.recoveryPeriodInDays * DAY)),
          LatestRestorableDateTime: new Date(now - 5 * 60_000 > pitr.since ? now - 5 * 60_000 : pitr.since),
        }
      : { PointInTimeRecoveryStatus: 'DISABLED' },
  };
}

export class DynamoDbOperations {
  readonly operations: Operations = {
    CreateTable: (ctx, input: Input) => this.createTable(ctx, input),
    DescribeTable: (ctx, input: Input) => ({
      Table: describeTable(this.store.require(ctx.account, ctx.region, requireTableName(input))),
    }),
    UpdateTable: (ctx, input: Input) => {
      const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
      updateTable(table, input);
      return { TableDescription: describeTable(table) };
    },
    DeleteTable: (ctx, input: Input) => {
      const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
      if (table.transition) throw ddbErrors.inUse(table);
      if (table.deletionProtection)
        throw ddbErrors.validation(
          'Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.',
        );
      this.store.remove(table);
      return { TableDescription: describeTable(table) };
    },
    ListTables: (ctx, input: Input) => this.listTables(ctx, input),
    UpdateTimeToLive: (ctx, input: Input) => this.updateTimeToLive(ctx, input),
    DescribeTimeToLive: (ctx, input: Input) => ({
      TimeToLiveDescription: ttlDescription(
        this.store.require(ctx.account, ctx.region, requireTableName(input)),
        this.store.statusDelayMs,
      ),
    }),
    UpdateContinuousBackups: (ctx, input: Input) => {
      const table = this.backupsTable(ctx, input);
      const spec = input.PointInTimeRecoverySpecification as Input | undefined;
      if (!spec || typeof spec.PointInTimeRecoveryEnabled !== 'boolean')
        throw ddbErrors.constraint('pointInTimeRecoverySpecification', null, 'Member must not be null');
      const days = spec.RecoveryPeriodInDays ?? 35;
      if (!Number.isInteger(days) || days < 1 || days > 35)
        throw ddbErrors.validation('RecoveryPeriodInDays must be an integer between 1 and 35');
      if (!spec.PointInTimeRecoveryEnabled && spec.RecoveryPeriodInDays !== undefined)
        throw ddbErrors.validation(
          'RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true',
        );
      table.pitr = {
        enabled: spec.PointInTimeRecoveryEnabled,
        recoveryPeriodInDays: days,
        since: table.pitr?.enabled && spec.PointInTimeRecoveryEnabled ? table.pitr.since : Date.now(),
      };
      return { ContinuousBackupsDescription: backupsDescription(table) };
    },
    DescribeContinuousBackups: (ctx, input: Input) => ({
      ContinuousBackupsDescription: backupsDescription(this.backupsTable(ctx, input)),
    }),
    UpdateContributorInsights: (ctx, input: Input) => this.updateContributorInsights(ctx, input),
    DescribeContributorInsights: (ctx, input: Input) => this.describeContributorInsights(ctx, input),
    EnableKinesisStreamingDestination: (ctx, input: Input) => this.kinesis(ctx, input, true),
    DisableKinesisStreamingDestination: (ctx, input: Input) => this.kinesis(ctx, input, false),
    UpdateKinesisStreamingDestination: (ctx, input: Input) => {
      const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
      const destination = table.kinesis.find((d) => d.StreamArn === input.StreamArn && d.enabled);
      if (!destination)
        throw ddbErrors.validation(
          `Table ${table.name} has no active Kinesis streaming destination ${input.StreamArn}`,
        );
      destination.precision = input.UpdateKinesisStreamingConfiguration?.ApproximateCreationDateTimePrecision;
      return {
        TableName: table.name,
        StreamArn: destination.StreamArn,
        DestinationStatus: 'UPDATING',
        UpdateKinesisStreamingConfiguration: input.UpdateKinesisStreamingConfiguration,
      };
    },
    DescribeKinesisStreamingDestination: (ctx, input: Input) => {
      const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
      const settled = (since: number) => Date.now() - since >= this.store.statusDelayMs;
      return {
        TableName: table.name,
        KinesisDataStreamDestinations: table.kinesis.map((d) => ({
          StreamArn: d.StreamArn,
          DestinationStatus: d.enabled
            ? settled(d.since)
              ? 'ACTIVE'
              : 'ENABLING'
            : settled(d.since)
              ? 'DISABLED'
              : 'DISABLING',
          ...(d.precision ? { ApproximateCreationDateTimePrecision: d.precision } : {}),
        })),
      };
    },
    TagResource: (ctx, input: Input) => {
      const target = this.taggable(ctx, input.ResourceArn);
      const tags = validateTags(input.Tags);
      const merged = [...target.tags().filter((t) => !tags.some((n) => n.Key === t.Key)), ...tags];
      if (merged.length > MAX_TAGS)
        throw new AwsError('LimitExceededException', `The number of tags exceeds the limit of ${MAX_TAGS}`);
      target.set(merged);
      return {};
    },
    UntagResource: (ctx, input: Input) => {
      const target = this.taggable(ctx, input.ResourceArn);
      const keys = (input.TagKeys as string[] | undefined) ?? [];
      target.set(target.tags().filter((t) => !keys.includes(t.Key)));
      return {};
    },
    ListTagsOfResource: (ctx, input: Input) => {
      const tags = this.taggable(ctx, input.ResourceArn).tags();
      const start =
        input.NextToken !== undefined ? Number(Buffer.from(String(input.NextToken), 'base64').toString()) : 0;
      const page = tags.slice(start, start + 10);
      return {
        Tags: page,
        ...(start + 10 < tags.length
          ? { NextToken: Buffer.from(String(start + 10)).toString('base64') }
          : {}),
      };
    },
    PutResourcePolicy: (ctx, input: Input) => {
      const { table, stream } = this.resourceTarget(ctx, input.ResourceArn);
      checkPolicy(input.Policy);
      const current = stream ? table.streamResourcePolicy : table.resourcePolicy;
      if (input.ExpectedRevisionId !== undefined && input.ExpectedRevisionId !== current?.revisionId)
        throw new AwsError(
          'PolicyNotFoundException',
          `Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id ${input.ExpectedRevisionId}, but the policy associated to target table ${table.name} has revision id ${current?.revisionId ?? 'none'}.`,
        );
      const policy = { policy: String(input.Policy), revisionId: revision() };
      if (stream) table.streamResourcePolicy = policy;
      else table.resourcePolicy = policy;
      return { RevisionId: policy.revisionId };
    },
    GetResourcePolicy: (ctx, input: Input) => {
      const { table, stream } = this.resourceTarget(ctx, input.ResourceArn);
      const current = stream ? table.streamResourcePolicy : table.resourcePolicy;
      if (!current)
        throw new AwsError(
          'PolicyNotFoundException',
          `Resource-based policy not found for the provided ResourceArn: ${input.ResourceArn}`,
        );
      return { Policy: current.policy, RevisionId: current.revisionId };
    },
    DeleteResourcePolicy: (ctx, input: Input) => {
      const { table, stream } = this.resourceTarget(ctx, input.ResourceArn);
      const current = stream ? table.streamResourcePolicy : table.resourcePolicy;
      if (
        !current ||
        (input.ExpectedRevisionId !== undefined && input.ExpectedRevisionId !== current.revisionId)
      )
        throw new AwsError(
          'PolicyNotFoundException',
          `Resource-based policy not found for the provided ResourceArn: ${input.ResourceArn}`,
        );
      if (stream) delete table.streamResourcePolicy;
      else delete table.resourcePolicy;
      return { RevisionId: revision() };
    },
    ImportTable: (ctx, input: Input) => this.imports.importTable(ctx, input),
    DescribeImport: (ctx, input: Input) => this.imports.describeImport(ctx, input),
    ListImports: (ctx, input: Input) => this.imports.listImports(ctx, input),
    PutItem: (ctx, input: Input) => putItem(this.store, ctx, input),
    GetItem: (ctx, input: Input) => getItem(this.store, ctx, input),
    DeleteItem: (ctx, input: Input) => deleteItem(this.store, ctx, input),
    UpdateItem: (ctx, input: Input) => updateItem(this.store, ctx, input),
    Scan: (ctx, input: Input) => scan(this.store, ctx, input),
    Query: (ctx, input: Input) => query(this.store, ctx, input),
  };

  private readonly imports: DynamoDbImports;

  constructor(
    private readonly store: DynamoDbStore,
    s3: () => S3Store,
  ) {
    this.imports = new DynamoDbImports(store, s3);
  }

  createTable(ctx: CallContext, input: Input) {
    const definition = tableFromCreate(ctx.account, ctx.region, input);
    if (this.store.list(ctx.account, ctx.region).length >= MAX_TABLES_PER_REGION)
      throw new AwsError(
        'LimitExceededException',
        `Subscriber limit exceeded: the number of tables in ${ctx.region} is limited to ${MAX_TABLES_PER_REGION}`,
      );
    const table = this.store.add(definition);
    return { TableDescription: describeTable(table) };
  }

  private listTables(ctx: CallContext, input: Input) {
    const limit = input.Limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw ddbErrors.constraint('limit', limit, 'Member must have value less than or equal to 100');
    const start = input.ExclusiveStartTableName as string | undefined;
    if (start !== undefined) validateName(start, 'exclusiveStartTableName');
    const names = this.store
      .list(ctx.account, ctx.region)
      .map((t) => t.name)
      .filter((n) => start === undefined || n > start);
    const page = names.slice(0, limit);
    return {
      TableNames: page,
      ...(names.length > limit ? { LastEvaluatedTableName: page[page.length - 1] } : {}),
    };
  }

  private updateTimeToLive(ctx: CallContext, input: Input) {
    const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
    const spec = input.TimeToLiveSpecification as Input | undefined;
    if (!spec || typeof spec.Enabled !== 'boolean' || typeof spec.AttributeName !== 'string')
      throw ddbErrors.constraint('timeToLiveSpecification', null, 'Member must not be null');
    if (table.transition?.kind === 'create' || table.transition?.kind === 'delete')
      throw ddbErrors.inUse(table);
    const current = table.ttl;
    const settled = current ? Date.now() - current.since >= this.store.statusDelayMs : true;
    if (current && !settled)
      throw ddbErrors.validation('Time to live has been modified multiple times within a fixed interval');
    if (spec.Enabled) {
      if (current?.enabled && current.attributeName === spec.AttributeName)
        throw ddbErrors.validation('TimeToLive is already enabled');
      if (current?.enabled)
        throw ddbErrors.validation(
          `TimeToLive is active on a different AttributeName: current AttributeName is ${current.attributeName}`,
        );
    } else if (!current?.enabled) {
      throw ddbErrors.validation('TimeToLive is already disabled');
    }
    table.ttl = { attributeName: spec.AttributeName, enabled: spec.Enabled, since: Date.now() };
    return { TimeToLiveSpecification: { Enabled: spec.Enabled, AttributeName: spec.AttributeName } };
  }

  /** Continuous backups report a missing table as TableNotFoundException, unlike the other calls. */
  private backupsTable(ctx: CallContext, input: Input): Table {
    const name = requireTableName(input);
    const table = this.store.get(ctx.account, ctx.region, this.store.nameOf(ctx.account, ctx.region, name));
    if (!table) throw new AwsError('TableNotFoundException', `Table not found: ${name}`);
    return table;
  }

  private insightsTarget(ctx: CallContext, input: Input) {
    const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
    if (input.IndexName === undefined)
      return { table, holder: table as { contributorInsights?: Table['contributorInsights'] } };
    const index = table.globalIndexes.find((i) => i.IndexName === input.IndexName);
    if (!index)
      throw new AwsError(
        'ResourceNotFoundException',
        `Requested resource not found: Index: ${input.IndexName} not found`,
      );
    return { table, holder: index as { contributorInsights?: Table['contributorInsights'] } };
  }

  private insightsStatus(insights: Table['contributorInsights']): string {
    if (!insights) return 'DISABLED';
    const settled = Date.now() - insights.since >= this.store.statusDelayMs;
    return insights.enabled ? (settled ? 'ENABLED' : 'ENABLING') : settled ? 'DISABLED' : 'DISABLING';
  }

  private updateContributorInsights(ctx: CallContext, input: Input) {
    const { table, holder } = this.insightsTarget(ctx, input);
    if (input.ContributorInsightsAction !== 'ENABLE' && input.ContributorInsightsAction !== 'DISABLE')
      throw ddbErrors.constraint(
        'contributorInsightsAction',
        input.ContributorInsightsAction ?? null,
        'Member must satisfy enum value set: [ENABLE, DISABLE]',
      );
    holder.contributorInsights = {
      enabled: input.ContributorInsightsAction === 'ENABLE',
      ...(input.ContributorInsightsMode ? { mode: input.ContributorInsightsMode } : {}),
      since: Date.now(),
    };
    return {
      TableName: table.name,
      ...(input.IndexName ? { IndexName: input.IndexName } : {}),
      ContributorInsightsStatus: input.ContributorInsightsAction === 'ENABLE' ? 'ENABLING' : 'DISABLING',
      ...(holder.contributorInsights.mode
        ? { ContributorInsightsMode: holder.contributorInsights.mode }
        : {}),
    };
  }

  private describeContributorInsights(ctx: CallContext, input: Input) {
    const { table, holder } = this.insightsTarget(ctx, input);
    const insights = holder.contributorInsights;
    const status = this.insightsStatus(insights);
    const base = `DynamoDBContributorInsights-PKC-${table.name}${input.IndexName ? `-${input.IndexName}` : ''}`;
    return {
      TableName: table.name,
      ...(input.IndexName ? { IndexName: input.IndexName } : {}),
      ContributorInsightsStatus: status,
      ...(status === 'ENABLED'
        ? { ContributorInsightsRuleList: [base, base.replace('-PKC-', '-PKT-')] }
        : {}),
      ...(insights ? { LastUpdateDateTime: new Date(insights.since) } : {}),
      ...(insights?.mode ? { ContributorInsightsMode: insights.mode } : {}),
    };
  }

  private kinesis(ctx: CallContext, input: Input, enable: boolean) {
    const table = this.store.require(ctx.account, ctx.region, requireTableName(input));
    const arn = String(input.StreamArn ?? '');
    if (!/^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\d{12}:stream\/[a-zA-Z0-9_.-]+$/.test(arn))
      throw ddbErrors.validation(`Invalid StreamArn: ${arn}`);
    const existing = table.kinesis.find((d) => d.StreamArn === arn);
    if (enable) {
      if (existing?.enabled) throw ddbErrors.validation(`Table ${table.name} is already streaming to ${arn}`);
      if (table.kinesis.some((d) => d.enabled && d.StreamArn !== arn))
        throw new AwsError(
          'LimitExceededException',
          'Only one Kinesis streaming destination can be active per table',
        );
      const precision = input.EnableKinesisStreamingConfiguration?.ApproximateCreationDateTimePrecision;
      table.kinesis = [
        ...table.kinesis.filter((d) => d.StreamArn !== arn),
        { StreamArn: arn, enabled: true, since: Date.now(), ...(precision ? { precision } : {}) },
      ];
    } else {
      if (!existing?.enabled) throw ddbErrors.validation(`Table ${table.name} is not streaming to ${arn}`);
      existing.enabled = false;
      existing.since = Date.now();
    }
    return {
      TableName: table.name,
      StreamArn: arn,
      DestinationStatus: enable ? 'ENABLING' : 'DISABLING',
      ...(input.EnableKinesisStreamingConfiguration
        ? { EnableKinesisStreamingConfiguration: input.EnableKinesisStreamingConfiguration }
        : {}),
    };
  }

  /** The tags of a table, or of its current stream, by ARN. */
  private taggable(
    ctx: CallContext,
    arn: unknown,
  ): { tags(): Table['tags']; set(tags: Table['tags']): void } {
    const { table, stream } = this.resourceTarget(ctx, arn);
    return stream
      ? { tags: () => table.streamTags ?? [], set: (tags) => (table.streamTags = tags) }
      : { tags: () => table.tags, set: (tags) => (table.tags = tags) };
  }

  /** A table ARN, or the ARN of its current stream. */
  private resourceTarget(ctx: CallContext, arn: unknown): { table: Table; stream: boolean } {
    const parsed = typeof arn === 'string' ? parseDynamoArn(arn) : undefined;
    if (!parsed || parsed.index) throw ddbErrors.validation(`Invalid ResourceArn: ${String(arn)}`);
    const table =
      parsed.account === ctx.account && parsed.region === ctx.region
        ? this.store.get(parsed.account, parsed.region, parsed.name)
        : undefined;
    if (!table || (parsed.stream && parsed.stream !== (table.stream?.label ?? table.lastStreamLabel)))
      throw new AwsError('ResourceNotFoundException', `Requested resource not found: ${String(arn)}`);
    return { table, stream: parsed.stream !== undefined };
  }
}
