/**
 * The pack's `cdkd:providers` hook: registers AWS::SSM::Parameter. The SSM
 * client is loaded only when cdkd creates the provider, so listing providers
 * or a deploy without parameters never pays for it. Only types come from
 * cdkd; everything at run time arrives through the provider context.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { PARAMETER_HANDLED_PROPERTIES } from './parameter-properties';
// A type-only import: erased at compile time, so the hook does not load the SDK.
import type { SsmParameterProvider as Provider } from './parameter-provider';

export const PACK_NAME = '@cdkd/provider-ssm';
export const PARAMETER_TYPE = 'AWS::SSM::Parameter';

/** The pack this hook returns (exported for tests). */
export function ssmProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: PARAMETER_TYPE,
        // The parameter name is the physical id, and Cloud Control's identifier of a parameter.
        physicalIdIsPrimaryIdentifier: true,
        handledProperties: [...PARAMETER_HANDLED_PROPERTIES],
        createProvider: (ctx) => {
          const { SsmParameterProvider } = require('./parameter-provider') as {
            SsmParameterProvider: typeof Provider;
          };
          return new SsmParameterProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return ssmProviderPack();
};

export default hook;
