import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, sqsProviderPack } from '../src/hook';

// The pack's registrations, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-sqs registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: sqsProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([
      'AWS::SQS::Queue',
      'AWS::SQS::QueuePolicy',
    ]);
  });

  it.each(['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy'])(
    'accounts for every writable property of %s',
    (type) => {
      const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
      expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
      expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
    },
  );

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(sqsProviderPack()));
  });
});
