/**
 * ExecuteStatement for the simple PartiQL statements the DynamoDB developer
 * guide documents: `SELECT <* | paths> FROM "table"[."index"] [WHERE ...]`,
 * `INSERT INTO "table" VALUE {...}`, `UPDATE "table" SET path = value[, ...]
 * [REMOVE path] WHERE <key> [AND ...]` and `DELETE FROM "table" WHERE <key>
 * [AND ...]`, with `?` parameters (`Parameters`) and literals ('text',
 * numbers, TRUE/FALSE, NULL, {maps}, [lists], <<sets>>).
 *
 * Each statement is rewritten into the expression language of the item
 * operations (names and values as `#n`/`:p` placeholders) and run through
 * Scan, PutItem, UpdateItem or DeleteItem, so conditions, types and errors
 * are theirs. As DynamoDB answers: an INSERT of an existing key is
 * `DuplicateItemException`, an UPDATE of a missing item or a WHERE that does
 * not hold `ConditionalCheckFailedException`, a DELETE of a missing item
 * nothing; UPDATE and DELETE need the full primary key as equalities.
 */
import { AwsError } from '../../core/errors';
import type { CallContext } from '../../core/service';
import { deleteItem, putItem, scan, tableFor } from './items';
import { ddbErrors, type DynamoDbStore } from './store';
import { updateItem } from './update-item';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Raw = Record<string, unknown>;

interface Tok {
  kind: 'id' | 'qid' | 'str' | 'num' | 'param' | 'op';
  text: string;
}

const FUNCTIONS = new Set([
  'begins_with',
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'contains',
  'size',
]);

const syntax = (message: string) =>
  new AwsError('ValidationException', `Statement wasn't well formed, can't be processed: ${message}`);

function tokenize(statement: string): Tok[] {
  const out: Tok[] = [];
  const re =
    /\s+|("(?:[^"]|"")*")|('(?:[^']|'')*')|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\?)|(<<|>>|<>|!=|<=|>=|[=<>(),.[\]{}:*+-])/y;
  let at = 0;
  while (at < statement.length) {
    re.lastIndex = at;
    const m = re.exec(statement);
    if (!m) throw syntax(`unexpected character at ${at}`);
    at = re.lastIndex;
    if (m[1]) out.push({ kind: 'qid', text: m[1].slice(1, -1).replace(/""/g, '"') });
    else if (m[2]) out.push({ kind: 'str', text: m[2].slice(1, -1).replace(/''/g, "'") });
    else if (m[3]) out.push({ kind: 'num', text: m[3] });
    else if (m[4]) out.push({ kind: 'id', text: m[4] });
    else if (m[5]) out.push({ kind: 'param', text: '?' });
    else if (m[6]) out.push({ kind: 'op', text: m[6] });
  }
  return out;
}

/** A statement's tokens read one by one, with the placeholders it gathers. */
class Reader {
  private at = 0;
  readonly names: Record<string, string> = {};
  readonly values: Record<string, Raw> = {};
  private paramIndex = 0;

  constructor(
    private readonly toks: Tok[],
    private readonly params: Raw[],
  ) {}

  peek(offset = 0): Tok | undefined {
    return this.toks[this.at + offset];
  }
  next(): Tok {
    const t = this.toks[this.at++];
    if (!t) throw syntax('unexpected end of statement');
    return t;
  }
  isWord(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return !!t && t.kind === 'id' && t.text.toUpperCase() === word;
  }
  word(word: string): void {
    if (!this.isWord(word)) throw syntax(`expected ${word}`);
    this.at++;
  }
  op(text: string): boolean {
    if (this.peek()?.kind === 'op' && this.peek()!.text === text) {
      this.at++;
      return true;
    }
    return false;
  }
  expectOp(text: string): void {
    if (!this.op(text)) throw syntax(`expected '${text}'`);
  }
  done(): boolean {
    return this.at >= this.toks.length;
  }

