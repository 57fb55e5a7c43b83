import { createJsonPatch, jsonEqual } from '../../../src/util/json-patch';

describe('createJsonPatch', () => {
  it('is empty for equal documents regardless of key order', () => {
    expect(createJsonPatch({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
  });

  it('adds, removes and replaces at the deepest differing object key', () => {
    const from = { Name: 'q', Timeout: 30, Tags: [{ Key: 'a', Value: '1' }], Nested: { Keep: 1, Drop: 2 } };
    const to = { Name: 'q', Tags: [{ Key: 'a', Value: '2' }], Nested: { Keep: 1, New: 3 }, Delay: 5 };
    expect(createJsonPatch(from, to)).toEqual([
      { op: 'remove', path: '/Timeout' },
      { op: 'replace', path: '/Tags', value: [{ Key: 'a', Value: '2' }] },
      { op: 'remove', path: '/Nested/Drop' },
      { op: 'add', path: '/Nested/New', value: 3 },
      { op: 'add', path: '/Delay', value: 5 },
    ]);
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(createJsonPatch({}, { 'a/b~c': 1 })).toEqual([{ op: 'add', path: '/a~1b~0c', value: 1 }]);
  });

  it('treats undefined members as absent', () => {
    expect(createJsonPatch({ a: undefined, b: 1 }, { b: 1 })).toEqual([]);
    expect(jsonEqual({ a: undefined }, {})).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});
