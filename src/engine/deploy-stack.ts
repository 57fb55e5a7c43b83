/**
 * Deploys one stack, in phases around one state builder (the stack session's):
 *
 *   plan      without the lock: nothing to change -> return (no lock, no call, no write)
 *   open      lock, state.json + write-ahead log replayed, pending intents settled
 *   execute   the resource graph: a node starts the moment its dependencies finish,
 *             is resolved and classified at dispatch time with real values, and each
 *             AWS call is announced in the log before it is sent
 *   clean up  removed resources and deposed ones (replaced originals), reverse
 *             dependency order, within the concurrency
 *   finalize  outputs, the final fold into state.json, release the lock (every exit
 *             path closes the session: flush, save, release), exports index
 */
import type { NameReplacement } from '../assets/template-rewrite';
import type { AwsClientFactory } from '../config/aws-clients';
import { executeDag } from '../graph/executor';
import type { ExecutionResult } from '../graph/executor';
import { buildResourceGraph } from '../graph/template-graph';
import { classifyResourceChange, reappliedFrom } from '../plan/classify';
import { planStack, schemaOf } from '../plan/plan-stack';
import { withSecretChanges } from '../plan/secret-digest';
import { decideRemoval } from '../plan/removal-policy';
import { namedOtherwise } from './replacement-names';
import { assertLeavesResources } from './preflight';
import type { StackPlan } from '../plan/types';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StackLock } from '../state/lock-manager';
import type { ParentLink } from '../state/state-builder';
import type { StateStore } from '../state/state-store';
import type { ResourceState, StackState } from '../state/types';
import { holdsSecretInClear } from '../state/redact-state';
import { STATE_SCHEMA_VERSION } from '../state/types';
import { hasUnsettledWork, readStackStateView, viewState } from '../state/wal-replay';
import { resolveDynamicReferencesIn } from '../template/dynamic-references';
import type { ResourceSchemaLookup } from '../template/environment';
import { redactSecrets } from '../template/redaction';
import { TemplateResolver } from '../template/resolver';
import type { CfnTemplate } from '../template/types';
import { CdkdError, formatError } from '../util/errors';
import type { IoHost, Logger } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { jsonEqual } from '../util/json-patch';
import { StateCrossStackResolver } from './cross-stack';
import { DeployJournal } from './deploy-journal';
import { buildEntryDeletionGraph } from './deletion-graph';
import type { DeletionEntry } from './deletion-graph';
import { emitResourceEvent, emitStackEvent, emptySummary } from './events';
import type { ResourceEvent, StackSummary } from './events';
import { liveAttributeReader, withAttribute } from './live-attributes';
import type { ResourceProvisioner } from './provisioner';
import { ResourceOperations } from './resource-operations';
import type { RecordBase } from './resource-operations';
import { stackResolverEnv } from './resolver-env';
import { revertSegment } from './revert-operations';
import type { StackResolverEnv } from './resolver-env';
import { planNestedStacks, redeployNestedStacksWithJournals } from './nested-plan';
import type { NestedPlanContext } from './nested-plan';
import { nestedTemplateSource } from './nested-template';
import type { NestedTemplateSource } from './nested-template';
import { settlePendingIntents } from './settle';
import { StackSession } from './stack-session';

export interface DeployStackInput {
  stackName: string;
  region: string;
  /** The synthesized template (assets already published and rewritten). */
  template: CfnTemplate;
  /** `--parameters` values for this stack. */
  parameterValues?: Record<string, string>;
  /** The storage-name rewrite of the stack's assets, applied to its nested stacks' templates too. */
  replacements?: readonly NameReplacement[];
  /** A nested-stack child: its link to the parent stack. */
  parent?: ParentLink;
  /** The stack tags on the template's resources; its nested stacks' children get them too. */
  stackTags?: Readonly<Record<string, string>>;
  /**
   * Where the plan reads nested stacks' templates (the cloud assembly, then S3);
   * default S3. A child's deploy plans no grandchildren: its top-level stack did.
   */
  nestedTemplates?: NestedTemplateSource;
}

