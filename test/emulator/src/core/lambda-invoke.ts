/**
 * How services that invoke Lambda functions on a caller's behalf (SNS
 * subscriptions, EventBridge targets) reach the Lambda service: through its
 * `api`, when the emulator has one. A Lambda service module provides
 * {@link LambdaInvokeApi} as (part of) its `api`; until it does, such
 * deliveries are recorded as not delivered, with the reason.
 */
import type { Platform } from './service';

/** Who invokes: the service principal and the resource on whose behalf (for the function's resource policy). */
export interface ServiceInvoker {
  /** `sns.amazonaws.com`, `events.amazonaws.com`. */
  servicePrincipal: string;
  /** The topic or rule ARN (`aws:SourceArn`). */
  sourceArn: string;
  sourceAccount: string;
}

export type InvokeOutcome = { accepted: true } | { accepted: false; reason: string };

/** What a Lambda service lends for asynchronous invocations by other services. */
export interface LambdaInvokeApi {
  /**
   * Queues an asynchronous (`Event`) invocation of the function the ARN names with the
   * JSON payload, as the invoking service would: refused when the function does not
   * exist or its resource policy does not allow the service principal `lambda:InvokeFunction`.
   */
  invokeAsync(functionArn: string, payload: string, invoker: ServiceInvoker): Promise<InvokeOutcome>;
}

/** The Lambda service's invoke api, or undefined while the emulator has no Lambda service that provides it. */
export function lambdaInvoker(platform: Platform): LambdaInvokeApi | undefined {
  let api: unknown;
  try {
    api = platform.api<unknown>('lambda');
  } catch {
    return undefined;
  }
  return typeof (api as Partial<LambdaInvokeApi> | undefined)?.invokeAsync === 'function'
    ? (api as LambdaInvokeApi)
    : undefined;
}

/** A synchronous service invocation's outcome: refused with the reason, or the function's answer. */
export type SyncInvokeOutcome =
  { accepted: true; functionError?: string; payload: string } | { accepted: false; reason: string };

/** What a Lambda service lends for synchronous invocations by other services (Secrets Manager rotation). */
export interface LambdaSyncInvokeApi {
  /** Runs the function with the JSON payload and resolves with its answer; refused as {@link LambdaInvokeApi.invokeAsync} is. */
  invokeSync(functionArn: string, payload: string, invoker: ServiceInvoker): Promise<SyncInvokeOutcome>;
}

/** The Lambda service's synchronous invoke api, or undefined while the emulator has none. */
export function lambdaSyncInvoker(platform: Platform): LambdaSyncInvokeApi | undefined {
  let api: unknown;
  try {
    api = platform.api<unknown>('lambda');
  } catch {
    return undefined;
  }
  return typeof (api as Partial<LambdaSyncInvokeApi> | undefined)?.invokeSync === 'function'
    ? (api as LambdaSyncInvokeApi)
    : undefined;
}
