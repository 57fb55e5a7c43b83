/**
 * Recognising intrinsic functions and reading their arguments. Shared by the
 * resolver (which evaluates them) and the graph builder (which only needs to
 * know what they reference).
 */

/** Every intrinsic function cdkd evaluates (plus `Condition`, valid only inside Conditions). */
export const INTRINSIC_FUNCTIONS = [
  'Ref',
  'Fn::GetAtt',
  'Fn::Join',
  'Fn::Sub',
  'Fn::Select',
  'Fn::Split',
  'Fn::If',
  'Fn::Base64',
  'Fn::GetAZs',
  'Fn::FindInMap',
  'Fn::Cidr',
  'Fn::ToJsonString',
  'Fn::Length',
  'Fn::ImportValue',
  'Fn::GetStackOutput',
  'Fn::Equals',
  'Fn::And',
  'Fn::Or',
  'Fn::Not',
] as const;

export type IntrinsicName = (typeof INTRINSIC_FUNCTIONS)[number];

const KNOWN = new Set<string>(INTRINSIC_FUNCTIONS);

/** Pseudo parameters (`Ref: AWS::Region`...). */
export const PSEUDO_PARAMETERS = [
  'AWS::AccountId',
  'AWS::Region',
  'AWS::Partition',
  'AWS::URLSuffix',
  'AWS::StackName',
  'AWS::StackId',
  'AWS::NoValue',
  'AWS::NotificationARNs',
] as const;

export function isPseudoParameter(name: string): boolean {
  return (PSEUDO_PARAMETERS as readonly string[]).includes(name);
}

/**
 * The function name when `value` is an intrinsic call: an object with exactly
 * one key that is `Ref` or starts with `Fn::`. Unknown `Fn::` names are returned
 * too, so the caller can refuse them by name instead of passing them on to AWS.
 */
export function intrinsicName(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const key = keys[0];
  return key === 'Ref' || key.startsWith('Fn::') ? key : undefined;
}

export function isKnownIntrinsic(name: string): name is IntrinsicName {
  return KNOWN.has(name);
}

/** `Fn::GetAtt` arguments: `[LogicalId, Attr]` or the string `LogicalId.Attr` (attribute may be dotted). */
export function getAttArguments(arg: unknown): { logicalId: string; attribute: unknown } | undefined {
  if (typeof arg === 'string') {
    const dot = arg.indexOf('.');
    if (dot <= 0 || dot === arg.length - 1) return undefined;
    return { logicalId: arg.slice(0, dot), attribute: arg.slice(dot + 1) };
  }
  if (Array.isArray(arg) && arg.length === 2 && typeof arg[0] === 'string') {
    return { logicalId: arg[0], attribute: arg[1] };
  }
  return undefined;
}

/** One piece of an `Fn::Sub` string: literal text, or a `${Variable}` reference. */
export type SubPart = { literal: string } | { variable: string };

/**
 * Splits an `Fn::Sub` template into literal text and `${Name}` variables.
 * `${!Literal}` is the escape for a literal `${Literal}`. Returns undefined for
 * an unterminated `${`.
 */
export function parseSubString(text: string): SubPart[] | undefined {
  const parts: SubPart[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('${', i);
    if (start < 0) {
      literal += text.slice(i);
      break;
    }
    literal += text.slice(i, start);
    const end = text.indexOf('}', start + 2);
    if (end < 0) return undefined;
    const inner = text.slice(start + 2, end);
    if (inner.startsWith('!')) {
      literal += '${' + inner.slice(1) + '}';
    } else {
      if (literal) parts.push({ literal });
      literal = '';
      parts.push({ variable: inner.trim() });
    }
    i = end + 1;
  }
  if (literal) parts.push({ literal });
  return parts;
}

/** `Fn::Sub` arguments: a string, or `[string, {Var: value}]`. */
export function subArguments(arg: unknown): { text: string; variables: Record<string, unknown> } | undefined {
  if (typeof arg === 'string') return { text: arg, variables: {} };
  if (
    Array.isArray(arg) &&
    (arg.length === 1 || arg.length === 2) &&
    typeof arg[0] === 'string' &&
    (arg.length === 1 || (typeof arg[1] === 'object' && arg[1] !== null && !Array.isArray(arg[1])))
  ) {
    return { text: arg[0], variables: (arg[1] as Record<string, unknown> | undefined) ?? {} };
  }
  return undefined;
}

/** A `${Name}` / `${Name.Attr}` variable as a Ref or a GetAtt target. */
export function subVariableTarget(variable: string): { logicalId: string; attribute?: string } {
  const dot = variable.indexOf('.');
  // Pseudo parameters contain `::` but never a dot, so a dot always means GetAtt.
  if (dot > 0) return { logicalId: variable.slice(0, dot), attribute: variable.slice(dot + 1) };
  return { logicalId: variable };
}

/** `obj[key]` when `key` is the object's own property (never an inherited one like `constructor`). */
export function ownValue<T>(obj: Record<string, T> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Compact JSON of an expression for error messages, cut to a readable length. */
export function describeExpression(expression: unknown, max = 240): string {
  let text: string;
  try {
    text =
      JSON.stringify(expression, (_k, v: unknown) => (typeof v === 'symbol' ? v.toString() : v)) ??
      String(expression);
  } catch {
    text = String(expression);
  }
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
