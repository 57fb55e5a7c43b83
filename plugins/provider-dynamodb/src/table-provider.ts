/**
 * AWS::DynamoDB::Table through the DynamoDB API. The physical id is the table
 * name (CloudFormation's `Ref`); `Arn` is the table ARN and `StreamArn` the
 * latest stream's ARN while a stream is enabled.
 *
 * Create is CreateTable (definition, indexes, stream, encryption, class,
 * protection, throughput limits, resource policy, tags), a wait until the
 * table and its indexes are ACTIVE, then the settings DynamoDB keeps behind
 * calls of their own. It is idempotent across processes: an unnamed table
 * gets a name derived from the create's token, every table carries the
 * ownership tags, and a "Table already exists" is adopted only when the
 * table's tags show this very create made it — then it is brought to the
 * template from what it holds. A create that fails after CreateTable deletes
 * the table it made. Updates follow `table-plan.ts`; deletes wait until the
 * table is gone, so a replacement can take its name.
 */
import { createHash } from 'node:crypto';
import {
  CreateTableCommand,
  ImportTableCommand,
  DeleteResourcePolicyCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DisableKinesisStreamingDestinationCommand,
  DynamoDBClient,
  EnableKinesisStreamingDestinationCommand,
  ListTagsOfResourceCommand,
  PutResourcePolicyCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateContinuousBackupsCommand,
  UpdateContributorInsightsCommand,
  UpdateKinesisStreamingDestinationCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type TableDescription,
  type Tag,
} from '@aws-sdk/client-dynamodb';
import type {
  CreateContext,
  DeleteContext,
  IdentityReadContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import {
  createTableInput,
  importedPart,
  importTableInput,
  localIndexes,
  TABLE_NAME_EXTRA_CHARACTERS,
  TABLE_NAME_MAX_LENGTH,
  tableTags,
  toTagList,
  type Props,
} from './table-model';
import { createSteps, NotUpdatable, updateSteps, type Step } from './table-plan';
import { readTable } from './table-state';
import { waitForActive, waitForGone, waitForImport } from './table-waiters';

export const TABLE_TYPE = 'AWS::DynamoDB::Table';

const errorName = (err: unknown) => (err as { name?: string } | null)?.name ?? '';
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Errors DynamoDB documents as "try again later" for control-plane calls on a busy table. */
function isBusy(err: unknown): boolean {
  const name = errorName(err);
  return (
    name === 'ResourceInUseException' ||
    (name === 'LimitExceededException' && /simultaneously|concurrent/i.test(messageOf(err)))
  );
}

/** PITR is unavailable for a moment after a table is created (ContinuousBackupsUnavailableException). */
const BACKUPS_RETRY = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 10_000 };
/** A table another operation holds: wait for it, then try again, a few times. */
const BUSY_ATTEMPTS = 4;

export class TableProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): DynamoDBClient {
    return this.ctx.clients.get(DynamoDBClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name =
      typeof properties.TableName === 'string' && properties.TableName !== ''
        ? properties.TableName
        : this.generatedName(logicalId, context);
    const signal = context.signal;
    const client = this.client();
    const tags = { ...tableTags(properties), ...(context.ownership?.tags ?? {}) };
    if (properties.ImportSourceSpecification !== undefined)
      return this.createByImport(name, logicalId, resourceType, properties, context);
    let adopted = false;
    let tableId: string | undefined;
    try {
      const out = await client.send(new CreateTableCommand(createTableInput(name, properties, tags)), {
        abortSignal: signal,
      });
      tableId = out.TableDescription?.TableId;
    } catch (err) {
      if (!(errorName(err) === 'ResourceInUseException' && /already exists/i.test(messageOf(err))))
        throw this.wrap(err, `creating table ${name}`, logicalId, resourceType);
      await this.adoptOnlyOwn(name, logicalId, resourceType, context, err);
      adopted = true;
    }
    // From here the table is this create's: a failure deletes it.
    try {
      await waitForActive(client, name, signal);
      if (adopted) {
        // Made by an earlier attempt that may have stopped half way: converge from what the table holds.
        const current = await readTable(client, name, properties);
        await this.run(name, updateSteps(properties, current?.properties ?? {}), signal);
      } else {
        await this.run(name, createSteps(properties), signal);
      }
      return { physicalId: name, attributes: this.attributesOf(await waitForActive(client, name, signal)) };
    } catch (err) {
      const failure = this.wrap(err, `configuring table ${name}`, logicalId, resourceType, name);
      if (await this.retire(name, logicalId)) throw failure;
      // Still there: cdkd keeps it, with the TableId no later table of that name gets, to delete it later.
      tableId ??= (await this.readIdentity(name).catch(() => undefined))?.tableId;
      throw new this.ctx.errors.ProvisioningError(failure.message, {
        cause: failure,
        resource: { logicalId, resourceType, physicalId: name },
        createdPhysicalId: name,
        ...(tableId ? { createdIdentity: { tableId } } : {}),
      });
    }
  }

