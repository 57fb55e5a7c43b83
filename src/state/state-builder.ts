/**
 * The one builder of a stack's state while a command works on it. Every change
 * to the record — a resource made, updated or deleted, a replaced original
 * deposed, an intent announced or settled — goes through {@link apply} as a
 * {@link StateMutation}, the same value the write-ahead log stores, so the state
 * a live run holds and the state a later run rebuilds from the log are built by
 * the same code. {@link build} turns it into the `state.json` record: the
 * progress view (previous outputs kept), the final view of a deploy (new
 * outputs) or the view a destroy persists (no outputs).
 */
import type {
  DeposedResource,
  IntentRecord,
  ResourceState,
  StackState,
  StateImportEntry,
  StateMutation,
  StateOutputReadEntry,
} from './types';
import { STATE_SCHEMA_VERSION } from './types';

export type { StateMutation };

/** What the final record of a deploy carries besides the resources. */
export interface FinalOutputs {
  outputs: Record<string, unknown>;
  exportNames: string[];
  imports: StateImportEntry[];
  outputReads: StateOutputReadEntry[];
}

/** Which record {@link StackStateBuilder.build} produces. */
export type BuildMode =
  /** A save while a deploy runs or after it failed: the previous outputs and export set are kept. */
  | { kind: 'progress'; imports?: StateImportEntry[]; outputReads?: StateOutputReadEntry[] }
  /** The record of a deploy that reached its outputs. */
  | { kind: 'final'; final: FinalOutputs }
  /** A save while a destroy runs: no outputs and no cross-stack reads of resources that may be gone. */
  | { kind: 'destroy' };

