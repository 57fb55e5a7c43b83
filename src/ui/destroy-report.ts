/**
 * The error a destroy ends with when something was left: what was not deleted
 * and why, and that the state keeps it for a re-run. Exit code 2, as for a
 * partial failure.
 */
import type { DestroyStackResult } from '../engine/destroy-stack';
import { CdkdError, formatError } from '../util/errors';
import { namedWarnings } from './named-warnings';

export function renderDestroyFailure(
  stacks: readonly DestroyStackResult[],
  keptStacks: readonly string[] = [],
): CdkdError {
  const lines: string[] = [];
  for (const s of stacks) {
    for (const f of s.failed) lines.push(`  ${s.stackName}/${f.logicalId}: ${formatError(f.error)}`);
    for (const k of s.skipped) lines.push(`  ${s.stackName}/${k.logicalId}: not deleted: ${k.reason}`);
    if (s.interrupted) lines.push(`  ${s.stackName}: interrupted`);
  }
  if (keptStacks.length)
    lines.push(`  Not destroyed (a stack that depends on them was not destroyed): ${keptStacks.join(', ')}`);
  return new CdkdError(`Destroy incomplete:\n${lines.join('\n')}`, {
    code: 'DESTROY_INCOMPLETE',
    exitCode: 2,
    remedy: 'The resources that remain are kept in state; fix the cause and run the command again to finish.',
  });
}

/**
 * A destroy that finished but left alone what a failed create made, unproven to
 * be that create's resource (in the stack or a nested stack below it), exits 2:
 * each line names one (state no longer does).
 */
export function renderDestroyWarnings(stacks: readonly DestroyStackResult[]): CdkdError | undefined {
  const lines = stacks.flatMap((s) => namedWarnings(s).map((w) => `  ${w}`));
  if (lines.length === 0) return undefined;
  return new CdkdError(
    `Destroyed, with ${lines.length} resource(s) left for you to check:\n${lines.join('\n')}`,
    {
      code: 'DESTROY_WARNINGS',
      exitCode: 2,
      remedy: 'Check each resource named above by hand; cdkd no longer tracks it.',
    },
  );
}
