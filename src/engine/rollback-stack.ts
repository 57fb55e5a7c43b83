/**
 * `cdkd rollback`: reverts what failed or interrupted deploys did, from the
 * stack's rollback journal and state alone (no synth). Under the stack lock:
 *
 *   open     lock, state.json + write-ahead log replayed
 *   journal  read; a deploy that was killed left an in-progress segment, whose
 *            operations continue in the log segments after its mark: they are
 *            read back from the log, and what was in flight is settled (re-sent
 *            with its token) and recorded with them
 *   revert   segments newest first; each reverted segment is popped
 *   close    a clean rollback removes the journal (and the record, when the
 *            oldest reverted deploy was the stack's first and nothing is left);
 *            otherwise the journal keeps the segments not yet reverted
 */
import type { NameReplacement } from '../assets/template-rewrite';
import type { AwsClientFactory } from '../config/aws-clients';
import { NESTED_STACK_SEPARATOR } from '../state/keys';
import type { StackLock } from '../state/lock-manager';
import type { RollbackJournal, RollbackJournalSegment } from '../state/rollback-journal';
import { StackStateBuilder } from '../state/state-builder';
import type { StateStore } from '../state/state-store';
import type { WalSegment } from '../state/write-ahead-log';
import { resolveDynamicReferencesIn } from '../template/dynamic-references';
import { mapWithConcurrency } from '../util/concurrency';
import type { IoHost, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { emitStackEvent } from './events';
import { JournalRecorder, recordFromSegments } from './journal-recorder';
import type { NestedStackWarning } from './deploy-stack';
import type { NestedStackHost } from './nested-stack';
import { NESTED_STACK_TYPE } from './provisionable';
import type { ResourceProvisioner } from './provisioner';
import { ResourceOperations } from './resource-operations';
import { stackResolverEnv } from './resolver-env';
import { revertSegment } from './revert-operations';
import type { RevertResult } from './revert-operations';
import { settlePendingIntents } from './settle';
import { StackSession } from './stack-session';

export interface RollbackStackOptions {
  stackName: string;
  region: string;
  store: StateStore;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  /** `--revert-failed`: also force the failed updates back to their pre-deploy properties. */
  revertFailed?: boolean;
  /** `--orphan`: logical ids whose resources are left as they are and whose operations leave the journal. */
  orphan?: readonly string[];
  concurrency?: number;
  signal?: AbortSignal;
  cancelSignal?: AbortSignal;
  erroredStateDir?: string;
  factory?: AwsClientFactory;
  /** A nested stack rolled back with its top-level stack: the parent's lock, which it works under. */
  borrowedLock?: StackLock;
  /** Also roll back the journals of the stack's nested stacks, deepest first, before its own. Default true. */
  nested?: boolean;
  /** Waits while a freed name is released before a re-create is retried (tests inject one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RollbackStackResult {
  stackName: string;
  region: string;
  /** The stack had a journal. */
  found: boolean;
  /** Every segment was reverted; the journal is gone. */
  clean: boolean;
  segments: number;
  reverted: string[];
  /** What `--orphan` dropped from the journal, one line per logical id. */
  orphaned: string[];
  failed: RevertResult['failed'];
  warnings: string[];
  /**
   * The warnings of the nested stacks that reverting this stack's operations deployed or destroyed,
   * each with its child's state name. Absent when none.
   */
  nestedWarnings?: NestedStackWarning[];
  elapsedMs: number;
  /** The nested stacks below it that had journals, rolled back first (deepest first). */
  nestedStacks?: RollbackStackResult[];
}

export async function rollbackStack(options: RollbackStackOptions): Promise<RollbackStackResult> {
  const { stackName, region, store, provisioner, ioHost } = options;
  const logger = createLogger(ioHost);
  const started = Date.now();
  const result: RollbackStackResult = {
    stackName,
    region,
    found: false,
    clean: false,
    segments: 0,
    reverted: [],
    orphaned: [],
    failed: [],
    warnings: [],
    elapsedMs: 0,
  };
  const session = await StackSession.open({
    store,
    stackName,
    region,
    operation: 'rollback',
    logger,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    erroredStateDir: options.erroredStateDir,
    borrowedLock: options.borrowedLock,
  });
  // Reverting a nested stack's operation deploys or destroys its child, under this session's lock,
  // reading the templates below with the storage-name rewrite the reverted deploy recorded.
  const nestedHost: NestedStackHost = {
    onChildWarnings: (warnings) => (result.nestedWarnings ??= []).push(...warnings),
    store,
    ioHost,
    lock: session.lock,
    liveRecord: (id) => session.builder.get(id),
    replacements: [],
    concurrency: options.concurrency,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    erroredStateDir: options.erroredStateDir,
    rollback: false,
  };
  const detach = provisioner.nestedStacks.attach(stackName, region, nestedHost);
  let end: Parameters<StackSession['close']>[0] = { state: { kind: 'progress' } };
  let failure: unknown;
  try {
    if (options.nested !== false) {
      result.nestedStacks = await rollBackNestedStacks(options, session);
      const unfinished = result.nestedStacks.filter((r) => !r.clean);
      if (unfinished.length > 0) {
        // The parent's own operations wait: its children's journals still hold theirs.
        result.failed.push(
          ...unfinished.map((r) => ({
            logicalId: r.stackName,
            error: new Error(`the rollback of nested stack ${r.stackName} is incomplete`),
          })),
        );
        return result;
      }
    }
    const journal = await store.journals.read(stackName, region);
    if (!journal || journal.segments.length === 0) {
      logger.info(`${stackName} (${region}): no rollback journal, nothing to roll back.`);
      result.clean = true;
      if (!session.recovered) end = { state: { kind: 'progress' } };
      return result;
    }
    result.found = true;
    const env = stackResolverEnv({ stackName, region, factory: options.factory ?? store.factory });
    const readers = { ssmParameter: env.ssmParameter, secretValue: env.secretValue };
    const ops = new ResourceOperations({
      session,
      provisioner,
      ioHost,
      logger,
      expectedRegion: session.builder.previous?.region ?? region,
      withSecrets: async (p) => (await resolveDynamicReferencesIn(p, readers)) as Record<string, unknown>,
    });
    const segments = [...journal.segments];
    const newest = segments[segments.length - 1];
    nestedHost.replacements = rewriteOf(newest, stackName, logger);
    if (newest.walSeq !== undefined) {
      // A deploy that never finished: the rest of its operations are in the log, or still in flight.
      segments[segments.length - 1] = await completeFromLog(
        store,
        session,
        journal,
        ops,
        options.concurrency,
      );
    } else {
      await settlePendingIntents(session, ops, { concurrency: options.concurrency, logger });
    }
    if (options.orphan?.length) result.orphaned = orphanFrom(segments, options.orphan, result.warnings);
    result.segments = segments.length;
    emitStackEvent(
      ioHost,
      {
        stackName,
        region,
        operation: 'rollback',
        phase: 'planned',
        total: segments.reduce((n, s) => n + s.operations.length, 0),
      },
      `${stackName}: rolling back ${segments.length} failed deploy(s) in ${region}`,
    );
    const ctx = {
      session,
      ops,
      provisioner,
      ioHost,
      logger,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    };
    const all = [...segments];
    while (segments.length > 0) {
      const segment = segments[segments.length - 1];
      if (segment !== newest) nestedHost.replacements = rewriteOf(segment, stackName, logger);
      const out = await revertSegment(ctx, segment, {
        revertFailed: options.revertFailed,
        newer: all.slice(segments.length),
      });
      result.reverted.push(...out.reverted);
      result.warnings.push(...out.warnings);
      if (out.failed.length > 0) {
        result.failed.push(...out.failed);
        break;
      }
      segments.pop();
      if (segments.length === 0 && segment.initialDeploy) {
        const b = session.builder;
        if (
          Object.keys(b.resourceRecords()).length === 0 &&
          b.deposed().length === 0 &&
          !b.pendingIntents().length
        )
          end = { delete: true };
      }
    }
    for (const w of result.warnings) logger.warn(`Rollback: ${w}`);
    await keepOrRemove(store, journal, segments);
    result.clean = segments.length === 0;
  } catch (err) {
    failure = err;
  } finally {
    detach();
    const closed = await session.close(end);
    if (!closed.saved) {
      result.clean = false;
      if (failure) logger.error(closed.error!.message);
      else failure = closed.error;
    }
  }
  if (failure) throw failure;
  result.elapsedMs = Date.now() - started;
  emitStackEvent(
    ioHost,
    {
      stackName,
      region,
      operation: 'rollback',
      phase: result.clean ? 'succeeded' : 'failed',
      elapsedMs: result.elapsedMs,
    },
    result.clean
      ? `${stackName}: rolled back (${result.reverted.length} operation(s) reverted) in ${(result.elapsedMs / 1000).toFixed(1)}s`
      : `${stackName}: rollback incomplete (${result.reverted.length} reverted, ${result.failed.length} not); the journal keeps the rest`,
  );
  return result;
}

/**
 * The asset storage-name rewrite the segment's deploy used. A segment an
 * earlier cdkd wrote has none recorded: its nested stacks are redeployed from
 * their templates as published, which in cdkd asset mode name the CDK bootstrap
 * bucket below the first level; that is said, once per segment that needs it.
 */
function rewriteOf(
  segment: RollbackJournalSegment,
  stackName: string,
  logger: Logger,
): readonly NameReplacement[] {
  if (segment.assetNameRewrite) return segment.assetNameRewrite;
  const nested = [...segment.operations, ...(segment.failedOperations ?? [])].some(
    (op) => op.resourceType === NESTED_STACK_TYPE,
  );
  if (nested)
    logger.warn(
      `${stackName}: this journal was written by an earlier cdkd, which did not record the asset storage-name rewrite: nested stacks are redeployed from their templates as published, so in cdkd asset mode a template that names the CDK bootstrap bucket cannot be read. If the rollback fails on one, deploy the previous version of the app instead (cdkd deploy applies the rewrite).`,
    );
  return [];
}

/**
 * `--orphan`: drops every operation (completed or failed) of the named logical
 * ids from the segments, in place, so the rollback leaves their resources as
 * they are; returns what it dropped. An id the journal does not name is a
 * warning (a typo must not pass for an orphaned resource).
 */
export function orphanFrom(
  segments: RollbackJournalSegment[],
  logicalIds: readonly string[],
  warnings: string[],
): string[] {
  const wanted = new Set(logicalIds);
  const dropped = new Map<string, string[]>();
  const note = (id: string, what: string) => dropped.set(id, [...(dropped.get(id) ?? []), what]);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const operations = seg.operations.filter((op) => {
      if (!wanted.has(op.logicalId)) return true;
      note(op.logicalId, `its ${op.changeType}${op.physicalId ? ` of ${op.physicalId}` : ''}`);
      return false;
    });
    const failed = (seg.failedOperations ?? []).filter((f) => {
      if (!wanted.has(f.logicalId)) return true;
      note(f.logicalId, `its failed ${f.changeType}${f.physicalId ? ` of ${f.physicalId}` : ''}`);
      return false;
    });
    const { failedOperations: _f, ...rest } = seg;
    segments[i] = { ...rest, operations, ...(failed.length ? { failedOperations: failed } : {}) };
  }
  for (const id of wanted)
    if (!dropped.has(id))
      warnings.push(`--orphan ${id}: the journal holds no operation of ${id}; nothing dropped.`);
  return [...dropped].map(
    ([id, what]) => `${id}: left as it is (--orphan); dropped from the journal: ${what.join(', ')}`,
  );
}

