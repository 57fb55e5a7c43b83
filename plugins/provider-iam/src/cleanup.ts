/**
 * A create that made its entity and then failed in a follow-up call (a
 * policy that would not attach, a group that does not exist) retires the
 * entity before the error leaves: the create never returned, so nothing in
 * cdkd state records it, and an entity left behind would be an orphan that
 * also holds the name. Deleting is safe for IAM: a name is free again at once
 * and nothing outside the create can depend on an entity it never reported.
 * The cleanup never replaces the create's own error; when it fails too, the
 * error says what is left and how to remove it.
 */
import type { IamSupport, ResourceRef } from './iam-support';

export async function retireOnFailure<T>(
  sup: IamSupport,
  ref: ResourceRef,
  what: string,
  manualCommand: string,
  work: () => Promise<T>,
  retire: () => Promise<void>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    try {
      await retire();
    } catch (cleanupError) {
      const reason = cleanupError instanceof Error ? cleanupError.message : String(cleanupError);
      sup.ctx.logger.warn(
        `${ref.logicalId}: could not delete ${what} after its create failed (${reason}); delete it yourself: ${manualCommand}`,
      );
      if (err instanceof Error) err.message += ` (${what} was left behind: ${manualCommand})`;
    }
    throw err;
  }
}
