/**
 * Destroys one stack from its state record: settles what an earlier run left
 * pending, then deletes every resource — the live records and the deposed ones —
 * in reverse dependency order (independent ones in parallel), each delete
 * announced in the write-ahead log first; honours `DeletionPolicy: Retain`;
 * deletes the state file when everything is gone and keeps the remaining
 * records when something was not deleted. Shared by `cdkd destroy`
 * (synth-driven) and `cdkd state destroy`.
 */
import { executeDag } from '../graph/executor';
import type { NameReplacement } from '../assets/template-rewrite';
import type { StackLock } from '../state/lock-manager';
import type { StateStore } from '../state/state-store';
import type { PolicyAttribute } from '../state/types';
import { resolveDynamicReferencesIn } from '../template/dynamic-references';
import { CdkdError, formatError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { createLogger } from '../util/io-host';
import type { AwsClientFactory } from '../config/aws-clients';
import { findImportingConsumers } from './cross-stack';
import { buildEntryDeletionGraph } from './deletion-graph';
import type { DeletionEntry } from './deletion-graph';
import { emitStackEvent, emptySummary } from './events';
import type { StackSummary } from './events';
import type { NestedStackWarning } from './deploy-stack';
import type { ResourceProvisioner } from './provisioner';
import { ResourceOperations } from './resource-operations';
import { stackResolverEnv } from './resolver-env';
import { settlePendingIntents } from './settle';
import { StackSession } from './stack-session';

export interface DestroyStackOptions {
  stackName: string;
  region: string;
  store: StateStore;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  /** Stops starting new deletes (the first Ctrl-C). */
  signal?: AbortSignal;
  /** Cancels deletes in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
  /**
   * DeletionPolicy from the synthesized template, used when a (pre-v5) state
   * record has none. `cdkd state destroy` has no template and passes nothing.
   */
  templateDeletionPolicies?: Record<string, PolicyAttribute | undefined>;
  /** Where the full state goes when state.json cannot be saved. Default: the working directory. */
  erroredStateDir?: string;
  /** For secret references in properties a pending create re-sends. Default: the store's factory. */
  factory?: AwsClientFactory;
  /** A nested-stack child: the parent's lock, which it works under. */
  borrowedLock?: StackLock;
  /** The storage-name rewrite a nested stack's pending create re-sends with (see `DeployStackInput`). */
  replacements?: readonly NameReplacement[];
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
  /**
   * What a failed create left behind and this destroy did not delete, since nothing
   * proves it is still that create's resource: each names the physical id (exit 2).
   */
  warnings: string[];
  /** The warnings of the nested stacks this destroy destroyed, each with its child's state name. Absent when none. */
  nestedWarnings?: NestedStackWarning[];
  interrupted: boolean;
  elapsedMs: number;
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
    warnings: [],
    interrupted: false,
    elapsedMs: 0,
  };

  const session = await StackSession.open({
    store,
    stackName,
    region,
    operation: 'destroy',
    logger,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    erroredStateDir: options.erroredStateDir,
    borrowedLock: options.borrowedLock,
  });
  session.progressMode = () => ({ kind: 'destroy' });
  const detach = provisioner.nestedStacks.attach(stackName, region, {
    onChildWarnings: (warnings) => (result.nestedWarnings ??= []).push(...warnings),
    store,
    ioHost,
    lock: session.lock,
    liveRecord: (id) => session.builder.get(id),
    replacements: options.replacements ?? [],
    concurrency: options.concurrency,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    erroredStateDir: options.erroredStateDir,
  });
  const builder = session.builder;
  let end: Parameters<StackSession['close']>[0] = { state: { kind: 'destroy' } };
  let failure: unknown;
  try {
    if (!session.initial && !session.recovered && builder.deposed().length === 0) {
      logger.info(`${stackName} (${region}): no state found, nothing to destroy.`);
      end = { delete: true };
      return result;
    }
    result.found = true;
    const previous = builder.previous;
    const consumers = previous ? await findImportingConsumers(store, previous, region) : [];
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
    const env = stackResolverEnv({ stackName, region, factory: options.factory ?? store.factory });
    const readers = { ssmParameter: env.ssmParameter, secretValue: env.secretValue };
    const ops = new ResourceOperations({
      session,
      provisioner,
      ioHost,
      logger,
      expectedRegion: previous?.region ?? region,
      withSecrets: async (p) => (await resolveDynamicReferencesIn(p, readers)) as Record<string, unknown>,
    });
    // Refused before anything changes: every record (and deposed one) has a provider that may delete it.
    provisioner.assertDeletable(
      stackName,
      {
        ...builder.resourceRecords(),
        ...Object.fromEntries(builder.deposed().map((d) => [`${d.logicalId} (deposed ${d.key})`, d])),
      },
      options.templateDeletionPolicies,
    );
    await settlePendingIntents(session, ops, { concurrency: options.concurrency, logger });

    const entries: DeletionEntry[] = [
      ...Object.entries(builder.resourceRecords()).map(([id, record]) => ({ id, logicalId: id, record })),
      ...builder
        .deposed()
        .map((d) => ({ id: `deposed:${d.key}`, logicalId: d.logicalId, record: d, deposedKey: d.key })),
    ];
    const byId = new Map(entries.map((e) => [e.id, e]));
    const dag = buildEntryDeletionGraph(entries, logger);
    emitStackEvent(
      ioHost,
      { stackName, region, operation: 'destroy', phase: 'planned', total: dag.ids().length },
      `${stackName}: destroying ${dag.ids().length} resource(s) in ${region}`,
    );

    const execution = await executeDag(dag, {
      concurrency: provisioner.slots((id) => byId.get(id)!.record, options.concurrency),
      signal: session.stopSignal,
      stopOnFailure: false,
      run: async (id) => {
        const { logicalId, record, deposedKey } = byId.get(id)!;
        let decision;
        try {
          decision = await ops.remove({
            logicalId,
            record,
            cause: 'destroyed',
            ...(deposedKey ? { deposedKey, reason: 'deposed' } : {}),
            ...(options.templateDeletionPolicies?.[logicalId] && !deposedKey
              ? { fallbackDeletionPolicy: options.templateDeletionPolicies[logicalId] }
              : {}),
          });
        } catch (err) {
          const code = (err as CdkdError).code;
          if (code === 'DELETE_SKIPPED' || code === 'REMOVAL_REFUSED') {
            const reason = (err as Error).message;
            result.skipped.push({ logicalId, reason });
            summary.skipped++;
          }
          throw err;
        }
        if (decision.action === 'retain') {
          result.retained.push(logicalId);
          summary.retained++;
          return;
        }
        if (decision.action === 'unproven') result.warnings.push(decision.reason);
        if (decision.action === 'unproven' || decision.action === 'gone') return;
        result.deleted.push(logicalId);
        summary.deleted++;
      },
    });

    for (const f of execution.failed) {
      const code = (f.error as CdkdError)?.code;
      if (code !== 'DELETE_SKIPPED' && code !== 'REMOVAL_REFUSED') {
        result.failed.push({ logicalId: byId.get(f.id)?.logicalId ?? f.id, error: f.error });
        summary.failed++;
      }
    }
    summary.skipped += execution.skipped.length + execution.notStarted.length;
    result.interrupted = execution.aborted;

    const left = Object.keys(builder.resourceRecords()).filter((id) => !result.retained.includes(id));
    const everythingGone = left.length === 0 && builder.deposed().length === 0;
    if (everythingGone && !execution.aborted && result.failed.length === 0 && result.skipped.length === 0) {
      end = { delete: true };
      result.complete = true;
      // The journal goes with the record (its failed creates are deposed records, deleted above).
      await store.journals
        .remove(stackName, region)
        .catch((err: unknown) =>
          logger.warn(`Could not remove the rollback journal of ${stackName}: ${formatError(err)}`),
        );
    }
  } catch (err) {
    failure = err;
  } finally {
    detach();
    const closed = await session.close(end);
    if (!closed.saved) {
      result.complete = false;
      if (failure || !result.found) logger.error(closed.error!.message);
      else failure = closed.error;
    }
  }
  if (failure) throw failure;
  if (result.complete) {
    await store.exportsIndex
      .removeStack(region, stackName)
      .catch((err: Error) =>
        logger.warn(`Could not remove ${stackName}'s entries from the exports index: ${err.message}`),
      );
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
}
