/**
 * An Amazon States Language definition, parsed and checked as
 * CreateStateMachine checks it (InvalidDefinition with the reference's error
 * kinds: INVALID_JSON_DESCRIPTION, SCHEMA_VALIDATION_FAILED,
 * MISSING_TRANSITION_TARGET). The emulator runs Task (a Lambda function ARN or
 * `arn:aws:states:::lambda:invoke`), Pass, Wait, Succeed and Fail states with
 * JSONPath; a definition it could not run (other state types or task
 * resources, JSONata) is refused at create with the reason, never accepted and
 * left to fail later.
 */
import { sfnErrors } from './store';

export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate: number;
  MaxDelaySeconds?: number;
}

export interface Catcher {
  ErrorEquals: string[];
  Next: string;
  /** Where the error output goes in the state's input (default `$`; null: dropped). */
  ResultPath?: string | null;
}

export interface StateDefinition {
  Type: 'Task' | 'Pass' | 'Wait' | 'Succeed' | 'Fail';
  Next?: string;
  End?: boolean;
  InputPath?: string | null;
  OutputPath?: string | null;
  ResultPath?: string | null;
  Parameters?: unknown;
  ResultSelector?: unknown;
  Result?: unknown;
  Resource?: string;
  Retry?: Retrier[];
  Catch?: Catcher[];
  Seconds?: number;
  SecondsPath?: string;
  Timestamp?: string;
  TimestampPath?: string;
  Error?: string;
  Cause?: string;
}

export interface Definition {
  StartAt: string;
  States: Record<string, StateDefinition>;
}

/** The integration a Task's `Resource` names. */
export const LAMBDA_INVOKE = /^arn:aws[a-z-]*:states:::lambda:invoke$/;
export const LAMBDA_FUNCTION =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[a-zA-Z0-9-_]+(:[a-zA-Z0-9-_$]+)?$/;

const RUNNABLE = ['Task', 'Pass', 'Wait', 'Succeed', 'Fail'];
const ASL_TYPES = [...RUNNABLE, 'Choice', 'Parallel', 'Map'];
const TERMINAL = ['Succeed', 'Fail'];

function schemaError(message: string): never {
  throw sfnErrors.invalidDefinition(`SCHEMA_VALIDATION_FAILED: ${message}`);
}