  /**
   * The `TableId` of the table of this name in the client's region (AWS generates
   * it and never gives it to a later table); `undefined` when there is none.
   */
  async readIdentity(
    physicalId: string,
    _resourceType?: string,
    context?: IdentityReadContext,
  ): Promise<{ tableId: string } | undefined> {
    const client = this.client();
    try {
      const out = await client.send(new DescribeTableCommand({ TableName: physicalId }), {
        abortSignal: context?.signal,
      });
      return out.Table?.TableId ? { tableId: out.Table.TableId } : undefined;
    } catch (err) {
      if (errorName(err) !== 'ResourceNotFoundException') throw err;
      this.ctx.assertRegionMatch(
        await client.config.region(),
        context?.expectedRegion,
        TABLE_TYPE,
        physicalId,
        physicalId,
      );
      return undefined;
    }
  }

  /**
   * A table made by ImportTable from S3 data. The import's ClientToken derives
   * from the create's token, so a repeated create (within ImportTable's
   * 8-hour token window) gets the same import rather than a second table.
   * ImportTable takes the key schema, capacity, encryption and global
   * indexes; the rest is applied afterwards as an update from that.
   */
  private async createByImport(
    name: string,
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    if (localIndexes(properties).length)
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: a table imported from S3 cannot have LocalSecondaryIndexes (ImportTable does not create them, and DynamoDB adds none later).`,
        {
          resource: { logicalId, resourceType },
          remedy: `Remove LocalSecondaryIndexes from ${logicalId}, or drop ImportSourceSpecification and load the data another way.`,
        },
      );
    const client = this.client();
    const signal = context.signal;
    const clientToken = createHash('sha256').update(context.idempotencyToken).digest('hex').slice(0, 32);
    let importArn: string | undefined;
    try {
      const out = await client.send(new ImportTableCommand(importTableInput(name, properties, clientToken)), {
        abortSignal: signal,
      });
      importArn = out.ImportTableDescription!.ImportArn!;
    } catch (err) {
      if (errorName(err) !== 'ResourceInUseException')
        throw this.wrap(err, `importing table ${name}`, logicalId, resourceType);
      // The token's window has passed and the table is there: it must be this create's own.
      await this.adoptOnlyOwn(name, logicalId, resourceType, context, err);
    }
    if (importArn) {
      try {
        await waitForImport(client, importArn, signal);
      } catch (err) {
        // A failed import leaves no table behind.
        throw this.wrap(err, `importing table ${name}`, logicalId, resourceType, name);
      }
    }
    try {
      await waitForActive(client, name, signal);
      const ownership = context.ownership?.tags ?? {};
      const steps = importArn
        ? [
            ...(Object.keys(ownership).length
              ? [{ kind: 'tag' as const, target: 'table' as const, tags: { ...ownership } }]
              : []),
            ...updateSteps(properties, importedPart(properties)),
          ]
        : updateSteps(properties, (await readTable(client, name, properties))?.properties ?? {});
      await this.run(name, steps, signal);
      return { physicalId: name, attributes: this.attributesOf(await waitForActive(client, name, signal)) };
    } catch (err) {
      await this.retire(name, logicalId);
      throw this.wrap(err, `configuring table ${name}`, logicalId, resourceType, name);
    }
  }

  private generatedName(logicalId: string, context: CreateContext): string {
    const options = { maxLength: TABLE_NAME_MAX_LENGTH, extraCharacters: TABLE_NAME_EXTRA_CHARACTERS };
    if (context.generatePhysicalName) return context.generatePhysicalName(options);
    // cdkd before generatePhysicalName: the same shape, from the token.
    const clean = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '');
    return `${clean(context.stackName)}-${clean(logicalId)}-${clean(context.idempotencyToken)}`.slice(
      0,
      TABLE_NAME_MAX_LENGTH,
    );
  }

  /** An existing table of that name is this create's only when its ownership tags say so. */
  private async adoptOnlyOwn(
    name: string,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
    cause: unknown,
  ) {
    const ExistsError = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    const refuse = (whose: string) =>
      new ExistsError(
        `A DynamoDB table named ${name} already exists (${whose}); cdkd does not take it over.`,
        {
          cause,
          resource: { logicalId, resourceType, physicalId: name },
          remedy: `Give ${logicalId} another TableName, delete the existing table, or import it into this stack.`,
        },
      );
    if (!context.ownership) throw refuse('and this cdkd cannot tell who made it');
    let tags: Tag[] = [];
    try {
      const arn = `arn:${this.ctx.partition}:dynamodb:${this.ctx.region}:${await this.ctx.accountId()}:table/${name}`;
      let token: string | undefined;
      do {
        const page = await this.client().send(
          new ListTagsOfResourceCommand({ ResourceArn: arn, NextToken: token }),
          {
            abortSignal: context.signal,
          },
        );
        tags.push(...(page.Tags ?? []));
        token = page.NextToken;
      } while (token);
    } catch (err) {
      // A table still being created may not answer for its tags yet; it is not provably ours.
      if (errorName(err) !== 'ResourceNotFoundException')
        throw this.wrap(err, `reading the tags of table ${name}`, logicalId, resourceType, name);
      tags = [];
    }
    const verdict = context.ownership.classify(tags);
    if (verdict !== 'same-intent')
      throw refuse(
        verdict === 'same-resource' ? 'made by an earlier create of this resource' : 'not made by this stack',
      );
    this.ctx.logger.debug(`${logicalId}: table ${name} was made by this create earlier; adopting it`);
  }

  /** Best-effort delete of a table this create made (switching deletion protection off first). */
  /** Deletes a table its create could not configure; false when it could not (the table stays). */
  private async retire(name: string, logicalId: string): Promise<boolean> {
    const client = this.client();
    try {
      await client
        .send(new UpdateTableCommand({ TableName: name, DeletionProtectionEnabled: false }))
        .catch(() => undefined);
      await this.whenNotBusy(name, undefined, () => client.send(new DeleteTableCommand({ TableName: name })));
      return true;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return true;
      this.ctx.logger.warn(
        `${logicalId}: the table ${name} was created but could not be configured, and deleting it failed (${errorName(err) || messageOf(err)}); cdkd keeps it in state to delete later.`,
      );
      return false;
    }
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Props,
    previousProperties: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    let steps: Step[];
    try {
      steps = updateSteps(properties, previousProperties);
    } catch (err) {
      if (!(err instanceof NotUpdatable)) throw err;
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: DynamoDB cannot change ${err.message} of table ${physicalId} after it is created.`,
        {
          resource: { logicalId, resourceType, physicalId },
          remedy: `Keep ${err.message} as it is, or give ${logicalId} a new TableName (or another key schema) so the table is replaced.`,
        },
      );
    }
    try {
      // An earlier change may still be settling: UpdateTable needs an ACTIVE table.
      await waitForActive(client, physicalId, context?.signal);
      await this.run(physicalId, steps, context?.signal);
      return {
        physicalId,
        wasReplaced: false,
        attributes: this.attributesOf(await waitForActive(client, physicalId, context?.signal)),
      };
    } catch (err) {
      throw this.wrap(err, `updating table ${physicalId}`, logicalId, resourceType, physicalId);
    }
  }

  /** Runs the steps in order; each UpdateTable waits for the table (and its indexes) to be ACTIVE. */
  private async run(name: string, steps: Step[], abortSignal?: AbortSignal): Promise<void> {
    const client = this.client();
    const options = { abortSignal };
    let table: TableDescription | undefined;
    const tableArn = async () =>
      (table ??= (await client.send(new DescribeTableCommand({ TableName: name }), options)).Table!)
        .TableArn!;
    const streamArn = async () => {
      const described = (await client.send(new DescribeTableCommand({ TableName: name }), options)).Table!;
      if (!described.StreamSpecification?.StreamEnabled || !described.LatestStreamArn)
        throw new Error(`table ${name} has no enabled stream`);
      return described.LatestStreamArn;
    };
    const arnOf = (target: 'table' | 'stream') => (target === 'table' ? tableArn() : streamArn());
    for (const step of steps) {
      switch (step.kind) {
        case 'updateTable':
          await this.whenNotBusy(name, abortSignal, () =>
            client.send(new UpdateTableCommand({ TableName: name, ...step.input }), options),
          );
          await waitForActive(client, name, abortSignal);
          break;
        case 'ttl':
          try {
            await client.send(
              new UpdateTimeToLiveCommand({
                TableName: name,
                TimeToLiveSpecification: { Enabled: step.enabled, AttributeName: step.attributeName },
              }),
              options,
            );
          } catch (err) {
            // Already as wanted (a converging create, or a retry whose reply was lost).
            if (!(
              errorName(err) === 'ValidationException' && /already (enabled|disabled)/i.test(messageOf(err))
            ))
              throw err;
          }
          break;
        case 'pitr':
          await this.ctx.retry(
            () =>
              client.send(
                new UpdateContinuousBackupsCommand({
                  TableName: name,
                  PointInTimeRecoverySpecification: {
                    PointInTimeRecoveryEnabled: step.enabled,
                    ...(step.recoveryPeriodInDays !== undefined
                      ? { RecoveryPeriodInDays: step.recoveryPeriodInDays }
                      : {}),
                  },
                }),
                options,
              ),
            {
              ...BACKUPS_RETRY,
              isRetryable: (err) =>
                errorName(err) === 'ContinuousBackupsUnavailableException' && !abortSignal?.aborted,
            },
          );
          break;
        case 'contributorInsights':
          await client.send(
            new UpdateContributorInsightsCommand({
              TableName: name,
              ...(step.indexName ? { IndexName: step.indexName } : {}),
              ContributorInsightsAction: step.enabled ? 'ENABLE' : 'DISABLE',
              ...(step.mode ? { ContributorInsightsMode: step.mode as 'ACCESSED_AND_THROTTLED_KEYS' } : {}),
            }),
            options,
          );
          break;
        case 'kinesisEnable':
          await client.send(
            new EnableKinesisStreamingDestinationCommand({
              TableName: name,
              StreamArn: step.streamArn,
              ...(step.precision
                ? {
                    EnableKinesisStreamingConfiguration: {
                      ApproximateCreationDateTimePrecision: step.precision as 'MILLISECOND',
                    },
                  }
                : {}),
            }),
            options,
          );
          break;
        case 'kinesisDisable':
          await client.send(
            new DisableKinesisStreamingDestinationCommand({ TableName: name, StreamArn: step.streamArn }),
            options,
          );
          break;
        case 'kinesisUpdate':
          await client.send(
            new UpdateKinesisStreamingDestinationCommand({
              TableName: name,
              StreamArn: step.streamArn,
              UpdateKinesisStreamingConfiguration: {
                ApproximateCreationDateTimePrecision: step.precision as 'MILLISECOND',
              },
            }),
            options,
          );
          break;
        case 'putPolicy':
          await client.send(
            new PutResourcePolicyCommand({ ResourceArn: await arnOf(step.target), Policy: step.policy }),
            options,
          );
          break;
        case 'deletePolicy':
          try {
            await client.send(
              new DeleteResourcePolicyCommand({ ResourceArn: await arnOf(step.target) }),
              options,
            );
          } catch (err) {
            if (errorName(err) !== 'PolicyNotFoundException') throw err;
          }
          break;
        case 'tag':
          await client.send(
            new TagResourceCommand({ ResourceArn: await arnOf(step.target), Tags: toTagList(step.tags) }),
            options,
          );
          break;
        case 'untag':
          await client.send(
            new UntagResourceCommand({ ResourceArn: await arnOf(step.target), TagKeys: step.keys }),
            options,
          );
          break;
      }
    }
  }

  /** Runs a control-plane call, waiting out a table or index another operation holds (bounded). */
  private async whenNotBusy<T>(
    name: string,
    abortSignal: AbortSignal | undefined,
    call: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!isBusy(err) || attempt >= BUSY_ATTEMPTS || abortSignal?.aborted) throw err;
        this.ctx.logger.debug(`table ${name} is busy (${messageOf(err)}); waiting for it`);
        await waitForActive(this.client(), name, abortSignal);
      }
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const signal = context?.signal;
    try {
      await this.whenNotBusy(physicalId, signal, () =>
        client.send(new DeleteTableCommand({ TableName: physicalId }), { abortSignal: signal }),
      );
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') {
        // "Gone" only when we looked in the region the table was created in.
        this.ctx.assertRegionMatch(
          await client.config.region(),
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        this.ctx.logger.debug(`${logicalId}: table ${physicalId} does not exist; nothing to delete`);
        return;
      }
      throw this.wrap(err, `deleting table ${physicalId}`, logicalId, resourceType, physicalId, {
        remedy: /protected against deletion/i.test(messageOf(err))
          ? `Set DeletionProtectionEnabled to false on ${logicalId} and deploy before destroying.`
          : undefined,
      });
    }
    try {
      await waitForGone(client, physicalId, signal);
    } catch (err) {
      throw this.wrap(
        err,
        `waiting for table ${physicalId} to be deleted`,
        logicalId,
        resourceType,
        physicalId,
      );
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName === 'Arn')
      return `arn:${this.ctx.partition}:dynamodb:${this.ctx.region}:${await this.ctx.accountId()}:table/${physicalId}`;
    if (attributeName !== 'StreamArn') return undefined;
    try {
      return this.attributesOf(
        (await this.client().send(new DescribeTableCommand({ TableName: physicalId }))).Table!,
      ).StreamArn;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return undefined;
      throw err;
    }
  }

  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Props,
  ): Promise<Props | undefined> {
    try {
      return (await readTable(this.client(), physicalId, properties))?.properties;
    } catch (err) {
      throw this.wrap(err, `reading table ${physicalId}`, undefined, TABLE_TYPE, physicalId);
    }
  }

  /** Adopts the table named by the user's physical id or the template's TableName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name =
      input.knownPhysicalId ??
      (typeof input.properties.TableName === 'string' ? input.properties.TableName : undefined);
    if (!name) return null;
    try {
      const table = (await this.client().send(new DescribeTableCommand({ TableName: name }))).Table;
      return table ? { physicalId: name, attributes: this.attributesOf(table) } : null;
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return null;
      throw this.wrap(err, `looking up table ${name}`, input.logicalId, input.resourceType);
    }
  }

  /** `Arn`, and `StreamArn` while a stream is enabled (a key left out rather than stored empty). */
  private attributesOf(table: TableDescription): Record<string, string> {
    return {
      Arn: table.TableArn!,
      ...(table.StreamSpecification?.StreamEnabled && table.LatestStreamArn
        ? { StreamArn: table.LatestStreamArn }
        : {}),
    };
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
    extra: { remedy?: string } = {},
  ): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    return new this.ctx.errors.ProvisioningError(
      `DynamoDB ${name && name !== 'Error' ? `${name} ` : ''}while ${doing}: ${messageOf(err)}`,
      {
        cause: err,
        resource: { logicalId, resourceType, physicalId },
        retryable: this.ctx.isTransientError(err),
        ...(extra.remedy ? { remedy: extra.remedy } : {}),
      },
    );
  }
}
