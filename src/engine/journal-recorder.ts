/**
 * What a deploy did, as rollback-journal operations: every outcome the stack
 * session records (the one funnel of state changes) is turned into a completed
 * or failed operation, with the record as it was before. The same mapping reads
 * the write-ahead log of a deploy that was killed before it could journal its
 * work, so both paths describe an operation alike.
 */
import type {
  CompletedOperation,
  FailedOperation,
  JournalChangeType,
  RollbackJournalSegment,
} from '../state/rollback-journal';
import type { IntentRecord, ResourceState, StateMutation } from '../state/types';
import type { StackStateBuilder } from '../state/state-builder';
import { applySegment } from '../state/wal-replay';
import type { WalSegment } from '../state/write-ahead-log';

/** An outcome as the stack session records it, seen before it is applied. */
export interface ObservedOutcome {
  intent: IntentRecord | undefined;
  effects: StateMutation[];
  failed?: { code?: string; message: string };
  /** An update's answer from its provider: true when it replaced the resource. Absent from older logs. */
  replaced?: boolean;
  /** The record under a logical id before the outcome. */
  before: (logicalId: string) => ResourceState | undefined;
}

const CHANGE_TYPES: Record<IntentRecord['operation'], JournalChangeType> = {
  create: 'CREATE',
  update: 'UPDATE',
  delete: 'DELETE',
};

/** The journal entry of one outcome, if it is one a rollback reverts. */
export function journalEntryOf(o: ObservedOutcome): {
  completed?: CompletedOperation;
  failed?: FailedOperation;
  /** A replacement whose new copy's create failed: its UPDATE, journaled beside the CREATE. */
  failedReplacement?: FailedOperation;
} {
  const intent = o.intent;
  // Outcomes without an intent made no AWS call (policy-only changes, attribute reads).
  if (!intent) return {};
  const { logicalId, resourceType, provisionedBy } = intent;
  const prev = intent.deposedKey ? undefined : o.before(logicalId);
  const changeType = CHANGE_TYPES[intent.operation];
  if (o.failed) {
    const made = o.effects.find(
      (m): m is Extract<StateMutation, { op: 'depose' }> =>
        m.op === 'depose' && m.entry.reason === 'failed-create',
    );
    if (intent.deposedKey) return {};
    const attempted = intent.properties ? { attemptedProperties: intent.properties } : {};
    if (intent.operation === 'create' && prev) {
      // A replacement's create failed: the UPDATE applied nothing to the original; what it made is a failed CREATE.
      return {
        failedReplacement: {
          logicalId,
          changeType: 'UPDATE',
          resourceType,
          provisionedBy,
          previousState: prev,
          physicalId: prev.physicalId,
          ...attempted,
          replacement: true,
        },
        ...(made
          ? {
              failed: {
                logicalId,
                changeType: 'CREATE' as const,
                resourceType,
                provisionedBy,
                physicalId: made.entry.physicalId,
                ...attempted,
              },
            }
          : {}),
      };
    }
    return {
      failed: {
        logicalId,
        changeType,
        resourceType,
        provisionedBy,
        ...(prev && changeType !== 'CREATE' ? { previousState: prev } : {}),
        ...(intent.physicalId || made ? { physicalId: intent.physicalId ?? made!.entry.physicalId } : {}),
        ...attempted,
      },
    };
  }
  if (intent.deposedKey) return {}; // deleting a deposed copy reverts nothing a rollback could redo
  const set = o.effects.find(
    (m): m is Extract<StateMutation, { op: 'set' }> => m.op === 'set' && m.logicalId === logicalId,
  );
  if (intent.operation === 'delete') {
    if (!prev || !o.effects.some((m) => m.op === 'remove' && m.logicalId === logicalId)) return {};
    return {
      completed: { logicalId, changeType: 'DELETE', resourceType, provisionedBy, previousState: prev },
    };
  }
  if (!set) return {};
  const record = set.record;
  const base = {
    logicalId,
    resourceType: record.resourceType,
    provisionedBy: record.provisionedBy ?? provisionedBy,
    physicalId: record.physicalId,
    properties: record.properties,
  };
  if (intent.operation === 'create' && !prev) return { completed: { ...base, changeType: 'CREATE' } };
  if (!prev) return {};
  const replaced = isReplacementOutcome(o, prev, record);
  return {
    completed: {
      ...base,
      changeType: 'UPDATE',
      previousState: prev,
      ...(replaced !== undefined ? { replacement: replaced } : {}),
      ...((replaced ?? prev.physicalId !== record.physicalId)
        ? { replacedOriginal: originalAfter(o, prev) }
        : {}),
    },
  };
}

