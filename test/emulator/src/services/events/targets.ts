/**
 * Rule targets: what PutTargets accepts (ids, ARNs, one of Input / InputPath
 * / InputTransformer, retry policy, dead-letter queue, SQS parameters), at
 * most five per rule, and what a target receives for an event (the event,
 * a constant, a JSONPath of it, or an input template filled from it).
 */
import { AwsError } from '../../core/errors';
import type { Rule, Target } from './store';
import { ruleArn } from './store';
import { patternViolation, validationError } from './rules';

/** EventBridge quota: targets per rule. */
export const MAX_TARGETS_PER_RULE = 5;

const ID = /^[.\-_A-Za-z0-9]{1,64}$/;
const ARN = /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{0,12}:.+$/;
const JSON_PATH = /^\$(\.[A-Za-z0-9_@-]+|\[\d+\]|\['[^']+'\])*$/;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Checks one target of PutTargets (`index` is its 1-based position, for the error). */
export function checkTarget(target: Record<string, unknown>, index: number): Target {
  const id = target.Id;
  if (typeof id !== 'string' || !ID.test(id))
    throw patternViolation(String(id), `targets.${index}.member.id`, '[\\.\\-_A-Za-z0-9]+');
  const arn = target.Arn;
  if (typeof arn !== 'string' || arn.length > 1600 || !ARN.test(arn))
    throw validationError(
      `Parameter ${String(arn)} is not valid. Reason: Provided Arn is not in correct format.`,
    );
  const inputs = ['Input', 'InputPath', 'InputTransformer'].filter((k) => target[k] !== undefined);
  if (inputs.length > 1)
    throw validationError('Only one of Input, InputPath, or InputTransformer must be provided.');
  if (typeof target.Input === 'string' && !isJson(target.Input))
    throw validationError(
      `Parameter Input is not valid. Reason: Input is not a valid JSON text for target ${id}.`,
    );
  if (
    target.InputPath !== undefined &&
    (typeof target.InputPath !== 'string' || !JSON_PATH.test(target.InputPath))
  )
    throw validationError(`Parameter InputPath is not valid for target ${id}.`);
  const transformer = target.InputTransformer as
    { InputPathsMap?: Record<string, unknown>; InputTemplate?: unknown } | undefined;
  if (transformer !== undefined) {
    if (typeof transformer.InputTemplate !== 'string' || transformer.InputTemplate === '')
      throw validationError(`InputTemplate for target ${id} must be specified.`);
    const paths = Object.entries(transformer.InputPathsMap ?? {});
    if (paths.length > 100)
      throw validationError(`InputPathsMap for target ${id} has more than 100 entries.`);
    for (const [name, path] of paths) {
      if (!/^[A-Za-z0-9_-]+$/.test(name) || name.startsWith('aws.'))
        throw validationError(`InputPathsMap key ${name} of target ${id} is not valid.`);
      if (typeof path !== 'string' || !JSON_PATH.test(path))
        throw validationError(
          `InputPathsMap value ${String(path)} of target ${id} is not a valid JSON path.`,
        );
    }
  }
  const retry = target.RetryPolicy as
    { MaximumRetryAttempts?: unknown; MaximumEventAgeInSeconds?: unknown } | undefined;
  if (retry?.MaximumRetryAttempts !== undefined) {
    const n = retry.MaximumRetryAttempts;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 185)
      throw validationError(
        `1 validation error detected: Value '${String(n)}' at 'targets.${index}.member.retryPolicy.maximumRetryAttempts' failed to satisfy constraint: Member must have value less than or equal to 185`,
      );
  }
  if (retry?.MaximumEventAgeInSeconds !== undefined) {
    const n = retry.MaximumEventAgeInSeconds;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 60 || n > 86_400)
      throw validationError(
        `1 validation error detected: Value '${String(n)}' at 'targets.${index}.member.retryPolicy.maximumEventAgeInSeconds' failed to satisfy constraint: Member must have value between 60 and 86400`,
      );
  }
  const dlq = (target.DeadLetterConfig as { Arn?: unknown } | undefined)?.Arn;
  if (dlq !== undefined && (typeof dlq !== 'string' || !/^arn:aws[a-z-]*:sqs:/.test(dlq)))
    throw validationError(
      `Parameter DeadLetterConfig.Arn of target ${id} is not valid. Reason: it must be an SQS queue ARN.`,
    );
  if (
    /:sqs:.*\.fifo$/.test(arn) &&
    !(target.SqsParameters as { MessageGroupId?: unknown } | undefined)?.MessageGroupId
  )
    throw validationError(`Parameter(s) SqsParameters must be specified for target: ${id}.`);
  return target as Target;
}

/** Puts targets on a rule (a known id is replaced), within the quota. */
export function putTargets(rule: Rule, targets: Target[]): void {
  const ids = new Set(rule.targets.map((t) => t.Id));
  const added = targets.filter((t) => !ids.has(t.Id)).length;
  if (rule.targets.length + added > MAX_TARGETS_PER_RULE)
    throw new AwsError(
      'LimitExceededException',
      'The requested resource exceeds the maximum number allowed.',
    );
  for (const t of targets) {
    const i = rule.targets.findIndex((x) => x.Id === t.Id);
    if (i >= 0) rule.targets[i] = t;
    else rule.targets.push(t);
  }
}

/** `$.a.b[0]['c']` of a value (undefined when absent). */
export function jsonPath(value: unknown, path: string): unknown {
  let node = value;
  const steps = path.slice(1).match(/\.[^.[]+|\[\d+\]|\['[^']+'\]/g) ?? [];
  for (const step of steps) {
    const k = step.startsWith('.')
      ? step.slice(1)
      : step.startsWith("['")
        ? step.slice(2, -2)
        : Number(step.slice(1, -1));
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[k];
  }
  return node;
}

/** Fills an input template: `<name>` inside a JSON string gets the text, elsewhere the JSON value. */
function fillTemplate(template: string, values: Record<string, unknown>): string {
  const jsonTemplate = /^\s*[{["]/.test(template);
  let out = '';
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '"' && template[i - 1] !== '\\') inString = !inString;
    const m = c === '<' ? /^<([A-Za-z0-9_.-]+)>/.exec(template.slice(i)) : null;
    if (!m || !(m[1]! in values)) {
      out += c;
      continue;
    }
    const value = values[m[1]!];
    if (!jsonTemplate) out += typeof value === 'string' ? value : JSON.stringify(value ?? null);
    else if (inString)
      out += (
        typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(JSON.stringify(value ?? null))
      ).slice(1, -1);
    else out += JSON.stringify(value ?? null);
    i += m[0].length - 1;
  }
  return out;
}

/** What the target receives for the event: the event, its constant input, a part of it, or a filled template. */
export function inputFor(target: Target, event: Record<string, unknown>, rule: Rule): string {
  if (typeof target.Input === 'string') return target.Input;
  if (typeof target.InputPath === 'string') return JSON.stringify(jsonPath(event, target.InputPath) ?? null);
  const transformer = target.InputTransformer as
    { InputPathsMap?: Record<string, string>; InputTemplate: string } | undefined;
  if (!transformer) return JSON.stringify(event);
  const values: Record<string, unknown> = {
    'aws.events.rule-arn': ruleArn(rule),
    'aws.events.rule-name': rule.name,
    'aws.events.event.ingestion-time': event.time,
    'aws.events.event': event,
    'aws.events.event.json': event,
  };
  for (const [name, path] of Object.entries(transformer.InputPathsMap ?? {}))
    values[name] = jsonPath(event, path);
  return fillTemplate(transformer.InputTemplate, values);
}
