/**
 * The summary of `cdkd rollback`: what was reverted per stack, and, when a
 * revert failed, the error naming what is left (the journal keeps it).
 */
import type { RollbackStackResult } from '../engine/rollback-stack';
import { CdkdError, formatError } from '../util/errors';
import { namedWarnings } from './named-warnings';

/** One line per reverted operation and per orphaned resource, for the log. */
export function renderRollbackSummary(result: RollbackStackResult): string[] {
  return [
    ...result.reverted.map((r) => `  ${result.stackName}: reverted ${r}`),
    ...result.orphaned.map((o) => `  ${result.stackName}: ${o}`),
  ];
}

/**
 * A rollback that reverted everything it could but skipped operations with a
 * warning (an unaddressable record, a resource state no longer tracks, a kept
 * copy) exits 2: the journal is gone, and what was skipped needs a look. A
 * nested stack's warnings count too, those of its own journal's rollback and
 * those its deploy or destroy passed up while a parent's operation was reverted.
 */
export function renderRollbackWarnings(stacks: readonly RollbackStackResult[]): CdkdError | undefined {
  const lines = stacks.flatMap((s) => namedWarnings(s).map((w) => `  ${w}`));
  if (lines.length === 0) return undefined;
  return new CdkdError(
    `Rolled back, with ${lines.length} operation(s) skipped or kept:\n${lines.join('\n')}`,
    {
      code: 'ROLLBACK_WARNINGS',
      exitCode: 2,
      remedy: 'Check each resource named above by hand; everything else was reverted.',
    },
  );
}

export function renderRollbackFailure(stacks: readonly RollbackStackResult[]): CdkdError {
  const lines: string[] = [];
  for (const s of stacks.filter((r) => !r.clean)) {
    for (const f of s.failed) lines.push(`  ${s.stackName}/${f.logicalId}: ${formatError(f.error)}`);
  }
  return new CdkdError(`Rollback incomplete:\n${lines.join('\n')}`, {
    code: 'ROLLBACK_INCOMPLETE',
    remedy:
      'The rollback journal keeps what was not reverted: fix the cause named above, then run cdkd rollback again (it skips what is already reverted).',
  });
}
