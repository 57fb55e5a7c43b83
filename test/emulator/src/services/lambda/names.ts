/**
 * How Lambda names things: a function is addressed by its name, a partial ARN
 * (`123456789012:function:name`) or a full ARN, each optionally with
 * `:<version or alias>`; ARNs, timestamps and revision ids in Lambda's formats.
 */
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import type { CallContext } from '../../core/service';

const FUNCTION_NAME =
  /^(?:arn:(aws[a-zA-Z-]*)?:lambda:)?((?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_.]+)(?::(\$LATEST(?:\.PUBLISHED)?|[a-zA-Z0-9-_]+))?$/;
const PLAIN_NAME = /^[a-zA-Z0-9-_]{1,64}$/;
/** Alias names: not all digits (those are versions). */
export const ALIAS_NAME = /^(?!^[0-9]+$)([a-zA-Z0-9-_]+)$/;

export interface FunctionRef {
  name: string;
  /** The qualifier the name carried (`:1`, `:prod`), if any. */
  qualifier?: string;
  /** The account the ARN named, if any. */
  account?: string;
  region?: string;
}

/** AWS's constraint message for one member. */
export function validationError(member: string, value: unknown, constraint: string): AwsError {
  return new AwsError(
    'ValidationException',
    `1 validation error detected: Value '${String(value)}' at '${member}' failed to satisfy constraint: ${constraint}`,
    400,
  );
}

/** Parses a FunctionName member (any accepted form) and checks it addresses the caller's region and account. */
export function parseFunctionName(ctx: CallContext, value: unknown, member = 'functionName'): FunctionRef {
  if (typeof value !== 'string' || value.length < 1 || value.length > 170)
    throw validationError(member, value, 'Member must have length less than or equal to 170');
  const m = FUNCTION_NAME.exec(value);
  if (!m) {
    throw validationError(
      member,
      value,
      'Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_\\.]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?',
    );
  }
  const region = m[2]?.slice(0, -1);
  const account = m[3]?.slice(0, -1);
  const name = m[5]!;
  if (name.length > 64 || !PLAIN_NAME.test(name))
    throw validationError(member, value, 'Member must satisfy regular expression pattern: [a-zA-Z0-9-_]+');
  if (region && region !== ctx.region) {
    throw new AwsError(
      'ResourceNotFoundException',
      `Functions from '${region}' are not reachable in this region ('${ctx.region}')`,
    );
  }
  if (account && account !== ctx.account) {
    // Another account's function: without a policy granting the caller, AWS answers AccessDenied.
    throw new AwsError(
      'AccessDeniedException',
      `User: ${ctx.callerArn} is not authorized to perform this operation on resource: ${value}`,
      403,
    );
  }
  return { name, qualifier: m[6], account, region };
}

/** The qualifier of a call: the one in the name, the `Qualifier` member, which must agree. */
export function resolveQualifier(ref: FunctionRef, qualifier: unknown): string | undefined {
  const given = typeof qualifier === 'string' && qualifier !== '' ? qualifier : undefined;
  if (ref.qualifier && given && ref.qualifier !== given)
    throw new AwsError(
      'InvalidParameterValueException',
      'The derived qualifier from the function name does not match the specified qualifier.',
    );
  return ref.qualifier ?? given;
}

export function functionArn(account: string, region: string, name: string, qualifier?: string): string {
  return `arn:${partitionOf(region)}:lambda:${region}:${account}:function:${name}${qualifier ? `:${qualifier}` : ''}`;
}

export function layerArn(account: string, region: string, name: string, version?: number): string {
  return `arn:${partitionOf(region)}:lambda:${region}:${account}:layer:${name}${version !== undefined ? `:${version}` : ''}`;
}

export function eventSourceMappingArn(account: string, region: string, uuid: string): string {
  return `arn:${partitionOf(region)}:lambda:${region}:${account}:event-source-mapping:${uuid}`;
}

/** A resource ARN Lambda's tag operations accept: unqualified function or event source mapping. */
export function parseTaggableArn(
  arn: string,
): { kind: 'function' | 'event-source-mapping'; account: string; region: string; id: string } | undefined {
  const m =
    /^arn:aws[a-zA-Z-]*:lambda:([a-z0-9-]+):(\d{12}):(function|event-source-mapping):([^:]+)(:.+)?$/.exec(
      arn,
    );
  if (!m) return undefined;
  if (m[5]) {
    throw new AwsError(
      'InvalidParameterValueException',
      'Tags are not supported on function versions or aliases. Specify an unqualified function ARN.',
    );
  }
  return { kind: m[3] as 'function' | 'event-source-mapping', region: m[1]!, account: m[2]!, id: m[4]! };
}

/** Lambda's timestamp format: `2024-05-01T12:00:00.000+0000`. */
export function lambdaTimestamp(date = new Date()): string {
  return date.toISOString().replace('Z', '+0000');
}
