import * as fs from 'node:fs';
import * as path from 'node:path';
import { PLUGIN_API_VERSION, SUPPORTED_PLUGIN_API_VERSIONS } from '../../../src/plugin-api';

// @cdkd/plugin-api is what packs outside this repository build against: types
// only, nothing to install with it, its major version the plugin API version.
const dir = path.resolve(__dirname, '..', '..', '..', 'plugins', 'plugin-api');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<
  string,
  unknown
>;

describe('@cdkd/plugin-api', () => {
  it("has the core's plugin API version as its major version", () => {
    expect(manifest.name).toBe('@cdkd/plugin-api');
    expect(Number(String(manifest.version).split('.')[0])).toBe(PLUGIN_API_VERSION);
    expect(SUPPORTED_PLUGIN_API_VERSIONS).toContain(PLUGIN_API_VERSION);
  });

  it('is types only: no entry point to require, no dependencies, declarations that import nothing', () => {
    expect(manifest.main).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.files).toEqual(['index.d.ts']);
    expect(() => require.resolve('@cdkd/plugin-api')).toThrow();
    const declarations = fs.readFileSync(path.join(dir, 'index.d.ts'), 'utf8');
    expect(declarations).not.toMatch(/^import\b|\bfrom\s+['"]|require\(|\/\/\/\s*<reference/m);
    expect(declarations).not.toMatch(/^export\s+(declare\s+)?(const|let|var|function|class|enum)\b/m);
  });
});
