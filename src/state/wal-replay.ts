/**
 * Rebuilding a stack's state from `state.json` plus its write-ahead log: the
 * segments newer than the record's `walSeq` are applied in order onto a
 * {@link StackStateBuilder}. Segments at or below `walSeq` were folded into the
 * record already, and segments of another lineage belong to an earlier life of
 * the stack (a destroy that died before removing them): both are stale, never
 * applied, and deleted at the next fold.
 */
import { mapWithConcurrency } from '../util/concurrency';
import { StackStateBuilder } from './state-builder';
import type { S3StateBackend, StateRecord } from './state-backend';
import type { StackState } from './types';
import type { WalSegment, WalSegmentRef, WriteAheadLogStore } from './write-ahead-log';

export interface ReplayResult {
  /** Segments applied, in order. */
  applied: WalSegmentRef[];
  /** Segments that are folded already or of another lineage. */
  stale: WalSegmentRef[];
  /** The highest segment number present (0 when there is none). */
  maxSeq: number;
}

/** Applies the segments newer than the builder's `walSeq`. */
export async function replaySegments(
  store: WriteAheadLogStore,
  builder: StackStateBuilder,
  refs: WalSegmentRef[],
): Promise<ReplayResult> {
  const result: ReplayResult = { applied: [], stale: [], maxSeq: 0 };
  for (const r of refs) result.maxSeq = Math.max(result.maxSeq, r.seq);
  const fresh = refs.filter((r) => r.seq > builder.walSeq);
  result.stale.push(...refs.filter((r) => r.seq <= builder.walSeq));
  const segments = await mapWithConcurrency(fresh, 8, (r) => store.read(r));
  // Without a record, the newest segment says which lineage is the stack's.
  if (!builder.lineage) {
    const newest = [...segments].reverse().find((s): s is WalSegment => s !== undefined);
    if (newest) builder.lineage = newest.lineage;
  }
  fresh.forEach((ref, i) => {
    const segment = segments[i];
    if (!segment) return;
    if (segment.lineage !== builder.lineage) {
      result.stale.push(ref);
      return;
    }
    applySegment(builder, segment);
    builder.walSeq = Math.max(builder.walSeq, ref.seq);
    result.applied.push(ref);
  });
  return result;
}

/** Applies one segment's records. */
export function applySegment(builder: StackStateBuilder, segment: WalSegment): void {
  for (const record of segment.records) {
    switch (record.t) {
      case 'intent':
        builder.announce(record.intent);
        break;
      case 'amend':
        builder.amend(record.id, { attempt: record.attempt, requestTokens: record.requestTokens });
        break;
      case 'outcome':
        for (const m of record.effects) builder.apply(m, { replay: true, now: segment.writtenAt });
        if (record.id) builder.resolve(record.id);
        break;
    }
  }
}

/** A stack's state as S3 holds it right now: the record, its log replayed on top (read only). */
export interface StackStateView {
  record: StateRecord | undefined;
  builder: StackStateBuilder;
  segments: WalSegmentRef[];
  replay: ReplayResult;
}

/** Reads `state.json` and replays the log onto it, without the lock (for plans and the `state` commands). */
export async function readStackStateView(
  backend: S3StateBackend,
  wal: WriteAheadLogStore,
  stackName: string,
  region: string,
): Promise<StackStateView> {
  const [record, segments] = await Promise.all([
    backend.getState(stackName, region),
    wal.list(stackName, region),
  ]);
  const builder = new StackStateBuilder(stackName, region, record?.state);
  const replay = segments.length
    ? await replaySegments(wal, builder, segments)
    : { applied: [], stale: [], maxSeq: 0 };
  return { record, builder, segments, replay };
}

/**
 * True when the view holds work an earlier run left: unfolded segments, pending
 * intents, deposed resources, or folded segments a killed run never deleted
 * (only a run holding the lock may delete them, so a no-change deploy must not
 * skip the session for them).
 */
export function hasUnsettledWork(view: StackStateView): boolean {
  return (
    view.replay.applied.length > 0 ||
    view.replay.stale.length > 0 ||
    view.builder.pendingIntents().length > 0 ||
    view.builder.deposed().length > 0
  );
}

/** The record a view stands for: state.json with the log applied (undefined for a stack with neither). */
export function viewState(view: StackStateView): StackState | undefined {
  if (!view.record && view.replay.applied.length === 0) return undefined;
  if (view.record && view.replay.applied.length === 0) return view.record.state;
  return view.builder.build({ kind: 'progress' });
}
