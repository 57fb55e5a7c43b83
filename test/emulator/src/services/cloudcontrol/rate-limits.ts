/**
 * Cloud Control's request-rate limits, behind a control-API switch (off by
 * default): a token bucket per account, region and operation. A call that
 * finds its bucket empty is answered as AWS answers it, `400
 * ThrottlingException` "Rate exceeded", without running.
 *
 * AWS publishes no rate quota for the Cloud Control API (it is not in Service
 * Quotas); the defaults follow what is commonly measured: throttling sets in
 * at roughly 25-30 requests per second of the read operations
 * (ekristen/aws-nuke issues #508 and #510: "roughly 30 req/sec is the limit";
 * 25 req/s "just under the allowed threshold"), and a mutating request starts
 * a handler, so those are modelled lower. Every figure can be set through the
 * control API.
 */
import { badRequest, body } from '../../control/routes';
import { AwsError } from '../../core/errors';
import { jsonResponse } from '../../core/http';
import type { ControlRouter, Operations } from '../../core/service';

/** A token bucket: `rate` tokens per second, at most `burst` saved up. */
export interface RateLimit {
  rate: number;
  burst: number;
}

/** Per operation; an operation without a limit is not throttled. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<string, Readonly<RateLimit>>> = {
  CreateResource: { rate: 10, burst: 20 },
  UpdateResource: { rate: 10, burst: 20 },
  DeleteResource: { rate: 10, burst: 20 },
  CancelResourceRequest: { rate: 10, burst: 20 },
  GetResourceRequestStatus: { rate: 25, burst: 50 },
  GetResource: { rate: 25, burst: 50 },
  ListResources: { rate: 25, burst: 50 },
  ListResourceRequests: { rate: 25, burst: 50 },
};

/** What `GET /_emulator/cloudcontrol/rate-limits` answers. */
export interface RateLimitsView {
  enabled: boolean;
  limits: Record<string, RateLimit>;
  /** Calls answered with ThrottlingException since the last reset, by operation. */
  throttled: Record<string, number>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class CloudControlRateLimits {
  private enabled = false;
  private limits: Record<string, RateLimit> = { ...DEFAULT_RATE_LIMITS };
  private readonly buckets = new Map<string, Bucket>();
  private throttled: Record<string, number> = {};

  constructor(private readonly now: () => number = () => Date.now()) {}

  view(): RateLimitsView {
    return { enabled: this.enabled, limits: { ...this.limits }, throttled: { ...this.throttled } };
  }

  /**
   * Switches the limits on or off and replaces figures (`limits` merges per
   * operation; `null` for an operation removes its limit). Buckets start full.
   */
  configure(update: { enabled?: unknown; limits?: unknown }): RateLimitsView {
    if (update.enabled !== undefined && typeof update.enabled !== 'boolean')
      throw badRequest('"enabled" is a boolean');
    if (update.limits !== undefined) {
      if (typeof update.limits !== 'object' || update.limits === null)
        throw badRequest('"limits" maps operation names to { rate, burst } or null');
      const next = { ...this.limits };
      for (const [operation, limit] of Object.entries(update.limits as Record<string, unknown>)) {
        if (limit === null) {
          delete next[operation];
          continue;
        }
        const { rate, burst } = (limit ?? {}) as Partial<RateLimit>;
        if (typeof rate !== 'number' || !(rate > 0) || typeof burst !== 'number' || !(burst >= 1))
          throw badRequest(`limits.${operation}: expected { rate > 0, burst >= 1 }`);
        next[operation] = { rate, burst };
      }
      this.limits = next;
    }
    if (update.enabled !== undefined) this.enabled = update.enabled as boolean;
    this.buckets.clear();
    return this.view();
  }

  /** Back to off, the default figures, full buckets and no counts (emulator reset). */
  reset(): void {
    this.enabled = false;
    this.limits = { ...DEFAULT_RATE_LIMITS };
    this.buckets.clear();
    this.throttled = {};
  }

  /** Takes a token for the call, or throws the ThrottlingException AWS answers. */
  admit(account: string, region: string, operation: string): void {
    if (!this.enabled) return;
    const limit = this.limits[operation];
    if (!limit) return;
    const key = `${account}|${region}|${operation}`;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    this.throttled[operation] = (this.throttled[operation] ?? 0) + 1;
    throw new AwsError('ThrottlingException', 'Rate exceeded', 400);
  }
}

/** The operations, each admitted by the limits before it runs. */
export function rateLimited(operations: Operations, limits: CloudControlRateLimits): Operations {
  return Object.fromEntries(
    Object.entries(operations).map(([name, handler]) => [
      name,
      (ctx, input) => {
        limits.admit(ctx.account, ctx.region, name);
        return handler(ctx, input);
      },
    ]),
  );
}

/** `GET` / `PUT /_emulator/cloudcontrol/rate-limits`. */
export function rateLimitRoutes(router: ControlRouter, limits: CloudControlRateLimits): void {
  router.add('GET', /^\/_emulator\/cloudcontrol\/rate-limits$/, () => jsonResponse(200, limits.view()));
  router.add('PUT', /^\/_emulator\/cloudcontrol\/rate-limits$/, (req) =>
    jsonResponse(200, limits.configure(body(req) as { enabled?: unknown; limits?: unknown })),
  );
}