export interface DeployStackOptions {
  store: StateStore;
  provisioner: ResourceProvisioner;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  ioHost: IoHost;
  /** Cap on resource operations in flight (`--concurrency`); undefined: the provisioner's adaptive limits alone. */
  concurrency?: number;
  /** False (`--no-rollback`): a failed deploy keeps its partial state and journal. Default true. */
  rollback?: boolean;
  /** Stops starting new operations (the first Ctrl-C). */
  signal?: AbortSignal;
  /** Cancels operations in flight (a second Ctrl-C). */
  cancelSignal?: AbortSignal;
  /** Where the full state goes when state.json cannot be saved. Default: the working directory. */
  erroredStateDir?: string;
  /** `--force`: re-apply every resource, changed or not. */
  force?: boolean;
  /**
   * Called with the plan of a stack that has changes, before anything is locked
   * or changed (`--require-approval`); throwing stops this stack's deploy.
   */
  beforeChanges?: (plan: StackPlan, state: StackState | undefined) => Promise<void>;
  /** A nested-stack child: the parent's lock, which it works under. */
  borrowedLock?: StackLock;
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
  /**
   * Replaced originals that still exist: kept by UpdateReplacePolicy (no longer in state), or
   * deposed in state because a failure stopped their cleanup (the next deploy deletes them).
   */
  leftOver: Array<{ logicalId: string; resourceType: string; physicalId: string; deposed?: boolean }>;
  /**
   * What a failed create of an earlier run left behind and this deploy did not delete,
   * since nothing proves it is still that create's resource: each names the physical id
   * (the deploy exits 2). Its record is dropped.
   */
  warnings: string[];
  /**
   * The `warnings` of the nested stacks below this one, each with the child's
   * state name (`Parent~Child`), so the command exits 2 for them too. Absent
   * when there are none.
   */
  nestedWarnings?: NestedStackWarning[];
  /** State writes: in all, and split into write-ahead log segments and folds into state.json. */
  /** The automatic rollback of a failed deploy, when one ran. */
  rollback?: {
    /** Every completed operation was reverted. */
    clean: boolean;
    reverted: string[];
    failed: Array<{ logicalId: string; error: unknown }>;
    warnings: string[];
  };
  /** A rollback journal was left for `cdkd rollback`. */
  journalKept?: boolean;
  stateWrites: {
    writes: number;
    bytes: number;
    segments?: { writes: number; bytes: number };
    folds?: { writes: number; bytes: number };
  };
  elapsedMs: number;
}

/** A warning a nested stack's deploy ended with, and which stack it is. */
export interface NestedStackWarning {
  stackName: string;
  warning: string;
}

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
  const run = new DeployRun(input, options);
  const preview = await run.plan();
  if (!preview) return run.result;

  const session = await StackSession.open({
    store: options.store,
    stackName: input.stackName,
    region: input.region,
    operation: 'deploy',
    logger: run.logger,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    erroredStateDir: options.erroredStateDir,
    borrowedLock: options.borrowedLock,
    parent: input.parent,
  });
  session.progressMode = () => run.progressMode();
  const detach = lendToNestedStacks(session, options, input, run.result);
  let failure: unknown;
  let end: Parameters<StackSession['close']>[0] = { state: run.progressMode() };
  const journal = new DeployJournal(
    options.store.journals,
    session,
    run.logger,
    !session.initial,
    input.replacements,
  );
  try {
    const ops = run.operations(session);
    await settlePendingIntents(session, ops, { concurrency: options.concurrency, logger: run.logger });
    await journal.start();
    const execution = await run.execute(session, ops);
    if (execution.ok) {
      const cleanup = await run.cleanUp(session, ops);
      const final = await run.finalOutputs();
      end = { state: { kind: 'final', final } };
      run.result.ok = cleanup.ok;
      run.result.interrupted = cleanup.aborted;
      await journal.remove();
    } else if (execution.aborted || options.rollback === false) {
      run.result.journalKept = await journal.record(
        execution.aborted ? 'interrupted' : 'no-rollback-failure',
      );
    } else {
      end = await run.rollBack(session, ops, journal);
    }
  } catch (err) {
    failure = err;
    end = { state: run.progressMode() };
    await journal
      .record('interrupted')
      .catch((e: unknown) => run.logger.error(`Could not write the rollback journal: ${formatError(e)}`));
  }
  detach();
  const closed = await session.close(end);
  run.result.stateWrites = structuredClone(session.stats);
  if (!closed.saved) {
    run.result.ok = false;
    if (failure) run.logger.error(closed.error!.message);
    else failure = closed.error;
  }
  if (failure) throw failure;
  await run.finish(end);
  return run.result;
}

