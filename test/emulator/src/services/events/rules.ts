/**
 * What a rule may say: its name, event pattern (the shared content-filtering
 * language) and schedule expression (`rate(...)` / `cron(...)`), as PutRule
 * and TestEventPattern check them.
 */
import { AwsError } from '../../core/errors';
import { patternProblem } from '../../core/event-patterns';

export const RULE_STATES = new Set(['ENABLED', 'DISABLED', 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS']);

export function validationError(message: string): AwsError {
  return new AwsError('ValidationException', message);
}

/** The 1-validation-error message of a member that breaks its pattern. */
export function patternViolation(value: string, member: string, pattern: string): AwsError {
  return validationError(
    `1 validation error detected: Value '${value}' at '${member}' failed to satisfy constraint: Member must satisfy regular expression pattern: ${pattern}`,
  );
}

export function checkRuleName(name: unknown): string {
  if (typeof name !== 'string' || name === '')
    throw validationError(
      "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null",
    );
  if (name.length > 64)
    throw validationError(
      `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 64`,
    );
  if (!/^[.\-_A-Za-z0-9]+$/.test(name)) throw patternViolation(name, 'name', '[\\.\\-_A-Za-z0-9]+');
  return name;
}

/** The pattern as an object, or `InvalidEventPatternException` naming why not. */
export function parseEventPattern(text: string): Record<string, unknown> {
  let pattern: unknown;
  try {
    pattern = JSON.parse(text);
  } catch {
    throw new AwsError('InvalidEventPatternException', 'Event pattern is not valid. Reason: Invalid JSON');
  }
  const problem = patternProblem(pattern, 'eventbridge');
  if (problem)
    throw new AwsError('InvalidEventPatternException', `Event pattern is not valid. Reason: ${problem}`);
  return pattern as Record<string, unknown>;
}

const CRON_FIELD = /^[0-9A-Za-z,\-*/?#L]+$/;

/** `rate(<n> <unit>)` (singular unit for 1, plural otherwise) or `cron(<6 fields>)`. */
export function checkScheduleExpression(expression: string): void {
  const invalid = () => validationError('Parameter ScheduleExpression is not valid.');
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate) {
    const n = Number(rate[1]);
    const plural = rate[2]!.endsWith('s');
    if (n < 1 || (n === 1) === plural) throw invalid();
    return;
  }
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (!cron) throw invalid();
  const fields = cron[1]!.trim().split(/\s+/);
  if (fields.length !== 6 || !fields.every((f) => CRON_FIELD.test(f))) throw invalid();
  // One of day-of-month and day-of-week must be "?", not both.
  if ((fields[2] === '?') === (fields[4] === '?')) throw invalid();
}
