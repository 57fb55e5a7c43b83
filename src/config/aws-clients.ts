/**
 * The one AWS client factory. Every AWS SDK v3 client cdkd (or a provider pack)
 * uses is built here: region, profile, the SDK credential chain, standard
 * retries, endpoint overrides. Clients are cached per (service, region,
 * credentials) so connections are reused across a deploy.
 *
 * Every client retries with the SDK's standard strategy; each attempt's
 * outcome, as the SDK classifies it (accepted, throttled, ...), goes to
 * whoever observes calls (the adaptive concurrency of resource operations).
 *
 * Endpoint overrides use the SDK's own `AWS_ENDPOINT_URL` /
 * `AWS_ENDPOINT_URL_<SERVICE>` settings, which the SDK reads by itself; the
 * `--endpoint-url` flag sets the same override for every service. When any
 * override is active S3 uses path-style addressing, which local endpoints need.
 */
import type * as CredentialProviders from '@aws-sdk/credential-providers';
import type * as StsModule from '@aws-sdk/client-sts';
import type * as SmithyConfig from '@smithy/core/config';
import type * as SmithyRetry from '@smithy/core/retry';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  RetryStrategyV2,
  StandardRetryToken,
} from '@smithy/types';
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

/** Fallback when nothing configures a region, as the CDK CLI does. */
export const FALLBACK_REGION = 'us-east-1';

export class AwsClientFactory {
  private readonly clients = new Map<string, unknown>();
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
    const serviceVar = serviceId && `AWS_ENDPOINT_URL_${serviceId.toUpperCase().replace(/[ -]/g, '_')}`;
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

  /** The cached client of this class for the region. */
  get<C>(ClientClass: AwsClientClass<C>, options: ClientOptions = {}): C {
    const region = options.region ?? this.region;
    const key = `${ClientClass.name}|${region}|${this.credentialsKey}`;
    let client = this.clients.get(key) as C | undefined;
    if (!client) {
      const isS3 = ClientClass.name === 'S3Client';
      const maxAttempts = this.options.maxAttempts ?? 5;
      const config: Record<string, unknown> = {
        region,
        credentials: this.credentials,
        maxAttempts,
        retryStrategy: this.retryStrategy(ClientClass.name, maxAttempts),
      };
      if (this.options.endpointUrl) config.endpoint = this.options.endpointUrl;
      if (isS3) {
        if (this.hasEndpointOverride('S3')) config.forcePathStyle = true;
        // Buckets in other regions are reached by rebuilding the client for that region, not by redirects.
        config.followRegionRedirects = false;
      }
      client = new ClientClass(config);
      this.explainErrorsOf(client, ClientClass.name.replace(/Client$/, ''), region);
      this.clients.set(key, client);
    }
    return client;
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
      acquireInitialRetryToken: (scope) => standard.acquireInitialRetryToken(scope),
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
