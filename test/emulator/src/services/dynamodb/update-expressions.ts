/**
 * DynamoDB update expressions, as the developer guide's "Update expressions"
 * describes them: `SET` (a value, `+` / `-` on numbers, `if_not_exists`,
 * `list_append`), `REMOVE`, `ADD` (numbers and sets) and `DELETE` (from a
 * set), each clause at most once, its actions separated by commas. Every
 * operand is read from the item as it was before the update; two actions may
 * not touch overlapping paths, nor a key attribute.
 */
import {
  Parser,
  operandValue,
  tokenize,
  type Operand,
  type PathPart,
  type Placeholders,
} from './expressions';
import { ddbErrors } from './store';
import { typeOf, type WireItem, type WireValue } from './values';

/** A SET action's right-hand side. */
type SetValue =
  | { kind: 'operand'; operand: Operand }
  | { kind: 'if_not_exists'; path: PathPart[]; fallback: SetValue }
  | { kind: 'list_append'; left: SetValue; right: SetValue }
  | { kind: 'arithmetic'; op: '+' | '-'; left: SetValue; right: SetValue };

export type UpdateAction =
  | { clause: 'SET'; path: PathPart[]; value: SetValue }
  | { clause: 'REMOVE'; path: PathPart[] }
  | { clause: 'ADD' | 'DELETE'; path: PathPart[]; value: Operand };

const CLAUSES = ['SET', 'REMOVE', 'ADD', 'DELETE'] as const;

class UpdateParser extends Parser {
  actions(): UpdateAction[] {
    const actions: UpdateAction[] = [];
    const seen = new Set<string>();
    if (!this.peek()) this.error();
    while (this.peek()) {
      const clause = CLAUSES.find((c) => this.keyword(c));
      if (!clause) this.error();
      if (seen.has(clause))
        throw ddbErrors.validation(
          `Invalid UpdateExpression: The "${clause}" section can only be used once in an update expression;`,
        );
      seen.add(clause);
      do actions.push(this.action(clause));
      while (this.comma());
    }
    return actions;
  }

  private comma(): boolean {
    if (this.peek()?.text !== ',') return false;
    this.pos++;
    return true;
  }

  private action(clause: (typeof CLAUSES)[number]): UpdateAction {
    const path = this.path();
    if (clause === 'REMOVE') return { clause, path };
    if (clause === 'SET') {
      this.expect('=');
      return { clause, path, value: this.setValue() };
    }
    const value = this.operand();
    if (value.kind !== 'value') this.error();
    return { clause, path, value };
  }

  private setValue(): SetValue {
    const left = this.setOperand();
    const op = this.peek()?.text;
    if (op === '+' || op === '-') {
      this.pos++;
      return { kind: 'arithmetic', op, left, right: this.setOperand() };
    }
    return left;
  }

  private setOperand(): SetValue {
    const t = this.peek();
    if (t?.type === 'word' && (t.text === 'if_not_exists' || t.text === 'list_append')) {
      this.pos++;
      this.expect('(');
      if (t.text === 'if_not_exists') {
        const path = this.path();
        this.expect(',');
        const fallback = this.setOperand();
        this.expect(')');
        return { kind: 'if_not_exists', path, fallback };
      }
      const left = this.setOperand();
      this.expect(',');
      const right = this.setOperand();
      this.expect(')');
      return { kind: 'list_append', left, right };
    }
    if (t?.type === 'word' && t.text === 'size') this.error();
    return { kind: 'operand', operand: this.operand() };
  }
}

export function parseUpdate(expression: string, placeholders: Placeholders): UpdateAction[] {
  const parser = new UpdateParser(tokenize(expression, 'UpdateExpression'), placeholders, 'UpdateExpression');
  const actions = parser.actions();
  parser.done();
  return actions;
}

const pathText = (path: PathPart[]) =>
  `[${path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join(', ')}]`;

/** Two actions on one path, or on a path and one inside it, are refused. */
export function checkPaths(actions: UpdateAction[], keyNames: string[]): void {
  for (const a of actions)
    if (keyNames.includes(String(a.path[0])))
      throw ddbErrors.invalid(
        `Cannot update attribute ${String(a.path[0])}. This attribute is part of the key`,
      );
  for (let i = 0; i < actions.length; i++)
    for (let j = i + 1; j < actions.length; j++) {
      const [a, b] = [actions[i]!.path, actions[j]!.path];
      const n = Math.min(a.length, b.length);
      if (a.slice(0, n).every((p, k) => p === b[k]))
        throw ddbErrors.validation(
          `Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ${pathText(a)}, path two: ${pathText(b)}`,
        );
    }
}

const wrongType = (operator: string, value: WireValue) =>
  ddbErrors.validation(
    `Invalid UpdateExpression: Incorrect operand type for operator or function; operator${operator === 'ADD' || operator === 'DELETE' ? '' : ' or function'}: ${operator}, operand type: ${typeOf(value)}`,
  );

