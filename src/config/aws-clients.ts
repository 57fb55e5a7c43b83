/**
 * The one AWS client factory. Every AWS SDK v3 client cdkd (or a provider pack)
 * uses is built here: region, profile, the SDK credential chain, standard
 * retries, request timeouts, endpoint overrides. Clients are cached per (client
 * class, region, credentials) so connections are reused across a deploy; keyed
 * by the class itself, so two packs built with different SDK versions never get
 * each other's clients.
 *
 * Every client has a connection timeout and a socket idle timeout: a call that
 * hangs fails (and is retried by the SDK) instead of freezing the command — in
 * particular the stack lock's renewal, which must keep its deadline.
 *
 * Every client retries with the SDK's standard strategy; each attempt's
 * outcome, as the SDK classifies it (accepted, throttled, ...), goes to
 * whoever observes calls (the adaptive concurrency of resource operations).
 *
 * The endpoint is resolved by cdkd and passed to every client explicitly: the
 * `--endpoint-url` flag, else the SDK's standard `AWS_ENDPOINT_URL_<SERVICE>`,
 * else `AWS_ENDPOINT_URL` (both ignored with `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`).
 * A pack's client from an SDK release that reads none of these itself still
 * goes where cdkd resolved; one too old to take cdkd's configuration safely is
 * refused. When an override is active S3 uses path-style addressing, which
 * local endpoints need.
 */
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as CredentialProviders from '@aws-sdk/credential-providers';
import type * as StsModule from '@aws-sdk/client-sts';
import type * as SmithyConfig from '@smithy/core/config';
import type * as SmithyRetry from '@smithy/core/retry';
import type * as NodeHttpHandlerModule from '@smithy/node-http-handler';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  RetryStrategyV2,
  StandardRetryToken,
} from '@smithy/types';
import { POOL_DEFAULTS } from '../util/adaptive-concurrency';
import { CdkdError } from '../util/errors';
import { assumeRoleCredentials } from './assume-role';
import { explainConnectionError } from './aws-errors';
import type { ConnectionContext } from './aws-errors';
import { assertRegionName } from './aws-names';

/** Anything constructed like an AWS SDK v3 client. */
export type AwsClientClass<C> = new (config: Record<string, unknown>) => C;

export interface AwsClientFactoryOptions {
  /** Explicit region; when absent the SDK chain (AWS_REGION, profile) decides, else us-east-1. */
  region?: string;
  profile?: string;
  /** Endpoint override for every service. */
  endpointUrl?: string;
  /** Where {@link endpointUrl} came from, for messages (default `--endpoint-url`). */
  endpointSource?: string;
  /** SDK attempts per call (standard retry strategy). Default 5. */
  maxAttempts?: number;
  /** Longest wait for a connection, ms. Default 10 s. */
  connectionTimeoutMs?: number;
  /** Longest a request's socket may stay silent, ms. Default 60 s. */
  socketTimeoutMs?: number;
  /**
   * Connections each client keeps to its endpoint (one client per service and
   * region, so this is a per-service pool). Default {@link DEFAULT_MAX_SOCKETS}:
   * room for the SDK pool's ceiling of operations in flight on one service plus
   * cdkd's own state writes, so the adaptive concurrency, not the socket pool,
   * decides how many calls run at once.
   */
  maxSockets?: number;
  env?: NodeJS.ProcessEnv;
}

export interface ClientOptions {
  /** Region for this client; default: the factory's region. */
  region?: string;
}

export interface CallerIdentity {
  account: string;
  arn: string;
  userId: string;
  partition: string;
}

/** One attempt of an AWS call, as the SDK's retry strategy classified its outcome. */
export interface CallOutcome {
  /** The client's class name, e.g. `CloudControlClient`. */
  client: string;
  /** `accepted`: AWS answered it; `throttled`: AWS refused it for the request rate. */
  outcome: 'accepted' | 'throttled';
}

export type CallObserver = (call: CallOutcome) => void;

/**
 * Sockets per client: the SDK pool's ceiling (each operation has at most one call
 * in flight) plus the state path's own (log segments, folds, lock renewal).
 */
export const DEFAULT_MAX_SOCKETS = POOL_DEFAULTS.sdk.ceiling + 16;

/** Fallback when nothing configures a region, as the CDK CLI does. */
export const FALLBACK_REGION = 'us-east-1';

