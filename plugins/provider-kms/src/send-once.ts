/**
 * Sending a call that has no idempotency token (KMS CreateKey) at most once.
 *
 * The SDK retries a call whose connection broke or that met a 5xx answer; for
 * CreateKey that can make a second key when the first attempt took effect and
 * only its reply was lost. {@link sendOnce} marks one command so that such an
 * outcome is not retried by the SDK but surfaces as {@link ReplyLostError}:
 * the provider then looks for what the attempt made before sending again.
 * Outcomes that prove nothing was done (throttling, a refused connection, a
 * 4xx answer) are still retried by the SDK as usual.
 */

/** The outcome of the one attempt is unknown: it may have taken effect. */
export class ReplyLostError extends Error {
  override readonly name = 'ReplyLostError';
  constructor(
    /** What the SDK saw (kept off `cause`, which the SDK's retry classification follows). */
    readonly original: unknown,
  ) {
    super(`the reply was lost (${describe(original)})`);
  }
}

/** Network failures that happen before a request is sent: nothing was done. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** True when a failed attempt may still have taken effect (a broken connection, a timeout, a 5xx). */
export function mayHaveTakenEffect(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'AbortError') return false; // the engine's own in-doubt handling
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number') return status >= 500;
  return !(typeof e.code === 'string' && NOT_SENT_CODES.has(e.code));
}

/** The part of an SDK command this needs: its own middleware stack. */
interface CommandWithMiddleware {
  middlewareStack: {
    add(middleware: unknown, options: Record<string, unknown>): void;
  };
}

/**
 * Marks `command` so that an attempt whose outcome is unknown is not retried
 * by the SDK: it fails with {@link ReplyLostError}. The middleware runs inside
 * the SDK's retry loop (the `deserialize` step, outside the deserializer so it
 * sees the service's parsed errors).
 */
export function sendOnce<C extends CommandWithMiddleware>(command: C): C {
  command.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
      try {
        return await next(args);
      } catch (err) {
        throw mayHaveTakenEffect(err) ? new ReplyLostError(err) : err;
      }
    },
    { step: 'deserialize', priority: 'high', name: 'cdkdSendOnce', override: true },
  );
  return command;
}