/** Lends the session's lock and run options to the stack's nested stacks while it is open. */
function lendToNestedStacks(
  session: StackSession,
  options: DeployStackOptions,
  input: DeployStackInput,
  result: DeployStackResult,
): () => void {
  return options.provisioner.nestedStacks.attach(session.stackName, session.region, {
    onChildWarnings: (warnings) => (result.nestedWarnings ??= []).push(...warnings),
    store: options.store,
    ioHost: options.ioHost,
    lock: session.lock,
    liveRecord: (id) => session.builder.get(id),
    replacements: input.replacements ?? [],
    stackTags: input.stackTags ?? {},
    rollback: options.rollback,
    concurrency: options.concurrency,
    signal: options.signal,
    cancelSignal: options.cancelSignal,
    force: options.force,
    erroredStateDir: options.erroredStateDir,
  });
}

/** One deploy of one stack: what the phases share. */
class DeployRun {
  readonly logger: Logger;
  readonly result: DeployStackResult;
  private readonly started = Date.now();
  private readonly summary = emptySummary();
  private readonly lookup: ResourceSchemaLookup;
  private readonly crossStack: StateCrossStackResolver;
  private readonly env: StackResolverEnv;
  private resolver: TemplateResolver | undefined;
  private graph: Awaited<ReturnType<typeof buildResourceGraph>> | undefined;
  /** Resources created or replaced in this deploy: not addressable until their new record exists. */
  private readonly pending = new Set<string>();
  /** Unchanged nested stacks deployed again for a journal at or below their child (forced UPDATEs). */
  private redeployed = new Set<string>();
  private session: StackSession | undefined;
  /** Originals of replacements kept in AWS by UpdateReplacePolicy (no longer in state). */
  private readonly retainedOriginals: DeployStackResult['leftOver'] = [];
  private previousExports: { exportNames?: string[]; outputs?: Record<string, unknown> } = {};
  private readonly withSecrets: (props: Record<string, unknown>) => Promise<Record<string, unknown>>;

  constructor(
    private readonly input: DeployStackInput,
    private readonly options: DeployStackOptions,
  ) {
    const { stackName, region } = input;
    this.logger = createLogger(options.ioHost);
    this.result = {
      stackName,
      region,
      noChanges: false,
      ok: false,
      interrupted: false,
      summary: this.summary,
      outputs: {},
      exportNames: [],
      failed: [],
      skipped: [],
      leftOver: [],
      warnings: [],
      stateWrites: { writes: 0, bytes: 0 },
      elapsedMs: 0,
    };
    this.lookup = schemaLookup(options.schemas);
    this.crossStack = new StateCrossStackResolver(options.store, options.factory);
    this.env = stackResolverEnv({
      stackName,
      region,
      factory: options.factory,
      parameterValues: input.parameterValues,
      crossStack: this.crossStack,
    });
    const readers = { ssmParameter: this.env.ssmParameter, secretValue: this.env.secretValue };
    this.withSecrets = async (props) =>
      (await resolveDynamicReferencesIn(props, readers)) as Record<string, unknown>;
  }

  private emit(e: Omit<ResourceEvent, 'stackName'>): void {
    emitResourceEvent(this.options.ioHost, { stackName: this.input.stackName, ...e });
  }

