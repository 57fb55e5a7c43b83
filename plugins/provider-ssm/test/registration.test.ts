import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, PARAMETER_TYPE, ssmProviderPack } from '../src/hook';

// The pack's registration, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-ssm registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'user', result: ssmProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([PARAMETER_TYPE]);
  });

  it('accounts for every writable property of AWS::SSM::Parameter', () => {
    const coverage = propertyCoverage(registry.registrationFor(PARAMETER_TYPE)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(PARAMETER_TYPE).length);
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(ssmProviderPack()));
  });
});

describe('loading', () => {
  afterEach(() => jest.resetModules());

  it('does not load the SSM client until a provider is created', async () => {
    jest.resetModules();
    const loaded: string[] = [];
    jest.doMock('@aws-sdk/client-ssm', () => {
      loaded.push('@aws-sdk/client-ssm');
      return jest.requireActual('@aws-sdk/client-ssm') as unknown;
    });
    const fresh = require('../src/hook') as { default: typeof hook };
    const pack = await (fresh.default as unknown as () => Promise<ReturnType<typeof ssmProviderPack>>)();
    expect(pack.providers.map((p) => p.handledProperties.length)).toEqual([9]);
    expect(loaded).toEqual([]);
    pack.providers[0]!.createProvider({} as never);
    expect(loaded).toEqual(['@aws-sdk/client-ssm']);
  });
});
