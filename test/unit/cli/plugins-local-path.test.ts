import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localPluginSpec } from '../../../src/cli/hooks/plugins-local-path';

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
