import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseStackState, serializeStackState } from '../../../src/state/schema';
import { STATE_SCHEMA_VERSION, importableOutputKeys } from '../../../src/state/types';
import type { StackState } from '../../../src/state/types';
import { CdkdError } from '../../../src/util/errors';

const FIXTURES = path.join(__dirname, '../../fixtures/state');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const where = { bucket: 'my-state', key: 'cdkd/S/us-east-1/state.json' };

function errorOf(fn: () => unknown): CdkdError {
  try {
    fn();
  } catch (err) {
    if (CdkdError.isCdkdError(err)) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('parseStackState', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])('reads a version %i file and upgrades it in memory', (v) => {
    const raw = JSON.parse(fixture(`v${v}.json`));
    const { state, sourceVersion } = parseStackState(fixture(`v${v}.json`), where);
    expect(sourceVersion).toBe(v);
    expect(state.version).toBe(STATE_SCHEMA_VERSION);
    expect(state.stackName).toBe(raw.stackName);
    expect(state.region).toBe('us-east-1');
    expect(Object.keys(state.resources)).toEqual(['Bucket', 'Queue']);
    // Outputs keep their shape: an array stays an array.
    expect(state.outputs.NameServers).toEqual(['ns-1.awsdns-00.com', 'ns-2.awsdns-01.net']);
    // Fields a version added are never invented on upgrade.
    if (v < 7) expect(state.resources.Bucket.provisionedBy).toBeUndefined();
    if (v < 8) expect(state.outputReads).toBeUndefined();
    if (v < 9) expect(state.exportNames).toBeUndefined();
  });

  it('keeps the exportNames semantics: absent = every output importable, [] = none', () => {
    const v8 = parseStackState(fixture('v8.json'), where).state;
    expect(importableOutputKeys(v8).sort()).toEqual(['BucketName', 'NameServers']);
    const v9 = parseStackState(fixture('v9.json'), where).state;
    expect(importableOutputKeys(v9)).toEqual(['BucketName']);
    expect(importableOutputKeys({ ...v9, exportNames: [] })).toEqual([]);
  });

  it('refuses a newer schema version with the upgrade message', () => {
    const err = errorOf(() => parseStackState(fixture('v10.json'), where));
    expect(err.code).toBe('STATE_VERSION_UNSUPPORTED');
    expect(err.message).toContain('Unsupported state schema version 10');
    expect(err.message).toContain('Upgrade cdkd');
    expect(err.message).toContain('s3://my-state/cdkd/S/us-east-1/state.json');
  });

  it('refuses a corrupt file naming its key and how to restore a previous version', () => {
    const err = errorOf(() => parseStackState(fixture('corrupt.json'), where));
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toContain('s3://my-state/cdkd/S/us-east-1/state.json');
    expect(err.remedy).toContain(
      'aws s3api list-object-versions --bucket my-state --prefix cdkd/S/us-east-1/state.json',
    );
    expect(err.remedy).toContain('--version-id');
    expect(err.remedy).toContain('will not overwrite');
  });

  it.each([
    ['not an object', '[]'],
    ['no version', '{"stackName":"S","resources":{}}'],
    ['version 0', '{"version":0,"stackName":"S","resources":{}}'],
    ['fractional version', '{"version":2.5,"stackName":"S","region":"r","resources":{}}'],
    ['v2 without region', '{"version":2,"stackName":"S","resources":{}}'],
    ['resources not an object', '{"version":9,"stackName":"S","region":"r","resources":[]}'],
    [
      'resource without physicalId',
      '{"version":9,"stackName":"S","region":"r","resources":{"A":{"resourceType":"T"}}}',
    ],
    [
      'exportNames not strings',
      '{"version":9,"stackName":"S","region":"r","resources":{},"exportNames":[1]}',
    ],
  ])('refuses %s as corrupt', (_what, body) => {
    expect(errorOf(() => parseStackState(body, where)).code).toBe('STATE_CORRUPT');
  });
});

describe('serializeStackState', () => {
  const base: StackState = {
    version: 3,
    stackName: 'S',
    region: 'us-east-1',
    resources: {},
    outputs: {},
    lastModified: 1,
  };

  it('always writes the current version, first', () => {
    const text = serializeStackState(base);
    expect(JSON.parse(text).version).toBe(STATE_SCHEMA_VERSION);
    expect(text.indexOf('"version"')).toBeLessThan(text.indexOf('"stackName"'));
  });

  it('writes an empty exportNames, omits an absent one, and omits an empty outputReads', () => {
    expect(JSON.parse(serializeStackState({ ...base, exportNames: [] })).exportNames).toEqual([]);
    expect('exportNames' in JSON.parse(serializeStackState(base))).toBe(false);
    expect('outputReads' in JSON.parse(serializeStackState({ ...base, outputReads: [] }))).toBe(false);
  });

  it('round-trips every fixture without losing a field', () => {
    for (const v of [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const raw = JSON.parse(fixture(`v${v}.json`));
      const written = JSON.parse(serializeStackState(parseStackState(fixture(`v${v}.json`), where).state));
      expect(written).toEqual({ ...raw, version: STATE_SCHEMA_VERSION });
    }
  });
});
