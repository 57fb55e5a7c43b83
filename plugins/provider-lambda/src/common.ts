/**
 * What the providers of the function's parts share: the client, the bounded
 * retry while the function is being changed, deletes that count "not found"
 * as gone only in the region the resource was made in, and whether a
 * function belongs to the deploying stack.
 */
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { DeleteContext, ProviderContext } from '@cdkd/plugin-api';
import { isNotFound, isUpdateInProgress, provisioningError } from './errors';

/** The stack-name key of cdkd's ownership tags (plugin API, `ResourceOwnership.tags`). */
const STACK_TAG = 'cdkd:stack-name';

export interface ResourceRef {
  logicalId: string;
  resourceType: string;
  physicalId?: string;
}

export function lambdaClient(ctx: ProviderContext): LambdaClient {
  return ctx.clients.get(LambdaClient);
}

/**
 * Runs a call that Lambda refuses with ResourceConflictException while the
 * function is Pending or an update is in progress, retrying (bounded) until
 * the function has settled.
 */
export function whileUpdating<T>(ctx: ProviderContext, call: () => Promise<T>): Promise<T> {
  return ctx.retry(call, {
    maxAttempts: 20,
    baseDelayMs: 1_000,
    maxDelayMs: 10_000,
    isRetryable: isUpdateInProgress,
  });
}

/**
 * A delete: the region is checked before the call (physical ids are names and
 * ARNs that may exist in another region too) and again before "not found"
 * counts as already deleted.
 */
export async function deleteChecked(
  ctx: ProviderContext,
  ref: ResourceRef & { physicalId: string },
  context: DeleteContext | undefined,
  doing: string,
  call: () => Promise<unknown>,
): Promise<void> {
  const region = await lambdaClient(ctx).config.region();
  ctx.assertRegionMatch(
    region,
    context?.expectedRegion,
    ref.resourceType,
    ref.logicalId,
    ref.physicalId,
    'pre-delete',
  );
  try {
    await call();
  } catch (err) {
    if (isNotFound(err)) {
      ctx.assertRegionMatch(region, context?.expectedRegion, ref.resourceType, ref.logicalId, ref.physicalId);
      ctx.logger.debug(`${ref.logicalId}: ${ref.physicalId} does not exist; nothing to delete`);
      return;
    }
    throw provisioningError(ctx, err, doing, ref);
  }
}

/** Checks an update's region (the state record's) against the client's, before anything changes. */
export async function assertUpdateRegion(
  ctx: ProviderContext,
  ref: ResourceRef & { physicalId: string },
  expectedRegion: string | undefined,
): Promise<void> {
  ctx.assertRegionMatch(
    await lambdaClient(ctx).config.region(),
    expectedRegion,
    ref.resourceType,
    ref.logicalId,
    ref.physicalId,
    'pre-update',
  );
}

/**
 * Whether the function a part hangs off was made by cdkd for this stack (its
 * ownership tags). Aliases, URLs and invoke configurations carry no tags of
 * their own: one that exists on this stack's function, exactly as asked for,
 * is this stack's (an earlier attempt of the same create).
 */
export async function functionOfStack(
  ctx: ProviderContext,
  functionName: string,
  stackName: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const out = await lambdaClient(ctx).send(new GetFunctionCommand({ FunctionName: functionName }), {
      abortSignal: signal,
    });
    return out.Tags?.[STACK_TAG] === stackName;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Deep equality of JSON values (property bags). */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
