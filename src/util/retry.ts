/**
 * The one retry helper. The AWS SDK already retries each call (standard mode,
 * see the client factory); this helper retries whole operations — a provider's
 * create, a Cloud Control request — when they fail with a transient AWS error.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { CdkdError } from './errors';

export interface RetryOptions {
  /** Total attempts, including the first. Default 5. */
  maxAttempts?: number;
  /** Delay before the first retry, in ms. Default 500. */
  baseDelayMs?: number;
  /** Upper bound of one delay, in ms. Default 20 000. */
  maxDelayMs?: number;
  /** Which errors to retry. Default: {@link isTransientAwsError}. */
  isRetryable?: (err: unknown) => boolean;
  /** Called before each wait. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Stops waiting (and retrying) when aborted. */
  signal?: AbortSignal;
  /** Injected for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

type SdkError = Parameters<typeof isTransientError>[0];

/** Throttling, 5xx, timeouts and network errors: worth another try. */
export function isTransientAwsError(err: unknown): boolean {
  if (!(err instanceof Error) && !(typeof err === 'object' && err !== null)) return false;
  if (CdkdError.isCdkdError(err)) {
    return (err as unknown as { retryable?: boolean }).retryable === true;
  }
  const e = err as SdkError;
  return isThrottlingError(e) || isTransientError(e) || isServerError(e);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter. */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 20_000;
  const isRetryable = options.isRetryable ?? isTransientAwsError;
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (err) {
      if (attempt >= maxAttempts || !isRetryable(err) || options.signal?.aborted) throw err;
      const delay = backoffDelay(attempt, baseDelayMs, maxDelayMs);
      options.onRetry?.(err, attempt, delay);
      await wait(delay, options.signal);
    }
  }
}