/**
 * The oldest AWS SDK for JavaScript v3 release whose every client resolves
 * endpoints through endpoint rules (`config.endpointProvider`), so that an
 * explicit endpoint decides where every request goes.
 */
export const MINIMUM_SDK_VERSION = '3.196.0';

/** What the factory reads from a constructed client's resolved configuration. */
interface ClientShape {
  config?: { serviceId?: unknown; endpointProvider?: unknown };
  destroy?: () => void;
}

/** The SDK service id of each client class (from one probe construction), e.g. `S3`, `Secrets Manager`. */
const serviceIds = new WeakMap<AwsClientClass<unknown>, string>();

/**
 * The service id of a client class, or a refusal naming the minimum SDK
 * version when the class cannot be configured safely.
 */
export function serviceIdOf(ClientClass: AwsClientClass<unknown>): string {
  const known = serviceIds.get(ClientClass);
  if (known) return known;
  let probe: ClientShape;
  try {
    probe = new ClientClass({ region: FALLBACK_REGION }) as ClientShape;
  } catch (err) {
    throw new CdkdError(
      `${ClientClass.name || 'A client class'} could not be constructed: ${(err as Error).message}`,
      {
        code: 'AWS_CLIENT_INVALID',
        remedy: 'Pass an AWS SDK for JavaScript v3 client class (e.g. SQSClient) to clients.get().',
      },
    );
  }
  const serviceId = probe.config?.serviceId;
  const hasEndpointRules = typeof probe.config?.endpointProvider === 'function';
  probe.destroy?.();
  if (typeof serviceId !== 'string' || serviceId === '' || !hasEndpointRules) {
    throw new CdkdError(
      `${ClientClass.name || 'This client'} is from an AWS SDK for JavaScript release too old for cdkd to configure safely: it has no endpoint rules, so cdkd cannot be sure its requests go to the endpoint cdkd resolved.`,
      {
        code: 'AWS_SDK_TOO_OLD',
        remedy: `Build the pack with @aws-sdk/client-* ${MINIMUM_SDK_VERSION} or newer (a current release is best).`,
      },
    );
  }
  serviceIds.set(ClientClass, serviceId);
  return serviceId;
}

/** `AWS_ENDPOINT_URL_<SERVICE>` of an SDK service id, as the SDK spells it (`Secrets Manager` -> `SECRETS_MANAGER`). */
export function serviceEndpointVariable(serviceId: string): string {
  return `AWS_ENDPOINT_URL_${serviceId.toUpperCase().replace(/[ -]/g, '_')}`;
}

export class AwsClientFactory {
  /** Clients by class, then by `region|credentials`. */
  private readonly clients = new Map<AwsClientClass<unknown>, Map<string, unknown>>();
  private identity?: Promise<CallerIdentity>;

  private constructor(
    /** The region resolved for this invocation. */
    readonly region: string,
    private readonly options: AwsClientFactoryOptions,
    private readonly credentials: AwsCredentialIdentityProvider,
    /** Identifies the credentials in the client cache key. */
    private readonly credentialsKey: string,
    /** Shared with every factory derived from this one. */
    private readonly observers = new Set<CallObserver>(),
  ) {}

  /** Resolves the region (flag, AWS_REGION, profile) and the credential chain. */
  static async create(options: AwsClientFactoryOptions = {}): Promise<AwsClientFactory> {
    const fromSdk = options.region === undefined ? await resolveSdkRegion(options.profile) : undefined;
    if (fromSdk !== undefined)
      assertRegionName(
        fromSdk,
        options.profile ? `the region of the profile '${options.profile}'` : 'from the SDK configuration',
      );
    const region = options.region ?? fromSdk ?? FALLBACK_REGION;
    const { fromNodeProviderChain } = require('@aws-sdk/credential-providers') as typeof CredentialProviders;
    const credentials = fromNodeProviderChain(options.profile ? { profile: options.profile } : {});
    return new AwsClientFactory(region, options, credentials, `profile:${options.profile ?? 'default'}`);
  }

  /**
   * A factory whose clients use other credentials (e.g. an assumed role). It has its
   * own client cache; `key` names the credentials (a role ARN, say).
   */
  withCredentials(
    credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
    key: string,
  ): AwsClientFactory {
    const provider: AwsCredentialIdentityProvider =
      typeof credentials === 'function' ? credentials : async () => credentials;
    return new AwsClientFactory(this.region, this.options, provider, key, this.observers);
  }

