/** Function names and ARNs as Lambda accepts and writes them. */

export interface FunctionRef {
  /** The function's name (from a name, a partial ARN or an ARN). */
  name: string;
  /** A version or alias the reference carried. */
  qualifier?: string;
  region?: string;
  account?: string;
}

const FUNCTION_REF =
  /^(?:arn:(?:aws[a-zA-Z-]*)?:lambda:([a-z0-9-]+):)?(?:(\d{12}):)?(?:function:)?([a-zA-Z0-9-_.]+)(?::(\$LATEST|[a-zA-Z0-9-_]+))?$/;

/** A FunctionName as Lambda takes it: a name, `<account>:function:<name>` or an ARN, with an optional qualifier. */
export function parseFunctionRef(value: string): FunctionRef | undefined {
  const m = FUNCTION_REF.exec(value);
  if (!m) return undefined;
  return {
    name: m[3]!,
    ...(m[4] ? { qualifier: m[4] } : {}),
    ...(m[1] ? { region: m[1] } : {}),
    ...(m[2] ? { account: m[2] } : {}),
  };
}

export function functionArn(
  partition: string,
  region: string,
  account: string,
  name: string,
  qualifier?: string,
): string {
  return `arn:${partition}:lambda:${region}:${account}:function:${name}${qualifier ? `:${qualifier}` : ''}`;
}

/** The function name of a FunctionName value (name or ARN); the value itself when it cannot be parsed. */
export function functionNameOf(value: string): string {
  return parseFunctionRef(value)?.name ?? value;
}

/** A FunctionName value without its qualifier. */
export function unqualified(value: string): string {
  const ref = parseFunctionRef(value);
  if (!ref?.qualifier) return value;
  return value.slice(0, value.length - ref.qualifier.length - 1);
}
