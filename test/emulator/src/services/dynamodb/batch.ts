/**
 * DynamoDB's multi-item calls, as the API reference documents them:
 * BatchWriteItem (up to 25 put/delete requests), BatchGetItem (up to 100
 * keys), TransactWriteItems (up to 100 ConditionCheck/Put/Update/Delete
 * actions, all or nothing, TransactionCanceledException with one
 * CancellationReason per action, idempotent for 10 minutes per
 * ClientRequestToken) and TransactGetItems. Each action runs through the
 * single-item operations (their key, condition and update-expression
 * handling); a transaction that is cancelled puts every item back.
 *
 * Batch calls answer `UnprocessedItems` / `UnprocessedKeys` in the request's
 * own shape. DynamoDB leaves requests unprocessed when throughput or the
 * 16 MB response limit runs out; here only when asked: the settings key
 * `dynamodbBatchUnprocessed` leaves the last N requests of each following
 * batch call unprocessed.
 */
import { createHash } from 'node:crypto';
import { AwsError } from '../../core/errors';
import type { CallContext } from '../../core/service';
import { parseCondition } from './expressions';
import { checkCondition, deleteItem, exactKey, getItem, placeholdersOf, putItem, tableFor } from './items';
import { ddbErrors, type DynamoDbStore, type Table } from './store';
import { updateItem } from './update-item';
import { itemFromWire, itemToWire, keyOf, keyString, type WireItem } from './values';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOKEN_WINDOW_MS = 10 * 60 * 1000;

/** One request of a batch or transaction, resolved to its table and item. */
interface Target {
  table: Table;
  id: string;
}

function keyFromItem(table: Table, item: unknown): string {
  return keyString(
    keyOf(itemToWire(item), table.keySchema, table.attributeDefinitions, 'item'),
    table.keySchema,
  );
}

function keyFromKey(table: Table, key: unknown): string {
  return keyString(exactKey(table, key), table.keySchema);
}

function requestItemsOf(input: Input): [string, unknown][] {
  const entries = Object.entries((input.RequestItems ?? {}) as Record<string, unknown>);
  if (!entries.length)
    throw ddbErrors.constraint('requestItems', null, 'Member must have length greater than or equal to 1');
  return entries;
}

/** A transaction's 1–100 actions. */
function transactItemsOf(input: Input): Input[] {
  const items = (input.TransactItems ?? []) as Input[];
  if (!items.length || items.length > 100)
    throw ddbErrors.constraint(
      'transactItems',
      null,
      'Member must have length less than or equal to 100, Member must have length greater than or equal to 1',
    );
  return items;
}

/** Puts what a failed all-or-nothing write changed back as it was. */
function restore(saved: Array<{ target: Target; before: WireItem | undefined }>): void {
  for (const { target, before } of saved.reverse()) {
    if (before === undefined) delete target.table.items[target.id];
    else target.table.items[target.id] = before;
  }
}

export class DynamoDbBatchOperations {
  /** `<account>|<region>|<token>` → the request's fingerprint and when it was first seen. */
  private readonly tokens = new Map<string, { fingerprint: string; at: number }>();

  constructor(
    private readonly store: DynamoDbStore,
    private readonly now: () => number = Date.now,
  ) {}

  readonly operations = {
    BatchWriteItem: (ctx: CallContext, input: Input) => this.batchWrite(ctx, input),
    BatchGetItem: (ctx: CallContext, input: Input) => this.batchGet(ctx, input),
    TransactWriteItems: (ctx: CallContext, input: Input) => this.transactWrite(ctx, input),
    TransactGetItems: (ctx: CallContext, input: Input) => this.transactGet(ctx, input),
  };

  /** How many trailing requests of this batch call stay unprocessed. */
  private unprocessedCount(): number {
    return this.store.batchUnprocessed;
  }

