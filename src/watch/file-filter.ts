/**
 * Which files `cdkd watch` reacts to, read from cdk.json `watch` as the CDK CLI
 * reads it: `include` globs (default `**`), `exclude` globs, and always
 * excluded the cloud assembly directory, dot files and dot directories, and
 * `node_modules`. A pattern without glob characters names a file or a
 * directory and everything in it. Paths are relative to the project root.
 */
import { minimatch } from 'minimatch';
import type { WatchSettings } from '../config/config';

export interface FileFilter {
  /** True for a file whose change triggers a deploy. */
  includesFile(relativePath: string): boolean;
  /** False for a directory the watcher need not descend into (excluded, or no included file can be inside). */
  mayContain(relativeDir: string): boolean;
}

const GLOB = /[*?[\]{}]/;

/** A pattern as a list of globs: a plain name also covers everything below it. */
function expand(pattern: string): string[] {
  const p = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  return GLOB.test(p) ? [p] : [p, `${p}/**`];
}

export function fileFilter(settings: WatchSettings, outputDir: string): FileFilter {
  const include = settings.include.flatMap(expand);
  const exclude = [
    ...settings.exclude.flatMap(expand),
    ...expand(outputDir),
    '**/.*',
    '**/.*/**',
    '**/node_modules',
    '**/node_modules/**',
  ];
  const matches = (path: string, globs: readonly string[]): boolean =>
    globs.some((g) => minimatch(path, g, { dot: true }));
  // Every leading part of an include glob: a directory that matches one may hold an included file.
  const ancestors = include.flatMap((g) =>
    g.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  );
  const normal = (p: string): string => p.replace(/\\/g, '/').replace(/^\.\//, '');
  return {
    includesFile: (p) => {
      const path = normal(p);
      return !matches(path, exclude) && matches(path, include);
    },
    mayContain: (d) => {
      const dir = normal(d);
      if (dir === '' || dir === '.') return true;
      return !matches(dir, exclude) && (matches(dir, ancestors) || matches(dir, include));
    },
  };
}
