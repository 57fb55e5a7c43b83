import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, iamProviderPack } from '../src/hook';

const TYPES = [
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  'AWS::IAM::ManagedPolicy',
  'AWS::IAM::InstanceProfile',
  'AWS::IAM::User',
  'AWS::IAM::Group',
  'AWS::IAM::UserToGroupAddition',
  'AWS::IAM::AccessKey',
];

// The pack's registrations, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-iam registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: iamProviderPack() }],
    schemas,
  );

  it('is accepted by the registry, for the eight types', () => {
    expect(registry.problems).toEqual([]);
    expect(
      registry
        .registrations()
        .map((r) => r.resourceType)
        .sort(),
    ).toEqual([...TYPES].sort());
  });

  it.each(TYPES)('accounts for every writable property of %s', (type) => {
    const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
  });

  it("declares the access key's SecretAccessKey secret for every resource of the type, and nothing else", () => {
    expect(registry.secretAttributesOf('AWS::IAM::AccessKey')).toEqual(['SecretAccessKey']);
    for (const type of TYPES.filter((t) => t !== 'AWS::IAM::AccessKey'))
      expect(registry.secretAttributesOf(type)).toEqual([]);
  });

  it('is what the hook returns, and loading the hook loads no AWS SDK', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(iamProviderPack()));
    const loaded = Object.keys(require.cache).filter((p) => p.includes('@aws-sdk/client-iam'));
    expect(loaded).toEqual([]);
  });
});