  private emitStack(
    phase: 'planned' | 'no-changes' | 'succeeded' | 'failed',
    message: string,
    extra = {},
  ): void {
    const { stackName, region } = this.input;
    emitStackEvent(this.options.ioHost, { stackName, region, operation: 'deploy', phase, ...extra }, message);
  }

  /** How a fold during (or after a failure of) this deploy builds the record. */
  progressMode(): { kind: 'progress'; imports: StateImportEntries; outputReads: StateOutputReadEntries } {
    return {
      kind: 'progress',
      imports: this.crossStack.recorded.imports,
      outputReads: this.crossStack.recorded.outputReads,
    };
  }

  // ------------------------------------------------------------------ plan

  /** Plans against S3's current view without the lock; undefined (result filled) when nothing changes. */
  async plan(): Promise<StackPlan | undefined> {
    const { stackName, region, template } = this.input;
    const { store, provisioner } = this.options;
    const view = await readStackStateView(store.backend, store.wal, stackName, region);
    const state = viewState(view);
    const preview = await planStack({
      template,
      state,
      schemas: this.lookup,
      resolverEnv: this.env,
      force: this.options.force,
      resolveSecrets: this.withSecrets,
      canSnapshot: (record) => provisioner.canSnapshot(record),
    });
    assertLeavesResources(preview);
    this.redeployed = await redeployNestedStacksWithJournals(preview, { store, region, logger: this.logger });
    if (!this.input.parent) await planNestedStacks(preview, this.nestedPlanContext());
    provisioner.assertProvisionable(preview, state?.resources ?? {});
    provisioner.assertPropertiesValid(preview);
    const before = view.record;
    if (
      !preview.hasChanges &&
      before &&
      !hasUnsettledWork(view) &&
      // A nested stack redeployed for a journal below it: its successful deploy settles its own.
      !(this.input.parent && (await store.journals.read(stackName, region).then(Boolean, () => true))) &&
      before.sourceVersion === STATE_SCHEMA_VERSION &&
      !before.legacy &&
      before.state.exportNames !== undefined &&
      // A record holding a secret in clear (an older cdkd's) is rewritten masked, its versions purged.
      !holdsSecretInClear(before.state)
    ) {
      this.result.noChanges = true;
      this.result.ok = true;
      this.result.outputs = before.state.outputs;
      this.result.exportNames = before.state.exportNames ?? [];
      this.summary.unchanged = preview.resources.length;
      this.result.elapsedMs = Date.now() - this.started;
      this.emitStack('no-changes', `${stackName}: no changes`, {
        outputs: this.result.outputs,
        elapsedMs: this.result.elapsedMs,
      });
      return undefined;
    }
    await this.options.beforeChanges?.(preview, state);
    this.emitStack('planned', `${stackName}: deploying to ${region} (${planTotal(preview)} change(s))`, {
      total: planTotal(preview),
    });
    return preview;
  }

  private nestedPlanContext(): NestedPlanContext {
    const { store, factory, provisioner } = this.options;
    const { region } = this.input;
    return {
      region,
      store,
      factory,
      schemas: this.lookup,
      templates:
        this.input.nestedTemplates ??
        nestedTemplateSource({
          factory,
          region,
          replacements: this.input.replacements ?? [],
          taggingOf: (type) => this.options.schemas.tryGet(type)?.tagging,
        }),
      stackTags: this.input.stackTags ?? {},
      logger: this.logger,
      force: this.options.force,
      resolveSecrets: this.withSecrets,
      canSnapshot: (record) => provisioner.canSnapshot(record),
    };
  }

  operations(session: StackSession): ResourceOperations {
    this.session = session;
    const previous = session.builder.previous;
    this.previousExports = { exportNames: previous?.exportNames, outputs: previous?.outputs };
    return new ResourceOperations({
      session,
      provisioner: this.options.provisioner,
      ioHost: this.options.ioHost,
      logger: this.logger,
      expectedRegion: previous?.region ?? this.input.region,
      withSecrets: this.withSecrets,
    });
  }

