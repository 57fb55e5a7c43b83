/**
 * Destroys one stack from its state record: deletes every resource in reverse
 * dependency order (independent ones in parallel), persists the shrinking state
 * after each delete, honours `DeletionPolicy: Retain`, deletes the state file
 * when everything is gone and keeps the remaining records when something was
 * not deleted. Shared by `cdkd destroy` (synth-driven) and `cdkd state destroy`.
 */
import { executeDag } from '../graph/executor';
import { buildDeletionGraph } from '../graph/template-graph';
import type { StateStore } from '../state/state-store';
import type { PolicyAttribute, ResourceState, StackState } from '../state/types';
import { CdkdError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { findImportingConsumers } from './cross-stack';
import { emitResourceEvent, emitStackEvent, emptySummary } from './events';
import type { ResourceAction, StackSummary } from './events';
import type { ResourceProvisioner } from './provisioner';
import { StateWriter } from './state-writer';

export interface DestroyStackOptions {
  stackName: string;
  region: string;
  store: StateStore;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  signal?: AbortSignal;
  /**
   * DeletionPolicy from the synthesized template, used when a (pre-v5) state
   * record has none. `cdkd state destroy` has no template and passes nothing.
   */
  templateDeletionPolicies?: Record<string, PolicyAttribute | undefined>;
  /** How long a finished delete may wait before it is persisted. Default 1000 ms. */
  saveIntervalMs?: number;
}

export interface DestroyStackResult {
  stackName: string;
  region: string;
  /** False when the stack had no state record. */
  found: boolean;
  /** True when the state file was deleted (every resource deleted or retained). */
  complete: boolean;
  summary: StackSummary;
  deleted: string[];
  retained: string[];
  failed: Array<{ logicalId: string; error: unknown }>;
  skipped: Array<{ logicalId: string; reason: string }>;
  interrupted: boolean;
  elapsedMs: number;
}

/** A persisted snapshot during destroy never advertises outputs or cross-stack reads of gone resources. */
function destroySnapshot(state: StackState, resources: Record<string, ResourceState>): StackState {
  return {
    ...state,
    resources: { ...resources },
    outputs: {},
    imports: undefined,
    outputReads: undefined,
    exportNames: state.exportNames === undefined ? undefined : [],
    lastModified: Date.now(),
  };
}

export async function destroyStack(options: DestroyStackOptions): Promise<DestroyStackResult> {
  const { stackName, region, store, provisioner, ioHost } = options;
  const logger = createLogger(ioHost);
  const started = Date.now();
  const summary = emptySummary();
  const result: DestroyStackResult = {
    stackName,
    region,
    found: false,
    complete: false,
    summary,
    deleted: [],
    retained: [],
    failed: [],
    skipped: [],
    interrupted: false,
    elapsedMs: 0,
  };

  const lock = await store.locks.acquire(stackName, region, { operation: 'destroy' });
  try {
    const record = await store.backend.getState(stackName, region);
    if (!record) {
      logger.info(`${stackName} (${region}): no state found, nothing to destroy.`);
      return result;
    }
    result.found = true;
    const state = record.state;
    const consumers = await findImportingConsumers(store, state, region);
    if (consumers.length > 0) {
      const list = consumers.map((c) => `${c.stackName} (imports ${c.exportName})`).join(', ');
      throw new CdkdError(
        `Cannot destroy ${stackName} (${region}): its exports are still imported by ${list}.`,
        {
          code: 'EXPORT_IN_USE',
          remedy:
            'Destroy the consuming stacks first, or remove their Fn::ImportValue references and redeploy them.',
        },
      );
    }
    provisioner.assertDeletable(stackName, state.resources);
    const remaining: Record<string, ResourceState> = { ...state.resources };
    const dag = buildDeletionGraph(state.resources);
    emitStackEvent(
      ioHost,
      { stackName, region, operation: 'destroy', phase: 'planned', total: dag.ids().length },
      `${stackName}: destroying ${dag.ids().length} resource(s) in ${region}`,
    );
    const writer = new StateWriter(
      (snapshot, etag) => store.backend.saveState(stackName, region, snapshot, etag),
      record.etag,
      {
        intervalMs: options.saveIntervalMs,
        onError: (err) =>
          logger.warn(`Could not persist destroy progress (will retry): ${(err as Error).message}`),
      },
    );

    const event = (
      logicalId: string,
      res: ResourceState,
      action: ResourceAction,
      status: 'started' | 'succeeded' | 'failed' | 'skipped',
      extra: { elapsedMs?: number; reason?: string } = {},
    ) =>
      emitResourceEvent(ioHost, {
        stackName,
        logicalId,
        resourceType: res.resourceType,
        physicalId: res.physicalId,
        action,
        status,
        ...extra,
      });

    const execution = await executeDag(dag, {
      concurrency: provisioner.slots((id) => state.resources[id], options.concurrency),
      signal: options.signal,
      stopOnFailure: false,
      run: async (logicalId) => {
        const res = state.resources[logicalId];
        const policy = res.deletionPolicy ?? options.templateDeletionPolicies?.[logicalId];
        if (policy === 'Retain' || policy === 'RetainExceptOnCreate') {
          event(logicalId, res, 'RETAIN', 'succeeded', { reason: `DeletionPolicy ${policy}` });
          result.retained.push(logicalId);
          summary.retained++;
          return;
        }
        if (policy === 'Snapshot') {
          const reason = `DeletionPolicy Snapshot: cdkd cannot take the final snapshot of ${res.resourceType}; set its removal policy to DESTROY or RETAIN, or delete it by hand, then re-run`;
          event(logicalId, res, 'DELETE', 'skipped', { reason });
          result.skipped.push({ logicalId, reason });
          summary.skipped++;
          throw new CdkdError(reason, { code: 'DELETE_SKIPPED' });
        }
        const t0 = Date.now();
        event(logicalId, res, 'DELETE', 'started');
        const routed = provisioner.routeRecord(res, region);
        let outcome;
        try {
          outcome = await provisioner.delete(routed, logicalId, res, {
            stackName,
            expectedRegion: state.region ?? region,
          });
        } catch (err) {
          event(logicalId, res, 'DELETE', 'failed', {
            elapsedMs: Date.now() - t0,
            reason: (err as Error).message,
          });
          throw err;
        }
        if (outcome && outcome.outcome === 'skipped') {
          event(logicalId, res, 'DELETE', 'skipped', { elapsedMs: Date.now() - t0, reason: outcome.reason });
          result.skipped.push({ logicalId, reason: outcome.reason });
          summary.skipped++;
          throw new CdkdError(outcome.reason, { code: 'DELETE_SKIPPED' });
        }
        delete remaining[logicalId];
        result.deleted.push(logicalId);
        summary.deleted++;
        event(logicalId, res, 'DELETE', 'succeeded', { elapsedMs: Date.now() - t0 });
        writer.markChanged(() => destroySnapshot(state, remaining));
      },
    });

    for (const f of execution.failed) {
      if ((f.error as CdkdError)?.code !== 'DELETE_SKIPPED') {
        result.failed.push({ logicalId: f.id, error: f.error });
        summary.failed++;
      }
    }
    summary.skipped += execution.skipped.length + execution.notStarted.length;
    result.interrupted = execution.aborted;

    const everythingGone = Object.keys(remaining).every((id) => result.retained.includes(id));
    if (everythingGone && !execution.aborted && result.failed.length === 0 && result.skipped.length === 0) {
      await writer.stop();
      await store.backend.deleteState(stackName, region);
      await store.exportsIndex
        .removeStack(region, stackName)
        .catch((err: Error) =>
          logger.warn(`Could not remove ${stackName}'s entries from the exports index: ${err.message}`),
        );
      result.complete = true;
    } else {
      await writer.saveNow(destroySnapshot(state, remaining));
    }
    result.elapsedMs = Date.now() - started;
    emitStackEvent(
      ioHost,
      {
        stackName,
        region,
        operation: 'destroy',
        phase: result.complete ? 'succeeded' : 'failed',
        summary,
        elapsedMs: result.elapsedMs,
      },
      result.complete
        ? `${stackName}: destroyed (${summary.deleted} deleted, ${summary.retained} retained) in ${(result.elapsedMs / 1000).toFixed(1)}s`
        : `${stackName}: destroy incomplete (${summary.deleted} deleted, ${summary.retained} retained, ${summary.failed} failed, ${summary.skipped} skipped); the remaining resources stay in state`,
    );
    return result;
  } finally {
    await lock.release();
  }
}
