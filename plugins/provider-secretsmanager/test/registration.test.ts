import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, SECRET_TYPE, secretsManagerProviderPack } from '../src/hook';

// The pack's registration, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-secretsmanager registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'user', result: secretsManagerProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([SECRET_TYPE]);
  });

  it('accounts for every writable property of AWS::SecretsManager::Secret', () => {
    const coverage = propertyCoverage(registry.registrationFor(SECRET_TYPE)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(SECRET_TYPE).length);
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(secretsManagerProviderPack()));
  });
});

describe('loading', () => {
  afterEach(() => jest.resetModules());

  it('does not load the Secrets Manager client until a provider is created', async () => {
    jest.resetModules();
    const loaded: string[] = [];
    jest.doMock('@aws-sdk/client-secrets-manager', () => {
      loaded.push('@aws-sdk/client-secrets-manager');
      return jest.requireActual('@aws-sdk/client-secrets-manager') as unknown;
    });
    const fresh = require('../src/hook') as { default: typeof hook };
    const pack = await (
      fresh.default as unknown as () => Promise<ReturnType<typeof secretsManagerProviderPack>>
    )();
    expect(pack.providers.map((p) => p.handledProperties.length)).toEqual([8]);
    expect(loaded).toEqual([]);
    pack.providers[0]!.createProvider({} as never);
    expect(loaded).toEqual(['@aws-sdk/client-secrets-manager']);
  });
});