  // --------------------------------------------------------------- execute

  async execute(session: StackSession, ops: ResourceOperations): Promise<ExecutionResult> {
    const builder = session.builder;
    this.resolver = new TemplateResolver(
      this.input.template,
      {
        ...this.env,
        schemas: this.lookup,
        resources: (id) => (this.pending.has(id) ? undefined : builder.get(id)),
        liveAttribute: liveAttributeReader({
          provisioner: this.options.provisioner,
          region: this.input.region,
          record: (id) => builder.get(id),
          // Recorded like any other state change: a log record, folded with the rest.
          onRead: (id, attribute, value) => {
            const record = builder.get(id);
            if (record)
              session.outcome(undefined, [
                {
                  op: 'set',
                  logicalId: id,
                  record: withAttribute(record, attribute, value),
                  prev: record.physicalId,
                },
              ]);
          },
        }),
      },
      { mode: 'strict', dynamicReferences: 'preserve-secrets' },
    );
    const graph = await buildResourceGraph(this.input.template, this.resolver);
    this.graph = graph;
    const execution = await executeDag(graph, {
      concurrency: this.options.provisioner.slots(
        (id) => builder.get(id) ?? { resourceType: graph.data(id).Type },
        this.options.concurrency,
      ),
      signal: session.stopSignal,
      run: (id) => this.runNode(id, session, ops),
      onEvent: (e) => {
        if (e.type !== 'skipped') return;
        this.emit({
          logicalId: e.id,
          resourceType: graph.data(e.id).Type,
          action: builder.get(e.id) ? 'UPDATE' : 'CREATE',
          status: 'skipped',
          reason: `${e.cause} failed`,
        });
        this.result.skipped.push({ logicalId: e.id, reason: `depends on ${e.cause}, which failed` });
      },
    });
    this.result.interrupted = execution.aborted;
    for (const f of execution.failed) this.result.failed.push({ logicalId: f.id, error: f.error });
    this.summary.failed = execution.failed.length;
    // Skipped = a dependency failed; resources never dispatched (stopped by a failure) are not counted.
    this.summary.skipped = execution.skipped.length;
    return execution;
  }

