import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import hook, { localPluginSpec } from '../../../src/cli/hooks/plugins-local-path';

describe('cdkd plugins install of a local tarball or folder', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-local-plugin-'));
    fs.writeFileSync(path.join(dir, 'pack-0.1.0.tgz'), '');
    fs.mkdirSync(path.join(dir, 'folder'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives npm a file: spec for a path that exists, relative to the working directory', () => {
    // oclif turns `./pack-0.1.0.tgz` into a GitHub URL before the hook sees it.
    expect(localPluginSpec('https://github.com/./pack-0.1.0.tgz', dir)).toBe(
      `file:${path.join(dir, 'pack-0.1.0.tgz')}`,
    );
    expect(localPluginSpec(`https://github.com/${path.join(dir, 'folder')}`, '/')).toBe(
      `file:${path.join(dir, 'folder')}`,
    );
  });

  it('leaves GitHub repositories, URLs and file: specs alone', () => {
    expect(localPluginSpec('https://github.com/acme/cdkd-provider-widgets', dir)).toBeUndefined();
    expect(localPluginSpec('git+ssh://git@github.com/acme/x.git', dir)).toBeUndefined();
    expect(localPluginSpec('file:/tmp/x.tgz', dir)).toBeUndefined();
  });
});

describe('the plugins:preinstall hook', () => {
  let dir: string;
  let cwd: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-local-plugin-hook-'));
    fs.writeFileSync(path.join(dir, 'pack-0.1.0.tgz'), '');
    cwd = process.cwd();
    process.chdir(dir);
  });
  afterAll(() => {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // The hook reads and rewrites only `options.plugin`; oclif installs from that object afterwards.
  const run = (plugin: object) =>
    (hook as unknown as (o: { plugin: object }) => Promise<unknown>)({ plugin });

  it('turns a bare tarball name, which oclif reads as an npm package, into a file: spec', async () => {
    const plugin = { type: 'npm', name: 'pack-0.1.0.tgz', tag: 'latest' };
    await run(plugin);
    expect(plugin).toMatchObject({
      type: 'repo',
      url: `file:${fs.realpathSync(path.join(dir, 'pack-0.1.0.tgz'))}`,
    });
  });

  it('leaves an npm package name alone when no such file is there', async () => {
    const plugin = { type: 'npm', name: '@cdkd/provider-events', tag: 'latest' };
    await run(plugin);
    expect(plugin).toEqual({ type: 'npm', name: '@cdkd/provider-events', tag: 'latest' });
  });
});