  name(text: string): string {
    const ph = `#n${Object.keys(this.names).length}`;
    this.names[ph] = text;
    return ph;
  }
  valuePlaceholder(value: Raw): string {
    const ph = `:p${Object.keys(this.values).length}`;
    this.values[ph] = value;
    return ph;
  }

  /** A table name: `"name"` or a bare identifier. */
  tableName(): string {
    const t = this.next();
    if (t.kind !== 'qid' && t.kind !== 'id') throw syntax('expected a table name');
    return t.text;
  }

  /** A document path `a.b[0]` as expression text. */
  path(): string {
    const first = this.next();
    if (first.kind !== 'id' && first.kind !== 'qid') throw syntax(`unexpected '${first.text}'`);
    let out = this.name(first.text);
    for (;;) {
      if (this.op('.')) {
        const part = this.next();
        if (part.kind !== 'id' && part.kind !== 'qid') throw syntax('expected an attribute name');
        out += `.${this.name(part.text)}`;
      } else if (this.peek()?.text === '[' && this.peek(1)?.kind === 'num') {
        this.next();
        out += `[${this.next().text}]`;
        this.expectOp(']');
      } else return out;
    }
  }

  /** A literal or `?` as an AttributeValue. */
  literal(): Raw {
    const t = this.next();
    if (t.kind === 'param') {
      const p = this.params[this.paramIndex++];
      if (!p) throw ddbErrors.validation("Number of parameters in request and statement don't match.");
      return p;
    }
    if (t.kind === 'str') return { S: t.text };
    if (t.kind === 'num') return { N: t.text };
    if (t.kind === 'id' && t.text.toUpperCase() === 'TRUE') return { BOOL: true };
    if (t.kind === 'id' && t.text.toUpperCase() === 'FALSE') return { BOOL: false };
    if (t.kind === 'id' && t.text.toUpperCase() === 'NULL') return { NULL: true };
    if (t.text === '{') {
      const M: Record<string, Raw> = {};
      if (this.op('}')) return { M };
      do {
        const k = this.next();
        if (k.kind !== 'str' && k.kind !== 'qid') throw syntax('expected a quoted attribute name');
        this.expectOp(':');
        M[k.text] = this.literal();
      } while (this.op(','));
      this.expectOp('}');
      return { M };
    }
    if (t.text === '[') {
      const L: Raw[] = [];
      if (!this.op(']')) {
        do L.push(this.literal());
        while (this.op(','));
        this.expectOp(']');
      }
      return { L };
    }
    if (t.text === '<<') {
      const members: Raw[] = [];
      do members.push(this.literal());
      while (this.op(','));
      this.expectOp('>>');
      const kind = Object.keys(members[0] ?? {})[0];
      if (kind === 'S') return { SS: members.map((m) => m.S) };
      if (kind === 'N') return { NS: members.map((m) => m.N) };
      if (kind === 'B') return { BS: members.map((m) => m.B) };
      throw ddbErrors.validation('Sets can only contain strings, numbers or binaries');
    }
    throw syntax(`unexpected '${t.text}'`);
  }