  private async runNode(logicalId: string, session: StackSession, ops: ResourceOperations): Promise<void> {
    const { provisioner } = this.options;
    const { region } = this.input;
    const builder = session.builder;
    const resolved = await this.resolver!.resolveResource(logicalId);
    const type = resolved.resourceType;
    const desired = {
      properties: resolved.properties,
      ...(resolved.deletionPolicy ? { deletionPolicy: resolved.deletionPolicy } : {}),
      ...(resolved.updateReplacePolicy ? { updateReplacePolicy: resolved.updateReplacePolicy } : {}),
    };
    const record = builder.get(logicalId);
    const change = await withSecretChanges(
      classifyResourceChange(type, desired, record, schemaOf(this.lookup, type), {
        force: this.options.force || this.redeployed.has(logicalId),
      }),
      desired,
      record,
      this.withSecrets,
    );
    // What every record written for this resource carries: the desired state, plus its place in the graph.
    const base: RecordBase = {
      resourceType: type,
      ...(resolved.deletionPolicy ? { deletionPolicy: resolved.deletionPolicy } : {}),
      ...(resolved.updateReplacePolicy ? { updateReplacePolicy: resolved.updateReplacePolicy } : {}),
      dependencies: this.graph!.dependenciesOf(logicalId).sort(),
      ...(resolved.metadata ? { metadata: resolved.metadata } : {}),
    };

    if (change.action === 'NO_CHANGE' || (change.action === 'UPDATE' && change.policyOnly)) {
      const refreshed: ResourceState = { ...record!, ...base, properties: record!.properties };
      if (!resolved.deletionPolicy) delete refreshed.deletionPolicy;
      if (!resolved.updateReplacePolicy) delete refreshed.updateReplacePolicy;
      const differs = !jsonEqual(refreshed, record);
      if (differs)
        session.outcome(undefined, [{ op: 'set', logicalId, record: refreshed, prev: record!.physicalId }]);
      if (change.action === 'UPDATE') {
        this.summary.updated++;
        this.emit({
          logicalId,
          resourceType: type,
          action: 'UPDATE',
          status: 'succeeded',
          physicalId: record!.physicalId,
          reason: 'policy attributes only',
        });
      } else {
        this.summary.unchanged++;
      }
      return;
    }

    const properties = resolved.properties;
    let routed;
    try {
      routed = provisioner.route(type, properties, region, change.action === 'UPDATE' ? record : undefined);
    } catch (err) {
      this.emit({
        logicalId,
        resourceType: type,
        action: change.action,
        status: 'failed',
        reason: (err as Error).message,
      });
      throw err;
    }
    this.logger.debug(`${logicalId} (${type}) → ${routed.decision.route}: ${routed.decision.reason}`);

    if (change.action === 'UPDATE') {
      const updated = await ops.update({
        logicalId,
        record: record!,
        routed,
        properties,
        recordBase: base,
        ...(change.forced
          ? { previousProperties: reappliedFrom(record!.properties ?? {}, schemaOf(this.lookup, type)) }
          : {}),
      });
      if (updated.wasReplaced) this.summary.replaced++;
      else this.summary.updated++;
      return;
    }

    const replacing = change.action === 'REPLACE' ? record : undefined;
    const retain =
      replacing !== undefined &&
      decideRemoval(
        {
          logicalId,
          resourceType: replacing.resourceType,
          updateReplacePolicy: resolved.updateReplacePolicy,
        },
        'replaced',
      ).action === 'retain';
    this.pending.add(logicalId);
    const create = (replaces?: ResourceState) =>
      ops.create({
        logicalId,
        resourceType: type,
        routed,
        properties,
        recordBase: base,
        action: change.action === 'REPLACE' ? 'REPLACE' : 'CREATE',
        ...(replaces ? { replaces: { record: replaces, retain } } : {}),
      });
    try {
      await create(replacing);
    } catch (err) {
      if ((err as CdkdError).code !== 'RESOURCE_ALREADY_EXISTS') throw err;
      await this.freeName(logicalId, type, properties, replacing, retain, session, ops, err);
      await create(undefined);
    }
    this.pending.delete(logicalId);
    if (change.action === 'REPLACE') {
      this.summary.replaced++;
      if (replacing && retain) {
        this.retainedOriginals.push({
          logicalId,
          resourceType: replacing.resourceType,
          physicalId: replacing.physicalId,
        });
        this.logger.info(
          `${logicalId}: the replaced original ${replacing.physicalId} is kept (UpdateReplacePolicy Retain).`,
        );
      }
    } else {
      this.summary.created++;
    }
  }

  /**
   * A create's fixed name is taken. When this stack's own earlier copy holds it —
   * the original being replaced (unless it is named otherwise, so cannot hold
   * it), or a deposed record of the same logical id (what
   * an earlier failed create made) — that copy is deleted first; anything else is
   * not this stack's to delete and the error stands.
   */
  private async freeName(
    logicalId: string,
    type: string,
    properties: Record<string, unknown>,
    replacing: ResourceState | undefined,
    retain: boolean,
    session: StackSession,
    ops: ResourceOperations,
    err: unknown,
  ): Promise<void> {
    // An original named otherwise does not hold the name: deleting it would lose it for nothing.
    const originalHolds = replacing !== undefined && !namedOtherwise(type, properties, replacing);
    if (originalHolds && retain) {
      throw new CdkdError(
        `${logicalId} (${type}) must be replaced, but its new copy collides with the name of the original, which UpdateReplacePolicy Retain keeps.`,
        {
          code: 'REPLACEMENT_NAME_COLLISION',
          cause: err,
          remedy: 'Change the resource name in the app, or drop UpdateReplacePolicy Retain, then re-run.',
        },
      );
    }
    const deposed = session.builder.deposed().filter((d) => d.logicalId === logicalId);
    if (!originalHolds && deposed.length === 0) throw err;
    this.logger.info(
      `${logicalId}: the name is held by this stack's earlier copy; deleting that copy first.`,
    );
    for (const d of deposed) {
      // What an earlier failed create left is deleted only once proven that create's (leftover-identity.ts).
      const settled = await ops.settleLeftover(d);
      if (settled?.action === 'unproven') {
        this.result.warnings.push(settled.reason);
        throw err;
      }
      if (!settled) await ops.delete({ logicalId, record: d, deposedKey: d.key, reason: 'frees the name' });
    }
    if (originalHolds)
      await ops.delete({ logicalId, record: replacing!, reason: 'frees the name for its replacement' });
  }

