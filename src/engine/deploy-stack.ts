/**
 * Deploys one stack: plan → lock → read state → execute the resource graph →
 * clean up (removed resources, replaced originals) → outputs → final save →
 * exports index → release.
 *
 * - A node starts the moment its dependencies finish (event-driven executor);
 *   each node is resolved and classified at dispatch time with real values.
 * - State is saved while the deploy runs (coalesced, one save in flight), so an
 *   interrupted or failed deploy keeps every resource it made.
 * - A deploy with nothing to change takes no lock, calls no provider and writes
 *   nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { AwsClientFactory } from '../config/aws-clients';
import { executeDag } from '../graph/executor';
import { buildDeletionGraph, buildResourceGraph } from '../graph/template-graph';
import { classifyResourceChange, reappliedFrom } from '../plan/classify';
import { planStack, schemaOf } from '../plan/plan-stack';
import type { StackPlan } from '../plan/types';
import { buildCreateContext } from '../provisioning/create-context';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StateStore } from '../state/state-store';
import type { PolicyAttribute, ResourceState, StackState } from '../state/types';
import { STATE_SCHEMA_VERSION } from '../state/types';
import { resolveDynamicReferencesIn } from '../template/dynamic-references';
import type { ResourceSchemaLookup } from '../template/environment';
import { TemplateResolver } from '../template/resolver';
import type { CfnTemplate } from '../template/types';
import { CdkdError } from '../util/errors';
import type { IoHost, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { jsonEqual } from '../util/json-patch';
import { StateCrossStackResolver } from './cross-stack';
import { emitResourceEvent, emitStackEvent, emptySummary } from './events';
import { liveAttributeReader, withAttribute } from './live-attributes';
import type { ResourceAction, ResourceEvent, StackSummary } from './events';
import type { ResourceProvisioner, RoutedProvider } from './provisioner';
import { stackResolverEnv } from './resolver-env';
import { StateWriter } from './state-writer';

export interface DeployStackInput {
  stackName: string;
  region: string;
  /** The synthesized template (assets already published and rewritten). */
  template: CfnTemplate;
  /** `--parameters` values for this stack. */
  parameterValues?: Record<string, string>;
}

export interface DeployStackOptions {
  store: StateStore;
  provisioner: ResourceProvisioner;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Longest a finished resource waits before it is persisted. Default 1000 ms. */
  saveIntervalMs?: number;
  /** `--force`: re-apply every resource, changed or not. */
  force?: boolean;
  /**
   * Called with the plan of a stack that has changes, before anything is locked
   * or changed (`--require-approval`); throwing stops this stack's deploy.
   */
  beforeChanges?: (plan: StackPlan, state: StackState | undefined) => Promise<void>;
}

export interface DeployStackResult {
  stackName: string;
  region: string;
  /** Nothing to do: no lock, no provider call, no write. */
  noChanges: boolean;
  /** Every resource reached its desired state. */
  ok: boolean;
  interrupted: boolean;
  summary: StackSummary;
  outputs: Record<string, unknown>;
  /** Which keys of `outputs` are export names (the bag holds both, as state does). */
  exportNames: string[];
  failed: Array<{ logicalId: string; error: unknown }>;
  skipped: Array<{ logicalId: string; reason: string }>;
  /** Replaced originals that still exist (a failure stopped their cleanup, or UpdateReplacePolicy kept them). */
  leftOver: Array<{ logicalId: string; resourceType: string; physicalId: string }>;
  stateWrites: { writes: number; bytes: number };
  elapsedMs: number;
}

const RETAIN_POLICIES = new Set<PolicyAttribute | undefined>(['Retain', 'RetainExceptOnCreate']);

function schemaLookup(schemas: SchemaStore): ResourceSchemaLookup {
  return { has: (t) => schemas.has(t), get: (t) => schemas.get(t) };
}

