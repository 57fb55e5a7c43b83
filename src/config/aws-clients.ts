/**
 * The one AWS client factory. Every AWS SDK v3 client cdkd (or a provider pack)
 * uses is built here: region, profile, the SDK credential chain, adaptive
 * retries, request timeouts, endpoint overrides. Clients are cached per
 * (service, region, credentials) so connections are reused across a deploy.
 *
 * Every client has a connection timeout and a socket idle timeout: a call that
 * hangs fails (and is retried by the SDK) instead of freezing the command — in
 * particular the stack lock's renewal, which must keep its deadline.
 *
 * Endpoint overrides use the SDK's own `AWS_ENDPOINT_URL` /
 * `AWS_ENDPOINT_URL_<SERVICE>` settings, which the SDK reads by itself; the
 * `--endpoint-url` flag sets the same override for every service. When any
 * override is active S3 uses path-style addressing, which local endpoints need.
 */
import type * as CredentialProviders from '@aws-sdk/credential-providers';
import type * as StsModule from '@aws-sdk/client-sts';
import type * as SmithyConfig from '@smithy/core/config';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** Anything constructed like an AWS SDK v3 client. */
export type AwsClientClass<C> = new (config: Record<string, unknown>) => C;

export interface AwsClientFactoryOptions {
  /** Explicit region; when absent the SDK chain (AWS_REGION, profile) decides, else us-east-1. */
  region?: string;
  profile?: string;
  /** Endpoint override for every service. */
  endpointUrl?: string;
  /** SDK attempts per call (adaptive retry mode). Default 5. */
  maxAttempts?: number;
  /** Longest wait for a connection, ms. Default 10 s. */
  connectionTimeoutMs?: number;
  /** Longest a request's socket may stay silent, ms. Default 60 s. */
  socketTimeoutMs?: number;
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
  ) {}

  /** Resolves the region (flag, AWS_REGION, profile) and the credential chain. */
  static async create(options: AwsClientFactoryOptions = {}): Promise<AwsClientFactory> {
    const region = options.region ?? (await resolveSdkRegion(options.profile)) ?? FALLBACK_REGION;
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
    return new AwsClientFactory(this.region, this.options, provider, key);
  }

  /** True when an endpoint override is in effect for the given SDK service id (e.g. `S3`). */
  hasEndpointOverride(serviceId?: string): boolean {
    const env = this.options.env ?? process.env;
    if (this.options.endpointUrl) return true;
    if (/^true$/i.test(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? '')) return false;
    if (env.AWS_ENDPOINT_URL) return true;
    if (serviceId && env[`AWS_ENDPOINT_URL_${serviceId.toUpperCase().replace(/[ -]/g, '_')}`]) return true;
    return false;
  }

  /** The cached client of this class for the region. */
  get<C>(ClientClass: AwsClientClass<C>, options: ClientOptions = {}): C {
    const region = options.region ?? this.region;
    const key = `${ClientClass.name}|${region}|${this.credentialsKey}`;
    let client = this.clients.get(key) as C | undefined;
    if (!client) {
      const isS3 = ClientClass.name === 'S3Client';
      const config: Record<string, unknown> = {
        region,
        credentials: this.credentials,
        retryMode: 'adaptive',
        maxAttempts: this.options.maxAttempts ?? 5,
        requestHandler: {
          connectionTimeout: this.options.connectionTimeoutMs ?? 10_000,
          socketTimeout: this.options.socketTimeoutMs ?? 60_000,
        },
      };
      if (this.options.endpointUrl) config.endpoint = this.options.endpointUrl;
      if (isS3) {
        if (this.hasEndpointOverride('S3')) config.forcePathStyle = true;
        // Buckets in other regions are reached by rebuilding the client for that region, not by redirects.
        config.followRegionRedirects = false;
      }
      client = new ClientClass(config);
      this.clients.set(key, client);
    }
    return client;
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
