/**
 * Reverts one rollback-journal segment inside a locked stack session, newest
 * operation first (operations complete after what they depend on, so the
 * reverse of completion order is a reverse dependency order):
 *
 *   CREATE   delete what was made, as the removal-policy rule decides for a
 *            rolled-back create (src/plan/removal-policy.ts)
 *   UPDATE   update back to the pre-deploy properties
 *   replace  re-adopt the original when it still exists (deposed for deletion
 *            after the deploy, or kept by UpdateReplacePolicy) and delete the new
 *            copy; when the original is gone, delete the new copy and re-create
 *            the original from its pre-deploy record
 *   DELETE   re-create from the pre-deploy record
 *
 * Resources a failed create proved it made are deleted first. With
 * `revertFailed`, a failed update is also forced back to its pre-deploy
 * properties. Every step is idempotent (a re-run skips what is already
 * reverted), so a rollback that dies partway is resumed by running it again.
 */
import type { CompletedOperation, FailedOperation, RollbackJournalSegment } from '../state/rollback-journal';
import type { ResourceState } from '../state/types';
import { CdkdError, formatError } from '../util/errors';
import type { IoHost, Logger } from '../util/io-host';
import type { ResourceProvisioner } from './provisioner';
import type { RecordBase, ResourceOperations } from './resource-operations';
import type { StackSession } from './stack-session';

export interface RevertContext {
  session: StackSession;
  ops: ResourceOperations;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  logger: Logger;
}

export interface RevertResult {
  /** One line per reverted operation, for the summary. */
  reverted: string[];
  /** Operations that could not be reverted. */
  failed: Array<{ logicalId: string; error: unknown }>;
  /** Operations left as they are, with the reason (exit 2). */
  warnings: string[];
  /** The failed operations this revert did not settle (kept for `--revert-failed`). */
  remainingFailed: FailedOperation[];
}

/**
 * True when a physical id can address a resource. Only a hand-edited or torn
 * state.json or journal holds one that cannot (absent, empty, whitespace, not
 * a string); nothing is sent by such an id.
 */
export function isAddressable(physicalId: unknown): physicalId is string {
  return typeof physicalId === 'string' && physicalId.trim() !== '';
}

/** A nested stack's child is found by its name, not its physical id (unless Cloud Control holds it). */
function addressedByName(record: ResourceState): boolean {
  return record.resourceType === 'AWS::CloudFormation::Stack' && record.provisionedBy !== 'cc-api';
}

const UNADDRESSABLE_REMEDY =
  'nothing was sent; repair the physicalId of its record (cdkd state show) and re-converge with cdkd deploy';

/** The part of a record that a create or update writes besides ids, properties and attributes. */
function recordBaseOf(record: ResourceState): RecordBase {
  const { physicalId: _p, properties: _q, attributes: _a, observedProperties: _o, ...base } = record;
  return base;
}

export async function revertSegment(
  ctx: RevertContext,
  segment: RollbackJournalSegment,
  options: { revertFailed?: boolean } = {},
): Promise<RevertResult> {
  const result: RevertResult = { reverted: [], failed: [], warnings: [], remainingFailed: [] };
  for (const f of segment.failedOperations ?? []) {
    if (ctx.session.stopSignal.aborted) {
      result.remainingFailed.push(f);
      continue;
    }
    try {
      const settled = await revertFailed(ctx, f, options.revertFailed === true, result);
      if (!settled) result.remainingFailed.push(f);
    } catch (error) {
      result.failed.push({ logicalId: f.logicalId, error });
      result.remainingFailed.push(f);
    }
  }
  for (const op of [...segment.operations].reverse()) {
    if (ctx.session.stopSignal.aborted) {
      result.failed.push({ logicalId: op.logicalId, error: new Error('interrupted before it was reverted') });
      continue;
    }
    try {
      await revertCompleted(ctx, op, result);
    } catch (error) {
      result.failed.push({ logicalId: op.logicalId, error });
      ctx.logger.error(
        `Rollback: could not revert ${op.logicalId} (${op.resourceType}): ${formatError(error)}`,
      );
    }
  }
  return result;
}

