/**
 * What the `cdkd state ...` commands do, without the CLI: list, show, info,
 * orphan. Each function takes a {@link StateStore} and returns plain data; the
 * commands only render it.
 */
import { mapWithConcurrency } from '../util/concurrency';
import { CdkdError, LockError, ValidationError } from '../util/errors';
import { listBootstrappedRegions } from './bootstrap-marker';
import { lockingStackName, nestedStackName } from './keys';
import type { CurrentLock } from './lock-manager';
import { listKeys } from './state-backend';
import type { StackRef } from './state-backend';
import type { StateStore } from './state-store';
import { STATE_SCHEMA_VERSION } from './types';
import type { StackState } from './types';
import { readStackStateView, viewState } from './wal-replay';

/** The lock of a stack as shown to users. */
export interface LockSummary {
  owner?: string;
  operation?: string;
  /** Acquisition time, Unix ms. */
  timestamp?: number;
  /** Deadline, Unix ms. */
  expiresAt?: number;
  /** Past its deadline: the next cdkd run takes it over. */
  expired: boolean;
}

/** One stack record in a listing. */
export interface StackSummary extends StackRef {
  resourceCount?: number;
  lastModified?: number;
  /** The schema version stored in the file. */
  schemaVersion?: number;
  lock?: LockSummary | null;
  parentStack?: string;
  parentRegion?: string;
  /** Why the details could not be read (corrupt or newer state file). */
  error?: string;
}

/** A stack and its nested-stack children. */
export interface StackTreeNode extends StackSummary {
  children: StackTreeNode[];
}