/**
 * The journals of the stack's nested stacks (`Stack~Child`, `Stack~Child~Grandchild`...), rolled
 * back deepest first under the stack's lock: a child's operations are reverted before the
 * parent's operation that deployed it (CloudFormation's order).
 */
async function rollBackNestedStacks(
  options: RollbackStackOptions,
  session: StackSession,
): Promise<RollbackStackResult[]> {
  const { store, stackName, region } = options;
  const prefix = `${stackName}${NESTED_STACK_SEPARATOR}`;
  const children = (await store.backend.listStacks())
    .filter((r) => r.region === region && r.stackName.startsWith(prefix))
    .map((r) => r.stackName);
  const withJournals: string[] = [];
  for (const child of new Set(children)) {
    if (await store.journals.read(child, region).then(Boolean, () => true)) withJournals.push(child);
  }
  const depth = (name: string) => name.split(NESTED_STACK_SEPARATOR).length;
  withJournals.sort((a, b) => depth(b) - depth(a) || a.localeCompare(b));
  const results: RollbackStackResult[] = [];
  for (const child of withJournals) {
    if (options.signal?.aborted) break;
    const r = await rollbackStack({
      ...options,
      stackName: child,
      borrowedLock: session.lock,
      nested: false,
      // --orphan names the stack's own resources; a child's are orphaned by naming the child's stack.
      orphan: undefined,
    });
    results.push(r);
    if (!r.clean) break;
  }
  return results;
}