/** Settles a failed operation; false when it stays for a later `--revert-failed`. */
async function revertFailed(
  ctx: RevertContext,
  f: FailedOperation,
  force: boolean,
  result: RevertResult,
): Promise<boolean> {
  const builder = ctx.session.builder;
  if (f.changeType === 'CREATE') {
    // What a failed create proved it made is tracked as a deposed record: delete it.
    const made = f.physicalId
      ? builder
          .deposed()
          .find(
            (d) =>
              d.logicalId === f.logicalId && d.physicalId === f.physicalId && d.reason === 'failed-create',
          )
      : undefined;
    if (force && !isAddressable(f.physicalId)) {
      result.warnings.push(
        `${f.logicalId}: the failed create recorded no usable physical id; nothing to act on.`,
      );
      return true;
    }
    // Nothing was made, or it is already cleaned up (a re-run, or a later deploy deleted it).
    if (!made) return true;
    const decision = await ctx.ops.remove({
      logicalId: f.logicalId,
      record: made,
      deposedKey: made.key,
      cause: 'rolled-back-create',
      reason: 'rollback: made by the create that failed',
    });
    if (decision.action === 'retain') {
      result.warnings.push(
        `${f.logicalId}: ${made.physicalId}, made by the create that failed, is kept (${decision.reason}) and no longer tracked.`,
      );
      return true;
    }
    result.reverted.push(`${f.logicalId}: deleted ${made.physicalId}, made by the create that failed`);
    return true;
  }
  if (f.changeType === 'DELETE') return true; // the resource is still in place
  if (!force) return false;
  const prev = f.previousState;
  const current = builder.get(f.logicalId);
  if (!prev || !current || typeof current.physicalId !== 'string' || !current.physicalId.trim()) {
    result.warnings.push(
      `${f.logicalId}: the failed update is not reverted: no usable record of the resource.`,
    );
    return true;
  }
  if (prev.resourceType !== current.resourceType || prev.physicalId !== current.physicalId) {
    result.warnings.push(
      `${f.logicalId}: the failed update was a replacement in flight; it is not reverted in place.`,
    );
    return true;
  }
  await ctx.ops.update({
    logicalId: f.logicalId,
    record: current,
    routed: ctx.provisioner.route(prev.resourceType, prev.properties, ctx.session.region, current),
    properties: prev.properties,
    recordBase: recordBaseOf(prev),
    previousProperties: f.attemptedProperties ?? current.properties,
  });
  result.reverted.push(`${f.logicalId}: the failed update forced back to its pre-deploy properties`);
  return true;
}

async function revertCompleted(
  ctx: RevertContext,
  op: CompletedOperation,
  result: RevertResult,
): Promise<void> {
  const { session } = ctx;
  const current = session.builder.get(op.logicalId);
  const prev = op.previousState;
  if (op.changeType === 'CREATE') {
    if (!current) return; // already reverted
    if (!addressedByName(current) && (!isAddressable(current.physicalId) || !isAddressable(op.physicalId))) {
      result.warnings.push(
        `${op.logicalId}: the create is not reverted: its ${isAddressable(op.physicalId) ? 'state record' : 'journal entry'} has no usable physicalId; ${UNADDRESSABLE_REMEDY}.`,
      );
      return;
    }
    if (current.physicalId !== op.physicalId) {
      result.warnings.push(
        `${op.logicalId}: recorded ${op.physicalId}, which is not the resource state tracks under this id; not reverted, needs manual attention.`,
      );
      return;
    }
    await deleteCurrent(ctx, op.logicalId, current, result, 'created by the failed deploy');
    return;
  }
  if (op.changeType === 'DELETE') {
    if (!prev || current) return; // something holds the id again: nothing to bring back
    await recreate(ctx, op.logicalId, prev);
    result.reverted.push(`${op.logicalId}: re-created ${prev.resourceType} (deleted by the failed deploy)`);
    return;
  }
  if (!prev) return;
  if (prev.physicalId === op.physicalId) {
    if (current && !addressedByName(current) && !isAddressable(current.physicalId)) {
      result.warnings.push(
        `${op.logicalId}: the update is not reverted: its state record has no usable physicalId; ${UNADDRESSABLE_REMEDY}.`,
      );
      return;
    }
    if (!current || current.physicalId !== prev.physicalId) {
      result.warnings.push(
        `${op.logicalId}: not reverted: state no longer tracks ${prev.physicalId} under this id.`,
      );
      return;
    }
    await ctx.ops.update({
      logicalId: op.logicalId,
      record: current,
      routed: ctx.provisioner.route(prev.resourceType, prev.properties, session.region, current),
      properties: prev.properties,
      recordBase: recordBaseOf(prev),
      previousProperties: current.properties,
    });
    result.reverted.push(`${op.logicalId}: updated back to its pre-deploy properties`);
    return;
  }
  await reverseReplacement(ctx, op, prev, current, result);
}

