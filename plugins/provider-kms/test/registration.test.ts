import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { ALIAS_TYPE, KEY_TYPE, PACK_NAME, kmsProviderPack } from '../src/hook';

// The pack's registration, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-kms registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'user', result: kmsProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([ALIAS_TYPE, KEY_TYPE]);
  });

  it.each([KEY_TYPE, ALIAS_TYPE])('accounts for every writable property of %s', (type) => {
    const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(kmsProviderPack()));
  });
});

describe('loading', () => {
  afterEach(() => jest.resetModules());

  it('does not load the KMS client until a provider is created', async () => {
    jest.resetModules();
    const loaded: string[] = [];
    jest.doMock('@aws-sdk/client-kms', () => {
      loaded.push('@aws-sdk/client-kms');
      return jest.requireActual('@aws-sdk/client-kms') as unknown;
    });
    const fresh = require('../src/hook') as { default: typeof hook };
    const pack = await (fresh.default as unknown as () => Promise<ReturnType<typeof kmsProviderPack>>)();
    expect(pack.providers.map((p) => p.handledProperties.length)).toEqual([12, 2]);
    expect(loaded).toEqual([]);
    pack.providers[0]!.createProvider({} as never);
    expect(loaded).toEqual(['@aws-sdk/client-kms']);
  });
});
