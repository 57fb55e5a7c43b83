/**
 * The item operations custom-resource handlers and tests use: PutItem,
 * GetItem, DeleteItem (with condition expressions and ALL_OLD return
 * values), Scan and Query (key conditions, filters, projections, indexes,
 * Limit / ExclusiveStartKey / LastEvaluatedKey, Select COUNT). Items are kept
 * whole; secondary indexes are evaluated at query time from the items.
 */
import { AwsError } from '../../core/errors';
import type { CallContext } from '../../core/service';
import {
  evaluate,
  parseCondition,
  parseProjection,
  Placeholders,
  resolvePath,
  type Condition,
} from './expressions';
import { ddbErrors, type DynamoDbStore, type KeyElement, type Table } from './store';
import {
  checkItemSize,
  compareScalars,
  itemFromWire,
  itemToWire,
  keyOf,
  keyString,
  typeOf,
  type WireItem,
  type WireValue,
} from './values';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MAX_PAGE_BYTES = 1024 * 1024;

export function placeholdersOf(input: Input): Placeholders {
  const values = input.ExpressionAttributeValues ? itemToWire(input.ExpressionAttributeValues) : {};
  return new Placeholders(input.ExpressionAttributeNames ?? {}, values);
}

/** A table that can take item requests (not while it is being created or deleted). */
export function tableFor(store: DynamoDbStore, ctx: CallContext, input: Input): Table {
  if (typeof input.TableName !== 'string')
    throw ddbErrors.constraint('tableName', null, 'Member must not be null');
  const table = store.get(ctx.account, ctx.region, store.nameOf(ctx.account, ctx.region, input.TableName));
  if (!table || table.transition?.kind === 'create' || table.transition?.kind === 'delete')
    throw new AwsError('ResourceNotFoundException', 'Requested resource not found');
  return table;
}

/** The exact key of a GetItem/DeleteItem: the schema's attributes and nothing else. */
export function exactKey(table: Table, key: unknown): WireItem {
  const wire = itemToWire(key);
  const k = keyOf(wire, table.keySchema, table.attributeDefinitions, 'key');
  if (Object.keys(wire).length !== table.keySchema.length)
    throw ddbErrors.validation('The provided key element does not match the schema');
  return k;
}

/** Index key attributes present in an item must have their defined types. */
export function checkIndexKeys(table: Table, item: WireItem): void {
  for (const index of [...table.globalIndexes, ...table.localIndexes])
    for (const k of index.KeySchema) {
      const value = item[k.AttributeName];
      const expected = table.attributeDefinitions.find(
        (d) => d.AttributeName === k.AttributeName,
      )?.AttributeType;
      if (value && expected && typeOf(value) !== expected)
        throw ddbErrors.invalid(
          `Type mismatch for Index Key ${k.AttributeName} Expected: ${expected} Actual: ${typeOf(value)} IndexName: ${index.IndexName}`,
        );
    }
}

export function checkCondition(
  existing: WireItem | undefined,
  placeholders: Placeholders,
  condition?: Condition,
): void {
  if (condition && !evaluate(condition, existing ?? {}, placeholders))
    throw new AwsError('ConditionalCheckFailedException', 'The conditional request failed');
}

export function project(item: WireItem, paths: Array<Array<string | number>> | undefined): WireItem {
  if (!paths) return item;
  const out: WireItem = {};
  for (const path of paths) {
    const value = resolvePath(item, path);
    if (value === undefined) continue;
    // Nested paths keep their enclosing maps (lists are kept whole at their top level).
    if (path.length === 1 || path.some((p) => typeof p === 'number'))
      out[path[0] as string] = item[path[0] as string]!;
    else {
      let target = (out[path[0] as string] ??= { M: {} }) as WireValue;
      for (const part of path.slice(1, -1)) target = (target.M as WireItem)[part as string] ??= { M: {} };
      (target.M as WireItem)[path[path.length - 1] as string] = value;
    }
  }
  return out;
}