/** A clean rollback removes the journal; otherwise it keeps the segments not yet reverted. */
async function keepOrRemove(
  store: StateStore,
  journal: RollbackJournal,
  segments: RollbackJournalSegment[],
): Promise<void> {
  if (segments.length === 0) await store.journals.remove(journal.stackName, journal.region);
  else await store.journals.write({ ...journal, segments });
}

/**
 * The in-progress segment of a deploy that was killed: its journaled operations,
 * then those in the log segments after its mark, then the ones it had in flight
 * (settled now: re-sent with their tokens, so what they made is known and reverted).
 */
async function completeFromLog(
  store: StateStore,
  session: StackSession,
  journal: RollbackJournal,
  ops: ResourceOperations,
  concurrency: number | undefined,
): Promise<RollbackJournalSegment> {
  const { stackName, region } = session;
  const older = journal.segments.slice(0, -1);
  const segment = journal.segments[journal.segments.length - 1];
  const recorder = new JournalRecorder(segment);
  const refs = await store.wal.list(stackName, region);
  const read = await mapWithConcurrency(refs, 8, (r) => store.wal.read(r));
  const logSegments = read.filter(
    (s): s is WalSegment => s !== undefined && s.lineage === session.builder.lineage,
  );
  const replay = new StackStateBuilder(stackName, region, session.initial?.state);
  recordFromSegments(replay, logSegments, segment.walSeq ?? 0, recorder);
  const { walSeq: _mark, ...rest } = segment;
  const completed = (): RollbackJournalSegment => {
    const { failedOperations, operations } = recorder;
    return {
      ...rest,
      operations: [...operations],
      ...(failedOperations.length ? { failedOperations: [...failedOperations] } : {}),
    };
  };
  // The log segments are deleted once folded: the journal holds their operations first.
  session.beforeFold = () => store.journals.write({ ...journal, segments: [...older, completed()] });
  session.onOutcome = (o) => recorder.observe(o);
  try {
    await settlePendingIntents(session, ops, { concurrency, logger: store.logger });
  } finally {
    session.onOutcome = undefined;
    session.beforeFold = undefined;
  }
  return completed();
}
