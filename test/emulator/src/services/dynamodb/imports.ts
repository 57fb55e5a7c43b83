/**
 * ImportTable: a new table filled from S3 objects (DynamoDB JSON or CSV, plain
 * or GZIP), read from the emulator's own S3 through S3's `api`. The import
 * runs when it is requested and reports IN_PROGRESS until the table's
 * creation settles (`dynamodbStatusDelayMs`), then COMPLETED. An unreadable
 * source ends the import FAILED without a table, as in AWS; a line that does
 * not parse counts in `ErrorCount` and is skipped. A repeated ClientToken
 * returns the same import.
 */
import { gunzipSync } from 'node:zlib';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { CallContext } from '../../core/service';
import type { S3Store } from '../s3/store';
import { tableFromCreate } from './definition';
import { tableStatus } from './describe';
import { ddbErrors, parseDynamoArn, tableArn, type DynamoDbStore, type Table } from './store';
import { itemToWire, keyOf, keyString, type WireItem } from './values';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ImportRecord {
  account: string;
  region: string;
  importArn: string;
  tableName: string;
  tableId?: string;
  clientToken?: string;
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  input: Input;
  startTime: number;
  endTime?: number;
  processedBytes: number;
  processedItems: number;
  importedItems: number;
  errorCount: number;
  failure?: { code: string; message: string };
}

/** The S3 objects under a prefix, with their current bodies. */
function sourceObjects(s3: S3Store, ctx: CallContext, source: Input): Buffer[] {
  const bucket = s3.buckets.get(String(source?.S3Bucket));
  if (!bucket)
    throw Object.assign(new Error(`The specified bucket does not exist: ${source?.S3Bucket}`), {
      code: 'S3NoSuchBucket',
    });
  if (source.S3BucketOwner !== undefined && source.S3BucketOwner !== bucket.account)
    throw Object.assign(new Error('Access denied to the S3 bucket'), { code: 'S3AccessDenied' });
  if (bucket.account !== ctx.account)
    throw Object.assign(new Error('Access denied to the S3 bucket'), { code: 'S3AccessDenied' });
  const prefix = String(source.S3KeyPrefix ?? '');
  return [...bucket.objects.entries()]
    .filter(([key, versions]) => key.startsWith(prefix) && versions[0] && !versions[0].deleteMarker)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, versions]) => versions[0]!.body);
}

/** Items of one object's text, in the given format; unparseable lines are counted, not kept. */
function parseItems(text: string, input: Input, table: Table): { items: WireItem[]; errors: number } {
  const items: WireItem[] = [];
  let errors = 0;
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (input.InputFormat === 'DYNAMODB_JSON') {
    for (const line of lines) {
      try {
        // DynamoDB JSON is the wire form (binary values base64): `{"Item": {...}}` per line.
        const parsed = JSON.parse(line) as { Item?: unknown };
        if (!parsed.Item || typeof parsed.Item !== 'object') throw new Error('no Item');
        items.push(itemToWire(parsed.Item));
      } catch {
        errors++;
      }
    }
    return { items, errors };
  }
  // CSV: the header from HeaderList or the first line; key attributes typed by their definitions, the rest strings.
  const delimiter = String(input.InputFormatOptions?.Csv?.Delimiter ?? ',');
  const header: string[] = input.InputFormatOptions?.Csv?.HeaderList ?? lines.shift()?.split(delimiter) ?? [];
  for (const line of lines) {
    const cells = line.split(delimiter);
    if (cells.length !== header.length) {
      errors++;
      continue;
    }
    const item: WireItem = {};
    header.forEach((name, i) => {
      const type = table.attributeDefinitions.find((d) => d.AttributeName === name)?.AttributeType ?? 'S';
      if (cells[i] !== '')
        item[name] = type === 'S' ? { S: cells[i] } : type === 'N' ? { N: cells[i] } : { B: cells[i] };
    });
    items.push(item);
  }
  return { items, errors };
}

/** ImportTable, DescribeImport, ListImports over the store's import records. */
export class DynamoDbImports {
  constructor(
    private readonly store: DynamoDbStore,
    private readonly s3: () => S3Store,
  ) {}