  // -------------------------------------------------------------- roll back

  /**
   * The automatic rollback of a failed deploy: the journal is written first (so
   * a rollback that dies partway is resumable), then this deploy's operations
   * are reverted, newest first. Returns how the session closes.
   */
  async rollBack(
    session: StackSession,
    ops: ResourceOperations,
    journal: DeployJournal,
  ): Promise<Parameters<StackSession['close']>[0]> {
    await journal.record('auto-rollback-started');
    const segment = journal.segment('auto-rollback-started');
    this.logger.info(
      `${this.input.stackName}: the deploy failed; rolling back ${segment.operations.length} operation(s).`,
    );
    const reverted = await revertSegment(
      {
        session,
        ops,
        provisioner: this.options.provisioner,
        ioHost: this.options.ioHost,
        logger: this.logger,
      },
      segment,
    );
    const clean = reverted.failed.length === 0;
    this.result.rollback = {
      clean,
      reverted: reverted.reverted,
      failed: reverted.failed,
      warnings: reverted.warnings,
    };
    for (const w of reverted.warnings) this.logger.warn(`Rollback: ${w}`);
    if (!clean) {
      this.result.journalKept = true;
      return { state: this.progressMode() };
    }
    await journal.settle(reverted.remainingFailed);
    this.result.journalKept = reverted.remainingFailed.length > 0;
    const builder = session.builder;
    // A stack's first deploy, reverted cleanly, leaves no record, as before it.
    if (
      segment.initialDeploy &&
      Object.keys(builder.resourceRecords()).length === 0 &&
      builder.deposed().length === 0 &&
      builder.pendingIntents().length === 0
    )
      return { delete: true };
    return { state: this.progressMode() };
  }

  // --------------------------------------------------------------- clean up

  /** Deletes what the template no longer has and the deposed records, dependents first. */
  async cleanUp(session: StackSession, ops: ResourceOperations): Promise<{ ok: boolean; aborted: boolean }> {
    const builder = session.builder;
    const entries: DeletionEntry[] = [];
    for (const [id, record] of Object.entries(builder.resourceRecords()))
      if (!this.graph!.has(id)) entries.push({ id, logicalId: id, record });
    for (const d of builder.deposed())
      entries.push({ id: `deposed:${d.key}`, logicalId: d.logicalId, record: d, deposedKey: d.key });
    const byId = new Map(entries.map((e) => [e.id, e]));
    const deletion = await executeDag(buildEntryDeletionGraph(entries, this.logger), {
      concurrency: this.options.provisioner.slots((id) => byId.get(id)!.record, this.options.concurrency),
      signal: session.stopSignal,
      stopOnFailure: false,
      run: async (id) => {
        const entry = byId.get(id)!;
        const { logicalId, record } = entry;
        const decision = await ops.remove({
          logicalId,
          record,
          cause: 'removed',
          ...(entry.deposedKey ? { deposedKey: entry.deposedKey, reason: deposedReason(entry) } : {}),
        });
        if (decision.action === 'retain') this.summary.retained++;
        else if (decision.action === 'unproven') this.result.warnings.push(decision.reason);
        else if (!entry.deposedKey) this.summary.deleted++;
      },
    });
    for (const f of deletion.failed) this.result.failed.push({ logicalId: f.id, error: f.error });
    this.summary.failed += deletion.failed.length;
    return { ok: deletion.failed.length === 0 && !deletion.aborted, aborted: deletion.aborted };
  }