export function putItem(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const placeholders = placeholdersOf(input);
  const condition = input.ConditionExpression
    ? parseCondition(input.ConditionExpression, placeholders, 'ConditionExpression')
    : undefined;
  placeholders.checkAllUsed();
  const item = itemToWire(input.Item);
  const key = keyOf(item, table.keySchema, table.attributeDefinitions, 'item');
  checkIndexKeys(table, item);
  checkItemSize(item);
  const id = keyString(key, table.keySchema);
  const existing = table.items[id];
  checkCondition(existing, placeholders, condition);
  table.items[id] = item;
  return input.ReturnValues === 'ALL_OLD' && existing ? { Attributes: itemFromWire(existing) } : {};
}

export function getItem(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const placeholders = placeholdersOf(input);
  const paths = input.ProjectionExpression
    ? parseProjection(input.ProjectionExpression, placeholders)
    : undefined;
  placeholders.checkAllUsed();
  const item = table.items[keyString(exactKey(table, input.Key), table.keySchema)];
  return item ? { Item: itemFromWire(project(item, paths)) } : {};
}

export function deleteItem(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const placeholders = placeholdersOf(input);
  const condition = input.ConditionExpression
    ? parseCondition(input.ConditionExpression, placeholders, 'ConditionExpression')
    : undefined;
  placeholders.checkAllUsed();
  const id = keyString(exactKey(table, input.Key), table.keySchema);
  const existing = table.items[id];
  checkCondition(existing, placeholders, condition);
  delete table.items[id];
  return input.ReturnValues === 'ALL_OLD' && existing ? { Attributes: itemFromWire(existing) } : {};
}

/** The key schema a Scan or Query reads by: the table's, or its index's. */
function schemaFor(table: Table, indexName: string | undefined): { keySchema: KeyElement[]; index: boolean } {
  if (indexName === undefined) return { keySchema: table.keySchema, index: false };
  const index = [...table.globalIndexes, ...table.localIndexes].find((i) => i.IndexName === indexName);
  if (!index) throw ddbErrors.validation(`The table does not have the specified index: ${indexName}`);
  return { keySchema: index.KeySchema, index: true };
}

/** The key LastEvaluatedKey carries: the table's key, plus the index's when reading an index. */
function evaluatedKey(table: Table, keySchema: KeyElement[], item: WireItem): WireItem {
  const key: WireItem = {};
  for (const k of [...table.keySchema, ...keySchema]) key[k.AttributeName] = item[k.AttributeName]!;
  return key;
}

