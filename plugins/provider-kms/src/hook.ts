/**
 * The pack's `cdkd:providers` hook: registers AWS::KMS::Key and AWS::KMS::Alias.
 * The KMS client is loaded only when cdkd creates a provider. Only types come
 * from cdkd; everything at run time arrives through the provider context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { ALIAS_HANDLED_PROPERTIES, KEY_HANDLED_PROPERTIES } from './key-properties';
// Type-only imports: erased at compile time, so the hook does not load the SDK.
import type { AliasProvider as Alias } from './alias-provider';
import type { KeyProvider as Key } from './key-provider';

export const PACK_NAME = '@cdkd/provider-kms';
export const KEY_TYPE = 'AWS::KMS::Key';
export const ALIAS_TYPE = 'AWS::KMS::Alias';

/** The pack this hook returns (exported for tests). */
export function kmsProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: KEY_TYPE,
        // The key id is the physical id, and Cloud Control's identifier (KeyId) of a key.
        physicalIdIsPrimaryIdentifier: true,
        // KMS generates the key id and never gives it to another key: a failed create's key needs no identity.
        physicalIdNeverReused: true,
        handledProperties: [...KEY_HANDLED_PROPERTIES],
        createProvider: (ctx) => {
          const { KeyProvider } = require('./key-provider') as { KeyProvider: typeof Key };
          return new KeyProvider(ctx);
        },
      },
      {
        resourceType: ALIAS_TYPE,
        // The alias name is the physical id, and Cloud Control's identifier (AliasName) of an alias.
        physicalIdIsPrimaryIdentifier: true,
        handledProperties: [...ALIAS_HANDLED_PROPERTIES],
        createProvider: (ctx) => {
          const { AliasProvider } = require('./alias-provider') as { AliasProvider: typeof Alias };
          return new AliasProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return kmsProviderPack();
};

export default hook;