/** Puts the original of a replacement back under its logical id and removes the new copy. */
async function reverseReplacement(
  ctx: RevertContext,
  op: CompletedOperation,
  prev: ResourceState,
  current: ResourceState | undefined,
  result: RevertResult,
): Promise<void> {
  const { session } = ctx;
  const builder = session.builder;
  if (current?.physicalId === prev.physicalId) return; // already reverted
  if (current && current.physicalId !== op.physicalId) {
    result.warnings.push(
      `${op.logicalId}: state tracks ${current.physicalId}, neither the original ${prev.physicalId} nor the replacement ${op.physicalId}; not reverted, needs manual attention.`,
    );
    return;
  }
  const deposed = builder
    .deposed()
    .find((d) => d.logicalId === op.logicalId && d.physicalId === prev.physicalId);
  const alive = deposed !== undefined || op.replacedOriginal === 'retained';
  if (current && !addressedByName(current) && !isAddressable(current.physicalId)) {
    if (!alive) {
      result.warnings.push(
        `${op.logicalId}: the replacement is not reversed: its state record has no usable physicalId; ${UNADDRESSABLE_REMEDY}.`,
      );
      return;
    }
    // Re-adopting a retained original: only the journal names it, so this fails (journal kept) instead of skipping.
    throw new CdkdError(
      `${op.logicalId}: the original ${prev.physicalId} cannot be re-adopted: the state record of its replacement has no usable physicalId, so nothing proves which resource is the new copy.`,
      {
        code: 'ROLLBACK_UNADDRESSABLE',
        remedy: isAddressable(op.physicalId)
          ? `Repair the record's physicalId to ${op.physicalId} (the new copy the journal names) and re-run cdkd rollback; or re-run with --orphan ${op.logicalId} to leave it as it is, which also drops the journal's only record of the original ${prev.physicalId} (note it first).`
          : `Check both resources by hand; re-run with --orphan ${op.logicalId} to leave it as it is, which also drops the journal's only record of the original ${prev.physicalId} (note it first).`,
      },
    );
  }
  if (alive) {
    // Re-adopt the original (no AWS call), then the new copy is deposed and deleted.
    const effects: Parameters<StackSession['outcome']>[1] = [];
    if (deposed) effects.push({ op: 'undepose', key: deposed.key });
    effects.push({ op: 'set', logicalId: op.logicalId, record: prev, prev: current?.physicalId ?? null });
    session.outcome(undefined, effects);
    if (current) await deleteReplacement(ctx, op.logicalId, current, result);
    result.reverted.push(
      `${op.logicalId}: the original ${prev.physicalId} is back in place of ${op.physicalId}`,
    );
    return;
  }
  // The original is gone: delete the new copy first (it may hold the name), then re-create the original.
  if (current) {
    await ctx.ops.delete({
      logicalId: op.logicalId,
      record: current,
      reason: 'rollback: the replacement of a deleted original',
    });
  }
  const made = await recreate(ctx, op.logicalId, prev);
  result.reverted.push(
    `${op.logicalId}: the original was re-created from its pre-deploy record as ${made.physicalId}, replacing ${op.physicalId}`,
  );
}

/** Deposes the new copy of a reverted replacement and deletes it, unless its UpdateReplacePolicy keeps it. */
async function deleteReplacement(
  ctx: RevertContext,
  logicalId: string,
  copy: ResourceState,
  result: RevertResult,
): Promise<void> {
  const builder = ctx.session.builder;
  const key = builder.nextDeposedKey(logicalId);
  ctx.session.outcome(undefined, [
    { op: 'depose', entry: { ...copy, logicalId, key, reason: 'replaced', deposedAt: Date.now() } },
  ]);
  // The new copy leaves as a replaced resource: its own UpdateReplacePolicy decides.
  const decision = await ctx.ops.remove({
    logicalId,
    record: builder.deposedEntry(key)!,
    deposedKey: key,
    cause: 'replaced',
    reason: 'rollback: the replacement made by the failed deploy',
  });
  if (decision.action === 'retain')
    result.warnings.push(`${logicalId}: the replacement ${copy.physicalId} is kept (${decision.reason}).`);
}

/** Removes what the deploy created under a logical id, as the removal-policy rule decides for a rolled-back create. */
async function deleteCurrent(
  ctx: RevertContext,
  logicalId: string,
  record: ResourceState,
  result: RevertResult,
  why: string,
): Promise<void> {
  const decision = await ctx.ops.remove({
    logicalId,
    record,
    cause: 'rolled-back-create',
    reason: `rollback: ${why}`,
  });
  result.reverted.push(
    decision.action === 'retain'
      ? `${logicalId}: ${record.physicalId} kept (${decision.reason})`
      : `${logicalId}: deleted ${record.physicalId} (${why})`,
  );
}

/** Creates a resource again from a pre-deploy record. */
async function recreate(ctx: RevertContext, logicalId: string, prev: ResourceState): Promise<ResourceState> {
  return ctx.ops.create({
    logicalId,
    resourceType: prev.resourceType,
    routed: ctx.provisioner.route(prev.resourceType, prev.properties, ctx.session.region),
    properties: prev.properties,
    recordBase: recordBaseOf(prev),
  });
}
