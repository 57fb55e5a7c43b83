/**
 * Names of IAM entities. A name the template leaves unset is generated in
 * CloudFormation's style, `<stack>-<logicalId>-<suffix>`, from the create's
 * idempotency token (`generatePhysicalName`), so every retry of one create,
 * in this process or a later one, asks IAM for the same name. IAM names are
 * `[\w+=,.@-]` (IAM API Reference, CreateRole: RoleName).
 */
import { createHash } from 'node:crypto';
import type { CreateContext } from '@cdkd/plugin-api';

/** The characters IAM allows in a name besides ASCII letters and digits. */
export const IAM_NAME_EXTRA_CHARACTERS = '_+=,.@-';
/** Roles, users, groups and instance profiles; managed policies allow 128. */
export const MAX_ENTITY_NAME = 64;
export const MAX_MANAGED_POLICY_NAME = 128;

/** The name the template gives, or one generated for this create's intent. */
export function entityName(
  declared: unknown,
  logicalId: string,
  context: CreateContext,
  maxLength: number,
): string {
  if (typeof declared === 'string' && declared !== '') return declared;
  return (
    context.generatePhysicalName?.({ maxLength, extraCharacters: IAM_NAME_EXTRA_CHARACTERS }) ??
    fallbackName(context.stackName, logicalId, context.idempotencyToken, maxLength)
  );
}

/** For cdkd versions without `generatePhysicalName`: the same shape, derived from the token. */
export function fallbackName(stackName: string, logicalId: string, token: string, maxLength: number): string {
  const suffix = createHash('sha256').update(token).digest('hex').slice(0, 13).toUpperCase();
  const clean = (s: string) => s.replace(/[^\w+=,.@-]/g, '');
  const room = maxLength - suffix.length - 2;
  let stack = clean(stackName);
  let logical = clean(logicalId);
  if (stack.length + logical.length > room) {
    stack = stack.slice(0, Math.max(Math.floor(room / 2), room - logical.length));
    logical = logical.slice(0, room - stack.length);
  }
  return `${stack}-${logical}-${suffix}`;
}

/** True when `name` is the name this create generates: it carries the intent's token, so it is this create's. */
export function isGeneratedName(
  name: string,
  declared: unknown,
  logicalId: string,
  context: CreateContext,
  maxLength: number,
): boolean {
  return (
    !(typeof declared === 'string' && declared !== '') &&
    name === entityName(undefined, logicalId, context, maxLength)
  );
}