  importTable(ctx: CallContext, input: Input) {
    if (input.ClientToken !== undefined) {
      const earlier = [...this.store.imports.values()].find(
        (r) => r.account === ctx.account && r.region === ctx.region && r.clientToken === input.ClientToken,
      );
      if (earlier) {
        if (
          JSON.stringify({ ...earlier.input, ClientToken: undefined }) !==
          JSON.stringify({ ...input, ClientToken: undefined })
        )
          throw new AwsError(
            'ImportConflictException',
            'There was a conflict when importing from the specified S3 source: the ClientToken was used for another import',
          );
        return { ImportTableDescription: this.describe(earlier) };
      }
    }
    if (!['DYNAMODB_JSON', 'CSV', 'ION'].includes(input.InputFormat))
      throw ddbErrors.constraint(
        'inputFormat',
        input.InputFormat ?? null,
        'Member must satisfy enum value set: [DYNAMODB_JSON, ION, CSV]',
      );
    const definition = tableFromCreate(ctx.account, ctx.region, input.TableCreationParameters ?? {});
    if (this.store.get(ctx.account, ctx.region, definition.name))
      throw new AwsError('ResourceInUseException', `Table already exists: ${definition.name}`);
    const now = Date.now();
    const record: ImportRecord = {
      account: ctx.account,
      region: ctx.region,
      importArn: `${tableArn(definition)}/import/${now}-${uuid().slice(0, 8)}`,
      tableName: definition.name,
      ...(input.ClientToken !== undefined ? { clientToken: input.ClientToken } : {}),
      status: 'IN_PROGRESS',
      input,
      startTime: now,
      processedBytes: 0,
      processedItems: 0,
      importedItems: 0,
      errorCount: 0,
    };
    this.store.imports.set(record.importArn, record);
    try {
      if (input.InputFormat === 'ION')
        throw Object.assign(new Error('ION input is not supported by this emulator'), {
          code: 'InvalidInputFormat',
        });
      if (input.InputCompressionType === 'ZSTD')
        throw Object.assign(new Error('ZSTD input is not supported by this emulator'), {
          code: 'InvalidCompression',
        });
      const bodies = sourceObjects(this.s3(), ctx, input.S3BucketSource ?? {});
      const table = this.store.add(definition);
      record.tableId = table.tableId;
      for (const raw of bodies) {
        const text = (input.InputCompressionType === 'GZIP' ? gunzipSync(raw) : raw).toString('utf8');
        record.processedBytes += raw.length;
        const { items, errors } = parseItems(text, input, table);
        record.errorCount += errors;
        for (const item of items) {
          record.processedItems++;
          try {
            table.items[
              keyString(keyOf(item, table.keySchema, table.attributeDefinitions, 'item'), table.keySchema)
            ] = item;
            record.importedItems++;
          } catch {
            record.errorCount++;
          }
        }
      }
    } catch (err) {
      record.status = 'FAILED';
      record.endTime = Date.now();
      record.failure = {
        code: (err as { code?: string }).code ?? 'ImportFailed',
        message: err instanceof Error ? err.message : String(err),
      };
      this.store.tables.delete(`${ctx.account}|${ctx.region}|${definition.name}`);
    }
    return { ImportTableDescription: this.describe(record) };
  }

  describeImport(ctx: CallContext, input: Input) {
    const record = this.store.imports.get(String(input.ImportArn));
    if (!record || record.account !== ctx.account || record.region !== ctx.region)
      throw new AwsError('ImportNotFoundException', `The specified import was not found: ${input.ImportArn}`);
    return { ImportTableDescription: this.describe(record) };
  }

  listImports(ctx: CallContext, input: Input) {
    const table = typeof input.TableArn === 'string' ? parseDynamoArn(input.TableArn)?.name : undefined;
    const records = [...this.store.imports.values()].filter(
      (r) =>
        r.account === ctx.account &&
        r.region === ctx.region &&
        (table === undefined || r.tableName === table),
    );
    return {
      ImportSummaryList: records.map((r) => {
        const d = this.describe(r);
        return {
          ImportArn: d.ImportArn,
          ImportStatus: d.ImportStatus,
          TableArn: d.TableArn,
          InputFormat: d.InputFormat,
          StartTime: d.StartTime,
          EndTime: d.EndTime,
        };
      }),
    };
  }

  /** The import as DescribeImport reports it; IN_PROGRESS until its table's creation settles. */
  private describe(record: ImportRecord) {
    if (record.status === 'IN_PROGRESS') {
      const table = this.store.get(record.account, record.region, record.tableName);
      if (!table || tableStatus(table) !== 'CREATING') {
        record.status = 'COMPLETED';
        record.endTime = Date.now();
      }
    }
    const input = record.input;
    return {
      ImportArn: record.importArn,
      ImportStatus: record.status,
      TableArn: tableArn({ account: record.account, region: record.region, name: record.tableName }),
      ...(record.tableId ? { TableId: record.tableId } : {}),
      ...(record.clientToken ? { ClientToken: record.clientToken } : {}),
      S3BucketSource: input.S3BucketSource,
      ErrorCount: record.errorCount,
      InputFormat: input.InputFormat,
      ...(input.InputFormatOptions ? { InputFormatOptions: input.InputFormatOptions } : {}),
      InputCompressionType: input.InputCompressionType ?? 'NONE',
      TableCreationParameters: input.TableCreationParameters,
      StartTime: new Date(record.startTime),
      ...(record.endTime ? { EndTime: new Date(record.endTime) } : {}),
      ProcessedSizeBytes: record.processedBytes,
      ProcessedItemCount: record.processedItems,
      ImportedItemCount: record.importedItems,
      ...(record.failure ? { FailureCode: record.failure.code, FailureMessage: record.failure.message } : {}),
    };
  }
}
