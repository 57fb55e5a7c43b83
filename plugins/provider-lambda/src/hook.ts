/**
 * The pack's `cdkd:providers` hook: registers the eight AWS::Lambda types.
 * Only types come from cdkd; everything at run time arrives through the
 * provider context. The providers (and with them the Lambda SDK client) are
 * loaded only when cdkd first provisions one of the types, so listing packs
 * and commands that provision nothing pay nothing for this pack.
 */
import type {
  ProviderContext,
  ProviderPack,
  ProviderRegistration,
  ProvidersHook,
  ResourceProvider,
} from '@cdkd/plugin-api';
import {
  ALIAS_HANDLED_PROPERTIES,
  ALIAS_TYPE,
  EVENT_INVOKE_CONFIG_HANDLED_PROPERTIES,
  EVENT_INVOKE_CONFIG_TYPE,
  EVENT_SOURCE_MAPPING_HANDLED_PROPERTIES,
  EVENT_SOURCE_MAPPING_TYPE,
  FUNCTION_HANDLED_PROPERTIES,
  FUNCTION_TYPE,
  LAYER_VERSION_HANDLED_PROPERTIES,
  LAYER_VERSION_TYPE,
  PERMISSION_HANDLED_PROPERTIES,
  PERMISSION_TYPE,
  URL_HANDLED_PROPERTIES,
  URL_TYPE,
  VERSION_HANDLED_PROPERTIES,
  VERSION_TYPE,
} from './properties';

export const PACK_NAME = '@cdkd/provider-lambda';

/** A registration whose provider class is required from `module` on first use. */
function lazy(
  resourceType: string,
  handledProperties: string[],
  module: string,
  exported: string,
): ProviderRegistration {
  return {
    resourceType,
    handledProperties: [...handledProperties],
    // Every physical id here is Cloud Control's identifier of the type (a name, an ARN, a UUID,
    // or `<FunctionName>|<Id>` / `<FunctionName>|<Qualifier>`), so resources can move between them.
    physicalIdIsPrimaryIdentifier: true,
    createProvider(ctx: ProviderContext): ResourceProvider {
      const Provider = (require(module) as Record<string, new (c: ProviderContext) => ResourceProvider>)[
        exported
      ]!;
      return new Provider(ctx);
    },
  };
}

/** The pack this hook returns (exported for tests). */
export function lambdaProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      lazy(FUNCTION_TYPE, FUNCTION_HANDLED_PROPERTIES, './function-provider', 'LambdaFunctionProvider'),
      lazy(
        PERMISSION_TYPE,
        PERMISSION_HANDLED_PROPERTIES,
        './permission-provider',
        'LambdaPermissionProvider',
      ),
      lazy(VERSION_TYPE, VERSION_HANDLED_PROPERTIES, './version-provider', 'LambdaVersionProvider'),
      lazy(ALIAS_TYPE, ALIAS_HANDLED_PROPERTIES, './alias-provider', 'LambdaAliasProvider'),
      lazy(URL_TYPE, URL_HANDLED_PROPERTIES, './url-provider', 'LambdaUrlProvider'),
      lazy(
        EVENT_SOURCE_MAPPING_TYPE,
        EVENT_SOURCE_MAPPING_HANDLED_PROPERTIES,
        './event-source-mapping-provider',
        'LambdaEventSourceMappingProvider',
      ),
      lazy(
        LAYER_VERSION_TYPE,
        LAYER_VERSION_HANDLED_PROPERTIES,
        './layer-version-provider',
        'LambdaLayerVersionProvider',
      ),
      lazy(
        EVENT_INVOKE_CONFIG_TYPE,
        EVENT_INVOKE_CONFIG_HANDLED_PROPERTIES,
        './event-invoke-config-provider',
        'LambdaEventInvokeConfigProvider',
      ),
    ],
  };
}

const hook: ProvidersHook = async function () {
  return lambdaProviderPack();
};

export default hook;
