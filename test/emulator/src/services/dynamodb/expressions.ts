/**
 * DynamoDB expressions, as the developer guide's "Condition and filter
 * expressions" and "Key condition expressions" describe them: comparisons
 * (`=`, `<>`, `<`, `<=`, `>`, `>=`), `BETWEEN ... AND ...`, `IN (...)`, the
 * functions `attribute_exists`, `attribute_not_exists`, `attribute_type`,
 * `begins_with`, `contains` and `size`, `AND`, `OR`, `NOT` and parentheses,
 * with `#name` and `:value` placeholders; plus projection expressions. Every
 * placeholder must be defined, and every defined one used.
 */
import { ddbErrors } from './store';
import { compareScalars, equalValues, typeOf, type WireItem, type WireValue } from './values';

export type PathPart = string | number;
export type Operand =
  { kind: 'path'; path: PathPart[] } | { kind: 'value'; name: string } | { kind: 'size'; path: PathPart[] };
export type Condition =
  | { kind: 'and'; left: Condition; right: Condition }
  | { kind: 'or'; left: Condition; right: Condition }
  | { kind: 'not'; operand: Condition }
  | { kind: 'compare'; op: string; left: Operand; right: Operand }
  | { kind: 'between'; value: Operand; low: Operand; high: Operand }
  | { kind: 'in'; value: Operand; list: Operand[] }
  | { kind: 'function'; name: string; args: Operand[] };

/** The placeholders of one request, and which of them its expressions used. */
export class Placeholders {
  private readonly usedNames = new Set<string>();
  private readonly usedValues = new Set<string>();

  constructor(
    private readonly names: Record<string, string> = {},
    private readonly values: WireItem = {},
  ) {}

  name(placeholder: string): string {
    const name = this.names[placeholder];
    if (name === undefined)
      throw ddbErrors.validation(
        `Value provided in ExpressionAttributeNames unused in expressions or not defined; An expression attribute name used in the document path is not defined; attribute name: ${placeholder}`,
      );
    this.usedNames.add(placeholder);
    return name;
  }

  value(placeholder: string): WireValue {
    const value = this.values[placeholder];
    if (value === undefined)
      throw ddbErrors.validation(
        `Invalid expression: An expression attribute value used in expression is not defined; attribute value: ${placeholder}`,
      );
    this.usedValues.add(placeholder);
    return value;
  }

  /** After every expression of the request is parsed: nothing defined may be left unused. */
  checkAllUsed(): void {
    const names = Object.keys(this.names).filter((n) => !this.usedNames.has(n));
    if (names.length)
      throw ddbErrors.validation(
        `Value provided in ExpressionAttributeNames unused in expressions: keys: {${names.join(', ')}}`,
      );
    const values = Object.keys(this.values).filter((v) => !this.usedValues.has(v));
    if (values.length)
      throw ddbErrors.validation(
        `Value provided in ExpressionAttributeValues unused in expressions: keys: {${values.join(', ')}}`,
      );
  }
}

export type Token = { type: 'word' | 'name' | 'value' | 'number' | 'op' | 'punct'; text: string };

