/**
 * The naming rules AWS enforces on names a user types or an app chooses, checked
 * before anything is called, so a bad name fails with the rule instead of a
 * service error (or, worse, a state record under a name CloudFormation would
 * never accept).
 */
import { ValidationError } from '../util/errors';

/** `us-east-1`, `us-gov-west-1`, `eusc-de-east-1`: hyphen-separated lowercase words, then a number. */
const REGION_NAME = /^[a-z]{2,4}(?:-[a-z]+)+-\d{1,2}$/;

/** CloudFormation: letters, digits and hyphens, starting with a letter, at most 128 characters. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;
export const MAX_STACK_NAME_LENGTH = 128;

/** Refuses a string that cannot be an AWS region name; `where` says where it came from. */
export function assertRegionName(region: string, where: string): void {
  if (REGION_NAME.test(region)) return;
  throw new ValidationError(
    `Invalid region ${JSON.stringify(region)} (${where}): a region name is lowercase words and a number joined by hyphens, such as us-east-1 or eu-central-2.`,
    {
      code: 'INVALID_REGION',
      remedy: "Pass a valid region with --region, or fix AWS_REGION / the profile's region.",
    },
  );
}

/** The reason a stack name breaks CloudFormation's rule, or undefined when it is valid. */
export function stackNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_STACK_NAME_LENGTH)
    return `it is ${name.length} characters long (at most ${MAX_STACK_NAME_LENGTH})`;
  if (!/^[A-Za-z]/.test(name)) return 'it does not start with a letter';
  if (!STACK_NAME.test(name)) {
    const bad = [...new Set([...name].filter((c) => !/[A-Za-z0-9-]/.test(c)))];
    return `it contains ${bad.map((c) => JSON.stringify(c)).join(', ')}`;
  }
  return undefined;
}

/** Refuses a stack name CloudFormation would reject, naming the rule it breaks. */
export function assertStackName(name: string, where: string): void {
  const problem = stackNameProblem(name);
  if (!problem) return;
  throw new ValidationError(
    `Invalid stack name ${JSON.stringify(name)} (${where}): ${problem}. A stack name has only letters, digits and hyphens, starts with a letter and has at most ${MAX_STACK_NAME_LENGTH} characters.`,
    {
      code: 'INVALID_STACK_NAME',
      remedy: 'Rename the stack in the app (the stackName prop of the Stack).',
    },
  );
}
