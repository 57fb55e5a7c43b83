import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeDrift, lockDrift, readPackLock, writePackLock } from '../../../src/packs/lock-file';
import type { PackLock } from '../../../src/packs/lock-file';
import { npmSpecFor } from '../../../src/packs/project-packs';
import { ConfigError } from '../../../src/util/errors';

const lock = (packs: Record<string, { spec: string; version: string }>): PackLock => ({
  lockfileVersion: 1,
  packs,
  npm: { lockfileVersion: 3, packages: {} },
});

describe('the pack lock', () => {
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-lock-'));

  it('round-trips, sorted by pack name, and is absent when there is none', () => {
    const d = dir();
    expect(readPackLock(d)).toBeUndefined();
    writePackLock(
      d,
      lock({ '@z/b': { spec: '^1.0.0', version: '1.2.0' }, '@a/a': { spec: '~2.0.0', version: '2.0.3' } }),
    );
    const text = fs.readFileSync(path.join(d, 'cdkd-packs.lock.json'), 'utf8');
    expect(text.indexOf('@a/a')).toBeLessThan(text.indexOf('@z/b'));
    expect(text.endsWith('\n')).toBe(true);
    expect(readPackLock(d)?.packs['@z/b']).toEqual({ spec: '^1.0.0', version: '1.2.0' });
  });

  it.each([
    ['{', /is not a cdkd pack lock: it is not valid JSON/],
    ['{"lockfileVersion": 7, "packs": {}, "npm": {}}', /has lockfileVersion 7; this cdkd reads version 1/],
    [
      '{"lockfileVersion": 1, "packs": {"@a/a": {"spec": "^1"}}, "npm": {}}',
      /the entry of @a\/a has no 'spec' and 'version'/,
    ],
  ])('refuses a lock that is not one: %s', (body, message) => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'cdkd-packs.lock.json'), body);
    expect(() => readPackLock(d)).toThrow(ConfigError);
    expect(() => readPackLock(d)).toThrow(message);
  });

  it('names every difference between the declared packs and the lock', () => {
    const drift = lockDrift(
      { '@a/new': '^1.0.0', '@a/changed': '^2.0.0', '@a/same': '~1.1.0' },
      lock({
        '@a/changed': { spec: '^1.0.0', version: '1.4.0' },
        '@a/same': { spec: '~1.1.0', version: '1.1.2' },
        '@a/gone': { spec: 'latest', version: '3.0.0' },
      }),
    );
    expect(drift).toEqual([
      { name: '@a/changed', kind: 'changed', declared: '^2.0.0', locked: '^1.0.0' },
      { name: '@a/new', kind: 'added', declared: '^1.0.0' },
      { name: '@a/gone', kind: 'removed', locked: 'latest' },
    ]);
    expect(describeDrift(drift)).toBe(
      '@a/changed is declared as ^2.0.0 but locked from ^1.0.0; @a/new ^1.0.0 is declared but not in cdkd-packs.lock.json; @a/gone is in cdkd-packs.lock.json but no longer declared',
    );
    expect(lockDrift({ '@a/x': '1.0.0' }, undefined)).toEqual([
      { name: '@a/x', kind: 'added', declared: '1.0.0' },
    ]);
  });
});

describe('npmSpecFor', () => {
  const project = path.join(os.tmpdir(), 'proj');

  it('makes tarball and folder paths relative to .cdkd/packs, where npm runs', () => {
    expect(npmSpecFor('file:./vendor/pack-1.0.0.tgz', project)).toBe('file:../../vendor/pack-1.0.0.tgz');
    expect(npmSpecFor('./vendor/pack', project)).toBe('file:../../vendor/pack');
    expect(npmSpecFor('vendor/pack-1.0.0.tgz', project)).toBe('file:../../vendor/pack-1.0.0.tgz');
    expect(npmSpecFor(path.join(project, '..', 'shared', 'pack'), project)).toBe('file:../../../shared/pack');
  });

  it('leaves ranges, tags and URLs as they are', () => {
    for (const spec of [
      '^0.2.0',
      '~2.3.0',
      'latest',
      '1.2.3',
      'https://example.com/pack-1.0.0.tgz',
      'github:acme/pack',
    ])
      expect(npmSpecFor(spec, project)).toBe(spec);
  });
});
