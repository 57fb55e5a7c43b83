import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { ProviderContext } from '@cdkd/plugin-api';
import hook, { logsProviderPack, PACK_NAME } from '../src/hook';

// Loading the client is what the hook must not do: note when it happens.
let mockClientLoaded = false;
jest.mock('@aws-sdk/client-cloudwatch-logs', () => {
  mockClientLoaded = true;
  return jest.requireActual('@aws-sdk/client-cloudwatch-logs');
});

// The pack's registrations, checked by the same registry and coverage `cdkd providers check` uses.
describe('@cdkd/provider-logs registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: logsProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual(['AWS::Logs::LogGroup']);
  });

  it('accounts for every writable property of AWS::Logs::LogGroup', () => {
    const coverage = propertyCoverage(registry.registrationFor('AWS::Logs::LogGroup')!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames('AWS::Logs::LogGroup').length);
  });

  it("declares its physical id Cloud Control's primary identifier, so resources can move between them", () => {
    expect(
      logsProviderPack().providers.map((p) => [p.resourceType, p.physicalIdIsPrimaryIdentifier]),
    ).toEqual([['AWS::Logs::LogGroup', true]]);
  });

  it('is what the hook returns, and loads the SDK client only when a provider is made', async () => {
    const result = (await (hook as unknown as () => Promise<ReturnType<typeof logsProviderPack>>)())!;
    expect(JSON.stringify(result)).toBe(JSON.stringify(logsProviderPack()));
    expect(mockClientLoaded).toBe(false);
    const provider = result.providers[0]!.createProvider({} as ProviderContext);
    expect(typeof provider.create).toBe('function');
    expect(mockClientLoaded).toBe(true);
  });
});
