/**
 * The per-create helpers of the plugin API: deterministic physical names and
 * ownership tags, both derived from the create's idempotency token so that a
 * create repeated by a later process (settling an interrupted deploy) finds the
 * resource the first attempt made, and nothing else.
 */
import { createHash } from 'node:crypto';
import type { CreateContext, PhysicalNameOptions, ResourceOwnership } from '../plugin-api';

/** Tag keys of the ownership marker. */
export const OWNERSHIP_TAG_KEYS = {
  stackName: 'cdkd:stack-name',
  logicalId: 'cdkd:logical-id',
  token: 'cdkd:token',
} as const;

const SUFFIX_LENGTH = 13;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** `length` base-32 characters of the token's SHA-256: stable, and collision-free in practice. */
function tokenSuffix(token: string, length: number): string {
  const digest = createHash('sha256').update(token).digest();
  let out = '';
  for (let i = 0; out.length < length; i++) out += BASE32[digest[i % digest.length] & 31];
  return out;
}

function escapeForClass(chars: string): string {
  return chars.replace(/[\\\]^-]/g, (c) => `\\${c}`);
}

/**
 * `<stack>-<logicalId>-<suffix>` within `maxLength`, in CloudFormation's style: both parts keep
 * only the allowed characters and are shortened (the stack name first) to fit.
 */
export function generatePhysicalName(
  stackName: string,
  logicalId: string,
  token: string,
  options: PhysicalNameOptions,
): string {
  const extra = options.extraCharacters ?? '-';
  const disallowed = new RegExp(`[^A-Za-z0-9${escapeForClass(extra)}]`, 'g');
  const clean = (s: string) => {
    const kept = s.replace(disallowed, '');
    return options.lowercase ? kept.toLowerCase() : kept;
  };
  const separator = extra.includes('-') ? '-' : '';
  const rawSuffix = tokenSuffix(token, SUFFIX_LENGTH);
  const hash = options.lowercase ? rawSuffix.toLowerCase() : rawSuffix;
  const tail = options.suffix ?? '';
  const fixed = hash.length + tail.length + 2 * separator.length;
  const budget = options.maxLength - fixed;
  if (budget < 2) {
    throw new RangeError(
      `maxLength ${options.maxLength} leaves no room for a generated name (needs at least ${fixed + 2}).`,
    );
  }
  let stack = clean(stackName);
  let logical = clean(logicalId);
  if (stack.length + logical.length > budget) {
    const half = Math.floor(budget / 2);
    const stackRoom = Math.max(half, budget - logical.length);
    stack = stack.slice(0, stackRoom);
    logical = logical.slice(0, budget - stack.length);
  }
  return [stack, logical, hash].filter((p) => p !== '').join(separator) + tail;
}

/** The ownership marker of one create. */
export function ownershipFor(stackName: string, logicalId: string, token: string): ResourceOwnership {
  const tags = Object.freeze({
    [OWNERSHIP_TAG_KEYS.stackName]: stackName,
    [OWNERSHIP_TAG_KEYS.logicalId]: logicalId,
    [OWNERSHIP_TAG_KEYS.token]: token,
  });
  return {
    tags,
    classify(found) {
      const map: Record<string, string> = {};
      if (Array.isArray(found)) {
        for (const t of found) if (t.Key !== undefined) map[t.Key] = t.Value ?? '';
      } else if (found) {
        Object.assign(map, found);
      }
      if (map[OWNERSHIP_TAG_KEYS.token] === token) return 'same-intent';
      if (
        map[OWNERSHIP_TAG_KEYS.stackName] === stackName &&
        map[OWNERSHIP_TAG_KEYS.logicalId] === logicalId
      ) {
        return 'same-resource';
      }
      return 'foreign';
    },
  };
}

/** Everything a provider's `create` receives besides the properties. */
export function buildCreateContext(input: {
  stackName: string;
  region: string;
  logicalId: string;
  idempotencyToken: string;
  attempt?: number;
  /** An earlier send of this create may have taken effect unseen (see `CreateContext.inDoubt`). */
  inDoubt?: boolean;
  signal?: AbortSignal;
}): CreateContext {
  const { stackName, region, logicalId, idempotencyToken, signal } = input;
  return {
    stackName,
    region,
    idempotencyToken,
    attempt: input.attempt ?? 0,
    ...(input.inDoubt || (input.attempt ?? 0) > 0 ? { inDoubt: true } : {}),
    ...(signal ? { signal } : {}),
    generatePhysicalName: (options) => generatePhysicalName(stackName, logicalId, idempotencyToken, options),
    ownership: ownershipFor(stackName, logicalId, idempotencyToken),
  };
}
