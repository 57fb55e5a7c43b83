/**
 * Event-driven execution of a {@link Dag}: a node starts the moment its last
 * dependency succeeds (no level-by-level barrier) and a slot is free: at most
 * `concurrency` nodes in flight, or as many as a {@link ConcurrencyGate} allows
 * per class of node (limits that may change while the graph runs). The first
 * failure, or an abort, stops new dispatch while the work already in flight
 * finishes; nodes that can no longer run are reported.
 */
import { fixedGate } from '../util/concurrency';
import type { ConcurrencyGate } from '../util/concurrency';
import { ValidationError } from '../util/errors';
import type { Dag } from './dag';

/** What happened to one node. */
export type NodeOutcome =
  | { status: 'succeeded' }
  | { status: 'failed'; error: unknown }
  /** A dependency failed or was skipped: `blockedBy` is that direct dependency, `cause` the node that failed. */
  | { status: 'skipped'; blockedBy: string; cause: string }
  /** Never started because dispatch stopped (a failure elsewhere, or the abort signal). */
  | { status: 'not-started' };

/** Progress events, in the order they happen. */
export type ExecutorEvent =
  | { type: 'started'; id: string }
  | { type: 'succeeded'; id: string }
  | { type: 'failed'; id: string; error: unknown }
  | { type: 'skipped'; id: string; blockedBy: string; cause: string };

export interface ExecuteOptions {
  /**
   * Maximum number of nodes in flight (an integer >= 1), or a gate that decides per
   * class of node (cdkd's adaptive limits, capped by `--concurrency` when given).
   */
  concurrency: number | ConcurrencyGate;
  /**
   * The work for one node. `signal` is the caller's abort signal (never aborted when
   * none was given): long waits may watch it, but finishing cleanly is preferred.
   */
  run: (id: string, signal: AbortSignal) => Promise<void>;
  /** Stops new dispatch when aborted (Ctrl-C); in-flight work finishes. */
  signal?: AbortSignal;
  /** Called synchronously for every event; an exception it throws is ignored. */
  onEvent?: (event: ExecutorEvent) => void;
  /**
   * `true` (default): the first failure stops new dispatch. `false`: keep running every
   * node that does not depend on a failed one (best-effort destroy).
   */
  stopOnFailure?: boolean;
  /**
   * Among nodes waiting for a slot, lower values start first; equal values in the
   * order they became ready. Default: the node heading the longest chain of
   * dependents first ({@link Dag.chainLengths}), so that when slots are short the
   * work on the critical path does not queue behind leaves. Stacks use their
   * assembly order.
   */
  priority?: (id: string) => number;
}

export interface ExecutionResult {
  /** Outcome of every node of the graph. */
  outcomes: Map<string, NodeOutcome>;
  succeeded: string[];
  failed: Array<{ id: string; error: unknown }>;
  skipped: string[];
  notStarted: string[];
  /** True when the abort signal stopped dispatch. */
  aborted: boolean;
  /** True when every node succeeded. */
  ok: boolean;
}

