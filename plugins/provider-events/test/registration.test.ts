import type { ProviderContext } from '@cdkd/plugin-api';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { eventsProviderPack, PACK_NAME } from '../src/hook';
import type * as HookModule from '../src/hook';

const TYPES = ['AWS::Events::EventBus', 'AWS::Events::Rule'];

// The pack's registrations, checked by the same registry and coverage check `cdkd providers check` uses.
describe('@cdkd/provider-events registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'user', result: eventsProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual(TYPES);
  });

  it.each(TYPES)('accounts for every writable property of %s', (type) => {
    const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
  });

  it("declares where its physical id is Cloud Control's primary identifier, so resources can move between them", () => {
    expect(
      eventsProviderPack().providers.map((p) => [p.resourceType, p.physicalIdIsPrimaryIdentifier ?? false]),
    ).toEqual([
      ['AWS::Events::Rule', true],
      ['AWS::Events::EventBus', true],
    ]);
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(eventsProviderPack()));
  });

  it('loads the EventBridge client only when a provider is made', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      jest.doMock('@aws-sdk/client-eventbridge', () => {
        loaded.push('@aws-sdk/client-eventbridge');
        return jest.requireActual('@aws-sdk/client-eventbridge');
      });
      const pack = (require('../src/hook') as typeof HookModule).eventsProviderPack();
      expect(loaded).toEqual([]);
      pack.providers[0]!.createProvider({} as ProviderContext);
      expect(loaded).toEqual(['@aws-sdk/client-eventbridge']);
    });
  });
});
