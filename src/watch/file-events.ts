/**
 * File events of the project, through chokidar: `ready` once the initial scan
 * is done, then `changed` for every watched file added, changed or removed.
 */
import * as path from 'node:path';
import type * as Chokidar from 'chokidar';
import type { FileFilter } from './file-filter';

export interface FileEventHandlers {
  ready(): void;
  /** `file` is relative to the root, with `/` separators. */
  changed(file: string): void;
  error(err: unknown): void;
}

export interface FileWatcher {
  close(): Promise<void>;
}

export function watchFiles(root: string, filter: FileFilter, handlers: FileEventHandlers): FileWatcher {
  const { watch } = require('chokidar') as typeof Chokidar;
  const relative = (p: string): string =>
    path.relative(root, path.resolve(root, p)).split(path.sep).join('/');
  const watcher = watch('.', {
    cwd: root,
    ignoreInitial: true,
    ignored: (p, stats) => {
      const rel = relative(p);
      if (rel === '') return false;
      if (stats?.isDirectory()) return !filter.mayContain(rel);
      if (stats?.isFile()) return !filter.includesFile(rel);
      return !(filter.includesFile(rel) || filter.mayContain(rel));
    },
  });
  watcher.on('ready', () => handlers.ready());
  watcher.on('error', (err) => handlers.error(err));
  watcher.on('all', (event, file) => {
    if (event === 'add' || event === 'change' || event === 'unlink') {
      const rel = relative(file);
      if (filter.includesFile(rel)) handlers.changed(rel);
    }
  });
  return { close: () => watcher.close() };
}
