import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { lambdaProviderPack, PACK_NAME } from '../src/hook';

const TYPES = [
  'AWS::Lambda::Alias',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Lambda::LayerVersion',
  'AWS::Lambda::Permission',
  'AWS::Lambda::Url',
  'AWS::Lambda::Version',
];

// The pack's registrations, checked by the same registry `cdkd providers check` uses.
describe('@cdkd/provider-lambda registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: lambdaProviderPack() }],
    schemas,
  );

  it('is accepted by the registry for every Lambda type it covers', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual(TYPES);
  });

  it.each(TYPES)('handles every writable property of %s', (type) => {
    const coverage = propertyCoverage(registry.registrationFor(type)!, schemas);
    expect(coverage.properties.filter((p) => p.status === 'unaccounted')).toEqual([]);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames(type).length);
  });

  it('declares every physical id to be the Cloud Control identifier of its type', () => {
    expect(lambdaProviderPack().providers.filter((p) => p.physicalIdIsPrimaryIdentifier !== true)).toEqual(
      [],
    );
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(lambdaProviderPack()));
  });

  it('does not load the Lambda SDK until a provider is created', () => {
    // A fresh Node.js process loads the hook's source, then creates one provider.
    const script = `
      const fs = require('node:fs');
      const ts = require('typescript');
      require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
      const sdkLoaded = () => Object.keys(require.cache).some((f) => f.includes('client-lambda'));
      const { lambdaProviderPack } = require(${JSON.stringify(path.join(__dirname, '..', 'src', 'hook.ts'))});
      const pack = lambdaProviderPack();
      const before = sdkLoaded();
      pack.providers[0].createProvider({});
      console.log(JSON.stringify({ before, after: sdkLoaded() }));
    `;
    const out = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      cwd: path.join(__dirname, '..'),
    });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ before: false, after: true });
  });
});
