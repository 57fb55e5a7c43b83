/**
 * Builds the {@link ProviderContext} a provider pack's `createProvider` receives:
 * everything a provider needs at run time, from cdkd's own client factory,
 * logger, retry helper and errors.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { partitionOfRegion } from '../config/aws-clients';
import type { ProviderContext } from '../plugin-api';
import { CdkdError, ProvisioningError, ResourceExistsError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { isTransientAwsError, withRetry } from '../util/retry';
import { assertRegionMatch } from './region-check';

export interface ProviderContextOptions {
  /** The client factory of this invocation (credentials, endpoint overrides). */
  clients: AwsClientFactory;
  logger: Logger;
  /** The region the providers deploy to. Default: the factory's region. */
  region?: string;
}

/** A {@link ProviderContext} for one region. */
export function createProviderContext(options: ProviderContextOptions): ProviderContext {
  const factory = options.clients;
  const region = options.region ?? factory.region;
  return {
    region,
    partition: partitionOfRegion(region),
    clients: {
      get: (ClientClass, clientOptions) =>
        factory.get(ClientClass, { region: clientOptions?.region ?? region }),
    },
    logger: options.logger,
    errors: {
      ProvisioningError,
      ResourceExistsError,
      isCdkdError: (err: unknown) => CdkdError.isCdkdError(err),
    },
    accountId: async () => (await factory.callerIdentity()).account,
    retry: (operation, retryOptions) => withRetry(operation, retryOptions),
    isTransientError: isTransientAwsError,
    assertRegionMatch,
  };
}