  /** Calls `observer` for every attempt of every AWS call of this factory's clients; returns a function that stops it. */
  observeCalls(observer: CallObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /**
   * A factory whose clients act as the role (`--role-arn`): the role is assumed
   * with this factory's credentials and refreshed before its session expires.
   */
  assumingRole(roleArn: string): AwsClientFactory {
    const credentials = assumeRoleCredentials(this, {
      roleArn,
      sessionName: 'cdkd',
      describeFailure: (err) =>
        CdkdError.isCdkdError(err)
          ? err
          : new CdkdError(`Cannot assume the role ${roleArn} (--role-arn): ${(err as Error).message}`, {
              code: 'ASSUME_ROLE_FAILED',
              cause: err,
              remedy:
                "Check the role ARN, and that the role's trust policy lets your credentials assume it (sts:AssumeRole).",
            }),
    });
    return this.withCredentials(credentials, `role:${roleArn}`);
  }

  /** True when an endpoint override is in effect for the given SDK service id (e.g. `S3`). */
  hasEndpointOverride(serviceId?: string): boolean {
    return this.endpointOverride(serviceId) !== undefined;
  }

  /** The endpoint override in effect for the given SDK service id (e.g. `CloudControl`), if any. */
  endpointOverride(serviceId?: string): string | undefined {
    return this.endpointOverrideOf(serviceId)?.url;
  }

  /** The endpoint override for a service and where it comes from, as the SDK resolves it. */
  private endpointOverrideOf(serviceId?: string): { url: string; source: string } | undefined {
    const env = this.options.env ?? process.env;
    if (this.options.endpointUrl)
      return { url: this.options.endpointUrl, source: this.options.endpointSource ?? '--endpoint-url' };
    if (/^true$/i.test(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? '')) return undefined;
    const serviceVar = serviceId && serviceEndpointVariable(serviceId);
    if (serviceVar && env[serviceVar]) return { url: env[serviceVar], source: serviceVar };
    if (env.AWS_ENDPOINT_URL) return { url: env.AWS_ENDPOINT_URL, source: 'AWS_ENDPOINT_URL' };
    return undefined;
  }

  private connectionContext(serviceId: string, region: string): ConnectionContext {
    return {
      serviceId,
      region,
      profile: this.options.profile,
      endpoint: this.endpointOverrideOf(serviceId),
      env: this.options.env ?? process.env,
    };
  }

  /**
   * The cached client of this class for the region. Refuses a class from an SDK
   * too old to be configured safely (see {@link MINIMUM_SDK_VERSION}).
   */
  get<C>(ClientClass: AwsClientClass<C>, options: ClientOptions = {}): C {
    const region = options.region ?? this.region;
    let perClass = this.clients.get(ClientClass);
    if (!perClass) {
      perClass = new Map();
      this.clients.set(ClientClass, perClass);
    }
    const key = `${region}|${this.credentialsKey}`;
    let client = perClass.get(key) as C | undefined;
    if (!client) {
      client = new ClientClass(this.clientConfig(ClientClass.name, serviceIdOf(ClientClass), region));
      this.explainErrorsOf(client, serviceIdOf(ClientClass), region);
      perClass.set(key, client);
    }
    return client;
  }

  /** What every client of a service gets: region, credentials, retries, and cdkd's endpoint. */
  /**
   * A handler instance, not an options object: clients of older SDK versions (a
   * pack's) take any handler but not the options form.
   */
  private requestHandler(): unknown {
    const { NodeHttpHandler } = require('@smithy/node-http-handler') as typeof NodeHttpHandlerModule;
    // Agents as instances too (older handlers take no agent options); keep-alive as the SDK's default agent.
    const agent = { keepAlive: true, maxSockets: this.options.maxSockets ?? DEFAULT_MAX_SOCKETS };
    const http = require('node:http') as typeof Http;
    const https = require('node:https') as typeof Https;
    return new NodeHttpHandler({
      connectionTimeout: this.options.connectionTimeoutMs ?? 10_000,
      socketTimeout: this.options.socketTimeoutMs ?? 60_000,
      httpAgent: new http.Agent(agent),
      httpsAgent: new https.Agent(agent),
    });
  }

  private clientConfig(client: string, serviceId: string, region: string): Record<string, unknown> {
    const maxAttempts = this.options.maxAttempts ?? 5;
    const config: Record<string, unknown> = {
      region,
      credentials: this.credentials,
      maxAttempts,
      retryStrategy: this.retryStrategy(client, maxAttempts),
      requestHandler: this.requestHandler(),
    };
    const endpoint = this.endpointOverride(serviceId);
    if (endpoint) config.endpoint = endpoint;
    if (serviceId === 'S3') {
      if (endpoint) config.forcePathStyle = true;
      // Buckets in other regions are reached by rebuilding the client for that region, not by redirects.
      config.followRegionRedirects = false;
    }
    return config;
  }

  /**
   * Outermost middleware (around the SDK's own retries): a call that fails for
   * want of credentials or of a reachable endpoint fails with a message naming
   * the profile, endpoint and region instead of the SDK's bare words.
   */
  private explainErrorsOf(client: unknown, fallbackServiceId: string, region: string): void {
    const c = client as {
      middlewareStack?: { add: (mw: unknown, options: Record<string, unknown>) => void };
      config?: { serviceId?: string };
    };
    if (!c.middlewareStack) return;
    const serviceId = c.config?.serviceId ?? fallbackServiceId;
    c.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
        try {
          return await next(args);
        } catch (err) {
          throw (await explainConnectionError(err, this.connectionContext(serviceId, region))) ?? err;
        }
      },
      { step: 'initialize', name: 'cdkdExplainConnectionErrors', override: true },
    );
  }

  /**
   * The SDK's standard retry strategy (its backoff, retry quota and error
   * classification), reporting each attempt's outcome to the observers. Not the
   * SDK's adaptive mode: its rate limiter cuts the send rate by 30 % on every
   * throttled attempt, so a burst of throttles among many requests in flight
   * collapses a client to half a call per second for tens of seconds; the
   * adaptive concurrency backs off once per burst instead.
   */
  private retryStrategy(client: string, maxAttempts: number): RetryStrategyV2 {
    const { StandardRetryStrategy } = require('@smithy/core/retry') as typeof SmithyRetry;
    const standard = new StandardRetryStrategy(maxAttempts);
    const observers = this.observers;
    const report = (outcome: CallOutcome['outcome']): void => {
      for (const observe of observers) {
        try {
          observe({ client, outcome });
        } catch {
          // An observer must not break the call it watches.
        }
      }
    };
    return {
      // Older SDK clients (a pack's own, e.g. 3.300) pass no scope; the strategy expects a string.
      acquireInitialRetryToken: (scope) => standard.acquireInitialRetryToken(scope ?? ''),
      refreshRetryTokenForRetry: (token, errorInfo) => {
        if (errorInfo.errorType === 'THROTTLING') report('throttled');
        return standard.refreshRetryTokenForRetry(token as StandardRetryToken, errorInfo);
      },
      recordSuccess: (token) => {
        report('accepted');
        standard.recordSuccess(token as StandardRetryToken);
      },
    };
  }

  /** The caller's account and ARN (STS GetCallerIdentity), fetched once. */
  callerIdentity(): Promise<CallerIdentity> {
    if (!this.identity) {
      this.identity = (async () => {
        const { STSClient, GetCallerIdentityCommand } = require('@aws-sdk/client-sts') as typeof StsModule;
        const out = await this.get(STSClient).send(new GetCallerIdentityCommand({}));
        const arn = out.Arn ?? '';
        return {
          account: out.Account ?? '',
          arn,
          userId: out.UserId ?? '',
          partition: arn.split(':')[1] || partitionOfRegion(this.region),
        };
      })();
      // A failed lookup is not cached: the next caller tries again.
      this.identity.catch(() => (this.identity = undefined));
    }
    return this.identity;
  }
}

/** The partition a region belongs to. */
export function partitionOfRegion(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  if (region.startsWith('us-iso-')) return 'aws-iso';
  if (region.startsWith('us-isob-')) return 'aws-iso-b';
  return 'aws';
}

/** The region the SDK would pick (AWS_REGION, then the profile's `region`), or undefined. */
async function resolveSdkRegion(profile?: string): Promise<string | undefined> {
  const { loadConfig, NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS } =
    require('@smithy/core/config') as typeof SmithyConfig;
  try {
    return await loadConfig(NODE_REGION_CONFIG_OPTIONS, { ...NODE_REGION_CONFIG_FILE_OPTIONS, profile })();
  } catch {
    return undefined;
  }
}
