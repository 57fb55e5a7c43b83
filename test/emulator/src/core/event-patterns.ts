/**
 * The content-filtering language EventBridge event patterns and SNS
 * subscription filter policies share (EventBridge User Guide, "Content
 * filtering in event patterns"; SNS Developer Guide, "Subscription filter
 * policies"): exact values, `prefix`, `suffix`, `equals-ignore-case`,
 * `anything-but`, `numeric`, `exists`, `cidr`, `wildcard` and `$or`.
 * {@link patternProblem} validates a pattern, {@link matchesPattern} matches
 * a JSON value against it.
 */
import { isIP } from 'node:net';

/** Where a pattern is used: the rules differ slightly (SNS attribute policies are flat). */
export type PatternDialect = 'eventbridge' | 'sns-attributes' | 'sns-body';

type Json = unknown;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const NUMERIC_OPERATORS = new Set(['<', '<=', '=', '>', '>=']);

function numericProblem(spec: unknown): string | undefined {
  if (!Array.isArray(spec) || spec.length === 0 || spec.length % 2 !== 0 || spec.length > 4)
    return 'Value of numeric must be an array of operator and number pairs';
  for (let i = 0; i < spec.length; i += 2) {
    if (typeof spec[i] !== 'string' || !NUMERIC_OPERATORS.has(spec[i] as string))
      return `Unrecognized numeric range operator: ${String(spec[i])}`;
    if (typeof spec[i + 1] !== 'number') return `Value of ${String(spec[i])} must be numeric`;
  }
  if (spec.length === 4) {
    if (!['>', '>='].includes(spec[0] as string) || !['<', '<='].includes(spec[2] as string))
      return 'Bad numeric range operator';
    if ((spec[3] as number) <= (spec[1] as number)) return 'Bottom must be less than top';
  }
  return undefined;
}

function cidrProblem(spec: unknown): string | undefined {
  if (typeof spec !== 'string' || !parseCidr(spec)) return `Malformed CIDR, one '/' required`;
  return undefined;
}

/** Why one condition of a leaf array is not valid, or undefined. */
function conditionProblem(condition: unknown): string | undefined {
  if (condition === null || ['string', 'number', 'boolean'].includes(typeof condition)) return undefined;
  if (!isObject(condition)) return 'Match value must be String, number, true, false, or null';
  const keys = Object.keys(condition);
  if (keys.length !== 1) return 'Match type objects must have exactly one key';
  const [type] = keys as [string];
  const spec = condition[type];
  switch (type) {
    case 'prefix':
    case 'suffix':
      if (typeof spec === 'string') return undefined;
      if (isObject(spec) && typeof spec['equals-ignore-case'] === 'string' && Object.keys(spec).length === 1)
        return undefined;
      return `${type} match pattern must be a string`;
    case 'equals-ignore-case':
    case 'wildcard':
      return typeof spec === 'string' ? undefined : `${type} match pattern must be a string`;
    case 'exists':
      return typeof spec === 'boolean' ? undefined : 'exists match pattern must be either true or false.';
    case 'numeric':
      return numericProblem(spec);
    case 'cidr':
      return cidrProblem(spec);
    case 'anything-but': {
      if (typeof spec === 'string' || typeof spec === 'number') return undefined;
      if (Array.isArray(spec)) {
        if (!spec.length) return 'Empty arrays are not allowed';
        return spec.every((v) => typeof v === 'string' || typeof v === 'number')
          ? undefined
          : 'Inside anything but list, start|null|boolean is not supported.';
      }
      if (isObject(spec) && Object.keys(spec).length === 1) {
        const [inner] = Object.keys(spec) as [string];
        if (['prefix', 'suffix', 'equals-ignore-case', 'wildcard'].includes(inner))
          return typeof spec[inner] === 'string' || Array.isArray(spec[inner])
            ? undefined
            : `Value of anything-but ${inner} must be a string`;
      }
      return 'Value of anything-but must be an array or single string/number value.';
    }
    default:
      return `Unrecognized match type ${type}`;
  }
}

/** Why `pattern` is not a valid pattern of the dialect, or undefined when it is. */
export function patternProblem(pattern: unknown, dialect: PatternDialect): string | undefined {
  if (!isObject(pattern)) return 'Filter is not an object';
  let combinations = 1;
  const walk = (node: Record<string, unknown>, depth: number): string | undefined => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$or') {
        if (!Array.isArray(value) || value.length < 2 || !value.every(isObject))
          return '$or must be an array of at least two objects';
        for (const sub of value) {
          const problem = walk(sub as Record<string, unknown>, depth);
          if (problem) return problem;
        }
        continue;
      }
      if (Array.isArray(value)) {
        if (!value.length) return 'Empty arrays are not allowed';
        for (const condition of value) {
          const problem = conditionProblem(condition);
          if (problem) return problem;
        }
        combinations *= value.length;
      } else if (isObject(value)) {
        if (dialect === 'sns-attributes')
          return 'Filter policy scope MessageAttributes does not support nested filter policy';
        const problem = walk(value, depth + 1);
        if (problem) return problem;
      } else {
        return `"${key}" must be an object or an array`;
      }
    }
    return undefined;
  };
  const problem = walk(pattern, 1);
  if (problem) return problem;
  if (dialect !== 'eventbridge') {
    // SNS Developer Guide, "Filter policy constraints".
    if (Object.keys(pattern).length > 5) return 'Filter policy can not have more than 5 keys';
    if (combinations > 150) return 'Filter policy is too complex';
  }
  return undefined;
}

