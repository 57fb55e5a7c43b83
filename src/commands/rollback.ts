import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../cli/base-command';
import { engineFlags } from '../cli/deploy-flags';
import { openEngineSession } from '../cli/engine-session';
import { stateConfigFlags, stateFlags } from '../cli/state-flags';
import { rollbackStack } from '../engine/rollback-stack';
import type { RollbackStackResult } from '../engine/rollback-stack';
import { resolveStackRegion } from '../state/inspect';
import { renderRollbackFailure, renderRollbackSummary, renderRollbackWarnings } from '../ui/rollback-report';

export default class Rollback extends CdkdCommand {
  static override description = `Revert what failed or interrupted deploys did, from the rollback journal (no CDK app needed)
A deploy that fails with --no-rollback, is interrupted (Ctrl-C) or is killed leaves a rollback journal beside the stack's state. This reverts its operations newest first: deletes what it created (honouring DeletionPolicy), updates what it changed back to the pre-deploy properties, and puts replaced resources back. Without STACK, every stack with a journal is rolled back.`;

  static override examples = [
    '<%= config.bin %> rollback MyStack',
    '<%= config.bin %> rollback MyStack --region eu-west-1 --revert-failed',
    '<%= config.bin %> rollback MyStack --orphan MyQueueE6CA6235',
    '<%= config.bin %> rollback',
  ];

  static override enableJsonFlag = true;
  static override args = {
    stack: Args.string({ description: 'Stack name (default: every stack with a journal)' }),
  };
  static override flags = {
    ...stateFlags,
    ...engineFlags,
    'revert-failed': Flags.boolean({
      description:
        'Also revert the operations that failed: a failed update is forced back to its pre-deploy properties (its resource may be half-changed)',
      default: false,
    }),
    orphan: Flags.string({
      description:
        'Leave the resource with this logical id as it is: its operations are dropped from the journal, not reverted (repeatable)',
      multiple: true,
    }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Rollback);
    const config = this.resolveConfig(flags, { ...stateConfigFlags(flags), concurrency: flags.concurrency });
    const session = await openEngineSession({
      config,
      oclifConfig: this.config,
      progress: flags.progress,
      terminal: this.terminal(config, flags),
      command: 'rollback',
    });
    try {
      const store = session.store;
      const targets = args.stack
        ? [
            {
              stackName: args.stack,
              // A first deploy killed before its first fold has a journal but no state.json yet.
              region: await resolveStackRegion(store, args.stack, flags.region, config.region).catch(
                (err: unknown) => {
                  if (config.region) return config.region;
                  throw err;
                },
              ),
            },
          ]
        : await stacksWithJournals(store, flags.region);
      // A nested stack is rolled back with its top-level stack, which takes its journal first.
      const topLevel = targets.filter(
        (t) => !targets.some((o) => o.region === t.region && t.stackName.startsWith(`${o.stackName}~`)),
      );
      targets.splice(0, targets.length, ...topLevel);
      if (targets.length === 0) session.logger.info('No stack has a rollback journal: nothing to roll back.');
      const results: RollbackStackResult[] = [];
      for (const t of targets) {
        if (session.signal.aborted) break;
        results.push(
          await rollbackStack({
            ...t,
            store,
            provisioner: session.provisioner,
            ioHost: session.ioHost,
            revertFailed: flags['revert-failed'],
            ...(flags.orphan?.length ? { orphan: flags.orphan } : {}),
            concurrency: config.concurrency,
            signal: session.signal,
            cancelSignal: session.cancelSignal,
          }),
        );
      }
      session.renderer.close();
      // Each nested stack's result comes before its parent's, in the order they were rolled back.
      results.splice(0, results.length, ...results.flatMap((r) => [...(r.nestedStacks ?? []), r]));
      for (const r of results) for (const line of renderRollbackSummary(r)) session.logger.info(line);
      if (results.some((r) => !r.clean)) throw renderRollbackFailure(results);
      const warned = renderRollbackWarnings(results);
      if (warned) throw warned;
      return {
        stacks: results.map((r) => ({
          stackName: r.stackName,
          region: r.region,
          found: r.found,
          reverted: r.reverted,
          orphaned: r.orphaned,
          warnings: r.warnings,
          elapsedMs: r.elapsedMs,
        })),
      };
    } finally {
      session.close();
    }
  }
}

/** The stacks (in `region`, when given) whose rollback journal exists. */
async function stacksWithJournals(
  store: Parameters<typeof resolveStackRegion>[0],
  region: string | undefined,
): Promise<Array<{ stackName: string; region: string }>> {
  const refs = (await store.backend.listStacks()).filter((r) => !region || r.region === region);
  const found: Array<{ stackName: string; region: string }> = [];
  for (const r of refs) {
    if (!r.region) continue;
    if (await store.journals.read(r.stackName, r.region).then(Boolean, () => true))
      found.push({ stackName: r.stackName, region: r.region });
  }
  return found;
}