function unsupported(message: string): never {
  throw sfnErrors.invalidDefinition(
    `${message} (a simplification of the emulator: see its README, Step Functions)`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkErrorEquals(list: unknown, at: string): void {
  if (!Array.isArray(list) || !list.length || !list.every((e) => typeof e === 'string'))
    schemaError(`The field 'ErrorEquals' should be a non-empty array of strings at ${at}`);
  if (list.includes('States.ALL') && list.length > 1)
    schemaError(`'States.ALL' must appear alone in 'ErrorEquals' at ${at}`);
}

function checkRetry(list: unknown, at: string): Retrier[] {
  if (!Array.isArray(list)) schemaError(`The field 'Retry' should be an array at ${at}`);
  return list.map((raw, i) => {
    const here = `${at}/Retry[${i}]`;
    if (!isObject(raw)) schemaError(`Expected an object at ${here}`);
    checkErrorEquals(raw.ErrorEquals, here);
    const interval = raw.IntervalSeconds ?? 1;
    const attempts = raw.MaxAttempts ?? 3;
    const backoff = raw.BackoffRate ?? 2;
    if (!Number.isInteger(interval) || (interval as number) < 1 || (interval as number) > 99999999)
      schemaError(
        `The value of the field 'IntervalSeconds' must be an integer between 1 and 99999999 at ${here}`,
      );
    if (!Number.isInteger(attempts) || (attempts as number) < 0 || (attempts as number) > 99999999)
      schemaError(
        `The value of the field 'MaxAttempts' must be an integer between 0 and 99999999 at ${here}`,
      );
    if (typeof backoff !== 'number' || backoff < 1)
      schemaError(
        `The value of the field 'BackoffRate' must be a number greater than or equal to 1.0 at ${here}`,
      );
    const maxDelay = raw.MaxDelaySeconds;
    if (maxDelay !== undefined && (!Number.isInteger(maxDelay) || (maxDelay as number) < 1))
      schemaError(`The value of the field 'MaxDelaySeconds' must be a positive integer at ${here}`);
    return {
      ErrorEquals: raw.ErrorEquals as string[],
      IntervalSeconds: interval as number,
      MaxAttempts: attempts as number,
      BackoffRate: backoff,
      ...(maxDelay !== undefined ? { MaxDelaySeconds: maxDelay as number } : {}),
    };
  });
}

function checkCatch(list: unknown, at: string): Catcher[] {
  if (!Array.isArray(list)) schemaError(`The field 'Catch' should be an array at ${at}`);
  return list.map((raw, i) => {
    const here = `${at}/Catch[${i}]`;
    if (!isObject(raw)) schemaError(`Expected an object at ${here}`);
    checkErrorEquals(raw.ErrorEquals, here);
    if (typeof raw.Next !== 'string') schemaError(`The field 'Next' is required but was missing at ${here}`);
    return raw as unknown as Catcher;
  });
}

function checkState(name: string, raw: unknown): StateDefinition {
  const at = `/States/${name}`;
  if (!isObject(raw)) schemaError(`Expected an object at ${at}`);
  const type = raw.Type;
  if (typeof type !== 'string') schemaError(`The field 'Type' is required but was missing at ${at}`);
  if (!ASL_TYPES.includes(type))
    schemaError(`The field 'Type' should have one of these values: [${ASL_TYPES.join(', ')}] at ${at}/Type`);
  if (!RUNNABLE.includes(type)) unsupported(`${type} states are not run by the emulator (${at})`);
  if (!TERMINAL.includes(type)) {
    const hasNext = typeof raw.Next === 'string';
    if (hasNext === (raw.End === true)) schemaError(`Exactly one of 'Next' or 'End' is required at ${at}`);
  }
  if (type === 'Task') {
    const resource = raw.Resource;
    if (typeof resource !== 'string')
      schemaError(`The field 'Resource' is required but was missing at ${at}`);
    if (!LAMBDA_FUNCTION.test(resource) && !LAMBDA_INVOKE.test(resource))
      unsupported(
        `the emulator runs Task states on a Lambda function ARN or arn:aws:states:::lambda:invoke only, not ${resource} (${at}/Resource)`,
      );
  }
  if (type === 'Wait') {
    const ways = ['Seconds', 'SecondsPath', 'Timestamp', 'TimestampPath'].filter((k) => raw[k] !== undefined);
    if (ways.length !== 1)
      schemaError(
        `Exactly one of 'Seconds', 'SecondsPath', 'Timestamp' or 'TimestampPath' is required at ${at}`,
      );
    if (raw.Seconds !== undefined && (!Number.isInteger(raw.Seconds) || (raw.Seconds as number) < 0))
      schemaError(`The value of the field 'Seconds' must be a non-negative integer at ${at}`);
  }
  const state = { ...raw } as unknown as StateDefinition;
  if (raw.Retry !== undefined) {
    if (type !== 'Task') schemaError(`Field 'Retry' is not supported in ${type} states at ${at}`);
    state.Retry = checkRetry(raw.Retry, at);
  }
  if (raw.Catch !== undefined) {
    if (type !== 'Task') schemaError(`Field 'Catch' is not supported in ${type} states at ${at}`);
    state.Catch = checkCatch(raw.Catch, at);
  }
  return state;
}

/** Parses and checks a definition: InvalidDefinition with what is wrong and where. */
export function parseDefinition(text: unknown): Definition {
  if (typeof text !== 'string')
    throw sfnErrors.validation(
      "Value null at 'definition' failed to satisfy constraint: Member must not be null",
    );
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (err) {
    throw sfnErrors.invalidDefinition(`INVALID_JSON_DESCRIPTION: ${(err as Error).message}`);
  }
  if (!isObject(raw)) schemaError('Expected an object at /');
  if (raw.QueryLanguage !== undefined && raw.QueryLanguage !== 'JSONPath')
    unsupported(`QueryLanguage ${String(raw.QueryLanguage)} is not run by the emulator (JSONPath only)`);
  if (typeof raw.StartAt !== 'string') schemaError("The field 'StartAt' is required but was missing at /");
  if (!isObject(raw.States) || !Object.keys(raw.States).length)
    schemaError("The field 'States' is required but was missing at /");
  const states: Record<string, StateDefinition> = {};
  for (const [name, state] of Object.entries(raw.States)) states[name] = checkState(name, state);
  const targets: Array<[string, string]> = [[raw.StartAt, '/StartAt']];
  for (const [name, state] of Object.entries(states)) {
    if (state.Next) targets.push([state.Next, `/States/${name}/Next`]);
    state.Catch?.forEach((c, i) => targets.push([c.Next, `/States/${name}/Catch[${i}]/Next`]));
  }
  for (const [target, at] of targets)
    if (!(target in states))
      throw sfnErrors.invalidDefinition(
        `MISSING_TRANSITION_TARGET: Missing 'Next' target: ${target} at ${at}`,
      );
  return { StartAt: raw.StartAt, States: states };
}
