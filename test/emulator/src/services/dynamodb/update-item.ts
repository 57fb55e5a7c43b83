/**
 * UpdateItem: edits an item's attributes with an update expression, or adds
 * the item when it does not exist yet (its key plus what the expression
 * sets), under an optional condition, returning NONE, ALL_OLD, UPDATED_OLD,
 * ALL_NEW or UPDATED_NEW as the API reference describes. The legacy
 * `AttributeUpdates` parameter is refused with the error DynamoDB gives for
 * mixing it with expressions only when both are sent; alone it is not
 * emulated.
 */
import type { CallContext } from '../../core/service';
import { parseCondition } from './expressions';
import { checkCondition, checkIndexKeys, exactKey, placeholdersOf, project, tableFor } from './items';
import { ddbErrors, type DynamoDbStore } from './store';
import { applyUpdate, checkPaths, parseUpdate } from './update-expressions';
import { checkItemSize, itemFromWire, keyString } from './values';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RETURN_VALUES = ['NONE', 'ALL_OLD', 'UPDATED_OLD', 'ALL_NEW', 'UPDATED_NEW'];

export function updateItem(store: DynamoDbStore, ctx: CallContext, input: Input) {
  const table = tableFor(store, ctx, input);
  const returnValues = input.ReturnValues ?? 'NONE';
  if (!RETURN_VALUES.includes(returnValues))
    throw ddbErrors.constraint(
      'returnValues',
      returnValues,
      `Member must satisfy enum value set: [${RETURN_VALUES.join(', ')}]`,
    );
  if (input.AttributeUpdates !== undefined)
    throw ddbErrors.validation(
      input.UpdateExpression !== undefined
        ? 'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}'
        : 'The emulator does not implement the legacy AttributeUpdates parameter; use UpdateExpression',
    );
  const placeholders = placeholdersOf(input);
  const actions = input.UpdateExpression ? parseUpdate(input.UpdateExpression, placeholders) : [];
  const condition = input.ConditionExpression
    ? parseCondition(input.ConditionExpression, placeholders, 'ConditionExpression')
    : undefined;
  placeholders.checkAllUsed();
  checkPaths(
    actions,
    table.keySchema.map((k) => k.AttributeName),
  );
  const key = exactKey(table, input.Key);
  const id = keyString(key, table.keySchema);
  const existing = table.items[id];
  checkCondition(existing, placeholders, condition);
  const before = existing ?? structuredClone(key);
  const after = structuredClone(before);
  const paths = applyUpdate(before, after, actions, placeholders);
  checkIndexKeys(table, after);
  checkItemSize(after);
  table.items[id] = after;
  switch (returnValues) {
    case 'ALL_OLD':
      return existing ? { Attributes: itemFromWire(existing) } : {};
    case 'ALL_NEW':
      return { Attributes: itemFromWire(after) };
    case 'UPDATED_OLD': {
      const old = existing ? project(existing, paths) : {};
      return Object.keys(old).length ? { Attributes: itemFromWire(old) } : {};
    }
    case 'UPDATED_NEW': {
      const updated = project(after, paths);
      return Object.keys(updated).length ? { Attributes: itemFromWire(updated) } : {};
    }
    default:
      return {};
  }
}
