/**
 * The pack's `cdkd:providers` hook: registers AWS::Logs::LogGroup. The
 * provider module (and with it `@aws-sdk/client-cloudwatch-logs`) is loaded
 * only when cdkd creates the provider, so listing packs stays fast. Only
 * types come from cdkd; everything at run time arrives through the context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { LOG_GROUP_HANDLED_PROPERTIES } from './log-group-plan';
import type * as LogGroupModule from './log-group-provider';

export const PACK_NAME = '@cdkd/provider-logs';

/** The pack this hook returns (exported for tests). */
export function logsProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: 'AWS::Logs::LogGroup',
        handledProperties: [...LOG_GROUP_HANDLED_PROPERTIES],
        // The log group name is the physical id, and Cloud Control's identifier (LogGroupName).
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          // Loaded here, not at the top: the module brings in the SDK client.
          const { LogGroupProvider } = require('./log-group-provider') as typeof LogGroupModule;
          return new LogGroupProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return logsProviderPack();
};

export default hook;
