/**
 * The settle step, before any planning: every intent an earlier run left
 * pending (killed, interrupted, or a call whose outcome stayed in doubt) is
 * re-sent with the same token — the provider returns the resource the first
 * attempt made, or makes it now — and its outcome recorded. A run never plans
 * on top of an operation it cannot account for: when an intent's outcome stays
 * in doubt, the command stops and names it.
 */
import { mapWithConcurrency } from '../util/concurrency';
import { CdkdError, formatError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { intentRoute } from './resource-operations';
import type { ResourceOperations } from './resource-operations';
import type { StackSession } from './stack-session';

/** Re-sent operations at once when the run has no `--concurrency` cap (settling is rare and short). */
export const SETTLE_CONCURRENCY = 10;

export async function settlePendingIntents(
  session: StackSession,
  operations: ResourceOperations,
  /** `concurrency`: the run's `--concurrency` cap; without one, {@link SETTLE_CONCURRENCY}. */
  options: { concurrency?: number; logger: Logger },
): Promise<number> {
  const pending = session.builder.pendingIntents();
  if (pending.length === 0) {
    // Segments an interrupted run left are folded before anything new is logged.
    if (session.recovered) await session.foldNow();
    return 0;
  }
  const SHOWN = 10;
  const listed = pending
    .slice(0, SHOWN)
    .map((i) => `${i.logicalId} (${i.operation} ${intentRoute(i)})`)
    .join(', ');
  const more = pending.length > SHOWN ? ` and ${pending.length - SHOWN} more` : '';
  options.logger.info(
    `${session.stackName}: settling ${pending.length} operation(s) an interrupted run left in flight before planning: ${listed}${more}.`,
  );
  const failures: Array<{ logicalId: string; error: unknown }> = [];
  await mapWithConcurrency(pending, options.concurrency ?? SETTLE_CONCURRENCY, async (intent) => {
    if (session.cancelSignal.aborted) return;
    try {
      await operations.reissue(intent);
    } catch (error) {
      // A definitive failure is recorded (nothing was made, or what was made is deposed).
      if (session.builder.intent(intent.id)) failures.push({ logicalId: intent.logicalId, error });
    }
  });
  const left = session.builder.pendingIntents();
  if (left.length > 0) {
    // Calls cut short by a lost lock, a failed log or a cancel: name that, not each call's AbortError.
    const stopped = session.stopReason();
    if (stopped) throw stopped;
    const why = failures.map((f) => `${f.logicalId}: ${formatError(f.error)}`).join('; ');
    throw new CdkdError(
      `${session.stackName}: ${left.length} operation(s) an interrupted run left in flight could not be settled, so nothing was planned${why ? ` (${why})` : ''}.`,
      {
        code: 'SETTLE_FAILED',
        remedy:
          'Re-run the command once AWS answers: cdkd re-sends each operation with its idempotency token and adopts what it made.',
      },
    );
  }
  await session.foldNow();
  return pending.length;
}
