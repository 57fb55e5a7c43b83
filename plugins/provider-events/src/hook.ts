/**
 * The pack's `cdkd:providers` hook: registers AWS::Events::Rule and
 * AWS::Events::EventBus. Only types come from cdkd; everything at run time
 * arrives through the provider context. The providers (and the EventBridge
 * client with them) load when a provider is first made, so listing packs
 * costs nothing.
 */
import type { ProviderContext, ProviderPack, ProvidersHook, ResourceProvider } from '@cdkd/plugin-api';
import { BUS_HANDLED_PROPERTIES } from './bus-properties';
import type * as BusModule from './bus-provider';
import { RULE_HANDLED_PROPERTIES } from './rule-properties';
import type * as RuleModule from './rule-provider';

export const PACK_NAME = '@cdkd/provider-events';

const providers = {
  rule: (ctx: ProviderContext): ResourceProvider =>
    new (require('./rule-provider') as typeof RuleModule).EventsRuleProvider(ctx),
  bus: (ctx: ProviderContext): ResourceProvider =>
    new (require('./bus-provider') as typeof BusModule).EventsBusProvider(ctx),
};

/** The pack this hook returns (exported for tests). */
export function eventsProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: 'AWS::Events::Rule',
        handledProperties: [...RULE_HANDLED_PROPERTIES],
        // The rule ARN is the physical id, and Cloud Control's identifier of a rule.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: providers.rule,
      },
      {
        resourceType: 'AWS::Events::EventBus',
        handledProperties: [...BUS_HANDLED_PROPERTIES],
        // The bus name is the physical id, and Cloud Control's identifier (Name).
        physicalIdIsPrimaryIdentifier: true,
        createProvider: providers.bus,
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return eventsProviderPack();
};

export default hook;