function sortKey(keySchema: KeyElement[], a: WireItem, b: WireItem): number {
  for (const k of keySchema) {
    const c = compareScalars(a[k.AttributeName]!, b[k.AttributeName]!);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Reads `candidates` (sorted by `order`, reversed when not `forward`) from
 * after ExclusiveStartKey, up to Limit and 1 MB; filters after reading.
 */
function readPage(
  table: Table,
  keySchema: KeyElement[],
  sorting: { order: KeyElement[]; forward: boolean },
  candidates: WireItem[],
  input: Input,
  filter: Condition | undefined,
  placeholders: Placeholders,
  paths: Array<Array<string | number>> | undefined,
) {
  if (input.Limit !== undefined && (!Number.isInteger(input.Limit) || input.Limit < 1))
    throw ddbErrors.constraint('limit', input.Limit, 'Member must have value greater than or equal to 1');
  let start = 0;
  if (input.ExclusiveStartKey) {
    const startKey = itemToWire(input.ExclusiveStartKey);
    const full = [...table.keySchema, ...keySchema];
    if (full.some((k) => !startKey[k.AttributeName]))
      throw ddbErrors.validation(
        'The provided starting key is invalid: The provided key element does not match the schema',
      );
    const after = (c: WireItem) => {
      const cmp = sortKey(sorting.order, c, startKey);
      return sorting.forward ? cmp > 0 : cmp < 0;
    };
    start = candidates.findIndex(after);
    if (start < 0) start = candidates.length;
  }
  const scanned: WireItem[] = [];
  let bytes = 0;
  for (let i = start; i < candidates.length; i++) {
    if (input.Limit !== undefined && scanned.length >= input.Limit) break;
    if (bytes >= MAX_PAGE_BYTES) break;
    scanned.push(candidates[i]!);
    bytes += JSON.stringify(candidates[i]).length;
  }
  const more = start + scanned.length < candidates.length;
  const matched = filter ? scanned.filter((item) => evaluate(filter, item, placeholders)) : scanned;
  const last = scanned[scanned.length - 1];
  return {
    ...(input.Select === 'COUNT' ? {} : { Items: matched.map((item) => itemFromWire(project(item, paths))) }),
    Count: matched.length,
    ScannedCount: scanned.length,
    ...(more && last ? { LastEvaluatedKey: itemFromWire(evaluatedKey(table, keySchema, last)) } : {}),
  };
}

export function scan(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const { keySchema, index } = schemaFor(table, input.IndexName);
  const placeholders = placeholdersOf(input);
  const filter = input.FilterExpression
    ? parseCondition(input.FilterExpression, placeholders, 'FilterExpression')
    : undefined;
  const paths = input.ProjectionExpression
    ? parseProjection(input.ProjectionExpression, placeholders)
    : undefined;
  placeholders.checkAllUsed();
  const order = index ? [...keySchema, ...table.keySchema] : keySchema;
  const candidates = Object.values(table.items)
    .filter((item) => !index || keySchema.every((k) => item[k.AttributeName]))
    .sort((a, b) => sortKey(order, a, b));
  return readPage(table, keySchema, { order, forward: true }, candidates, input, filter, placeholders, paths);
}

/** The hash-key equality and the optional range condition of a key condition expression. */
function keyConditions(condition: Condition, keySchema: KeyElement[]): Condition[] {
  const parts: Condition[] = [];
  const flatten = (c: Condition): void => {
    if (c.kind === 'and') {
      flatten(c.left);
      flatten(c.right);
    } else parts.push(c);
  };
  flatten(condition);
  const nameOf = (c: Condition): string | undefined => {
    const operand =
      c.kind === 'compare'
        ? [c.left, c.right].find((o) => o.kind === 'path')
        : c.kind === 'between'
          ? c.value
          : c.kind === 'function' && c.name === 'begins_with'
            ? c.args[0]
            : undefined;
    return operand?.kind === 'path' && operand.path.length === 1 ? String(operand.path[0]) : undefined;
  };
  const [hash, range] = keySchema;
  const hashPart = parts.find(
    (p) => p.kind === 'compare' && p.op === '=' && nameOf(p) === hash!.AttributeName,
  );
  if (!hashPart)
    throw ddbErrors.validation(`Query condition missed key schema element: ${hash!.AttributeName}`);
  for (const p of parts) {
    if (p === hashPart) continue;
    if (!range || nameOf(p) !== range.AttributeName || parts.length > 2)
      throw ddbErrors.validation('Query key condition not supported');
    if (p.kind === 'compare' && p.op === '<>')
      throw ddbErrors.validation('Unsupported operator on KeyCondition: <>');
  }
  return parts;
}

export function query(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const { keySchema, index } = schemaFor(table, input.IndexName);
  if (typeof input.KeyConditionExpression !== 'string')
    throw ddbErrors.validation(
      'Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
    );
  const placeholders = placeholdersOf(input);
  const keyCondition = parseCondition(input.KeyConditionExpression, placeholders, 'KeyConditionExpression');
  const filter = input.FilterExpression
    ? parseCondition(input.FilterExpression, placeholders, 'FilterExpression')
    : undefined;
  const paths = input.ProjectionExpression
    ? parseProjection(input.ProjectionExpression, placeholders)
    : undefined;
  placeholders.checkAllUsed();
  const conditions = keyConditions(keyCondition, keySchema);
  const order = [...keySchema, ...(index ? table.keySchema : [])];
  const candidates = Object.values(table.items)
    .filter((item) => keySchema.every((k) => item[k.AttributeName]))
    .filter((item) => conditions.every((c) => evaluate(c, item, placeholders)))
    .sort((a, b) => sortKey(order, a, b));
  const forward = input.ScanIndexForward !== false;
  if (!forward) candidates.reverse();
  return readPage(table, keySchema, { order, forward }, candidates, input, filter, placeholders, paths);
}