  private isValueStart(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.kind === 'str' || t.kind === 'num' || t.kind === 'param') return true;
    if (t.kind === 'id') return ['TRUE', 'FALSE', 'NULL'].includes(t.text.toUpperCase());
    return t.text === '{' || t.text === '<<' || (t.text === '[' && this.peek(1)?.kind !== 'num');
  }

  /** An operand: a value, a path or a function call. */
  operand(): string {
    if (this.isValueStart()) return this.valuePlaceholder(this.literal());
    const t = this.peek()!;
    if (t.kind === 'id' && FUNCTIONS.has(t.text) && this.peek(1)?.text === '(') {
      this.next();
      this.next();
      const args: string[] = [];
      do args.push(this.operand());
      while (this.op(','));
      this.expectOp(')');
      return `${t.text}(${args.join(', ')})`;
    }
    if (t.text === '(') {
      this.next();
      const inner = this.condition();
      this.expectOp(')');
      return `(${inner})`;
    }
    return this.path();
  }

  /** A WHERE condition as condition-expression text, up to a keyword that ends it. */
  condition(): string {
    const parts: string[] = [];
    for (;;) {
      if (this.isWord('NOT')) {
        this.next();
        parts.push('NOT');
        continue;
      }
      let left = this.operand();
      const t = this.peek();
      if (t?.kind === 'op' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(t.text)) {
        this.next();
        left = `${left} ${t.text === '!=' ? '<>' : t.text} ${this.operand()}`;
      } else if (this.isWord('BETWEEN')) {
        this.next();
        const low = this.operand();
        this.word('AND');
        left = `${left} BETWEEN ${low} AND ${this.operand()}`;
      } else if (this.isWord('IN')) {
        this.next();
        let close = ']';
        if (!this.op('[')) {
          this.expectOp('(');
          close = ')';
        }
        const members: string[] = [];
        do members.push(this.operand());
        while (this.op(','));
        this.expectOp(close);
        left = `${left} IN (${members.join(', ')})`;
      }
      parts.push(left);
      if (this.isWord('AND') || this.isWord('OR')) parts.push(this.next().text.toUpperCase());
      else return parts.join(' ');
    }
  }
}

/** The key's equalities in a WHERE (`pk = ? AND sk = 'x'`), from a second read of its tokens. */
function keyFrom(where: Tok[], params: Raw[], paramsBefore: number, keyNames: string[]): Raw | undefined {
  const key: Raw = {};
  let paramIndex = paramsBefore;
  for (let i = 0; i < where.length; i++) {
    const t = where[i]!;
    if (t.kind === 'param') paramIndex++;
    const eq = where[i + 1];
    const value = where[i + 2];
    if ((t.kind === 'id' || t.kind === 'qid') && keyNames.includes(t.text) && eq?.text === '=' && value) {
      const before = where[i - 1];
      if (before && (before.text === '.' || before.text === '[')) continue;
      const reader = new Reader([value], value.kind === 'param' ? params.slice(paramIndex) : []);
      try {
        key[t.text] = reader.literal();
      } catch {
        continue;
      }
    }
  }
  return keyNames.every((k) => key[k] !== undefined) ? key : undefined;
}

