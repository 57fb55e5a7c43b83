/**
 * The order in which recorded resources are deleted when more than the live
 * records are involved: removed resources and deposed ones (replaced originals,
 * what failed creates made) together. An entry that depends on logical id L is
 * deleted before every entry of L — the live record, and each deposed copy —
 * so a replaced subnet goes before the replaced VPC it sat in.
 */
import { Dag } from '../graph/dag';
import type { ResourceState } from '../state/types';
import { DependencyCycleError } from '../util/errors';
import type { Logger } from '../util/io-host';

/** One resource to delete. */
export interface DeletionEntry {
  /** Unique node id: the logical id, or the deposed key. */
  id: string;
  logicalId: string;
  record: ResourceState;
  /** Set for a deposed record. */
  deposedKey?: string;
}

export function buildEntryDeletionGraph(entries: DeletionEntry[], logger?: Logger): Dag<DeletionEntry> {
  const build = (withEdges: boolean): Dag<DeletionEntry> => {
    const dag = new Dag<DeletionEntry>();
    const byLogicalId = new Map<string, DeletionEntry[]>();
    for (const e of entries) {
      dag.addNode(e.id, e);
      byLogicalId.set(e.logicalId, [...(byLogicalId.get(e.logicalId) ?? []), e]);
    }
    if (!withEdges) return dag;
    for (const e of entries) {
      for (const dep of e.record.dependencies ?? []) {
        for (const target of byLogicalId.get(dep) ?? []) {
          if (target.id !== e.id) dag.addDependency(target.id, e.id);
        }
      }
    }
    return dag;
  };
  const dag = build(true);
  try {
    dag.assertAcyclic();
    return dag;
  } catch (err) {
    if (!(err instanceof DependencyCycleError)) throw err;
    logger?.warn(
      `The recorded dependencies of the resources to delete form a cycle (${err.cycle.join(' -> ')}); deleting them without ordering.`,
    );
    return build(false);
  }
}
