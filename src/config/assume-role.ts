/**
 * Credentials of a role assumed through STS with cdkd's client factory (so the
 * endpoint override and the caller's credentials are the same as everywhere
 * else), refreshed shortly before they expire. Used for `--role-arn` and for
 * the CDK bootstrap file- and image-publishing roles an asset manifest names.
 */
import type * as StsModule from '@aws-sdk/client-sts';
import type { AssumeRoleCommandInput } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { AwsClientFactory } from './aws-clients';
import type { CdkdError } from '../util/errors';

/** Credentials are refreshed this long before they expire. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

export interface AssumeRoleOptions {
  roleArn: string;
  /** `RoleSessionName` (what CloudTrail shows); 2-64 characters of `[\w+=,.@-]`. */
  sessionName: string;
  externalId?: string;
  /** Further AssumeRole parameters (session tags, duration...). */
  additional?: Partial<Omit<AssumeRoleCommandInput, 'RoleArn' | 'ExternalId'>>;
  /** The error a failed AssumeRole becomes, naming what the role was for and the remedy. */
  describeFailure: (err: unknown) => CdkdError;
}

/** A credential provider for the role; the first call assumes it, later calls reuse the session until it nears expiry. */
export function assumeRoleCredentials(
  aws: AwsClientFactory,
  options: AssumeRoleOptions,
): AwsCredentialIdentityProvider {
  let current: Promise<AwsCredentialIdentity> | undefined;
  const assume = async (): Promise<AwsCredentialIdentity> => {
    const { STSClient, AssumeRoleCommand } = require('@aws-sdk/client-sts') as typeof StsModule;
    try {
      const out = await aws.get(STSClient).send(
        new AssumeRoleCommand({
          RoleSessionName: options.sessionName,
          ...options.additional,
          RoleArn: options.roleArn,
          ExternalId: options.externalId,
        }),
      );
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('the response carried no credentials');
      return {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiration: c.Expiration,
      };
    } catch (err) {
      throw options.describeFailure(err);
    }
  };
  return async () => {
    const creds = current ? await current.catch(() => undefined) : undefined;
    if (creds && (!creds.expiration || creds.expiration.getTime() - Date.now() > REFRESH_MARGIN_MS))
      return creds;
    current = assume();
    return current;
  };
}
