import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localPluginSpec } from '../../../src/cli/hooks/plugins-local-path';
import hook from '../../../src/cli/hooks/plugins-preinstall';

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
  // The hook's `this`: the CLI's oclif settings, and oclif's `error`, which throws.
  const self = {
    config: {
      pjson: { oclif: { scope: 'cdkd', pluginPrefix: 'provider', plugins: ['@cdkd/provider-sqs'] } },
    },
    error: (message: string) => {
      throw new Error(message);
    },
  };
  const run = (plugin: object) =>
    (hook as unknown as (this: typeof self, o: { plugin: object }) => Promise<unknown>).call(self, {
      plugin,
    });

  it('turns a bare tarball name, which oclif reads as an npm package, into a file: spec', async () => {
    const plugin = { type: 'npm', name: 'pack-0.1.0.tgz', tag: 'latest' };
    await run(plugin);
    expect(plugin).toMatchObject({
      type: 'repo',
      url: `file:${fs.realpathSync(path.join(dir, 'pack-0.1.0.tgz'))}`,
    });
  });

  it('installs a tarball before the short-name rule could refuse its file name', async () => {
    fs.writeFileSync(path.join(dir, 'acme-widgets-1.0.0.tgz'), '');
    const plugin = { type: 'npm', name: 'acme-widgets-1.0.0.tgz', tag: 'latest' };
    await run(plugin);
    expect(plugin).toMatchObject({
      type: 'repo',
      url: expect.stringMatching(/^file:.*acme-widgets-1\.0\.0\.tgz$/),
    });
    // Without the file, the same name is a short name cdkd refuses.
    await expect(run({ type: 'npm', name: 'acme-widgets-2.0.0.tgz', tag: 'latest' })).rejects.toThrow(
      /is short for @cdkd\/provider-acme-widgets-2\.0\.0\.tgz/,
    );
  });

  it('leaves an npm package name alone when no such file is there', async () => {
    const plugin = { type: 'npm', name: '@cdkd/provider-events', tag: 'latest' };
    await run(plugin);
    expect(plugin).toEqual({ type: 'npm', name: '@cdkd/provider-events', tag: 'latest' });
  });
});
