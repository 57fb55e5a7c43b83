import { fileFilter } from '../../../src/watch/file-filter';

describe('fileFilter (cdk.json watch)', () => {
  it('includes everything by default but the output directory, dot files and node_modules', () => {
    const f = fileFilter({ include: ['**'], exclude: [] }, 'cdk.out');
    expect(f.includesFile('app.js')).toBe(true);
    expect(f.includesFile('handler/index.js')).toBe(true);
    expect(f.includesFile('cdk.out/manifest.json')).toBe(false);
    expect(f.includesFile('.env')).toBe(false);
    expect(f.includesFile('.git/HEAD')).toBe(false);
    expect(f.includesFile('node_modules/x/index.js')).toBe(false);
    expect(f.includesFile('lib/node_modules/y.js')).toBe(false);
    expect(f.mayContain('cdk.out')).toBe(false);
    expect(f.mayContain('node_modules')).toBe(false);
    expect(f.mayContain('handler')).toBe(true);
  });

  it('follows include and exclude globs; a plain name covers a directory and what it holds', () => {
    const f = fileFilter(
      { include: ['src/**/*.ts', 'app.js'], exclude: ['src/generated', '**/*.test.ts'] },
      'out',
    );
    expect(f.includesFile('src/a.ts')).toBe(true);
    expect(f.includesFile('src/deep/b.ts')).toBe(true);
    expect(f.includesFile('src/deep/b.test.ts')).toBe(false);
    expect(f.includesFile('src/generated/c.ts')).toBe(false);
    expect(f.includesFile('src/readme.md')).toBe(false);
    expect(f.includesFile('app.js')).toBe(true);
    expect(f.includesFile('other.js')).toBe(false);
    // The watcher descends into directories that may hold an included file, and only those.
    expect(f.mayContain('src')).toBe(true);
    expect(f.mayContain('src/deep')).toBe(true);
    expect(f.mayContain('src/generated')).toBe(false);
    expect(f.mayContain('docs')).toBe(false);
  });
});