/** Decimal `a + b` (or `a - b`) on DynamoDB's number strings, without floating-point rounding. */
function addNumbers(a: string, b: string, negate = false): string {
  const parse = (text: string) => {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
    if (!m) throw ddbErrors.validation(`The parameter cannot be converted to a numeric value: ${text}`);
    const fraction = m[3] ?? '';
    return { digits: BigInt(`${m[1]}${m[2] || '0'}${fraction}`), scale: fraction.length - Number(m[4] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale, 0);
  const lift = (v: { digits: bigint; scale: number }) => v.digits * 10n ** BigInt(scale - v.scale);
  const sum = lift(x) + (negate ? -lift(y) : lift(y));
  const sign = sum < 0n ? '-' : '';
  const text = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

const SET_TYPES = ['SS', 'NS', 'BS'];

function setValue(value: SetValue, item: WireItem, placeholders: Placeholders): WireValue {
  const read = (v: SetValue) => setValue(v, item, placeholders);
  switch (value.kind) {
    case 'operand': {
      const v = operandValue(item, value.operand, placeholders);
      if (!v)
        throw ddbErrors.validation(
          'The provided expression refers to an attribute that does not exist in the item',
        );
      return v;
    }
    case 'if_not_exists':
      return operandValue(item, { kind: 'path', path: value.path }, placeholders) ?? read(value.fallback);
    case 'list_append': {
      const [l, r] = [read(value.left), read(value.right)];
      for (const v of [l, r]) if (typeOf(v) !== 'L') throw wrongType('list_append', v);
      return { L: [...(l.L as WireValue[]), ...(r.L as WireValue[])] };
    }
    case 'arithmetic': {
      const [l, r] = [read(value.left), read(value.right)];
      if (typeOf(l) !== 'N' || typeOf(r) !== 'N')
        throw ddbErrors.validation('An operand in the update expression has an incorrect data type');
      return { N: addNumbers(String(l.N), String(r.N), value.op === '-') };
    }
  }
}

/** The map or list holding the last part of `path`, or undefined when a parent is missing. */
function parentOf(item: WireItem, path: PathPart[]): WireValue | undefined {
  let cur: WireValue | undefined = { M: item };
  for (const part of path.slice(0, -1)) {
    if (!cur) return undefined;
    cur =
      typeof part === 'number'
        ? (cur.L as WireValue[] | undefined)?.[part]
        : (cur.M as WireItem | undefined)?.[part];
  }
  return cur;
}

function write(item: WireItem, path: PathPart[], value: WireValue): void {
  const parent = parentOf(item, path);
  const last = path[path.length - 1]!;
  if (typeof last === 'number' && Array.isArray(parent?.L)) {
    const list = parent.L as WireValue[];
    // Past the end of a list: appended, as DynamoDB does.
    if (last >= list.length) list.push(value);
    else list[last] = value;
  } else if (typeof last === 'string' && parent?.M && typeof parent.M === 'object') {
    (parent.M as WireItem)[last] = value;
  } else {
    throw ddbErrors.validation('The document path provided in the update expression is invalid for update');
  }
}

function remove(item: WireItem, path: PathPart[]): void {
  const parent = parentOf(item, path);
  const last = path[path.length - 1]!;
  if (typeof last === 'number' && Array.isArray(parent?.L)) (parent.L as WireValue[]).splice(last, 1);
  else if (typeof last === 'string' && parent?.M) delete (parent.M as WireItem)[last];
}

/**
 * `item` (a copy, or a new item's key) after `actions`, each operand read from
 * `before`. Returns the paths the update wrote, for UPDATED_OLD / UPDATED_NEW.
 */
export function applyUpdate(
  before: WireItem,
  item: WireItem,
  actions: UpdateAction[],
  placeholders: Placeholders,
): PathPart[][] {
  const values = actions.map((a) =>
    a.clause === 'SET'
      ? setValue(a.value, before, placeholders)
      : a.clause === 'REMOVE'
        ? undefined
        : operandValue(before, a.value, placeholders)!,
  );
  // List elements are removed from the highest index down, so earlier removals do not shift later ones.
  const order = actions
    .map((_, i) => i)
    .sort((i, j) => {
      const [a, b] = [actions[i]!, actions[j]!];
      const [x, y] = [a.path[a.path.length - 1], b.path[b.path.length - 1]];
      return a.clause === 'REMOVE' && b.clause === 'REMOVE' && typeof x === 'number' && typeof y === 'number'
        ? y - x
        : i - j;
    });
  for (const i of order) {
    const action = actions[i]!;
    const value = values[i];
    const existing = operandValue(before, { kind: 'path', path: action.path }, placeholders);
    if (action.clause === 'SET') write(item, action.path, value!);
    else if (action.clause === 'REMOVE') remove(item, action.path);
    else if (action.clause === 'ADD') {
      const type = typeOf(value!);
      if (type !== 'N' && !SET_TYPES.includes(type)) throw wrongType('ADD', value!);
      if (!existing) write(item, action.path, value!);
      else if (typeOf(existing) !== type)
        throw ddbErrors.validation(`An operand in the update expression has an incorrect data type`);
      else if (type === 'N')
        write(item, action.path, { N: addNumbers(String(existing.N), String(value!.N)) });
      else
        write(item, action.path, {
          [type]: [...new Set([...(existing[type] as string[]), ...(value![type] as string[])])],
        });
    } else {
      const type = typeOf(value!);
      if (!SET_TYPES.includes(type)) throw wrongType('DELETE', value!);
      if (!existing) continue;
      if (typeOf(existing) !== type)
        throw ddbErrors.validation('An operand in the update expression has an incorrect data type');
      const drop = new Set(value![type] as string[]);
      const left = (existing[type] as string[]).filter((e) => !drop.has(e));
      // A set cannot be empty: removing its last element removes the attribute.
      if (left.length) write(item, action.path, { [type]: left });
      else remove(item, action.path);
    }
  }
  return actions.map((a) => a.path);
}