export function tokenize(expression: string, what: string): Token[] {
  const tokens: Token[] = [];
  const re =
    /\s*(?:(<>|<=|>=|=|<|>)|([(),.[\]+-])|(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|(\d+)|([A-Za-z_][A-Za-z0-9_-]*))/y;
  let at = 0;
  while (expression.slice(at).trim() !== '') {
    re.lastIndex = at;
    const m = re.exec(expression);
    if (!m)
      throw ddbErrors.validation(
        `Invalid ${what}: Syntax error; token: "${expression.slice(at).trim()[0]}", near: "${expression.slice(at).trim().slice(0, 10)}"`,
      );
    at = re.lastIndex;
    if (m[1]) tokens.push({ type: 'op', text: m[1] });
    else if (m[2]) tokens.push({ type: 'punct', text: m[2] });
    else if (m[3]) tokens.push({ type: 'name', text: m[3] });
    else if (m[4]) tokens.push({ type: 'value', text: m[4] });
    else if (m[5]) tokens.push({ type: 'number', text: m[5] });
    else tokens.push({ type: 'word', text: m[6]! });
  }
  return tokens;
}

const FUNCTIONS = [
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
];

/** The expression grammar's shared parts; update expressions extend it (update-expressions.ts). */
export class Parser {
  protected pos = 0;
  constructor(
    protected readonly tokens: Token[],
    protected readonly placeholders: Placeholders,
    protected readonly what: string,
  ) {}

  protected peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  protected error(): never {
    const t = this.peek();
    throw ddbErrors.validation(
      `Invalid ${this.what}: Syntax error; token: "${t?.text ?? '<EOF>'}", near: "${t?.text ?? ''}"`,
    );
  }

  protected keyword(word: string): boolean {
    const t = this.peek();
    if (t?.type === 'word' && t.text.toUpperCase() === word) {
      this.pos++;
      return true;
    }
    return false;
  }

  protected expect(text: string): void {
    if (this.peek()?.text !== text) this.error();
    this.pos++;
  }

  done(): void {
    if (this.pos !== this.tokens.length) this.error();
  }

  condition(): Condition {
    let left = this.and();
    while (this.keyword('OR')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): Condition {
    let left = this.not();
    while (this.keyword('AND')) left = { kind: 'and', left, right: this.not() };
    return left;
  }

  private not(): Condition {
    if (this.keyword('NOT')) return { kind: 'not', operand: this.not() };
    return this.primary();
  }

  private primary(): Condition {
    const t = this.peek();
    if (t?.text === '(') {
      this.pos++;
      const inner = this.condition();
      this.expect(')');
      return inner;
    }
    if (t?.type === 'word' && FUNCTIONS.includes(t.text) && t.text !== 'size') {
      this.pos++;
      this.expect('(');
      const args = [this.operand()];
      while (this.peek()?.text === ',') {
        this.pos++;
        args.push(this.operand());
      }
      this.expect(')');
      return { kind: 'function', name: t.text, args };
    }
    const value = this.operand();
    if (this.keyword('BETWEEN')) {
      const low = this.operand();
      if (!this.keyword('AND')) this.error();
      return { kind: 'between', value, low, high: this.operand() };
    }
    if (this.keyword('IN')) {
      this.expect('(');
      const list = [this.operand()];
      while (this.peek()?.text === ',') {
        this.pos++;
        list.push(this.operand());
      }
      this.expect(')');
      return { kind: 'in', value, list };
    }
    const op = this.peek();
    if (op?.type !== 'op') this.error();
    this.pos++;
    return { kind: 'compare', op: op.text, left: value, right: this.operand() };
  }

  operand(): Operand {
    const t = this.peek();
    if (t?.type === 'value') {
      this.pos++;
      this.placeholders.value(t.text);
      return { kind: 'value', name: t.text };
    }
    if (t?.type === 'word' && t.text === 'size') {
      this.pos++;
      this.expect('(');
      const path = this.path();
      this.expect(')');
      return { kind: 'size', path };
    }
    return { kind: 'path', path: this.path() };
  }

  pathList(): PathPart[][] {
    const paths = [this.path()];
    while (this.peek()?.text === ',') {
      this.pos++;
      paths.push(this.path());
    }
    return paths;
  }

  path(): PathPart[] {
    const parts: PathPart[] = [this.pathName()];
    for (;;) {
      const t = this.peek();
      if (t?.text === '.') {
        this.pos++;
        parts.push(this.pathName());
      } else if (t?.text === '[') {
        this.pos++;
        const n = this.peek();
        if (n?.type !== 'number') this.error();
        this.pos++;
        this.expect(']');
        parts.push(Number(n.text));
      } else return parts;
    }
  }

  private pathName(): string {
    const t = this.peek();
    if (t?.type === 'name') {
      this.pos++;
      return this.placeholders.name(t.text);
    }
    if (t?.type === 'word') {
      this.pos++;
      return t.text;
    }
    return this.error();
  }
}

export function parseCondition(expression: string, placeholders: Placeholders, what: string): Condition {
  const parser = new Parser(tokenize(expression, what), placeholders, what);
  const condition = parser.condition();
  parser.done();
  return condition;
}

/** A projection expression's paths. */
export function parseProjection(expression: string, placeholders: Placeholders): PathPart[][] {
  const parser = new Parser(
    tokenize(expression, 'ProjectionExpression'),
    placeholders,
    'ProjectionExpression',
  );
  const paths = parser.pathList();
  parser.done();
  return paths;
}

export function resolvePath(item: WireItem, path: PathPart[]): WireValue | undefined {
  let cur: WireValue | undefined = item[path[0] as string];
  for (const part of path.slice(1)) {
    if (!cur) return undefined;
    if (typeof part === 'number') cur = (cur.L as WireValue[] | undefined)?.[part];
    else cur = (cur.M as WireItem | undefined)?.[part];
  }
  return cur;
}

export function operandValue(
  item: WireItem,
  operand: Operand,
  placeholders: Placeholders,
): WireValue | undefined {
  if (operand.kind === 'value') return placeholders.value(operand.name);
  const value = resolvePath(item, operand.path);
  if (operand.kind === 'path' || !value) return value;
  const type = typeOf(value);
  const v = value[type];
  const size =
    type === 'S'
      ? Buffer.byteLength(String(v), 'utf8')
      : type === 'B'
        ? Buffer.from(String(v), 'base64').length
        : type === 'M'
          ? Object.keys(v as object).length
          : Array.isArray(v)
            ? v.length
            : undefined;
  return size === undefined ? undefined : { N: String(size) };
}

function compare(op: string, a: WireValue | undefined, b: WireValue | undefined): boolean {
  // A missing operand makes every comparison false, except "not equal".
  if (!a || !b) return op === '<>' && (a !== undefined || b !== undefined);
  if (op === '=') return equalValues(a, b);
  if (op === '<>') return !equalValues(a, b);
  const type = typeOf(a);
  if (type !== typeOf(b) || !['S', 'N', 'B'].includes(type)) return false;
  const c = compareScalars(a, b);
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

export function evaluate(condition: Condition, item: WireItem, placeholders: Placeholders): boolean {
  switch (condition.kind) {
    case 'and':
      return evaluate(condition.left, item, placeholders) && evaluate(condition.right, item, placeholders);
    case 'or':
      return evaluate(condition.left, item, placeholders) || evaluate(condition.right, item, placeholders);
    case 'not':
      return !evaluate(condition.operand, item, placeholders);
    case 'compare':
      return compare(
        condition.op,
        operandValue(item, condition.left, placeholders),
        operandValue(item, condition.right, placeholders),
      );
    case 'between': {
      const v = operandValue(item, condition.value, placeholders);
      return (
        compare('>=', v, operandValue(item, condition.low, placeholders)) &&
        compare('<=', v, operandValue(item, condition.high, placeholders))
      );
    }
    case 'in': {
      const v = operandValue(item, condition.value, placeholders);
      return condition.list.some((o) => compare('=', v, operandValue(item, o, placeholders)));
    }
    case 'function': {
      const [first, second] = condition.args;
      const a = first ? operandValue(item, first, placeholders) : undefined;
      const b = second ? operandValue(item, second, placeholders) : undefined;
      switch (condition.name) {
        case 'attribute_exists':
          return a !== undefined;
        case 'attribute_not_exists':
          return a === undefined;
        case 'attribute_type':
          return a !== undefined && b !== undefined && typeOf(a) === String(b.S);
        case 'begins_with':
          if (!a || !b) return false;
          if (typeOf(a) === 'S' && typeOf(b) === 'S') return String(a.S).startsWith(String(b.S));
          if (typeOf(a) === 'B' && typeOf(b) === 'B')
            return Buffer.from(String(a.B), 'base64')
              .subarray(0, Buffer.from(String(b.B), 'base64').length)
              .equals(Buffer.from(String(b.B), 'base64'));
          return false;
        default: {
          // contains
          if (!a || !b) return false;
          const type = typeOf(a);
          if (type === 'S' && typeOf(b) === 'S') return String(a.S).includes(String(b.S));
          if (type === 'SS' || type === 'NS' || type === 'BS')
            return (a[type] as string[]).some((e) => e === String(b[typeOf(b)]));
          if (type === 'L') return (a.L as WireValue[]).some((e) => equalValues(e, b));
          return false;
        }
      }
    }
  }
}