  // --------------------------------------------------------------- finalize

  /** Outputs and export names, once every resource is in place. */
  async finalOutputs(): Promise<{
    outputs: Record<string, unknown>;
    exportNames: string[];
    imports: StateImportEntries;
    outputReads: StateOutputReadEntries;
  }> {
    const { outputs, exportNames } = buildOutputs(await this.resolver!.resolveOutputs(), this.logger);
    return {
      outputs,
      exportNames,
      imports: this.crossStack.recorded.imports,
      outputReads: this.crossStack.recorded.outputReads,
    };
  }

  /** After the session closed with the record saved: result, exports index, the stack's event. */
  async finish(end: Parameters<StackSession['close']>[0]): Promise<void> {
    const { stackName, region } = this.input;
    const builder = this.session!.builder;
    for (const d of builder.deposed())
      this.result.leftOver.push({
        logicalId: d.logicalId,
        resourceType: d.resourceType,
        physicalId: d.physicalId,
        deposed: true,
      });
    this.result.leftOver.push(...this.retainedOriginals);
    const final = 'state' in end && end.state.kind === 'final' ? end.state.final : undefined;
    this.result.elapsedMs = Date.now() - this.started;
    if (!final) {
      const deposed = this.result.leftOver.filter((l) => l.deposed);
      if (deposed.length > 0) {
        this.logger.warn(
          `Kept in state for deletion by the next successful deploy (or by destroy): ${deposed.map((l) => `${l.logicalId} (${l.resourceType}) ${l.physicalId}`).join(', ')}.`,
        );
      }
      const rollback = this.result.rollback;
      const after = rollback
        ? rollback.clean
          ? `; rolled back (${rollback.reverted.length} operation(s) reverted)`
          : `; the rollback did not finish (${rollback.failed.length} operation(s) not reverted): run cdkd rollback ${stackName}`
        : this.result.journalKept === false
          ? '; finished resources are saved in state'
          : `; finished resources are saved in state (cdkd rollback ${stackName} reverts them)`;
      this.emitStack(
        'failed',
        `${stackName}: deploy ${this.result.interrupted ? 'interrupted' : 'failed'} (${describeSummary(this.summary)})${firstFailure(this.result.failed)}${after}`,
        { summary: this.summary, elapsedMs: this.result.elapsedMs },
      );
      return;
    }
    this.result.outputs = final.outputs;
    this.result.exportNames = final.exportNames;
    // A record without exportNames (new stack, or pre-v9) published nothing it knew of as an export.
    const previous = this.previousExports;
    const exportsChanged =
      !jsonEqual(previous.exportNames ?? [], final.exportNames) ||
      final.exportNames.some(
        (n) => !jsonEqual(redactSecrets(previous.outputs?.[n]), redactSecrets(final.outputs[n])),
      );
    if (exportsChanged) {
      await this.options.store.exportsIndex.updateStack(region, {
        stackName,
        region,
        outputs: final.outputs,
        exportNames: final.exportNames,
      });
    }
    this.emitStack(
      this.result.ok ? 'succeeded' : 'failed',
      this.result.ok
        ? `${stackName}: deployed in ${(this.result.elapsedMs / 1000).toFixed(1)}s (${describeSummary(this.summary)})`
        : `${stackName}: deployed, but cleanup failed (${describeSummary(this.summary)})`,
      { summary: this.summary, outputs: final.outputs, elapsedMs: this.result.elapsedMs },
    );
  }
}

type StateImportEntries = StateCrossStackResolver['recorded']['imports'];
type StateOutputReadEntries = StateCrossStackResolver['recorded']['outputReads'];

function deposedReason(entry: DeletionEntry): string {
  const d = entry.record as { reason?: string };
  return d.reason === 'failed-create'
    ? 'made by a create that failed; deleting it'
    : 'the original of a replacement; deleting it';
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
