/**
 * CloudWatch Logs filter patterns (FilterLogEvents' `filterPattern`), as the
 * user guide's "Filter pattern syntax" describes them, for the forms tests
 * and handlers use:
 *
 * - terms: `ERROR Exception` (every term), `?ERROR ?WARN` (any `?` term),
 *   `-DEBUG` (no such term), `"exact phrase"`; matching is case-sensitive;
 * - a regular expression between percent signs: `%time[o]?ut%`;
 * - JSON: `{ $.level = "error" && $.latency > 100 }` with `=`, `!=`, `<`,
 *   `<=`, `>`, `>=`, `&&`, `||`, parentheses, `*` wildcards in strings,
 *   `IS NULL`, `NOT EXISTS`, `IS TRUE`, `IS FALSE`.
 *
 * Space-delimited patterns (`[ip, user, ...]`) are refused, not guessed.
 */
import { AwsError } from '../../core/errors';

export type MessagePredicate = (message: string) => boolean;

const invalid = (pattern: string) =>
  new AwsError('InvalidParameterException', `Invalid character(s) in term '${pattern}'`);

export function compileFilterPattern(pattern: string | undefined): MessagePredicate {
  const text = (pattern ?? '').trim();
  if (text === '') return () => true;
  if (text.startsWith('{')) return compileJsonPattern(text);
  if (text.startsWith('['))
    throw new AwsError(
      'InvalidParameterException',
      'Space-delimited filter patterns are not supported by this emulator; use terms or a JSON pattern.',
    );
  if (text.length > 1 && text.startsWith('%') && text.endsWith('%')) {
    let re: RegExp;
    try {
      re = new RegExp(text.slice(1, -1));
    } catch {
      throw invalid(text);
    }
    return (message) => re.test(message);
  }
  return compileTerms(text);
}

function compileTerms(text: string): MessagePredicate {
  const required: string[] = [];
  const optional: string[] = [];
  const excluded: string[] = [];
  const re = /([?-]?)(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const term = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
    (m[1] === '?' ? optional : m[1] === '-' ? excluded : required).push(term);
  }
  return (message) =>
    required.every((t) => message.includes(t)) &&
    (optional.length === 0 || optional.some((t) => message.includes(t))) &&
    !excluded.some((t) => message.includes(t));
}

// --- JSON patterns: a small recursive-descent parser over a token list.

type Token = { kind: 'op' | 'selector' | 'value' | 'word'; text: string; quoted?: boolean };
type Node =
  | { kind: 'and'; left: Node; right: Node }
  | { kind: 'or'; left: Node; right: Node }
  | { kind: 'compare'; path: string[]; op: string; value: Token }
  | { kind: 'check'; path: string[]; check: 'null' | 'not-exists' | 'true' | 'false' };

function tokenize(body: string, pattern: string): Token[] {
  const tokens: Token[] = [];
  const re =
    /\s*(?:(&&|\|\||!=|<=|>=|=|<|>|\(|\))|(\$(?:\.[A-Za-z0-9_$-]+|\[\d+\])+)|"((?:[^"\\]|\\.)*)"|([^\s()&|=!<>"]+))/gy;
  let at = 0;
  while (body.slice(at).trim() !== '') {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m) throw invalid(pattern);
    at = re.lastIndex;
    if (m[1]) tokens.push({ kind: 'op', text: m[1] });
    else if (m[2]) tokens.push({ kind: 'selector', text: m[2] });
    else if (m[3] !== undefined)
      tokens.push({ kind: 'value', text: m[3].replace(/\\(.)/g, '$1'), quoted: true });
    else tokens.push({ kind: 'word', text: m[4]! });
  }
  return tokens;
}

function compileJsonPattern(pattern: string): MessagePredicate {
  if (!pattern.endsWith('}')) throw invalid(pattern);
  const tokens = tokenize(pattern.slice(1, -1), pattern);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos++];
    if (!t) throw invalid(pattern);
    return t;
  };
  const parseOr = (): Node => {
    let left = parseAnd();
    while (peek()?.text === '||') {
      pos++;
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): Node => {
    let left = parseTerm();
    while (peek()?.text === '&&') {
      pos++;
      left = { kind: 'and', left, right: parseTerm() };
    }
    return left;
  };
  const parseTerm = (): Node => {
    const t = next();
    if (t.text === '(') {
      const inner = parseOr();
      if (next().text !== ')') throw invalid(pattern);
      return inner;
    }
    if (t.kind !== 'selector') throw invalid(pattern);
    const path = t.text
      .slice(1)
      .split(/\.|\[|\]/)
      .filter((p) => p !== '');
    const op = next();
    if (op.kind === 'word') {
      const words = `${op.text} ${next().text}`.toUpperCase();
      const checks: Record<string, 'null' | 'not-exists' | 'true' | 'false'> = {
        'IS NULL': 'null',
        'NOT EXISTS': 'not-exists',
        'IS TRUE': 'true',
        'IS FALSE': 'false',
      };
      const check = checks[words];
      if (!check) throw invalid(pattern);
      return { kind: 'check', path, check };
    }
    if (op.kind !== 'op' || !['=', '!=', '<', '<=', '>', '>='].includes(op.text)) throw invalid(pattern);
    const value = next();
    if (value.kind !== 'value' && value.kind !== 'word') throw invalid(pattern);
    return { kind: 'compare', path, op: op.text, value };
  };
  const tree = parseOr();
  if (pos !== tokens.length) throw invalid(pattern);
  return (message) => {
    let doc: unknown;
    try {
      doc = JSON.parse(message);
    } catch {
      return false;
    }
    return evaluate(tree, doc);
  };
}

const MISSING = Symbol('missing');

function select(doc: unknown, path: string[]): unknown {
  let cur: unknown = doc;
  for (const part of path) {
    if (cur === null || typeof cur !== 'object') return MISSING;
    const container = cur as Record<string, unknown>;
    if (!(part in container)) return MISSING;
    cur = container[part];
  }
  return cur;
}

function wildcard(expected: string): RegExp {
  return new RegExp(
    `^${expected
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

function evaluate(node: Node, doc: unknown): boolean {
  if (node.kind === 'and') return evaluate(node.left, doc) && evaluate(node.right, doc);
  if (node.kind === 'or') return evaluate(node.left, doc) || evaluate(node.right, doc);
  const actual = select(doc, node.path);
  if (node.kind === 'check') {
    if (node.check === 'not-exists') return actual === MISSING;
    if (node.check === 'null') return actual === null;
    return actual === (node.check === 'true');
  }
  if (actual === MISSING) return false;
  const { op, value } = node;
  const number = Number(value.text);
  if (!value.quoted && value.text !== '' && Number.isFinite(number) && typeof actual === 'number') {
    switch (op) {
      case '=':
        return actual === number;
      case '!=':
        return actual !== number;
      case '<':
        return actual < number;
      case '<=':
        return actual <= number;
      case '>':
        return actual > number;
      default:
        return actual >= number;
    }
  }
  if (op !== '=' && op !== '!=') return false;
  const text =
    actual === null ? 'null' : typeof actual === 'object' ? JSON.stringify(actual) : String(actual);
  const equal = wildcard(value.text).test(text);
  return op === '=' ? equal : !equal;
}