export function executeStatement(store: DynamoDbStore, ctx: CallContext, input: Input) {
  if (typeof input.Statement !== 'string' || !input.Statement.trim())
    throw ddbErrors.constraint('statement', null, 'Member must not be null');
  const params = (input.Parameters ?? []) as Raw[];
  const toks = tokenize(input.Statement);
  const r = new Reader(toks, params);
  const verb = r.next().text.toUpperCase();
  const expression = (extra: Input = {}) => ({
    ...(Object.keys(r.names).length ? { ExpressionAttributeNames: r.names } : {}),
    ...(Object.keys(r.values).length ? { ExpressionAttributeValues: r.values } : {}),
    ...extra,
  });
  const whereTokens = () =>
    toks.slice(toks.findIndex((t) => t.kind === 'id' && t.text.toUpperCase() === 'WHERE') + 1);
  const paramsBeforeWhere = () => {
    const i = toks.findIndex((t) => t.kind === 'id' && t.text.toUpperCase() === 'WHERE');
    return toks.slice(0, i).filter((t) => t.kind === 'param').length;
  };

  /** The WHERE of an UPDATE or DELETE: its condition, the full key its equalities give, a key attribute's name. */
  const keyedWhere = (tableName: string) => {
    r.word('WHERE');
    const paramsBefore = paramsBeforeWhere();
    const condition = r.condition();
    if (!r.done()) throw syntax(`unexpected '${r.peek()!.text}'`);
    const table = tableFor(store, ctx, { TableName: tableName });
    const keyNames = table.keySchema.map((k) => k.AttributeName);
    const key = keyFrom(whereTokens(), params, paramsBefore, keyNames);
    if (!key)
      throw ddbErrors.validation('Where clause does not contain a mandatory equality on all key attributes');
    return { key, condition, exists: r.name(keyNames[0]!) };
  };

  switch (verb) {
    case 'SELECT': {
      const paths: string[] = [];
      if (!r.op('*'))
        do paths.push(r.path());
        while (r.op(','));
      r.word('FROM');
      const tableName = r.tableName();
      const indexName = r.op('.') ? r.tableName() : undefined;
      let filter: string | undefined;
      if (!r.done()) {
        r.word('WHERE');
        filter = r.condition();
      }
      if (!r.done()) throw syntax(`unexpected '${r.peek()!.text}'`);
      let start: unknown;
      if (typeof input.NextToken === 'string') {
        try {
          start = JSON.parse(Buffer.from(input.NextToken, 'base64').toString('utf8'));
        } catch {
          throw ddbErrors.validation('Invalid NextToken');
        }
      }
      const page = scan(store, ctx, {
        TableName: tableName,
        ...(indexName ? { IndexName: indexName } : {}),
        ...(input.Limit !== undefined ? { Limit: input.Limit } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
        ...expression({
          ...(filter ? { FilterExpression: filter } : {}),
          ...(paths.length ? { ProjectionExpression: paths.join(', ') } : {}),
        }),
      }) as { Items?: unknown[]; LastEvaluatedKey?: unknown };
      return {
        Items: page.Items ?? [],
        ...(page.LastEvaluatedKey
          ? { NextToken: Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64') }
          : {}),
      };
    }
    case 'INSERT': {
      r.word('INTO');
      const tableName = r.tableName();
      r.word('VALUE');
      const item = r.literal();
      if (!r.done() || !item.M) throw syntax('INSERT takes one VALUE {...}');
      const table = tableFor(store, ctx, { TableName: tableName });
      const names = Object.fromEntries(table.keySchema.map((k, i) => [`#k${i}`, k.AttributeName]));
      try {
        putItem(store, ctx, {
          TableName: tableName,
          Item: item.M,
          ConditionExpression: Object.keys(names)
            .map((n) => `attribute_not_exists(${n})`)
            .join(' AND '),
          ExpressionAttributeNames: names,
        });
      } catch (err) {
        if (err instanceof AwsError && err.code === 'ConditionalCheckFailedException')
          throw new AwsError('DuplicateItemException', 'Duplicate primary key exists in table');
        throw err;
      }
      return {};
    }
    case 'UPDATE': {
      const tableName = r.tableName();
      const sets: string[] = [];
      const removes: string[] = [];
      while (r.isWord('SET') || r.isWord('REMOVE')) {
        const clause = r.next().text.toUpperCase();
        do {
          if (clause === 'REMOVE') removes.push(r.path());
          else {
            const target = r.path();
            r.expectOp('=');
            let value = r.operand();
            while (r.peek()?.text === '+' || r.peek()?.text === '-')
              value += ` ${r.next().text} ${r.operand()}`;
            sets.push(`${target} = ${value}`);
          }
        } while (r.op(','));
      }
      if (!sets.length && !removes.length) throw syntax('UPDATE needs SET or REMOVE');
      const { key, condition, exists } = keyedWhere(tableName);
      updateItem(store, ctx, {
        TableName: tableName,
        Key: key,
        UpdateExpression: [
          sets.length ? `SET ${sets.join(', ')}` : '',
          removes.length ? `REMOVE ${removes.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join(' '),
        ...expression({ ConditionExpression: `attribute_exists(${exists}) AND (${condition})` }),
      });
      return {};
    }
    case 'DELETE': {
      r.word('FROM');
      const tableName = r.tableName();
      const { key, condition, exists } = keyedWhere(tableName);
      // A missing item is no error; an existing one must satisfy the WHERE.
      deleteItem(store, ctx, {
        TableName: tableName,
        Key: key,
        ...expression({ ConditionExpression: `attribute_not_exists(${exists}) OR (${condition})` }),
      });
      return {};
    }
    default:
      throw syntax(`unsupported statement '${verb}'`);
  }
}