/**
 * Whether an update outcome replaced its resource, as the provider answered
 * (rollback-internals: "What counts as a replacement is what the provider
 * reported"): a create under an existing record is the core's replacement, and
 * a Type change is one whatever the provider said. Undefined when the outcome
 * carries no answer (a log an older cdkd wrote): the physical id decides then.
 */
function isReplacementOutcome(
  o: ObservedOutcome,
  prev: ResourceState,
  record: ResourceState,
): boolean | undefined {
  if (o.intent!.operation === 'create' || prev.resourceType !== record.resourceType) return true;
  return o.replaced;
}

/** What a replacement did with the original: deposed (alive, deleted after the deploy), retained, or deleted. */
function originalAfter(o: ObservedOutcome, prev: ResourceState): CompletedOperation['replacedOriginal'] {
  const intent = o.intent!;
  if (intent.operation === 'create') return intent.replaces ? 'deposed' : 'retained';
  // An update's provider that left the original alive has it deposed in the same outcome (deletePrevious).
  const deposed = o.effects.some(
    (m) => m.op === 'depose' && m.entry.reason === 'replaced' && m.entry.physicalId === prev.physicalId,
  );
  return deposed ? 'deposed' : 'deleted';
}

/** Collects a deploy's operations from the outcomes it records. */
export class JournalRecorder {
  readonly operations: CompletedOperation[];
  readonly failedOperations: FailedOperation[];

  /**
   * `journaled`: the operations a segment already holds, when its deploy's log is
   * read on (a killed deploy), so an outcome after them is read with them: the
   * delete-first fallback's CREATE still joins the DELETE journaled before the kill.
   */
  constructor(
    journaled: Pick<RollbackJournalSegment, 'operations' | 'failedOperations'> = { operations: [] },
  ) {
    this.operations = [...journaled.operations];
    this.failedOperations = [...(journaled.failedOperations ?? [])];
  }

  observe(o: ObservedOutcome): void {
    const entry = journalEntryOf(o);
    if (entry.completed) this.operations.push(this.asDeleteFirst(entry.completed));
    if (entry.failedReplacement) this.failedOperations.push(entry.failedReplacement);
    if (entry.failed) this.failedOperations.push(entry.failed);
  }

  /**
   * A CREATE right after this deploy deleted the same logical id is the
   * delete-first fallback of a replacement whose name the original held: one
   * UPDATE that replaced it, original deleted first, so the rollback reverses
   * it in that order and the copy leaves by its own UpdateReplacePolicy.
   */
  private asDeleteFirst(op: CompletedOperation): CompletedOperation {
    if (op.changeType !== 'CREATE') return op;
    let i = this.operations.length - 1;
    while (i >= 0 && this.operations[i].logicalId !== op.logicalId) i--;
    const deleted = i >= 0 ? this.operations[i] : undefined;
    if (deleted?.changeType !== 'DELETE' || !deleted.previousState) return op;
    this.operations.splice(i, 1);
    // The create-first attempt whose collision led here is not a failure: the replacement completed.
    const original = deleted.previousState.physicalId;
    for (let f = this.failedOperations.length - 1; f >= 0; f--) {
      const failed = this.failedOperations[f];
      if (
        failed.logicalId === op.logicalId &&
        failed.replacement &&
        failed.previousState?.physicalId === original
      )
        this.failedOperations.splice(f, 1);
    }
    return {
      ...op,
      changeType: 'UPDATE',
      previousState: deleted.previousState,
      replacement: true,
      replacedOriginal: 'deleted',
    };
  }
}

/**
 * Applies write-ahead-log segments to a builder (as replay does), recording the
 * operations of those numbered above `afterSeq`: what a killed deploy did after
 * it last wrote its journal.
 */
export function recordFromSegments(
  builder: StackStateBuilder,
  segments: WalSegment[],
  afterSeq: number,
  recorder: JournalRecorder,
): void {
  for (const segment of segments) {
    if (segment.seq <= builder.walSeq) continue;
    applySegment(builder, segment, (record, b) => {
      if (segment.seq <= afterSeq) return;
      recorder.observe({
        intent: record.id ? b.intent(record.id) : undefined,
        effects: record.effects,
        failed: record.failed,
        ...(record.replaced !== undefined ? { replaced: record.replaced } : {}),
        before: (id) => b.get(id),
      });
    });
    builder.walSeq = segment.seq;
  }
}
