/**
 * JSONPath input and output processing of a state, as the States Language
 * describes it: reference paths (`$`, `$.a.b`, `$.list[0]`, `$['key']`, and
 * `$$.` into the context object), payload templates (`Parameters`,
 * `ResultSelector`: a key ending in `.$` takes the value at its path), and
 * `ResultPath` (where a result goes in the state's input). A path that
 * selects nothing is the error `States.Runtime`, as in Step Functions.
 */

/** An error raised by a state, with its name (`States.Runtime`, `Lambda.Unknown`, a function's errorType). */
export class StatesError extends Error {
  constructor(
    readonly error: string,
    override readonly cause: string,
  ) {
    super(`${error}: ${cause}`);
  }
}

type Step = string | number;

function parsePath(path: string): { root: '$' | '$$'; steps: Step[] } {
  const root = path.startsWith('$$') ? '$$' : '$';
  if (!path.startsWith('$'))
    throw new StatesError('States.Runtime', `The path '${path}' does not start with '$'.`);
  const steps: Step[] = [];
  let rest = path.slice(root.length);
  while (rest.length) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([^.[\]]+)/.exec(rest))) steps.push(m[1]!);
    else if ((m = /^\[(\d+)\]/.exec(rest))) steps.push(Number(m[1]));
    else if ((m = /^\['([^']*)'\]/.exec(rest))) steps.push(m[1]!);
    else
      throw new StatesError(
        'States.Runtime',
        `The path '${path}' is not a reference path the emulator reads.`,
      );
    rest = rest.slice(m[0].length);
  }
  return { root, steps };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value at a path in the input (or the context object for `$$`). */
export function select(path: string, input: unknown, context: unknown): unknown {
  const { root, steps } = parsePath(path);
  let value: unknown = root === '$$' ? context : input;
  for (const step of steps) {
    const next =
      typeof step === 'number'
        ? Array.isArray(value)
          ? value[step]
          : undefined
        : isObject(value)
          ? value[step]
          : undefined;
    if (next === undefined)
      throw new StatesError(
        'States.Runtime',
        `The JSONPath '${path}' could not be found in the input '${JSON.stringify(root === '$$' ? context : input)}'`,
      );
    value = next;
  }
  return value;
}

/** `InputPath` / `OutputPath`: `null` gives `{}`, absent is `$`. */
export function applyPath(path: string | null | undefined, input: unknown, context: unknown): unknown {
  if (path === null) return {};
  if (path === undefined || path === '$') return input;
  return select(path, input, context);
}

/** A payload template (`Parameters`, `ResultSelector`) filled from the input. */
export function fillTemplate(template: unknown, input: unknown, context: unknown): unknown {
  if (Array.isArray(template)) return template.map((v) => fillTemplate(v, input, context));
  if (!isObject(template)) return template;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$')) {
      if (typeof value !== 'string')
        throw new StatesError('States.Runtime', `The value of the field '${key}' must be a path string.`);
      if (!value.startsWith('$'))
        throw new StatesError(
          'States.Runtime',
          `The emulator does not evaluate intrinsic functions ('${value}' in '${key}').`,
        );
      out[key.slice(0, -2)] = select(value, input, context);
    } else out[key] = fillTemplate(value, input, context);
  }
  return out;
}

/** `ResultPath`: the result replaces the input (`$`, absent), is dropped (`null`), or is put at the path. */
export function applyResultPath(path: string | null | undefined, input: unknown, result: unknown): unknown {
  if (path === null) return input;
  if (path === undefined || path === '$') return result;
  const { root, steps } = parsePath(path);
  if (root === '$$' || steps.some((s) => typeof s === 'number'))
    throw new StatesError('States.Runtime', `The ResultPath '${path}' must name object fields under '$'.`);
  const out: Record<string, unknown> = isObject(input) ? structuredClone(input) : {};
  let target = out;
  for (const step of steps.slice(0, -1) as string[]) {
    if (!isObject(target[step])) target[step] = {};
    target = target[step] as Record<string, unknown>;
  }
  target[steps[steps.length - 1] as string] = result;
  return out;
}