  private batchWrite(ctx: CallContext, input: Input) {
    const entries = requestItemsOf(input);
    const requests: Array<{ tableName: string; request: Record<string, any> }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const [tableName, list] of entries) {
      if (!Array.isArray(list) || !list.length)
        throw ddbErrors.constraint(
          `requestItems.${tableName}.member`,
          null,
          'Member must have length greater than or equal to 1',
        );
      for (const request of list) requests.push({ tableName, request: request as Record<string, unknown> });
    }
    if (requests.length > 25)
      throw ddbErrors.constraint(
        'requestItems',
        null,
        'Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]',
      );
    // Every request is checked before any is written.
    const seen = new Set<string>();
    const planned = requests.map(({ tableName, request }) => {
      const table = tableFor(this.store, ctx, { TableName: tableName });
      const put = request.PutRequest as { Item?: unknown } | undefined;
      const del = request.DeleteRequest as { Key?: unknown } | undefined;
      if (!!put === !!del)
        throw ddbErrors.validation(
          'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes',
        );
      const id = put ? keyFromItem(table, put.Item) : keyFromKey(table, del!.Key);
      if (seen.has(`${table.name}|${id}`))
        throw ddbErrors.validation('Provided list of item keys contains duplicates');
      seen.add(`${table.name}|${id}`);
      return { tableName, request, put, del };
    });
    const cut = Math.max(0, planned.length - this.unprocessedCount());
    const unprocessed: Record<string, unknown[]> = {};
    planned.forEach(({ tableName, request, put, del }, i) => {
      if (i >= cut) {
        (unprocessed[tableName] ??= []).push(request);
        return;
      }
      if (put) putItem(this.store, ctx, { TableName: tableName, Item: put.Item });
      else deleteItem(this.store, ctx, { TableName: tableName, Key: del!.Key });
    });
    return { UnprocessedItems: unprocessed };
  }

  private batchGet(ctx: CallContext, input: Input) {
    const entries = requestItemsOf(input);
    const total = entries.reduce((n, [, spec]) => n + (((spec as Input)?.Keys as unknown[]) ?? []).length, 0);
    if (total > 100) throw ddbErrors.validation('Too many items requested for the BatchGetItem call');
    const reads: Array<{ tableName: string; spec: Input; key: unknown }> = [];
    for (const [tableName, spec] of entries) {
      const s = (spec ?? {}) as Input;
      const table = tableFor(this.store, ctx, { TableName: tableName });
      if (!Array.isArray(s.Keys) || !s.Keys.length)
        throw ddbErrors.constraint(
          `requestItems.${tableName}.member.keys`,
          null,
          'Member must have length greater than or equal to 1',
        );
      const ids = new Set<string>();
      for (const key of s.Keys as unknown[]) {
        const id = keyFromKey(table, key);
        if (ids.has(id)) throw ddbErrors.validation('Provided list of item keys contains duplicates');
        ids.add(id);
        reads.push({ tableName, spec: s, key });
      }
    }
    const cut = Math.max(0, reads.length - this.unprocessedCount());
    const responses: Record<string, unknown[]> = {};
    const unprocessed: Record<string, Input> = {};
    for (const [tableName] of entries) responses[tableName] = [];
    reads.forEach(({ tableName, spec, key }, i) => {
      if (i >= cut) {
        const { Keys: _keys, ...rest } = spec;
        ((unprocessed[tableName] ??= { ...rest, Keys: [] }).Keys as unknown[]).push(key);
        return;
      }
      const out = getItem(this.store, ctx, {
        TableName: tableName,
        Key: key,
        ProjectionExpression: spec.ProjectionExpression,
        ExpressionAttributeNames: spec.ExpressionAttributeNames,
      }) as { Item?: unknown };
      if (out.Item) responses[tableName]!.push(out.Item);
    });
    return { Responses: responses, UnprocessedKeys: unprocessed };
  }

  private transactGet(ctx: CallContext, input: Input) {
    const items = transactItemsOf(input);
    const seen = new Set<string>();
    const gets = items.map((entry) => {
      const get = entry.Get as Input | undefined;
      if (!get) throw ddbErrors.validation('TransactItems can only contain Get operations');
      const table = tableFor(this.store, ctx, get);
      const id = `${table.name}|${keyFromKey(table, get.Key)}`;
      if (seen.has(id))
        throw ddbErrors.validation('Transaction request cannot include multiple operations on one item');
      seen.add(id);
      return get;
    });
    return { Responses: gets.map((get) => getItem(this.store, ctx, get)) };
  }

  private transactWrite(ctx: CallContext, input: Input) {
    const items = transactItemsOf(input);
    const token = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined;
    if (token !== undefined && (token.length < 1 || token.length > 36))
      throw ddbErrors.constraint(
        'clientRequestToken',
        token,
        'Member must have length less than or equal to 36, Member must have length greater than or equal to 1',
      );
    const fingerprint = createHash('sha256')
      .update(JSON.stringify({ TransactItems: input.TransactItems }))
      .digest('hex');
    const tokenKey = token && `${ctx.account}|${ctx.region}|${token}`;
    if (tokenKey) {
      const seenToken = this.tokens.get(tokenKey);
      if (seenToken && this.now() - seenToken.at < TOKEN_WINDOW_MS) {
        if (seenToken.fingerprint !== fingerprint)
          throw new AwsError(
            'IdempotentParameterMismatchException',
            'The request uses the same client token as a previous, but non-identical request.',
          );
        // The same request again within the window: it already took effect once.
        return {};
      }
    }

    // Resolve every action first: a malformed request or a second action on one item fails it whole.
    const seen = new Set<string>();
    const actions = items.map((entry) => {
      const kinds = (['ConditionCheck', 'Put', 'Update', 'Delete'] as const).filter((k) => entry[k]);
      if (kinds.length !== 1)
        throw ddbErrors.validation('TransactItems can only contain one of Check, Put, Update or Delete');
      const kind = kinds[0]!;
      const action = entry[kind] as Input;
      const table = tableFor(this.store, ctx, action);
      const id = kind === 'Put' ? keyFromItem(table, action.Item) : keyFromKey(table, action.Key);
      if (seen.has(`${table.name}|${id}`))
        throw ddbErrors.validation('Transaction request cannot include multiple operations on one item');
      seen.add(`${table.name}|${id}`);
      if (kind === 'ConditionCheck' && typeof action.ConditionExpression !== 'string')
        throw ddbErrors.constraint(
          'transactItems.member.conditionCheck.conditionExpression',
          null,
          'Member must not be null',
        );
      return { kind, action, target: { table, id } };
    });

    const saved: Array<{ target: Target; before: WireItem | undefined }> = [];
    const reasons: Array<Record<string, unknown>> = [];
    for (const { kind, action, target } of actions) {
      const before = target.table.items[target.id];
      saved.push({ target, before });
      try {
        if (kind === 'ConditionCheck') {
          const placeholders = placeholdersOf(action);
          const condition = parseCondition(action.ConditionExpression, placeholders, 'ConditionExpression');
          placeholders.checkAllUsed();
          checkCondition(before, placeholders, condition);
        } else {
          const single = {
            ...action,
            ReturnValues: undefined,
            ReturnValuesOnConditionCheckFailure: undefined,
          };
          if (kind === 'Put') putItem(this.store, ctx, single);
          else if (kind === 'Update') updateItem(this.store, ctx, single);
          else deleteItem(this.store, ctx, single);
        }
        reasons.push({ Code: 'None' });
      } catch (err) {
        if (!(err instanceof AwsError)) throw err;
        if (err.code === 'ConditionalCheckFailedException')
          reasons.push({
            Code: 'ConditionalCheckFailed',
            Message: 'The conditional request failed',
            ...(action.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && before
              ? { Item: itemFromWire(before) }
              : {}),
          });
        else if (err.code === 'ValidationException')
          reasons.push({ Code: 'ValidationError', Message: err.message });
        else {
          restore(saved);
          throw err;
        }
      }
    }
    if (reasons.some((r) => r.Code !== 'None')) {
      restore(saved);
      throw new AwsError(
        'TransactionCanceledException',
        `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => String(r.Code)).join(', ')}]`,
        400,
        // The JSON codec writes extra members as they are; CancellationReasons is a list of structures.
        { CancellationReasons: reasons } as unknown as Record<string, string>,
      );
    }
    if (tokenKey) this.tokens.set(tokenKey, { fingerprint, at: this.now() });
    return {};
  }
}