/** Output bag and export names, with the spec's collision rule (an alias never overwrites another output). */
export function buildOutputs(
  resolved: Array<{ name: string; value: unknown; exportName?: unknown }>,
  logger: Logger,
): { outputs: Record<string, unknown>; exportNames: string[] } {
  const outputs: Record<string, unknown> = {};
  const exportNames: string[] = [];
  const outputNames = new Set(resolved.map((o) => o.name));
  for (const out of resolved) outputs[out.name] = out.value;
  for (const out of resolved) {
    if (out.exportName === undefined) continue;
    if (typeof out.exportName !== 'string' || out.exportName === '') {
      logger.warn(`Output ${out.name}: Export.Name did not resolve to a string; the export is skipped.`);
      continue;
    }
    if (out.exportName !== out.name && outputNames.has(out.exportName)) {
      logger.warn(
        `Output ${out.name} exports the name ${out.exportName}, which is also the name of another output; the export is skipped. Rename one of them.`,
      );
      continue;
    }
    outputs[out.exportName] = out.value;
    exportNames.push(out.exportName);
  }
  return { outputs, exportNames: [...new Set(exportNames)].sort() };
}

function planTotal(plan: StackPlan): number {
  return plan.resources.filter((r) => r.action !== 'NO_CHANGE').length;
}

