/**
 * The summary of `cdkd rollback`: what was reverted per stack, and, when a
 * revert failed, the error naming what is left (the journal keeps it).
 */
import type { RollbackStackResult } from '../engine/rollback-stack';
import { CdkdError, formatError } from '../util/errors';

/** One line per reverted operation, for the log. */
export function renderRollbackSummary(result: RollbackStackResult): string[] {
  return result.reverted.map((r) => `  ${result.stackName}: reverted ${r}`);
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
