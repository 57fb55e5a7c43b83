/**
 * The ownership marker of a create: cdkd's tags and their classification, or
 * — with a cdkd too old to hand them out — a token tag of the pack's own with
 * the same meaning for the create that made it.
 */
import { createHash } from 'node:crypto';
import type { CreateContext, ResourceOwnership } from '@cdkd/plugin-api';

const TOKEN_TAG = 'cdkd:token';

export function ownershipOf(context: CreateContext): ResourceOwnership {
  if (context.ownership) return context.ownership;
  const token = context.idempotencyToken;
  return {
    tags: { [TOKEN_TAG]: token },
    classify(found) {
      const tags: Record<string, string | undefined> = Array.isArray(found)
        ? Object.fromEntries(
            (found as ReadonlyArray<{ Key?: string; Value?: string }>).map((t) => [t.Key ?? '', t.Value]),
          )
        : { ...((found ?? {}) as Readonly<Record<string, string>>) };
      return tags[TOKEN_TAG] === token ? 'same-intent' : 'foreign';
    },
  };
}

/** A tag key is cdkd's own (kept on update, never reconciled away). */
export function isOwnershipTag(key: string): boolean {
  return key.startsWith('cdkd:');
}

/** A short, stable digest of the idempotency token (for names cdkd does not generate). */
export function tokenDigest(token: string, length: number): string {
  return createHash('sha256').update(token).digest('hex').slice(0, length).toUpperCase();
}

/**
 * A CloudFormation-style name for an unnamed resource: cdkd's
 * `generatePhysicalName` when it has one, else `<stack>-<logicalId>-<digest>`
 * cut to fit, with only the characters the name allows.
 */
export function physicalName(
  context: CreateContext,
  logicalId: string,
  options: { maxLength: number; extraCharacters?: string },
): string {
  if (context.generatePhysicalName) return context.generatePhysicalName(options);
  const extra = options.extraCharacters ?? '-';
  const clean = (s: string) =>
    s.replace(new RegExp(`[^A-Za-z0-9${extra.replace(/[\\\]^-]/g, '\\$&')}]`, 'g'), '');
  const suffix = tokenDigest(context.idempotencyToken, 13);
  const room = options.maxLength - suffix.length - 2;
  const stack = clean(context.stackName);
  const logical = clean(logicalId);
  const stackPart = stack.slice(0, Math.max(Math.floor(room / 2), room - logical.length));
  return `${stackPart}-${logical.slice(0, room - stackPart.length)}-${suffix}`;
}
