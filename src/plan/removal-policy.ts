/**
 * The one removal-policy rule: what happens to a resource leaving the stack,
 * whatever the path (deploy cleanup, the original of a replacement, destroy,
 * a rollback deleting what the deploy created). CloudFormation semantics:
 *
 * - `Delete` (or no policy): deleted.
 * - `Retain`: kept in AWS, dropped from state.
 * - `RetainExceptOnCreate`: kept, except when the resource is being rolled
 *   back after its own create (then deleted, as if it never existed).
 * - `Snapshot`: a final snapshot, then the delete — only when the provider that
 *   owns the resource can take one; otherwise refused, never a silent delete.
 *
 * The original of a replacement follows the template's `UpdateReplacePolicy`;
 * every other path follows `DeletionPolicy`.
 */
import type { PolicyAttribute } from '../state/types';

/** Why the resource is leaving the stack. */
export type RemovalCause =
  /** The template no longer has it (deploy cleanup). */
  | 'removed'
  /** The original of a replacement, once its new copy exists. */
  | 'replaced'
  /** `cdkd destroy` / `cdkd state destroy`. */
  | 'destroyed'
  /** A rollback (or cleanup of a failed create) deleting what this deploy created. */
  | 'rolled-back-create';

export interface RemovalSubject {
  logicalId: string;
  resourceType: string;
  deletionPolicy?: PolicyAttribute;
  /** For `replaced`: the policy the template declares now (CloudFormation reads the new template's). */
  updateReplacePolicy?: PolicyAttribute;
}

export interface RemovalDecision {
  /** `snapshot`: take the final snapshot through the provider, then delete. `refuse`: do nothing. */
  action: 'delete' | 'retain' | 'snapshot' | 'refuse';
  /** The attribute that decided: `UpdateReplacePolicy` for a replaced original, else `DeletionPolicy`. */
  attribute: 'DeletionPolicy' | 'UpdateReplacePolicy';
  policy?: PolicyAttribute;
  /** One line for progress output, e.g. `DeletionPolicy Retain: kept in AWS, removed from state`. */
  reason: string;
  /** `refuse` only: what the user can do. */
  remedy?: string;
}

/** What the provider owning the resource can do (`Provisioner.canSnapshot` answers for a record). */
export interface RemovalCapabilities {
  /** Its pack registers `canSnapshot` for the type; read only under `Snapshot`. */
  canSnapshot: boolean;
}

/** Decides what happens to a resource leaving the stack. */
export function decideRemoval(
  subject: RemovalSubject,
  cause: RemovalCause,
  capabilities: RemovalCapabilities = { canSnapshot: false },
): RemovalDecision {
  const attribute = cause === 'replaced' ? 'UpdateReplacePolicy' : 'DeletionPolicy';
  const policy = cause === 'replaced' ? subject.updateReplacePolicy : subject.deletionPolicy;
  const base = { attribute, ...(policy ? { policy } : {}) } as const;
  switch (policy) {
    case 'Retain':
      return { ...base, action: 'retain', reason: `${attribute} Retain: kept in AWS, removed from state` };
    case 'RetainExceptOnCreate':
      return cause === 'rolled-back-create'
        ? {
            ...base,
            action: 'delete',
            reason: `${attribute} RetainExceptOnCreate: deleted, rolled back after its own create`,
          }
        : {
            ...base,
            action: 'retain',
            reason: `${attribute} RetainExceptOnCreate: kept in AWS, removed from state`,
          };
    case 'Snapshot':
      if (capabilities.canSnapshot)
        return { ...base, action: 'snapshot', reason: `${attribute} Snapshot: final snapshot, then deleted` };
      return {
        ...base,
        action: 'refuse',
        reason: `${subject.logicalId} (${subject.resourceType}) has ${attribute} Snapshot, and no installed provider can take a snapshot of ${subject.resourceType}, so it is not deleted`,
        remedy: `Set its removal policy to RETAIN (keep it) or DESTROY (delete it without a snapshot) in the app and deploy, or install a provider pack that can snapshot ${subject.resourceType}, then re-run.`,
      };
    default:
      return {
        ...base,
        action: 'delete',
        reason: policy ? `${attribute} ${policy}` : 'no removal policy: deleted',
      };
  }
}

/** The subject of a removal, from a state record (or its plan), under its logical id. */
export function removalSubject(
  logicalId: string,
  record: { resourceType: string; deletionPolicy?: PolicyAttribute; updateReplacePolicy?: PolicyAttribute },
): RemovalSubject {
  return {
    logicalId,
    resourceType: record.resourceType,
    ...(record.deletionPolicy ? { deletionPolicy: record.deletionPolicy } : {}),
    ...(record.updateReplacePolicy ? { updateReplacePolicy: record.updateReplacePolicy } : {}),
  };
}

/** The cause behind a deposed record's delete: a replaced original, or what a failed create made. */
export function deposedRemovalCause(reason: 'replaced' | 'failed-create'): RemovalCause {
  return reason === 'replaced' ? 'replaced' : 'rolled-back-create';
}
