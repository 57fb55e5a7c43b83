/**
 * The pack's `cdkd:providers` hook: registers AWS::DynamoDB::Table. The
 * provider module (and with it `@aws-sdk/client-dynamodb`) is loaded only when
 * cdkd creates the provider, so listing packs stays fast. Only types come from
 * cdkd; everything at run time arrives through the context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { TABLE_HANDLED_PROPERTIES } from './table-model';
import type * as TableModule from './table-provider';

export const PACK_NAME = '@cdkd/provider-dynamodb';

/** The pack this hook returns (exported for tests). */
export function dynamoDbProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: 'AWS::DynamoDB::Table',
        handledProperties: [...TABLE_HANDLED_PROPERTIES],
        // The table name is the physical id, and Cloud Control's identifier (TableName).
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          // Loaded here, not at the top: the module brings in the SDK client.
          const { TableProvider } = require('./table-provider') as typeof TableModule;
          return new TableProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return dynamoDbProviderPack();
};

export default hook;