/** The schema v6 fields that place a nested-stack child under its parent. */
export interface ParentLink {
  parentStack: string;
  parentLogicalId?: string;
  parentRegion?: string;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export class StackStateBuilder {
  private readonly resources: Record<string, ResourceState>;
  private readonly deposedByKey = new Map<string, DeposedResource>();
  private readonly pending = new Map<string, IntentRecord>();
  /** Bumped on every change, so a writer can tell whether there is anything to save. */
  private version = 0;
  /** The last write-ahead-log segment whose mutations are applied here. */
  walSeq: number;
  lineage: string | undefined;
  serial: number;
  /** A nested-stack child's link to its parent (schema v6 fields); undefined on a top-level stack. */
  parent: ParentLink | undefined;

  constructor(
    readonly stackName: string,
    readonly region: string,
    /** The record the command started from (undefined for a new stack). */
    readonly previous: StackState | undefined,
  ) {
    this.resources = { ...(previous?.resources ?? {}) };
    for (const d of previous?.deposed ?? []) this.deposedByKey.set(d.key, d);
    for (const i of previous?.pendingIntents ?? []) this.pending.set(i.id, i);
    this.walSeq = previous?.walSeq ?? 0;
    this.lineage = previous?.lineage;
    this.serial = previous?.serial ?? 0;
    this.parent = previous?.parentStack
      ? {
          parentStack: previous.parentStack,
          parentLogicalId: previous.parentLogicalId,
          parentRegion: previous.parentRegion,
        }
      : undefined;
  }

  /** A counter that changes with every mutation. */
  get changeCount(): number {
    return this.version;
  }

  /** The record under a logical id. */
  get(logicalId: string): ResourceState | undefined {
    return hasOwn(this.resources, logicalId) ? this.resources[logicalId] : undefined;
  }

  /** The current resource records (a copy). */
  resourceRecords(): Record<string, ResourceState> {
    return { ...this.resources };
  }

  /** Deposed records, oldest first. */
  deposed(): DeposedResource[] {
    return [...this.deposedByKey.values()];
  }

  deposedEntry(key: string): DeposedResource | undefined {
    return this.deposedByKey.get(key);
  }

  /** Intents without an outcome. */
  pendingIntents(): IntentRecord[] {
    return [...this.pending.values()];
  }

  /** A deposed key not used yet for `logicalId`. */
  nextDeposedKey(logicalId: string): string {
    for (let n = 1; ; n++) {
      const key = `${logicalId}~${n}`;
      if (!this.deposedByKey.has(key)) return key;
    }
  }

  /**
   * Applies one mutation. `replay` marks mutations read back from the log, where
   * a `set` whose `prev` no longer matches deposes the incoming resource.
   */
  apply(m: StateMutation, options: { replay?: boolean; now?: number } = {}): void {
    this.version++;
    switch (m.op) {
      case 'set': {
        const current = this.get(m.logicalId);
        if (
          options.replay &&
          m.prev !== undefined &&
          current &&
          current.physicalId !== (m.prev ?? undefined) &&
          current.physicalId !== m.record.physicalId
        ) {
          // Another writer put a different resource here meanwhile: keep it, and delete ours later.
          const key = this.nextDeposedKey(m.logicalId);
          this.deposedByKey.set(key, {
            ...m.record,
            logicalId: m.logicalId,
            key,
            reason: 'replaced',
            deposedAt: options.now ?? Date.now(),
          });
          return;
        }
        this.resources[m.logicalId] = m.record;
        return;
      }
      case 'remove':
        delete this.resources[m.logicalId];
        return;
      case 'depose':
        this.deposedByKey.set(m.entry.key, m.entry);
        return;
      case 'undepose':
        this.deposedByKey.delete(m.key);
        return;
    }
  }

  /** Records an announced intent as pending. */
  announce(intent: IntentRecord): void {
    this.version++;
    this.pending.set(intent.id, intent);
  }

  /** Updates a pending intent (a new attempt, a request token); no-op once settled. */
  amend(intentId: string, change: Partial<Pick<IntentRecord, 'attempt' | 'requestTokens'>>): void {
    const intent = this.pending.get(intentId);
    if (!intent) return;
    this.version++;
    this.pending.set(intentId, {
      ...intent,
      ...(change.attempt !== undefined ? { attempt: change.attempt } : {}),
      ...(change.requestTokens
        ? { requestTokens: { ...intent.requestTokens, ...change.requestTokens } }
        : {}),
    });
  }

  /** The intent has an outcome. */
  resolve(intentId: string): void {
    if (this.pending.delete(intentId)) this.version++;
  }

  intent(intentId: string): IntentRecord | undefined {
    return this.pending.get(intentId);
  }

  /** The state.json record. */
  build(mode: BuildMode, now = Date.now()): StackState {
    const previous = this.previous;
    const cdkd = {
      ...(this.lineage ? { lineage: this.lineage } : {}),
      serial: this.serial,
      walSeq: this.walSeq,
      ...(this.pending.size ? { pendingIntents: this.pendingIntents() } : {}),
      ...(this.deposedByKey.size ? { deposed: this.deposed() } : {}),
    };
    const base = {
      version: STATE_SCHEMA_VERSION,
      stackName: this.stackName,
      region: this.region,
      resources: { ...this.resources },
    };
    const parent = this.parent ?? {};
    if (mode.kind === 'final') {
      const { final } = mode;
      return {
        ...base,
        outputs: final.outputs,
        exportNames: final.exportNames,
        ...(final.imports.length ? { imports: final.imports } : {}),
        ...(final.outputReads.length ? { outputReads: final.outputReads } : {}),
        ...parent,
        lastModified: now,
        ...cdkd,
      };
    }
    if (mode.kind === 'destroy') {
      return {
        ...previous,
        ...base,
        ...parent,
        outputs: {},
        imports: undefined,
        outputReads: undefined,
        exportNames: previous?.exportNames === undefined ? undefined : [],
        lastModified: now,
        ...cdkd,
        pendingIntents: cdkd.pendingIntents,
        deposed: cdkd.deposed,
      };
    }
    return {
      ...previous,
      ...base,
      ...parent,
      // A progress save keeps the previous bag and its export set, and never drops a recorded read.
      outputs: previous?.outputs ?? {},
      imports: unionBy(
        previous?.imports,
        mode.imports ?? [],
        (i) => `${i.sourceStack}|${i.sourceRegion}|${i.exportName}`,
      ),
      outputReads: unionBy(
        previous?.outputReads,
        mode.outputReads ?? [],
        (o) => `${o.sourceStack}|${o.sourceRegion}|${o.outputName}`,
      ),
      lastModified: now,
      ...cdkd,
      pendingIntents: cdkd.pendingIntents,
      deposed: cdkd.deposed,
    };
  }
}

function unionBy<T>(a: T[] | undefined, b: T[], key: (t: T) => string): T[] | undefined {
  if (!a?.length && !b.length) return a;
  const out = new Map<string, T>();
  for (const item of [...(a ?? []), ...b]) out.set(key(item), item);
  return [...out.values()];
}
