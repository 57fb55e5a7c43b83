/**
 * The errors every AWS call can end with before any service logic runs — no
 * credentials, an unknown profile, credentials AWS rejects, an endpoint that
 * does not answer — turned from the SDK's own words (`Could not load credentials
 * from any providers`, `connect ECONNREFUSED 127.0.0.1:1`) into messages that
 * name the profile, the endpoint and the region, and what to do. The client
 * factory applies this to every client it builds.
 */
import type * as SmithyConfig from '@smithy/core/config';
import { CdkdError, ConnectionError } from '../util/errors';

/** Where the calls of a client go and on whose behalf: what the messages name. */
export interface ConnectionContext {
  /** SDK service id, e.g. `STS`, `S3`, `CloudControl`. */
  serviceId: string;
  region: string;
  /** `--profile` / `AWS_PROFILE`, when one is configured. */
  profile?: string;
  /** The endpoint override in effect and where it came from, when there is one. */
  endpoint?: { url: string; source: string };
  env: NodeJS.ProcessEnv;
}

/** Error codes of a request that never reached an answer. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
/** Worth another try once the cause may have gone (a restarting endpoint); not a bad name. */
const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** AWS answered, and refused the credentials themselves (not a permission). */
const REJECTED_CREDENTIALS = new Set([
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'AuthFailure',
]);

const NO_PROVIDER = /Could not load credentials from any providers/i;

/**
 * A clear error for a failure of the connection or the credentials, or
 * undefined when `err` is anything else (it is then rethrown as it was).
 */
export async function explainConnectionError(
  err: unknown,
  ctx: ConnectionContext,
): Promise<ConnectionError | undefined> {
  if (CdkdError.isCdkdError(err) || typeof err !== 'object' || err === null) return undefined;
  const e = err as Error & { code?: string; hostname?: string; name?: string };
  if (e.name === 'CredentialsProviderError' || NO_PROVIDER.test(e.message ?? '')) {
    return explainMissingCredentials(e, ctx);
  }
  if (e.name && REJECTED_CREDENTIALS.has(e.name)) {
    return new ConnectionError(
      `AWS rejected the credentials of ${credentialSource(ctx)} (${e.name}: ${e.message}) when calling ${ctx.serviceId} in ${ctx.region}.`,
      {
        code: 'CREDENTIALS_REJECTED',
        cause: err,
        remedy: ctx.endpoint
          ? `Check the credentials the endpoint ${ctx.endpoint.url} expects.`
          : `Refresh the credentials (\`aws sso login${ctx.profile ? ` --profile ${ctx.profile}` : ''}\`, or new access keys). To use a local emulator or LocalStack instead of AWS, set AWS_ENDPOINT_URL (or pass --endpoint-url).`,
      },
    );
  }
  const code = e.code ?? (e.name === 'TimeoutError' ? 'ETIMEDOUT' : undefined);
  if (code && UNREACHABLE.has(code)) return explainUnreachable(e, code, ctx);
  return undefined;
}

async function explainMissingCredentials(e: Error, ctx: ConnectionContext): Promise<ConnectionError> {
  if (ctx.profile) {
    const known = await knownProfiles(ctx.env);
    if (known && !known.includes(ctx.profile)) {
      return new ConnectionError(
        `The AWS profile '${ctx.profile}' is not defined in ${sharedFiles(ctx.env)}${known.length ? ` (profiles there: ${known.join(', ')})` : ' (they define no profile)'}.`,
        {
          code: 'UNKNOWN_PROFILE',
          cause: e,
          remedy: `Pass an existing profile with --profile (or AWS_PROFILE), or create it: \`aws configure --profile ${ctx.profile}\` or \`aws configure sso --profile ${ctx.profile}\`.`,
        },
      );
    }
    if (!NO_PROVIDER.test(e.message)) {
      return new ConnectionError(
        `Cannot load the credentials of the AWS profile '${ctx.profile}': ${e.message}`,
        {
          code: 'CREDENTIALS_UNAVAILABLE',
          cause: e,
          remedy: `Refresh them (\`aws sso login --profile ${ctx.profile}\`), or fix the profile in ${sharedFiles(ctx.env)}.`,
        },
      );
    }
  }
  return new ConnectionError(
    `No AWS credentials found${ctx.profile ? ` for the profile '${ctx.profile}'` : ''}: none in the environment (AWS_ACCESS_KEY_ID), the shared files (${sharedFiles(ctx.env)}), SSO, or the instance metadata.`,
    {
      code: 'NO_CREDENTIALS',
      cause: e,
      remedy:
        'Pass --profile (or set AWS_PROFILE) to a configured profile, export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run `aws configure` / `aws sso login`. Against a local emulator any keys do (AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test).',
    },
  );
}

function explainUnreachable(
  e: Error & { hostname?: string },
  code: string,
  ctx: ConnectionContext,
): ConnectionError {
  const why = e.message ? (e.message.includes(code) ? e.message : `${code}: ${e.message}`) : code;
  if (ctx.endpoint) {
    return new ConnectionError(
      `Cannot reach the AWS endpoint ${ctx.endpoint.url} (set by ${ctx.endpoint.source}) for ${ctx.serviceId}: ${why}.`,
      {
        code: 'ENDPOINT_UNREACHABLE',
        cause: e,
        remedy: `Start what should listen there (for the project's emulator: \`npx aws-emulator --port ${portOf(ctx.endpoint.url) ?? 4566}\`), fix the URL, or unset ${ctx.endpoint.source} to talk to AWS itself.`,
        retryable: RETRYABLE.has(code),
      },
    );
  }
  const host = e.hostname ?? `${ctx.serviceId.toLowerCase()}.${ctx.region}.amazonaws.com`;
  return new ConnectionError(`Cannot reach ${ctx.serviceId} in ${ctx.region} at ${host}: ${why}.`, {
    code: 'ENDPOINT_UNREACHABLE',
    cause: e,
    remedy: `Check the network connection and the region '${ctx.region}' (--region, AWS_REGION or the profile). To use a local emulator or LocalStack instead of AWS, set AWS_ENDPOINT_URL (or pass --endpoint-url).`,
    retryable: RETRYABLE.has(code),
  });
}

function credentialSource(ctx: ConnectionContext): string {
  if (ctx.profile) return `the profile '${ctx.profile}'`;
  if (ctx.env.AWS_ACCESS_KEY_ID) return 'AWS_ACCESS_KEY_ID (environment)';
  return 'the default credential chain';
}

function sharedFiles(env: NodeJS.ProcessEnv): string {
  return `${env.AWS_CONFIG_FILE ?? '~/.aws/config'} and ${env.AWS_SHARED_CREDENTIALS_FILE ?? '~/.aws/credentials'}`;
}

/** Profile names of the shared config and credentials files; undefined when they cannot be read. */
async function knownProfiles(env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  const { loadSharedConfigFiles } = require('@smithy/core/config') as typeof SmithyConfig;
  try {
    const files = await loadSharedConfigFiles({
      filepath: env.AWS_SHARED_CREDENTIALS_FILE,
      configFilepath: env.AWS_CONFIG_FILE,
      ignoreCache: true,
    });
    return [...new Set([...Object.keys(files.configFile), ...Object.keys(files.credentialsFile)])].sort();
  } catch {
    return undefined;
  }
}

function portOf(url: string): string | undefined {
  try {
    return new URL(url).port || undefined;
  } catch {
    return undefined;
  }
}
