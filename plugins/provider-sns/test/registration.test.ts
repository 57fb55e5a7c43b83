import type { ProviderContext } from '@cdkd/plugin-api';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, snsProviderPack } from '../src/hook';
import type * as HookModule from '../src/hook';

const TYPES = ['AWS::SNS::Topic', 'AWS::SNS::Subscription', 'AWS::SNS::TopicPolicy'];

// The pack's registrations, checked by the same registry and coverage check `cdkd providers check` uses.
describe('@cdkd/provider-sns registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: snsProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([...TYPES].sort());
  });

  it.each(TYPES)('accounts for every writable property of %s', (type) => {
    const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
  });

  it("declares where its physical id is Cloud Control's primary identifier, so resources can move between them", () => {
    expect(
      snsProviderPack().providers.map((p) => [p.resourceType, p.physicalIdIsPrimaryIdentifier ?? false]),
    ).toEqual([
      ['AWS::SNS::Topic', true],
      ['AWS::SNS::Subscription', true],
      // Its physical id is the first topic's ARN; Cloud Control's Id is one of its own.
      ['AWS::SNS::TopicPolicy', false],
    ]);
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(snsProviderPack()));
  });

  it('loads the SNS client only when a provider is made', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      jest.doMock('@aws-sdk/client-sns', () => {
        loaded.push('@aws-sdk/client-sns');
        return jest.requireActual('@aws-sdk/client-sns');
      });
      const isolated = require('../src/hook') as typeof HookModule;
      const pack = isolated.snsProviderPack();
      expect(loaded).toEqual([]);
      pack.providers[0]!.createProvider({} as ProviderContext);
      expect(loaded).toEqual(['@aws-sdk/client-sns']);
    });
  });
});
