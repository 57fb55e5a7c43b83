/**
 * The one rule deciding whether a command may delete what a failed create left
 * behind (a deposed `failed-create` record; rollback-internals, "Failed CREATEs
 * that made their resource"). The run whose create failed saw the create return,
 * so its own automatic rollback deletes it. A later command (a deploy's cleanup
 * or name freeing, `cdkd destroy`, `cdkd rollback`) first proves that the
 * resource answering to the physical id now is still the one that create made:
 * the user may have deleted it and something else taken the name since.
 *
 *   never reused  a type whose ids AWS generates and never gives again (or
 *                 whose delete checks what it finds): deleted
 *   same identity the provider's live read matches the recorded identity: deleted
 *   gone          the live read finds nothing: nothing to delete, record dropped
 *   otherwise     no identity recorded, a provider that cannot read one, or a
 *                 different one: not deleted, record dropped, a warning naming
 *                 the physical id (exit 2)
 *
 * A live read that fails throws: the record stays for the next run.
 */
import type { DeposedResource } from '../state/types';
import type { ResourceProvisioner } from './provisioner';

export type LeftoverVerdict =
  { verdict: 'delete' } | { verdict: 'gone'; message: string } | { verdict: 'keep'; message: string };

export interface LeftoverJudgement {
  provisioner: ResourceProvisioner;
  record: DeposedResource;
  /** The session's region (where its providers run). */
  region: string;
  /** The region state recorded the stack in. */
  expectedRegion: string;
  /** This process deposed the record itself: it saw the create return. */
  madeHere: boolean;
  signal?: AbortSignal;
}

export async function judgeLeftover(j: LeftoverJudgement): Promise<LeftoverVerdict> {
  const { record, provisioner } = j;
  if (record.reason !== 'failed-create' || j.madeHere || provisioner.physicalIdNeverReused(record))
    return { verdict: 'delete' };
  const what = `${record.logicalId}: ${record.physicalId} (${record.resourceType}), made by a create that failed,`;
  const keep = (why: string): LeftoverVerdict => ({
    verdict: 'keep',
    message: `${what} is not deleted: ${why}; it may still exist untracked and need manual attention (delete it by hand if it is that create's).`,
  });
  if (!record.identity)
    return keep(
      `the failed create recorded no identity for it, so nothing proves that what answers to ${record.physicalId} now is the resource it made`,
    );
  const found = await provisioner.readIdentity(record, record.logicalId, j.region, {
    expectedRegion: j.expectedRegion,
    signal: j.signal,
  });
  if (found === 'gone')
    return {
      verdict: 'gone',
      message: `${what} is already gone; nothing is deleted and its record is dropped.`,
    };
  if (found === 'unsupported')
    return keep(
      `its provider cannot read the identity of ${record.physicalId}, so nothing proves it is the same resource`,
    );
  if (!sameIdentity(record.identity, found.identity))
    return keep(
      `${record.physicalId} now names a different resource (recorded ${describe(record.identity)}, found ${describe(found.identity)})`,
    );
  return { verdict: 'delete' };
}

function sameIdentity(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

function describe(identity: Record<string, string>): string {
  return Object.entries(identity)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}
