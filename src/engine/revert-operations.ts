/**
 * Reverts one rollback-journal segment inside a locked stack session, newest
 * operation first (operations complete after what they depend on, so the
 * reverse of completion order is a reverse dependency order):
 *
 *   CREATE   delete what was made, as the removal-policy rule decides for a
 *            rolled-back create (src/plan/removal-policy.ts)
 *   UPDATE   update back to the pre-deploy properties
 *   replace  re-adopt the original when a read finds it (deposed for deletion
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
import { sleep } from '../util/retry';
import type { ResourceProvisioner } from './provisioner';
import { isNameInUse, namePropertyOf, replacementHoldsName } from './replacement-names';
import type { NameHolder } from './replacement-names';
import type { RecordBase, ResourceOperations } from './resource-operations';
import type { StackSession } from './stack-session';

export interface RevertContext {
  session: StackSession;
  ops: ResourceOperations;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  logger: Logger;
  /** Waits between re-creates while a freed name is released (injected by tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The waits of that bounded retry (default NAME_RELEASE_DELAYS_MS). */
  nameReleaseDelaysMs?: readonly number[];
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
  options: {
    revertFailed?: boolean;
    /** The journal's segments newer than this one (already reverted): they decide who owns what a failed create made. */
    newer?: readonly RollbackJournalSegment[];
  } = {},
): Promise<RevertResult> {
  const result: RevertResult = { reverted: [], failed: [], warnings: [], remainingFailed: [] };
  for (const f of segment.failedOperations ?? []) {
    if (ctx.session.stopSignal.aborted) {
      result.remainingFailed.push(f);
      continue;
    }
    try {
      const settled = await revertFailed(
        ctx,
        f,
        options.revertFailed === true,
        result,
        segment,
        options.newer ?? [],
      );
      if (!settled) result.remainingFailed.push(f);
    } catch (error) {
      result.failed.push({ logicalId: f.logicalId, error });
      result.remainingFailed.push(f);
    }
  }
  const changed = changedIdsOf(segment);
  for (const op of [...segment.operations].reverse()) {
    if (ctx.session.stopSignal.aborted) {
      result.failed.push({ logicalId: op.logicalId, error: new Error('interrupted before it was reverted') });
      continue;
    }
    try {
      await revertCompleted(ctx, op, result, changed);
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
  segment: RollbackJournalSegment,
  newer: readonly RollbackJournalSegment[],
): Promise<boolean> {
  const builder = ctx.session.builder;
  if (f.changeType === 'UPDATE' && f.replacement) {
    // Never force-reverted: the replacement applied nothing to the original; what its create made is its own entry.
    const current = builder.get(f.logicalId);
    const original = f.previousState?.physicalId;
    const restoredByDelete = segment.operations.some(
      (op) => op.logicalId === f.logicalId && op.changeType === 'DELETE',
    );
    if (original && current?.physicalId !== original && !restoredByDelete)
      result.warnings.push(
        `${f.logicalId}: the failed replacement deleted ${original} before its new copy failed, and state no longer holds it; a deploy whose template still replaces it creates it again, and cdkd destroy drops the record.`,
      );
    return true;
  }
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
    const owner = laterOwner(ctx, f, segment, newer);
    if (owner) {
      // Not deleted: something later may own it. It stops being tracked here; the warning names it.
      ctx.session.outcome(undefined, [{ op: 'undepose', key: made.key }]);
      if (owner !== 'tracked')
        result.warnings.push(
          `${f.logicalId}: ${made.physicalId}, made by the create that failed, is not deleted: ${owner}; it may still exist untracked and needs manual attention.`,
        );
      return true;
    }
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
    // A later `cdkd rollback` deletes it only once proven the resource that create made (leftover-identity.ts).
    if (decision.action === 'unproven') {
      result.warnings.push(decision.reason);
      return true;
    }
    if (decision.action === 'gone') {
      result.reverted.push(
        `${f.logicalId}: ${made.physicalId}, made by the create that failed, was already gone`,
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

/**
 * Whether something other than the failed create's own entry may own what it
 * made (rollback-internals, the table row "CREATE that made its resource and
 * then failed"): `tracked` when a state record holds that very resource (the
 * skip is silent), a reason to warn (exit 2) when a newer journal segment
 * names its id or completed a CREATE of its type, removed its logical id, or
 * when state holds a different resource under its logical id that is not the
 * one a replacement was replacing; undefined when it is the entry's to delete.
 */
function laterOwner(
  ctx: RevertContext,
  f: FailedOperation,
  segment: RollbackJournalSegment,
  newer: readonly RollbackJournalSegment[],
): string | undefined {
  const id = f.physicalId!;
  const same = (a: unknown) => typeof a === 'string' && sameResourceId(f.resourceType, a, id);
  const records = ctx.session.builder.resourceRecords();
  if (Object.values(records).some((r) => r.resourceType === f.resourceType && same(r.physicalId)))
    return 'tracked';
  for (const s of newer) {
    for (const op of [...s.operations, ...(s.failedOperations ?? [])]) {
      if (
        op.changeType === 'DELETE' &&
        op.logicalId === f.logicalId &&
        s.operations.includes(op as CompletedOperation)
      )
        return `a newer failed deploy removed ${f.logicalId}`;
      if (op.resourceType !== f.resourceType) continue;
      if (same(op.physicalId) || same(op.previousState?.physicalId))
        return `a newer failed deploy has an operation on ${id}`;
      if (op.changeType === 'CREATE' && s.operations.includes(op as CompletedOperation))
        return `a newer failed deploy completed a CREATE of ${f.resourceType}, which may hold it`;
    }
  }
  const current = records[f.logicalId];
  if (current && !same(current.physicalId)) {
    const replaced = (segment.failedOperations ?? []).some(
      (r) =>
        r.logicalId === f.logicalId && r.replacement && r.previousState?.physicalId === current.physicalId,
    );
    if (!replaced) return `state tracks ${current.physicalId} under ${f.logicalId}, a different resource`;
  }
  return undefined;
}

/** Types whose identifiers AWS matches regardless of case. */
const CASE_INSENSITIVE_IDS =
  /^AWS::(RDS::(DBCluster|DBInstance|DBSubnetGroup)|DocDB::(DBCluster|DBInstance|DBSubnetGroup)|Neptune::(DBCluster|DBInstance|DBSubnetGroup)|ElastiCache::(CacheCluster|SubnetGroup)|IAM::(Role|User|Group|InstanceProfile|ManagedPolicy))$/;

function sameResourceId(resourceType: string, a: string, b: string): boolean {
  if (a === b) return true;
  if (CASE_INSENSITIVE_IDS.test(resourceType)) return a.toLowerCase() === b.toLowerCase();
  // A Glue table's name: ASCII letters only, case-insensitively.
  if (resourceType === 'AWS::Glue::Table')
    return a.replace(/[A-Z]/g, (c) => c.toLowerCase()) === b.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return false;
}

async function revertCompleted(
  ctx: RevertContext,
  op: CompletedOperation,
  result: RevertResult,
  changed: ChangedIds,
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
  if (!isReplacement(op, prev)) {
    if (current && !addressedByName(current) && !isAddressable(current.physicalId)) {
      result.warnings.push(
        `${op.logicalId}: the update is not reverted: its state record has no usable physicalId; ${UNADDRESSABLE_REMEDY}.`,
      );
      return;
    }
    // An in-place update may have moved the physical id (a QueuePolicy's first queue): either id is this resource.
    if (!current || (current.physicalId !== prev.physicalId && current.physicalId !== op.physicalId)) {
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
  await reverseReplacement(ctx, op, prev, current, result, changed);
}

/**
 * A replacement, as the provider answered (`replacement`, rollback-internals:
 * "What counts as a replacement is what the provider reported"), or, in a
 * journal without that answer (an older cdkd, the reference tool), as the
 * deploy recorded what it did with the original or the physical id changed. A
 * type named by its physical id keeps it across a delete-first replacement. A
 * Type change, and a Glue table moved to another database under the same
 * name, are replacements whatever the provider answered.
 */
function isReplacement(op: CompletedOperation, prev: ResourceState): boolean {
  if (prev.resourceType !== op.resourceType || movedGlueTable(op, prev)) return true;
  if (op.replacement !== undefined) return op.replacement;
  return op.replacedOriginal !== undefined || prev.physicalId !== op.physicalId;
}

/** A Glue table's name is its physical id; its database is create-only, so a new one made another table. */
function movedGlueTable(op: CompletedOperation, prev: ResourceState): boolean {
  return (
    op.resourceType === 'AWS::Glue::Table' &&
    op.properties !== undefined &&
    JSON.stringify(op.properties.DatabaseName) !== JSON.stringify(prev.properties?.DatabaseName)
  );
}

/** Under an unchanged physical id, only the properties tell the re-created original from the copy. */
function isOriginal(record: ResourceState, prev: ResourceState): boolean {
  return JSON.stringify(record.properties ?? {}) === JSON.stringify(prev.properties ?? {});
}

/** Puts the original of a replacement back under its logical id and removes the new copy. */
async function reverseReplacement(
  ctx: RevertContext,
  op: CompletedOperation,
  prev: ResourceState,
  current: ResourceState | undefined,
  result: RevertResult,
  changed: ChangedIds,
): Promise<void> {
  const { session } = ctx;
  const builder = session.builder;
  if (
    current?.physicalId === prev.physicalId &&
    (prev.physicalId !== op.physicalId || isOriginal(current, prev))
  )
    return; // already reverted
  if (current && current.physicalId !== op.physicalId) {
    result.warnings.push(
      `${op.logicalId}: state tracks ${current.physicalId}, neither the original ${prev.physicalId} nor the replacement ${op.physicalId}; not reverted, needs manual attention.`,
    );
    return;
  }
  const deposed = builder
    .deposed()
    .find((d) => d.logicalId === op.logicalId && d.physicalId === prev.physicalId);
  let alive = deposed !== undefined || op.replacedOriginal === 'retained';
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
  // A nested stack's child is found by name, and an unaddressable id names nothing to read: the journal decides.
  const readable = !addressedByName(prev) && isAddressable(prev.physicalId);
  if (alive && readable && !(await originalStillExists(ctx, op.logicalId, prev, deposed?.key))) alive = false;
  if (alive) {
    // Re-adopt the original, then the new copy is deposed and deleted.
    const effects: Parameters<StackSession['outcome']>[1] = [];
    if (deposed) effects.push({ op: 'undepose', key: deposed.key });
    effects.push({ op: 'set', logicalId: op.logicalId, record: prev, prev: current?.physicalId ?? null });
    session.outcome(undefined, effects);
    if (current) await removeDeposedCopy(ctx, op.logicalId, deposeCopy(ctx, op.logicalId, current), result);
    result.reverted.push(
      `${op.logicalId}: the original ${prev.physicalId} is back in place of ${op.physicalId}`,
    );
    return;
  }
  await recreateOriginal(ctx, op, prev, current, result, changed);
}

/**
 * Whether the original a replacement left alive is still there, read through
 * its provider before state names it again (it may have been deleted out of
 * band). Gone: its deposed record is dropped, and it is re-created instead. A
 * provider that cannot tell is trusted to the journal; a read that fails fails
 * the operation (journal kept) for a re-run once AWS answers.
 */
async function originalStillExists(
  ctx: RevertContext,
  logicalId: string,
  prev: ResourceState,
  deposedKey: string | undefined,
): Promise<boolean> {
  let found;
  try {
    found = await ctx.ops.exists(logicalId, prev);
  } catch (err) {
    throw new CdkdError(
      `${logicalId}: the original ${prev.physicalId} could not be read before it is re-adopted: ${formatError(err)}`,
      {
        code: 'ROLLBACK_READ_FAILED',
        cause: err,
        remedy: 'Nothing was changed and the journal is kept; re-run cdkd rollback once AWS answers.',
      },
    );
  }
  if (found !== 'gone') return true;
  ctx.logger.info(
    `Rollback: ${logicalId}: the original ${prev.physicalId} is gone; it is re-created from its pre-deploy record.`,
  );
  if (deposedKey) ctx.session.outcome(undefined, [{ op: 'undepose', key: deposedKey }]);
  return false;
}

/**
 * The original is gone: it is re-created from its pre-deploy record. The order
 * follows what the deploy did (rollback-internals "Reversing a replacement"):
 *
 * - delete-first, for a replacement that deleted the original before making
 *   its copy (`replacedOriginal: 'deleted'`), so a name or port only one of
 *   them can hold does not collide;
 * - create-first otherwise (a journal an older cdkd or the reference tool
 *   wrote, a copy kept by UpdateReplacePolicy Retain, an original whose
 *   properties name a resource this deploy replaced or deleted): the copy is
 *   deleted after the original is back, and before it only when the re-create
 *   collided on a name the copy is shown to hold (never a retained copy, never
 *   for an original naming a replaced resource). Any other collision fails
 *   with the name named and the journal kept.
 */
async function recreateOriginal(
  ctx: RevertContext,
  op: CompletedOperation,
  prev: ResourceState,
  current: ResourceState | undefined,
  result: RevertResult,
  changed: ChangedIds,
): Promise<void> {
  const { logicalId } = op;
  const keptCopy = current !== undefined && keepsCopy(current);
  const namesChanged = namedChangedResource(prev, logicalId, changed);
  if (namesChanged)
    result.warnings.push(
      `${logicalId}: its pre-deploy properties name ${namesChanged}, which the failed deploy replaced or deleted; the original is re-created before its replacement ${op.physicalId} is deleted, and the replacement is never deleted to free a name.`,
    );
  const done = (made: ResourceState) =>
    result.reverted.push(
      `${logicalId}: the original was re-created from its pre-deploy record as ${made.physicalId}, replacing ${op.physicalId}`,
    );
  if (op.replacedOriginal === 'deleted' && !keptCopy && !namesChanged) {
    // Delete-first, as the deploy did. A delete that fails leaves state naming the copy (journal kept).
    if (current)
      await ctx.ops.remove({
        logicalId,
        record: current,
        cause: 'replaced',
        reason: 'rollback: delete-first, as the failed deploy replaced it',
      });
    done(await recreateReleasingName(ctx, logicalId, prev, true));
    return;
  }
  // Create-first: the copy is deposed (still tracked) while the original is re-created under the id.
  const copyKey = current ? deposeCopy(ctx, logicalId, current) : undefined;
  const restoreCopy = () => {
    if (copyKey)
      ctx.session.outcome(undefined, [
        { op: 'undepose', key: copyKey },
        { op: 'set', logicalId, record: current!, prev: null },
      ]);
  };
  let made: ResourceState;
  try {
    made = await recreateReleasingName(ctx, logicalId, prev, false);
  } catch (err) {
    if (!isNameInUse(err)) {
      restoreCopy();
      throw err;
    }
    const holder = current ? replacementHoldsName(prev, current) : undefined;
    const name = holder?.name ?? nameAsked(prev);
    if (!current || !holder?.holds || keptCopy || namesChanged) {
      restoreCopy();
      throw nameCollision(logicalId, prev, current, name, holder, keptCopy, namesChanged, err);
    }
    ctx.logger.info(
      `Rollback: ${logicalId}: the replacement ${current.physicalId} holds ${holder.name}; deleting it first, then re-creating the original.`,
    );
    // The copy's own UpdateReplacePolicy decides (not Retain here), then the name may take a while to be released.
    await removeDeposedCopy(ctx, logicalId, copyKey!, result);
    done(await recreateReleasingName(ctx, logicalId, prev, true));
    return;
  }
  done(made);
  if (copyKey) await removeDeposedCopy(ctx, logicalId, copyKey, result);
}

/** The refusal of a re-create whose name something else holds, or cdkd cannot tell who: nothing is deleted. */
function nameCollision(
  logicalId: string,
  prev: ResourceState,
  current: ResourceState | undefined,
  name: string | undefined,
  holder: NameHolder | undefined,
  keptCopy: boolean,
  namesChanged: string | undefined,
  cause: unknown,
): CdkdError {
  const what = name ? `the name ${name}` : 'its name';
  if (keptCopy && holder?.holds)
    return new CdkdError(
      `${logicalId}: the original ${prev.resourceType} cannot be re-created: its replacement ${current!.physicalId}, which UpdateReplacePolicy Retain keeps, still holds ${what}, and cdkd does not delete a retained resource to free it.`,
      {
        code: 'ROLLBACK_NAME_CONFLICT',
        cause,
        remedy: `Delete ${current!.physicalId} yourself, or drop UpdateReplacePolicy Retain from its record, then re-run cdkd rollback; the journal is kept.`,
      },
    );
  const why = namesChanged
    ? `its pre-deploy properties name ${namesChanged}, which the failed deploy replaced or deleted, so its replacement is not deleted to free the name`
    : !current
      ? 'no replacement is recorded under its id'
      : holder && !holder.holds
        ? `cdkd cannot show that its replacement holds it: ${holder.why}`
        : 'something else holds it';
  return new CdkdError(
    `${logicalId}: the original ${prev.resourceType} cannot be re-created: ${what} is taken (${formatError(cause)}); ${why}. Nothing was deleted.`,
    {
      code: 'ROLLBACK_NAME_CONFLICT',
      cause,
      remedy: `Remove or rename whatever holds ${what}, then re-run cdkd rollback (the journal is kept). If it is the replacement itself${current ? ` (${current.physicalId})` : ''}, delete it by hand and re-run; or pass --orphan ${logicalId} to leave the resource alone.`,
    },
  );
}

function nameAsked(prev: ResourceState): string | undefined {
  const property = namePropertyOf(prev.resourceType, prev.properties);
  const name = property ? prev.properties?.[property] : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** The copy's own UpdateReplacePolicy keeps it: the rollback never deletes it. */
function keepsCopy(copy: ResourceState): boolean {
  return copy.updateReplacePolicy === 'Retain' || copy.updateReplacePolicy === 'RetainExceptOnCreate';
}

/** Default waits for a name to be released after its holder was deleted (SQS documents 60 s). */
export const NAME_RELEASE_DELAYS_MS: readonly number[] = [2_000, 5_000, 10_000, 20_000, 30_000];

/**
 * Re-creates the original; `releasing`: its name was just freed, so a create
 * that still finds it in use is retried, bounded, while the service releases
 * it. A re-create that fails after its provider made a resource has that
 * resource deleted before the failure is reported, unless the original's
 * DeletionPolicy keeps it (then a warning names it).
 */
async function recreateReleasingName(
  ctx: RevertContext,
  logicalId: string,
  prev: ResourceState,
  releasing: boolean,
): Promise<ResourceState> {
  const delays = releasing ? (ctx.nameReleaseDelaysMs ?? NAME_RELEASE_DELAYS_MS) : [];
  const wait = ctx.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await recreate(ctx, logicalId, prev);
    } catch (err) {
      await removeFailedRecreate(ctx, logicalId, prev);
      if (!isNameInUse(err) || attempt >= delays.length) {
        if (releasing)
          throw new CdkdError(
            `${logicalId}: its replacement was deleted, but the original ${prev.resourceType} could not be re-created, so the resource is absent: ${formatError(err)}`,
            {
              code: 'ROLLBACK_RECREATE_FAILED',
              cause: err,
              remedy: `Re-deploy to fix it forward (the template's ${logicalId} is created again), or re-run cdkd rollback once the cause is fixed.`,
            },
          );
        throw err;
      }
      ctx.logger.info(
        `Rollback: ${logicalId}: the name is not released yet; retrying the re-create in ${delays[attempt] / 1000}s (${attempt + 1}/${delays.length}).`,
      );
      await wait(delays[attempt], ctx.session.stopSignal);
    }
  }
}

/** What a failed re-create proved it made (a deposed `failed-create` record) is deleted, as its DeletionPolicy allows. */
async function removeFailedRecreate(
  ctx: RevertContext,
  logicalId: string,
  prev: ResourceState,
): Promise<void> {
  const made = ctx.session.builder
    .deposed()
    .filter(
      (d) => d.logicalId === logicalId && d.reason === 'failed-create' && d.physicalId !== prev.physicalId,
    );
  for (const d of made) {
    if (prev.deletionPolicy === 'Retain' || prev.deletionPolicy === 'Snapshot') {
      ctx.logger.warn(
        `Rollback: ${logicalId}: the failed re-create made ${d.physicalId}, kept by the original's DeletionPolicy ${prev.deletionPolicy}; delete it yourself if it is not wanted.`,
      );
      ctx.session.outcome(undefined, [{ op: 'undepose', key: d.key }]);
      continue;
    }
    try {
      // One an earlier run left is deleted only once proven that create's (leftover-identity.ts).
      const settled = await ctx.ops.settleLeftover(d);
      if (settled) {
        if (settled.action === 'unproven') ctx.logger.warn(`Rollback: ${settled.reason}`);
        continue;
      }
      await ctx.ops.delete({
        logicalId,
        record: d,
        deposedKey: d.key,
        reason: 'rollback: made by a re-create that failed',
      });
    } catch (err) {
      ctx.logger.warn(
        `Rollback: ${logicalId}: ${d.physicalId}, made by the re-create that failed, could not be deleted (${formatError(err)}); it stays in state for the next deploy's cleanup.`,
      );
    }
  }
}

/** Deposes the new copy of a reverted replacement (still tracked, by its own record); returns its key. */
function deposeCopy(ctx: RevertContext, logicalId: string, copy: ResourceState): string {
  const key = ctx.session.builder.nextDeposedKey(logicalId);
  const stillHere = ctx.session.builder.get(logicalId)?.physicalId === copy.physicalId;
  ctx.session.outcome(undefined, [
    ...(stillHere ? [{ op: 'remove' as const, logicalId }] : []),
    { op: 'depose', entry: { ...copy, logicalId, key, reason: 'replaced', deposedAt: Date.now() } },
  ]);
  return key;
}

/** Deletes a deposed copy, unless its own UpdateReplacePolicy keeps it (a warning, exit 2). */
async function removeDeposedCopy(
  ctx: RevertContext,
  logicalId: string,
  key: string,
  result: RevertResult,
): Promise<void> {
  const copy = ctx.session.builder.deposedEntry(key)!;
  // The new copy leaves as a replaced resource: its own UpdateReplacePolicy decides.
  const decision = await ctx.ops.remove({
    logicalId,
    record: copy,
    deposedKey: key,
    cause: 'replaced',
    reason: 'rollback: the replacement made by the failed deploy',
  });
  if (decision.action === 'retain')
    result.warnings.push(`${logicalId}: the replacement ${copy.physicalId} is kept (${decision.reason}).`);
}

/** Identifiers of what a segment replaced or deleted (old physical ids and their string attributes, e.g. ARNs), by logical id. */
export type ChangedIds = Map<string, string>;

export function changedIdsOf(segment: RollbackJournalSegment): ChangedIds {
  const ids: ChangedIds = new Map();
  const add = (logicalId: string, prev: ResourceState | undefined) => {
    if (!prev) return;
    for (const v of [prev.physicalId, ...Object.values(prev.attributes ?? {})])
      if (typeof v === 'string' && v.length >= 3) ids.set(v, logicalId);
  };
  for (const op of segment.operations) {
    if (op.changeType === 'DELETE') add(op.logicalId, op.previousState);
    else if (op.changeType === 'UPDATE' && op.previousState && isReplacement(op, op.previousState))
      add(op.logicalId, op.previousState);
  }
  for (const f of segment.failedOperations ?? [])
    if (f.changeType === 'UPDATE' && f.replacement) add(f.logicalId, f.previousState);
  return ids;
}

/** The other resource (and id) a record's properties name among those the deploy replaced or deleted. */
function namedChangedResource(prev: ResourceState, self: string, changed: ChangedIds): string | undefined {
  if (changed.size === 0) return undefined;
  let found: string | undefined;
  const visit = (v: unknown): void => {
    if (found) return;
    if (typeof v === 'string') {
      for (const [id, owner] of changed)
        if (owner !== self && v.includes(id)) {
          found = `${owner} (${id})`;
          return;
        }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(prev.properties ?? {});
  return found;
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
