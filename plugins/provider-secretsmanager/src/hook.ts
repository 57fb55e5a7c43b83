/**
 * The pack's `cdkd:providers` hook: registers AWS::SecretsManager::Secret.
 * The Secrets Manager client is loaded only when cdkd creates the provider.
 * Only types come from cdkd; everything at run time arrives through the
 * provider context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { SECRET_HANDLED_PROPERTIES } from './secret-properties';
// A type-only import: erased at compile time, so the hook does not load the SDK.
import type { SecretProvider as Provider } from './secret-provider';

export const PACK_NAME = '@cdkd/provider-secretsmanager';
export const SECRET_TYPE = 'AWS::SecretsManager::Secret';

/** The pack this hook returns (exported for tests). */
export function secretsManagerProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: SECRET_TYPE,
        // The secret's ARN is the physical id, and Cloud Control's identifier (Id) of a secret.
        physicalIdIsPrimaryIdentifier: true,
        handledProperties: [...SECRET_HANDLED_PROPERTIES],
        createProvider: (ctx) => {
          const { SecretProvider } = require('./secret-provider') as { SecretProvider: typeof Provider };
          return new SecretProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return secretsManagerProviderPack();
};

export default hook;