export async function deployStack(
  input: DeployStackInput,
  options: DeployStackOptions,
): Promise<DeployStackResult> {
  const { stackName, region, template } = input;
  const { store, provisioner, schemas, factory, ioHost } = options;
  const logger = createLogger(ioHost);
  const started = Date.now();
  const summary = emptySummary();
  const result: DeployStackResult = {
    stackName,
    region,
    noChanges: false,
    ok: false,
    interrupted: false,
    summary,
    outputs: {},
    exportNames: [],
    failed: [],
    skipped: [],
    leftOver: [],
    stateWrites: { writes: 0, bytes: 0 },
    elapsedMs: 0,
  };
  const lookup = schemaLookup(schemas);
  const crossStack = new StateCrossStackResolver(store, factory);
  const env = stackResolverEnv({
    stackName,
    region,
    factory,
    parameterValues: input.parameterValues,
    crossStack,
  });

  // Fast path: plan against the current record without the lock.
  const before = await store.backend.getState(stackName, region);
  const preview = await planStack({
    template,
    state: before?.state,
    schemas: lookup,
    resolverEnv: env,
    force: options.force,
  });
  provisioner.assertProvisionable(preview, before?.state.resources ?? {});
  if (
    !preview.hasChanges &&
    before &&
    before.sourceVersion === STATE_SCHEMA_VERSION &&
    !before.legacy &&
    before.state.exportNames !== undefined
  ) {
    result.noChanges = true;
    result.ok = true;
    result.outputs = before.state.outputs;
    result.exportNames = before.state.exportNames ?? [];
    summary.unchanged = preview.resources.length;
    result.elapsedMs = Date.now() - started;
    emitStackEvent(
      ioHost,
      {
        stackName,
        region,
        operation: 'deploy',
        phase: 'no-changes',
        outputs: result.outputs,
        elapsedMs: result.elapsedMs,
      },
      `${stackName}: no changes`,
    );
    return result;
  }
  await options.beforeChanges?.(preview, before?.state);
  emitStackEvent(
    ioHost,
    { stackName, region, operation: 'deploy', phase: 'planned', total: planTotal(preview) },
    `${stackName}: deploying to ${region} (${planTotal(preview)} change(s))`,
  );

  const lock = await store.locks.acquire(stackName, region, { operation: 'deploy' });
  try {
    const current = await store.backend.getState(stackName, region);
    const recorded: Record<string, ResourceState> = current?.state.resources ?? {};
    const previousState: StackState | undefined = current?.state;
    /** The state as it evolves: records of untouched resources, then results as they arrive. */
    const working: Record<string, ResourceState> = { ...recorded };
    /** Resources created or replaced in this deploy: not addressable until their new record exists. */
    const pending = new Set<string>();
    const runId = randomUUID();

    const resolver = new TemplateResolver(
      template,
      {
        ...env,
        schemas: lookup,
        resources: (id) =>
          pending.has(id) || !Object.prototype.hasOwnProperty.call(working, id) ? undefined : working[id],
        liveAttribute: liveAttributeReader({
          provisioner,
          region,
          record: (id) => working[id],
          onRead: (id, attribute, value) => {
            working[id] = withAttribute(working[id], attribute, value);
            changed();
          },
        }),
      },
      { mode: 'strict', dynamicReferences: 'preserve-secrets' },
    );
    const readers = { ssmParameter: env.ssmParameter, secretValue: env.secretValue };
    const withSecrets = async (props: Record<string, unknown>) =>
      (await resolveDynamicReferencesIn(props, readers)) as Record<string, unknown>;

    const snapshot = (): StackState => ({
      ...previousState,
      version: STATE_SCHEMA_VERSION,
      stackName,
      region,
      resources: { ...working },
      outputs: previousState?.outputs ?? {},
      // A failure-path save keeps the previous bag and its export set, and never drops a recorded read.
      imports: unionBy(
        previousState?.imports,
        crossStack.recorded.imports,
        (i) => `${i.sourceStack}|${i.sourceRegion}|${i.exportName}`,
      ),
      outputReads: unionBy(
        previousState?.outputReads,
        crossStack.recorded.outputReads,
        (o) => `${o.sourceStack}|${o.sourceRegion}|${o.outputName}`,
      ),
      lastModified: Date.now(),
    });
    const writer = new StateWriter(
      (state, etag) => store.backend.saveState(stackName, region, state, etag),
      current?.etag,
      {
        intervalMs: options.saveIntervalMs,
        onError: (err) =>
          logger.warn(`Could not persist deploy progress (will retry): ${(err as Error).message}`),
      },
    );
    const changed = () => writer.markChanged(snapshot);

    const graph = await buildResourceGraph(template, resolver);
    const replacedOriginals: Array<{ logicalId: string; record: ResourceState; retain: boolean }> = [];

    const emit = (e: Omit<ResourceEvent, 'stackName'>) => emitResourceEvent(ioHost, { stackName, ...e });

    const runNode = async (logicalId: string): Promise<void> => {
      const resolved = await resolver.resolveResource(logicalId);
      const type = resolved.resourceType;
      const desired = {
        properties: resolved.properties,
        ...(resolved.deletionPolicy ? { deletionPolicy: resolved.deletionPolicy } : {}),
        ...(resolved.updateReplacePolicy ? { updateReplacePolicy: resolved.updateReplacePolicy } : {}),
      };
      const record = Object.prototype.hasOwnProperty.call(recorded, logicalId)
        ? recorded[logicalId]
        : undefined;
      const change = classifyResourceChange(type, desired, record, schemaOf(lookup, type), {
        force: options.force,
      });
      const dependencies = graph.dependenciesOf(logicalId).sort();
      // What every record written for this resource carries: the desired state, plus its place in the graph.
      const base = {
        resourceType: type,
        ...desired,
        dependencies,
        ...(resolved.metadata ? { metadata: resolved.metadata } : {}),
      };

      if (change.action === 'NO_CHANGE' || (change.action === 'UPDATE' && change.policyOnly)) {
        const refreshed: ResourceState = { ...record!, ...base, properties: record!.properties };
        if (!resolved.deletionPolicy) delete refreshed.deletionPolicy;
        if (!resolved.updateReplacePolicy) delete refreshed.updateReplacePolicy;
        working[logicalId] = refreshed;
        if (change.action === 'UPDATE') {
          summary.updated++;
          emit({
            logicalId,
            resourceType: type,
            action: 'UPDATE',
            status: 'succeeded',
            physicalId: record!.physicalId,
            reason: 'policy attributes only',
          });
          changed();
        } else {
          summary.unchanged++;
          if (!jsonEqual(refreshed, record)) changed();
        }
        return;
      }

      const action: ResourceAction = change.action;
      const t0 = Date.now();
      const properties = await withSecrets(resolved.properties);
      let routed: RoutedProvider;
      try {
        routed = provisioner.route(type, properties, region, action === 'UPDATE' ? record : undefined);
      } catch (err) {
        emit({ logicalId, resourceType: type, action, status: 'failed', reason: (err as Error).message });
        throw err;
      }
      emit({
        logicalId,
        resourceType: type,
        action,
        status: 'started',
        route: routed.provisionedBy,
        routeReason: routed.decision.reason,
        physicalId: record?.physicalId,
      });
      logger.debug(`${logicalId} (${type}) → ${routed.decision.route}: ${routed.decision.reason}`);
      try {
        if (action === 'CREATE' || action === 'REPLACE') {
          pending.add(logicalId);
          const createContext = buildCreateContext({
            stackName,
            region,
            logicalId,
            idempotencyToken: createHash('sha256')
              .update(`${runId}:${stackName}:${region}:${logicalId}`)
              .digest('hex')
              .slice(0, 40),
            signal: options.signal,
          });
          const create = () => provisioner.create(routed, logicalId, type, properties, createContext);
          let created;
          let oldDeletedFirst = false;
          try {
            created = await create();
          } catch (err) {
            // A fixed physical name can only exist once: delete the original first, then create.
            if (action !== 'REPLACE' || (err as CdkdError).code !== 'RESOURCE_ALREADY_EXISTS') throw err;
            if (RETAIN_POLICIES.has(resolved.updateReplacePolicy)) {
              throw new CdkdError(
                `${logicalId} (${type}) must be replaced, but its new copy collides with the name of the original, which UpdateReplacePolicy ${resolved.updateReplacePolicy} keeps.`,
                {
                  code: 'REPLACEMENT_NAME_COLLISION',
                  cause: err,
                  remedy:
                    'Change the resource name in the app, or drop UpdateReplacePolicy Retain, then re-run.',
                },
              );
            }
            logger.info(
              `${logicalId}: the replacement's name is taken by the original; deleting the original first.`,
            );
            await provisioner.delete(provisioner.routeRecord(record!, region), logicalId, record!, {
              stackName,
              expectedRegion: previousState?.region ?? region,
            });
            oldDeletedFirst = true;
            delete working[logicalId];
            changed();
            created = await create();
          }
          working[logicalId] = {
            ...base,
            properties: created.effectiveProperties ?? resolved.properties,
            physicalId: created.physicalId,
            attributes: created.attributes ?? {},
            ...routed.provenance,
          };
          pending.delete(logicalId);
          if (action === 'REPLACE') {
            summary.replaced++;
            if (!oldDeletedFirst)
              replacedOriginals.push({
                logicalId,
                record: record!,
                retain: RETAIN_POLICIES.has(resolved.updateReplacePolicy),
              });
          } else {
            summary.created++;
          }
        } else {
          const recordedProps = record!.properties ?? {};
          const previous = await withSecrets(
            change.forced ? reappliedFrom(recordedProps, schemaOf(lookup, type)) : recordedProps,
          );
          const updated = await provisioner.update(
            routed,
            logicalId,
            record!.physicalId,
            type,
            properties,
            previous,
            {
              stackName,
              expectedRegion: previousState?.region ?? region,
            },
          );
          working[logicalId] = {
            ...record!,
            ...base,
            properties: updated.effectiveProperties ?? resolved.properties,
            physicalId: updated.physicalId,
            attributes: updated.attributes ?? record!.attributes ?? {},
            ...routed.provenance,
          };
          if (!resolved.deletionPolicy) delete working[logicalId].deletionPolicy;
          if (!resolved.updateReplacePolicy) delete working[logicalId].updateReplacePolicy;
          if (updated.wasReplaced) summary.replaced++;
          else summary.updated++;
        }
      } catch (err) {
        emit({
          logicalId,
          resourceType: type,
          action,
          status: 'failed',
          elapsedMs: Date.now() - t0,
          reason: (err as Error).message,
          route: routed.provisionedBy,
        });
        throw err;
      }
      emit({
        logicalId,
        resourceType: type,
        action,
        status: 'succeeded',
        elapsedMs: Date.now() - t0,
        physicalId: working[logicalId].physicalId,
        route: routed.provisionedBy,
      });
      changed();
    };

    const execution = await executeDag(graph, {
      concurrency: provisioner.slots(
        (id) => recorded[id] ?? { resourceType: graph.data(id).Type },
        options.concurrency,
      ),
      signal: options.signal,
      run: (id) => runNode(id),
      onEvent: (e) => {
        if (e.type === 'skipped') {
          const type = graph.data(e.id).Type;
          emit({
            logicalId: e.id,
            resourceType: type,
            action: recorded[e.id] ? 'UPDATE' : 'CREATE',
            status: 'skipped',
            reason: `${e.cause} failed`,
          });
          result.skipped.push({ logicalId: e.id, reason: `depends on ${e.cause}, which failed` });
        }
      },
    });
    result.interrupted = execution.aborted;
    for (const f of execution.failed) result.failed.push({ logicalId: f.id, error: f.error });
    summary.failed = execution.failed.length;
    // Skipped = a dependency failed; resources never dispatched (stopped by a failure) are not counted.
    summary.skipped = execution.skipped.length;

    if (!execution.ok) {
      // Keep everything that was made; cleanup waits for a successful deploy.
      for (const r of replacedOriginals) {
        result.leftOver.push({
          logicalId: r.logicalId,
          resourceType: r.record.resourceType,
          physicalId: r.record.physicalId,
        });
      }
      if (result.leftOver.length > 0) {
        logger.warn(
          `The original of each replaced resource still exists and is no longer in state: ${result.leftOver.map((l) => `${l.logicalId} (${l.resourceType}) ${l.physicalId}`).join(', ')}. Delete them once the deploy succeeds, or by hand.`,
        );
      }
      await writer.saveNow(snapshot());
      result.stateWrites = { ...writer.stats };
      result.elapsedMs = Date.now() - started;
      emitStackEvent(
        ioHost,
        { stackName, region, operation: 'deploy', phase: 'failed', summary, elapsedMs: result.elapsedMs },
        `${stackName}: deploy ${execution.aborted ? 'interrupted' : 'failed'} (${describeSummary(summary)})${firstFailure(result.failed)}; finished resources are saved in state`,
      );
      return result;
    }

    // Cleanup: resources the template no longer has (dependents first), then replaced originals.
    const deleteRecord = async (logicalId: string, record: ResourceState, action: ResourceAction) => {
      const t0 = Date.now();
      emit({
        logicalId,
        resourceType: record.resourceType,
        action,
        status: 'started',
        physicalId: record.physicalId,
      });
      try {
        const outcome = await provisioner.delete(provisioner.routeRecord(record, region), logicalId, record, {
          stackName,
          expectedRegion: previousState?.region ?? region,
        });
        if (outcome && outcome.outcome === 'skipped')
          throw new CdkdError(`${logicalId} (${record.resourceType}) was not deleted: ${outcome.reason}`, {
            code: 'DELETE_SKIPPED',
          });
      } catch (err) {
        emit({
          logicalId,
          resourceType: record.resourceType,
          action,
          status: 'failed',
          elapsedMs: Date.now() - t0,
          reason: (err as Error).message,
        });
        throw err;
      }
      emit({
        logicalId,
        resourceType: record.resourceType,
        action,
        status: 'succeeded',
        elapsedMs: Date.now() - t0,
        physicalId: record.physicalId,
      });
    };
    const removed: Record<string, ResourceState> = {};
    for (const [id, record] of Object.entries(recorded)) if (!graph.has(id)) removed[id] = record;
    const deletion = await executeDag(buildDeletionGraph(removed), {
      concurrency: provisioner.slots((id) => removed[id], options.concurrency),
      signal: options.signal,
      run: async (logicalId) => {
        const record = removed[logicalId];
        if (RETAIN_POLICIES.has(record.deletionPolicy)) {
          delete working[logicalId];
          summary.retained++;
          emit({
            logicalId,
            resourceType: record.resourceType,
            action: 'RETAIN',
            status: 'succeeded',
            physicalId: record.physicalId,
            reason: `DeletionPolicy ${record.deletionPolicy}: kept in AWS, removed from state`,
          });
          changed();
          return;
        }
        await deleteRecord(logicalId, record, 'DELETE');
        delete working[logicalId];
        summary.deleted++;
        changed();
      },
    });
    const cleanupFailures = [...deletion.failed];
    await Promise.all(
      replacedOriginals.map(async (r) => {
        if (r.retain) {
          result.leftOver.push({
            logicalId: r.logicalId,
            resourceType: r.record.resourceType,
            physicalId: r.record.physicalId,
          });
          logger.info(
            `${r.logicalId}: the replaced original ${r.record.physicalId} is kept (UpdateReplacePolicy Retain).`,
          );
          return;
        }
        try {
          await deleteRecord(r.logicalId, r.record, 'DELETE');
        } catch (err) {
          cleanupFailures.push({ id: r.logicalId, error: err });
          result.leftOver.push({
            logicalId: r.logicalId,
            resourceType: r.record.resourceType,
            physicalId: r.record.physicalId,
          });
        }
      }),
    );
    for (const f of cleanupFailures) result.failed.push({ logicalId: f.id, error: f.error });
    summary.failed += cleanupFailures.length;

    // Outputs, once every resource is in place.
    const { outputs, exportNames } = buildOutputs(await resolver.resolveOutputs(), logger);
    const finalState: StackState = {
      version: STATE_SCHEMA_VERSION,
      stackName,
      region,
      resources: { ...working },
      outputs,
      exportNames,
      ...(crossStack.recorded.imports.length ? { imports: crossStack.recorded.imports } : {}),
      ...(crossStack.recorded.outputReads.length ? { outputReads: crossStack.recorded.outputReads } : {}),
      ...(previousState?.parentStack
        ? {
            parentStack: previousState.parentStack,
            parentLogicalId: previousState.parentLogicalId,
            parentRegion: previousState.parentRegion,
          }
        : {}),
      lastModified: Date.now(),
    };
    await writer.saveNow(finalState);
    result.outputs = outputs;
    result.exportNames = exportNames;
    result.stateWrites = { ...writer.stats };
    // A record without exportNames (new stack, or pre-v9) published nothing it knew of as an export.
    const exportsChanged =
      !jsonEqual(previousState?.exportNames ?? [], exportNames) ||
      exportNames.some((n) => !jsonEqual(previousState?.outputs?.[n], outputs[n]));
    if (exportsChanged) await store.exportsIndex.updateStack(region, finalState);

    result.ok = cleanupFailures.length === 0 && !deletion.aborted;
    result.interrupted = deletion.aborted;
    result.elapsedMs = Date.now() - started;
    emitStackEvent(
      ioHost,
      {
        stackName,
        region,
        operation: 'deploy',
        phase: result.ok ? 'succeeded' : 'failed',
        summary,
        outputs,
        elapsedMs: result.elapsedMs,
      },
      result.ok
        ? `${stackName}: deployed in ${(result.elapsedMs / 1000).toFixed(1)}s (${describeSummary(summary)})`
        : `${stackName}: deployed, but cleanup failed (${describeSummary(summary)})`,
    );
    return result;
  } finally {
    await lock.release();
  }
}

export function describeSummary(s: StackSummary): string {
  const parts = [
    [s.created, 'created'],
    [s.updated, 'updated'],
    [s.replaced, 'replaced'],
    [s.deleted, 'deleted'],
    [s.retained, 'retained'],
    [s.failed, 'failed'],
    [s.skipped, 'skipped'],
  ] as const;
  const text = parts.filter(([n]) => n > 0).map(([n, w]) => `${n} ${w}`);
  return text.length ? text.join(', ') : 'nothing changed';
}

/** `: <logical id>: <reason>` of the first failure, for the stack's summary line. */
function firstFailure(failed: DeployStackResult['failed']): string {
  const first = failed[0];
  if (!first) return '';
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : '';
  return `: ${first.logicalId}: ${(first.error as Error)?.message ?? String(first.error)}${more}`;
}

function unionBy<T>(a: T[] | undefined, b: T[], key: (t: T) => string): T[] | undefined {
  if (!a?.length && !b.length) return a;
  const out = new Map<string, T>();
  for (const item of [...(a ?? []), ...b]) out.set(key(item), item);
  return [...out.values()];
}
