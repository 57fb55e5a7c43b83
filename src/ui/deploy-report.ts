/**
 * What a deploy ends with: the error of a deploy that did not complete (each
 * failed resource and stack with its reason, the stacks not deployed and why,
 * and what to do — which differs for an interruption), and the `--json` payload.
 */
import type { DeployAppResult } from '../engine/deploy-app';
import { describeSummary } from '../engine/deploy-stack';
import { displayStackName } from '../state/keys';
import { CdkdError, formatError } from '../util/errors';
import { namedWarnings } from './named-warnings';
import { presentOutputs } from './outputs';

/** One stack of the `--json` payload (also the error's `details`). */
export function stackReport(s: DeployAppResult['stacks'][number]) {
  const { outputs, exports } = presentOutputs(s.outputs, s.exportNames);
  return {
    stackName: s.stackName,
    region: s.region,
    noChanges: s.noChanges,
    ok: s.ok,
    summary: s.summary,
    outputs,
    exports,
    failed: s.failed.map((f) => ({ logicalId: f.logicalId, reason: formatError(f.error) })),
    skipped: s.skipped,
    ...(s.warnings.length ? { warnings: s.warnings } : {}),
    ...(s.nestedWarnings?.length ? { nestedWarnings: s.nestedWarnings } : {}),
    elapsedMs: s.elapsedMs,
    stateWrites: s.stateWrites,
  };
}

/** The `--json` payload of a deploy. */
export function deployReport(result: DeployAppResult) {
  return {
    stacks: result.stacks.map(stackReport),
    ...(result.failedStacks.length
      ? {
          failedStacks: result.failedStacks.map((f) => ({
            stackName: f.stackName,
            reason: formatError(f.error),
          })),
        }
      : {}),
    ...(result.skippedStacks.length ? { skippedStacks: result.skippedStacks } : {}),
  };
}

/**
 * A deploy that completed but left alone what a failed create of an earlier run
 * made (in the stack or a nested stack below it), unproven to be that create's
 * resource, exits 2: each line names one.
 */
export function renderDeployWarnings(result: DeployAppResult): CdkdError | undefined {
  const lines = result.stacks.flatMap((s) => namedWarnings(s).map((w) => `  ${w}`));
  if (lines.length === 0) return undefined;
  return new CdkdError(
    `Deployed, with ${lines.length} resource(s) left for you to check:\n${lines.join('\n')}`,
    {
      code: 'DEPLOY_WARNINGS',
      exitCode: 2,
      details: deployReport(result),
      remedy: 'Check each resource named above by hand; cdkd no longer tracks it.',
    },
  );
}

export function renderDeployFailure(result: DeployAppResult): CdkdError {
  const interrupted = result.stacks.some((s) => s.interrupted);
  const lines: string[] = [];
  for (const s of result.stacks.filter((r) => !r.ok)) {
    lines.push(`  ${s.stackName} (${describeSummary(s.summary)})${s.interrupted ? ': interrupted' : ''}`);
    for (const f of s.failed) lines.push(`    ${f.logicalId}: ${formatError(f.error)}`);
    for (const k of s.skipped) lines.push(`    ${k.logicalId}: skipped: ${k.reason}`);
    for (const w of s.warnings) lines.push(`    warning: ${w}`);
    for (const n of s.nestedWarnings ?? [])
      lines.push(`    warning: ${displayStackName(n.stackName)}: ${n.warning}`);
    if (s.rollback) {
      lines.push(
        s.rollback.clean
          ? `    Rolled back: ${s.rollback.reverted.length} operation(s) reverted`
          : `    Rollback incomplete: ${s.rollback.failed.length} operation(s) not reverted; run cdkd rollback ${s.stackName}`,
      );
      for (const r of s.rollback.reverted) lines.push(`      reverted ${r}`);
      for (const f of s.rollback.failed)
        lines.push(`      not reverted ${f.logicalId}: ${formatError(f.error)}`);
      for (const w of s.rollback.warnings) lines.push(`      warning: ${w}`);
    } else if (s.journalKept) {
      lines.push(`    Partial state kept; cdkd rollback ${s.stackName} reverts what this deploy did`);
    }
  }
  for (const f of result.failedStacks) {
    const text = formatError(f.error);
    lines.push(`  ${text.startsWith(`${f.stackName}:`) ? text : `${f.stackName}: ${text}`}`);
  }
  for (const k of result.skippedStacks) lines.push(`  ${k.stackName}: not deployed: ${k.reason}`);
  const deployed = result.stacks.filter((s) => s.ok).map((s) => s.stackName);
  const rolledBack = result.stacks.filter((s) => !s.ok).every((s) => s.rollback?.clean);
  if (deployed.length) lines.push(`  Deployed: ${deployed.join(', ')}`);
  return new CdkdError(`Deploy ${interrupted ? 'interrupted' : 'failed'}:\n${lines.join('\n')}`, {
    code: interrupted ? 'DEPLOY_INTERRUPTED' : 'DEPLOY_FAILED',
    details: deployReport(result),
    remedy: interrupted
      ? 'Every resource that finished is saved in state and the locks were released: run the same cdkd deploy again to continue where it stopped, or cdkd rollback to revert what it did.'
      : result.stacks.some((s) => !s.ok) && rolledBack
        ? 'The failed stacks are back where they were before the deploy. Fix the cause named above, then run cdkd deploy again.'
        : result.stacks.some((s) => !s.ok)
          ? 'Resources that finished are saved in state. Fix the cause named above, then run cdkd deploy again (it continues from there), or revert them with cdkd rollback.'
          : 'The stacks named above were not changed. Deal with the cause named there, then run cdkd deploy again.',
  });
}
