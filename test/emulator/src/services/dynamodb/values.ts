/**
 * DynamoDB attribute values. Items are kept in their wire form (binary as
 * base64) so the store is plain JSON; handlers get and return the SDK form
 * (binary as Buffers), converted here. Also: key extraction, ordering of
 * scalar values (numbers numerically, binary bytewise) and item size.
 */
import { ddbErrors, type AttributeDefinition, type KeyElement } from './store';

/** An attribute value in wire form (`{ S }`, `{ N }`, `{ B: base64 }`, `{ M }`, ...). */
export type WireValue = Record<string, unknown>;
export type WireItem = Record<string, WireValue>;

const MAX_ITEM_BYTES = 400 * 1024;

function isBinary(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

/** SDK form → wire form. */
export function toWire(value: unknown): WireValue {
  const av = (value ?? {}) as Record<string, unknown>;
  const [type] = Object.keys(av).filter((k) => av[k] !== undefined);
  if (!type || Object.keys(av).filter((k) => av[k] !== undefined).length !== 1)
    throw ddbErrors.validation(
      'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes',
    );
  const v = av[type];
  switch (type) {
    case 'B':
      return { B: isBinary(v) ? Buffer.from(v).toString('base64') : String(v) };
    case 'BS':
      return {
        BS: (v as unknown[]).map((b) => (isBinary(b) ? Buffer.from(b).toString('base64') : String(b))),
      };
    case 'M':
      return {
        M: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toWire(x)])),
      };
    case 'L':
      return { L: (v as unknown[]).map(toWire) };
    case 'N':
      if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(Number(v)))
        throw ddbErrors.validation(`The parameter cannot be converted to a numeric value: ${String(v)}`);
      return { N: v };
    case 'S':
    case 'BOOL':
    case 'NULL':
    case 'SS':
    case 'NS':
      return { [type]: v };
    default:
      throw ddbErrors.validation(`Supplied AttributeValue has unsupported type ${type}`);
  }
}

/** Wire form → SDK form. */
export function fromWire(value: WireValue): Record<string, unknown> {
  const [type] = Object.keys(value);
  const v = value[type!];
  switch (type) {
    case 'B':
      return { B: Buffer.from(String(v), 'base64') };
    case 'BS':
      return { BS: (v as string[]).map((b) => Buffer.from(b, 'base64')) };
    case 'M':
      return { M: Object.fromEntries(Object.entries(v as WireItem).map(([k, x]) => [k, fromWire(x)])) };
    case 'L':
      return { L: (v as WireValue[]).map(fromWire) };
    default:
      return { [type!]: v };
  }
}

export function itemToWire(item: unknown): WireItem {
  if (!item || typeof item !== 'object') throw ddbErrors.constraint('item', null, 'Member must not be null');
  return Object.fromEntries(Object.entries(item as Record<string, unknown>).map(([k, v]) => [k, toWire(v)]));
}

export function itemFromWire(item: WireItem): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, fromWire(v)]));
}

export function typeOf(value: WireValue): string {
  return Object.keys(value)[0]!;
}

/** The key attributes of `item` for a key schema, checked against their definitions. */
export function keyOf(
  item: WireItem,
  keySchema: KeyElement[],
  definitions: AttributeDefinition[],
  what: 'item' | 'key',
): WireItem {
  const key: WireItem = {};
  for (const element of keySchema) {
    const value = item[element.AttributeName];
    if (!value)
      throw what === 'item'
        ? ddbErrors.invalid(`Missing the key ${element.AttributeName} in the item`)
        : ddbErrors.validation('The provided key element does not match the schema');
    const expected = definitions.find((d) => d.AttributeName === element.AttributeName)?.AttributeType;
    const actual = typeOf(value);
    if (expected && actual !== expected)
      throw what === 'item'
        ? ddbErrors.invalid(
            `Type mismatch for key ${element.AttributeName} expected: ${expected} actual: ${actual}`,
          )
        : ddbErrors.validation('The provided key element does not match the schema');
    if ((actual === 'S' || actual === 'B') && String(value[actual]) === '')
      throw ddbErrors.invalid(
        `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty ${actual === 'S' ? 'string' : 'binary'} value. Key: ${element.AttributeName}`,
      );
    key[element.AttributeName] = value;
  }
  return key;
}

/** The store key of an item: its key attributes in schema order. */
export function keyString(key: WireItem, keySchema: KeyElement[]): string {
  return JSON.stringify(keySchema.map((k) => key[k.AttributeName]));
}

/** Orders two scalar values of the same type (S by code units, N numerically, B bytewise). */
export function compareScalars(a: WireValue, b: WireValue): number {
  const type = typeOf(a);
  if (type === 'N') return Number(a.N) - Number(b.N);
  if (type === 'B')
    return Buffer.compare(Buffer.from(String(a.B), 'base64'), Buffer.from(String(b.B), 'base64'));
  const x = String(a[type]);
  const y = String(b[type]);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function equalValues(a: WireValue | undefined, b: WireValue | undefined): boolean {
  if (!a || !b) return false;
  const type = typeOf(a);
  if (type !== typeOf(b)) return false;
  if (type === 'N') return Number(a.N) === Number(b.N);
  if (type === 'SS' || type === 'NS' || type === 'BS') {
    const x = (a[type] as string[]).map(String).sort();
    const y = (b[type] as string[]).map(String).sort();
    return (
      x.length === y.length && x.every((v, i) => (type === 'NS' ? Number(v) === Number(y[i]) : v === y[i]))
    );
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** DynamoDB's item size: attribute names plus values (UTF-8), roughly as the developer guide counts it. */
export function itemSize(item: WireItem): number {
  const valueSize = (v: WireValue): number => {
    const type = typeOf(v);
    const x = v[type];
    switch (type) {
      case 'S':
        return Buffer.byteLength(String(x), 'utf8');
      case 'N':
        return Math.ceil(String(x).replace(/^-/, '').length / 2) + 1;
      case 'B':
        return Buffer.from(String(x), 'base64').length;
      case 'BOOL':
      case 'NULL':
        return 1;
      case 'SS':
      case 'NS':
      case 'BS':
        return (x as string[]).reduce((n, e) => n + valueSize({ [type.slice(0, 1)]: e }), 0);
      case 'M':
        return (
          3 +
          Object.entries(x as WireItem).reduce((n, [k, e]) => n + Buffer.byteLength(k) + valueSize(e) + 1, 0)
        );
      default:
        return 3 + (x as WireValue[]).reduce((n, e) => n + valueSize(e) + 1, 0);
    }
  };
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k, 'utf8') + valueSize(v), 0);
}

export function checkItemSize(item: WireItem): void {
  if (itemSize(item) > MAX_ITEM_BYTES)
    throw ddbErrors.validation('Item size has exceeded the maximum allowed size');
}