export function toLockSummary(lock: CurrentLock | undefined): LockSummary | null {
  if (!lock) return null;
  const { owner, operation, timestamp, expiresAt } = lock.info;
  return {
    ...(owner !== undefined ? { owner } : {}),
    ...(operation !== undefined ? { operation } : {}),
    ...(timestamp !== undefined ? { timestamp } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    expired: lock.expired,
  };
}

/**
 * Every stack in the state bucket. With `details`, each record and lock is read
 * too (resource count, last modified, lock, parent link); a record that cannot
 * be read is listed with its `error` rather than failing the listing.
 */
export async function listStackSummaries(
  store: StateStore,
  options: { details?: boolean } = {},
): Promise<StackSummary[]> {
  const refs = await store.backend.listStacks();
  if (!options.details) return refs.map((r) => ({ ...r }));
  return mapWithConcurrency(refs, 8, async (ref): Promise<StackSummary> => {
    const summary: StackSummary = { ...ref };
    try {
      const record = await store.backend.getState(ref.stackName, ref.region);
      if (record) {
        summary.resourceCount = Object.keys(record.state.resources).length;
        summary.lastModified = record.state.lastModified;
        summary.schemaVersion = record.sourceVersion;
        if (record.state.parentStack) summary.parentStack = record.state.parentStack;
        if (record.state.parentRegion) summary.parentRegion = record.state.parentRegion;
      }
    } catch (err) {
      summary.error = (err as Error).message;
    }
    summary.lock = toLockSummary(await store.locks.readLock(ref.stackName, ref.region));
    return summary;
  });
}

/**
 * Arranges stacks by their `parentStack` / `parentRegion` links. A child whose
 * parent has no record stays visible at the root.
 */
export function buildStackTree(stacks: StackSummary[]): StackTreeNode[] {
  const nodes = new Map<string, StackTreeNode>();
  const id = (name: string, region: string): string => `${name}\u0000${region}`;
  for (const s of stacks) nodes.set(id(s.stackName, s.region), { ...s, children: [] });
  const roots: StackTreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentStack
      ? nodes.get(id(node.parentStack, node.parentRegion ?? node.region))
      : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/**
 * The region of a stack's record: `explicit` when given; else the only region the
 * stack has state in; else `preferred` when it is one of several. Fails naming
 * the regions (or the bucket, when there is no record at all).
 */
export async function resolveStackRegion(
  store: StateStore,
  stackName: string,
  explicit?: string,
  preferred?: string,
): Promise<string> {
  if (explicit) return explicit;
  const regions = await store.backend.regionsOf(stackName);
  if (regions.length === 1) return regions[0];
  if (regions.length === 0) throw noState(store, stackName);
  if (preferred && regions.includes(preferred)) return preferred;
  throw new ValidationError(`Stack ${stackName} has state in several regions: ${regions.join(', ')}.`, {
    code: 'STACK_REGION_AMBIGUOUS',
    remedy: `Pass --region (one of ${regions.join(', ')}).`,
  });
}

function noState(store: StateStore, stackName: string, region?: string): ValidationError {
  return new ValidationError(
    `No state for stack ${stackName}${region ? ` in ${region}` : ''} in ${store.bucket.uri(store.bucket.keys.root())}.`,
    { code: 'STACK_STATE_NOT_FOUND', remedy: 'List the stacks cdkd tracks with `cdkd state list`.' },
  );
}

/** A stack's full record as `cdkd state show` presents it. */
export interface StackView {
  state: StackState;
  lock: LockSummary | null;
  /** Present with `nested`: the nested-stack children, recursively (empty on leaves). */
  children?: StackView[];
}

/** Details of a view that the JSON shape does not carry. */
export interface StackViewMeta {
  key: string;
  sourceVersion: number;
  legacy: boolean;
  /** Write-ahead log segments not folded into state.json yet (an interrupted run's). */
  unfoldedSegments?: number;
}

/**
 * Loads a stack's record and lock, and with `nested` every nested-stack child
 * (`{parent}~{logicalId}` for each `AWS::CloudFormation::Stack` resource). A child
 * whose record is missing fails the walk: the tree is torn.
 */
export async function loadStackView(
  store: StateStore,
  stackName: string,
  region: string,
  options: { nested?: boolean; meta?: Map<StackView, StackViewMeta> } = {},
): Promise<StackView> {
  const replayed = await readStackStateView(store.backend, store.wal, stackName, region);
  const record = replayed.record;
  // What S3 holds now: the record with the write-ahead log an interrupted run left replayed on top.
  const state = viewState(replayed);
  if (!state) throw noState(store, stackName, region);
  const view: StackView = {
    state,
    lock: toLockSummary(await store.locks.readLock(stackName, region)),
  };
  options.meta?.set(view, {
    key: record?.key ?? store.bucket.keys.stateKey(stackName, region),
    sourceVersion: record?.sourceVersion ?? STATE_SCHEMA_VERSION,
    legacy: record?.legacy ?? false,
    unfoldedSegments: replayed.replay.applied.length,
  });
  if (options.nested) {
    view.children = [];
    for (const [logicalId, resource] of Object.entries(state.resources)) {
      if (resource.resourceType !== 'AWS::CloudFormation::Stack') continue;
      const child = nestedStackName(stackName, logicalId);
      if (!(await store.backend.getState(child, region))) {
        throw new ValidationError(
          `Nested stack ${logicalId} of ${stackName} (${region}) has no state record ${store.bucket.uri(store.bucket.keys.stateKey(child, region))}: the stack tree is torn.`,
          {
            code: 'NESTED_STATE_MISSING',
            remedy:
              `Finish the interrupted operation that tore it (re-run the deploy or destroy), or stop tracking the parent with ` +
              `\`cdkd state orphan ${stackName} --region ${region}\` and deploy it again.`,
          },
        );
      }
      view.children.push(await loadStackView(store, child, region, options));
    }
  }
  return view;
}

/** What `cdkd state info` reports. */
export interface StateInfo {
  bucket: string;
  bucketRegion: string;
  /** False when the region lookup failed and `bucketRegion` is a guess. */
  bucketRegionResolved: boolean;
  /** Where the bucket name came from: cli-flag, env, config-file, cdk.json, default, legacy-default. */
  source: string;
  prefix: string;
  schemaVersion: number;
  stackCount: number;
  /** Regions with a bootstrap marker (opted into cdkd asset storage). */
  bootstrappedRegions: string[];
}

export async function getStateInfo(store: StateStore): Promise<StateInfo> {
  const region = await store.bucket.regionInfo();
  const [stacks, regions] = await Promise.all([
    store.backend.listStacks(),
    listBootstrappedRegions(store.bucket),
  ]);
  return {
    bucket: store.bucket.name,
    bucketRegion: region.region,
    bucketRegionResolved: region.resolved,
    source: store.bucket.source,
    prefix: store.bucket.prefix,
    schemaVersion: STATE_SCHEMA_VERSION,
    stackCount: stacks.length,
    bootstrappedRegions: regions,
  };
}

export interface OrphanResult {
  stackName: string;
  region: string;
  /** The state key removed. */
  stateKey: string;
  /** A rollback journal was removed too. */
  journalRemoved: boolean;
  /** Nested-stack children whose records remain (orphan them separately). */
  remainingChildren: string[];
}

/**
 * Forgets a stack: removes its state record, rollback journal and exports-index
 * entries under the stack lock, without touching any AWS resource. Refuses while
 * another process holds the lock.
 */
export async function orphanStack(
  store: StateStore,
  stackName: string,
  region: string,
): Promise<OrphanResult> {
  const lock = await store.locks
    .acquire(stackName, region, { operation: 'state-orphan', retries: 0 })
    .catch((err: unknown) => {
      if (CdkdError.isCdkdError(err) && err.code === 'LOCK_HELD') {
        throw new LockError(`Refusing to orphan ${stackName} (${region}): ${err.message}`, {
          remedy: err.remedy,
          cause: err,
        });
      }
      throw err;
    });
  try {
    const record = await store.backend.getState(stackName, region);
    const segments = await store.wal.list(stackName, region);
    if (!record && segments.length === 0) throw noState(store, stackName, region);
    if (record) await store.backend.deleteState(stackName, region, record.etag);
    // The write-ahead log belongs to the record: an orphaned stack leaves nothing to settle.
    const left = await store.wal.remove(segments);
    if (left.length)
      store.logger.warn(
        `Could not delete ${left.length} write-ahead log segment(s) of ${stackName}: ${left.join(', ')}`,
      );

    const journalRemoved = await store.journals.remove(stackName, region);

    await store.exportsIndex.removeStack(region, stackName);
    const children = (await store.backend.listStacks())
      .filter((r) => r.region === region && r.stackName.startsWith(nestedStackName(stackName, '')))
      .map((r) => r.stackName);
    return {
      stackName,
      region,
      stateKey: record?.key ?? store.bucket.keys.stateKey(stackName, region),
      journalRemoved,
      remainingChildren: children,
    };
  } finally {
    await lock.release();
  }
}

/** The regions a stack holds a lock in (a lock can exist without a state record: a first deploy that died). */
export async function lockedRegionsOf(store: StateStore, stackName: string): Promise<string[]> {
  const client = await store.bucket.client();
  const keys = await listKeys(
    client,
    store.bucket.name,
    store.bucket.keys.stackPrefix(lockingStackName(stackName)),
  );
  return keys
    .map((k) => store.bucket.keys.parse(k))
    .flatMap((p) => (p?.kind === 'lock' ? [p.region] : []))
    .sort();
}

export interface ForceUnlockResult {
  /** The stack whose lock it is: the one named, or a nested stack's top-level stack. */
  stackName: string;
  region: string;
  /** The lock removed; null when there was none. */
  removed: LockSummary | null;
}

/**
 * Removes a stack's lock whoever holds it. The region is `explicit`, else the
 * only region the stack is locked in, else `preferred`.
 */
/** A lock about to be removed by {@link forceUnlockStack}. */
export interface ForceUnlockCandidate {
  region: string;
  lock: LockSummary;
}

/**
 * Removes a stack's lock. A lock that has not expired is removed only when
 * `confirmLive` agrees (the command asks on a terminal, or has `--force`):
 * otherwise `'cancelled'` and the lock stays.
 */
export async function forceUnlockStack(
  store: StateStore,
  stackName: string,
  explicit?: string,
  preferred?: string,
  confirmLive: (candidate: ForceUnlockCandidate) => Promise<boolean> = async () => true,
): Promise<ForceUnlockResult | 'cancelled'> {
  // A nested stack has no lock of its own: it works under its top-level stack's.
  stackName = lockingStackName(stackName);
  let region = explicit;
  if (!region) {
    const locked = await lockedRegionsOf(store, stackName);
    if (locked.length === 1) region = locked[0];
    else if (locked.length > 1 && !(preferred && locked.includes(preferred))) {
      throw new ValidationError(`Stack ${stackName} is locked in several regions: ${locked.join(', ')}.`, {
        code: 'STACK_REGION_AMBIGUOUS',
        remedy: `Pass --region (one of ${locked.join(', ')}).`,
      });
    } else region = preferred ?? store.factory.region;
  }
  const current = await store.locks.readLock(stackName, region);
  if (current && !current.expired && !(await confirmLive({ region, lock: toLockSummary(current)! })))
    return 'cancelled';
  const removed = await store.locks.forceUnlock(stackName, region);
  return { stackName, region, removed: toLockSummary(removed) };
}