/** Runs every node of `dag` (which must be acyclic) and reports each node's outcome; never rejects for a node's failure. */
export async function executeDag<T>(dag: Dag<T>, options: ExecuteOptions): Promise<ExecutionResult> {
  const { concurrency, run, onEvent } = options;
  if (typeof concurrency === 'number' && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new ValidationError(`Concurrency must be a whole number of at least 1, got ${concurrency}.`, {
      remedy: 'Pass --concurrency with a positive integer.',
    });
  }
  const gate = typeof concurrency === 'number' ? fixedGate(concurrency) : concurrency;
  dag.assertAcyclic();
  const stopOnFailure = options.stopOnFailure ?? true;
  const signal = options.signal ?? new AbortController().signal;

  const outcomes = new Map<string, NodeOutcome>();
  const waitingOn = new Map<string, number>();
  /** Ready nodes per class, in the order they became ready (or by `priority`). */
  const ready = new Map<string, string[]>();
  let queued = 0;
  const priority = options.priority ?? longestChainFirst(dag);
  const enqueue = (id: string): void => {
    const cls = gate.classOf(id);
    let queue = ready.get(cls);
    if (!queue) ready.set(cls, (queue = []));
    queue.splice(insertionPoint(queue, priority(id), priority), 0, id);
    queued++;
  };
  for (const id of dag.ids()) {
    const count = dag.dependenciesOf(id).length;
    waitingOn.set(id, count);
    if (count === 0) enqueue(id);
  }

  let inFlight = 0;
  let stopped = signal.aborted;
  let aborted = signal.aborted;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let settled = false;

  const emit = (event: ExecutorEvent): void => {
    try {
      onEvent?.(event);
    } catch {
      // A faulty progress listener must not stall the deploy (it runs inside promise callbacks).
    }
  };

  const skipDependents = (failedId: string): void => {
    // Breadth-first so `blockedBy` is the nearest dependency on the way to the failure.
    const queue = [failedId];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const dependent of dag.dependentsOf(from)) {
        if (outcomes.has(dependent)) continue;
        outcomes.set(dependent, { status: 'skipped', blockedBy: from, cause: failedId });
        emit({ type: 'skipped', id: dependent, blockedBy: from, cause: failedId });
        queue.push(dependent);
      }
    }
  };

  const pump = (): void => {
    if (settled) return;
    for (const [cls, queue] of ready) {
      while (!stopped && queue.length > 0) {
        if (outcomes.has(queue[0])) {
          queue.shift(); // skipped while queued
          queued--;
          continue;
        }
        if (!gate.tryAcquire(cls)) break;
        queued--;
        start(queue.shift()!, cls);
      }
    }
    // With a shared gate, ready nodes may wait for slots other runs hold: onCapacity pumps again.
    if (inFlight === 0 && (stopped || queued === 0)) {
      settled = true;
      finish();
    }
  };

  const start = (id: string, cls: string): void => {
    inFlight++;
    emit({ type: 'started', id });
    let work: Promise<void>;
    try {
      work = Promise.resolve(run(id, signal));
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      () => {
        outcomes.set(id, { status: 'succeeded' });
        emit({ type: 'succeeded', id });
        for (const dependent of dag.dependentsOf(id)) {
          const left = waitingOn.get(dependent)! - 1;
          waitingOn.set(dependent, left);
          if (left === 0 && !outcomes.has(dependent)) enqueue(dependent);
        }
        inFlight--;
        gate.release(cls);
        pump();
      },
      (error: unknown) => {
        outcomes.set(id, { status: 'failed', error });
        emit({ type: 'failed', id, error });
        skipDependents(id);
        if (stopOnFailure) stopped = true;
        inFlight--;
        gate.release(cls);
        pump();
      },
    );
  };

  const onAbort = (): void => {
    stopped = true;
    aborted = true;
    pump();
  };
  if (!signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
  const stopListening = gate.onCapacity(pump);

  pump();
  await finished;
  stopListening();
  signal.removeEventListener('abort', onAbort);

  for (const id of dag.ids()) {
    if (!outcomes.has(id)) outcomes.set(id, { status: 'not-started' });
  }
  const ordered = dag.ids().map((id) => [id, outcomes.get(id)!] as const);
  const failed = ordered.flatMap(([id, o]) => (o.status === 'failed' ? [{ id, error: o.error }] : []));
  const pick = (status: NodeOutcome['status']): string[] =>
    ordered.filter(([, o]) => o.status === status).map(([id]) => id);
  const succeeded = pick('succeeded');
  return {
    outcomes: new Map(ordered),
    succeeded,
    failed,
    skipped: pick('skipped'),
    notStarted: pick('not-started'),
    aborted,
    ok: succeeded.length === dag.size,
  };
}

/** Longest chain of dependents first (see {@link ExecuteOptions.priority}). */
function longestChainFirst<T>(dag: Dag<T>): (id: string) => number {
  const lengths = dag.chainLengths();
  return (id) => -lengths.get(id)!;
}

/** After every queued node of priority `p` or lower (the queue is sorted): equal priorities keep their order. */
function insertionPoint(queue: string[], p: number, priority: (id: string) => number): number {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (priority(queue[mid]) <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