function parseIp(text: string): { bits: number; value: bigint } | undefined {
  const kind = isIP(text);
  if (kind === 4) {
    return {
      bits: 32,
      value: text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n),
    };
  }
  if (kind === 6) {
    const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
    const left = head ? head.split(':') : [];
    const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
    const groups =
      tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
    if (groups.length !== 8 || groups.some((g) => g.includes('.'))) return undefined;
    return { bits: 128, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
  }
  return undefined;
}

function parseCidr(text: string): { bits: number; value: bigint; prefix: number } | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(text.slice(0, slash));
  const prefix = Number(text.slice(slash + 1));
  if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > ip.bits) return undefined;
  return { ...ip, prefix };
}

function inCidr(cidr: string, value: unknown): boolean {
  const range = parseCidr(cidr);
  const ip = typeof value === 'string' ? parseIp(value) : undefined;
  if (!range || !ip || ip.bits !== range.bits) return false;
  const shift = BigInt(range.bits - range.prefix);
  return ip.value >> shift === range.value >> shift;
}

function wildcardMatches(pattern: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const re = pattern
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`, 's').test(value);
}

function numericMatches(spec: unknown[], value: unknown): boolean {
  if (typeof value !== 'number') return false;
  for (let i = 0; i < spec.length; i += 2) {
    const bound = spec[i + 1] as number;
    const ok = {
      '<': value < bound,
      '<=': value <= bound,
      '=': value === bound,
      '>': value > bound,
      '>=': value >= bound,
    }[spec[i] as '<'];
    if (!ok) return false;
  }
  return true;
}

function stringTest(spec: unknown, value: unknown, test: (a: string, b: string) => boolean): boolean {
  if (typeof value !== 'string') return false;
  if (typeof spec === 'string') return test(value, spec);
  if (isObject(spec) && typeof spec['equals-ignore-case'] === 'string')
    return test(value.toLowerCase(), spec['equals-ignore-case'].toLowerCase());
  return false;
}

function conditionMatches(condition: unknown, value: Json): boolean {
  if (!isObject(condition)) return condition === value;
  const [type] = Object.keys(condition) as [string];
  const spec = condition[type];
  switch (type) {
    case 'prefix':
      return stringTest(spec, value, (v, p) => v.startsWith(p));
    case 'suffix':
      return stringTest(spec, value, (v, s) => v.endsWith(s));
    case 'equals-ignore-case':
      return typeof value === 'string' && value.toLowerCase() === String(spec).toLowerCase();
    case 'wildcard':
      return wildcardMatches(String(spec), value);
    case 'numeric':
      return numericMatches(spec as unknown[], value);
    case 'cidr':
      return inCidr(String(spec), value);
    case 'anything-but': {
      if (typeof value !== 'string' && typeof value !== 'number') return false;
      if (Array.isArray(spec)) return !spec.includes(value);
      if (isObject(spec)) {
        const [inner] = Object.keys(spec) as [string];
        const values = Array.isArray(spec[inner]) ? (spec[inner] as unknown[]) : [spec[inner]];
        return !values.some((v) => conditionMatches({ [inner]: v }, value));
      }
      return spec !== value;
    }
    default:
      return false;
  }
}

/** A leaf: the field matches when any of its values matches any condition. */
function leafMatches(conditions: unknown[], present: boolean, field: Json): boolean {
  const values = Array.isArray(field) ? field : [field];
  return conditions.some((c) => {
    if (isObject(c) && 'exists' in c) return c.exists === true ? present : !present;
    if (!present) return false;
    return values.some((v) => conditionMatches(c, v));
  });
}

/** True when `value` (an event, a message body, or message attributes) matches the pattern. */
export function matchesPattern(pattern: Record<string, unknown>, value: Json): boolean {
  for (const [key, rule] of Object.entries(pattern)) {
    if (key === '$or') {
      if (!(rule as Record<string, unknown>[]).some((sub) => matchesPattern(sub, value))) return false;
      continue;
    }
    const present = isObject(value) && key in value && value[key] !== undefined;
    const field = present ? (value as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(rule)) {
      if (!leafMatches(rule, present, field)) return false;
    } else if (isObject(rule)) {
      // A nested pattern over an array of objects matches when one element does.
      const candidates = Array.isArray(field) ? field : [field];
      if (!candidates.some((c) => matchesPattern(rule, c))) return false;
    }
  }
  return true;
}
