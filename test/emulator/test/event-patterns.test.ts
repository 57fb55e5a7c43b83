import { matchesPattern, patternProblem } from '../src/core/event-patterns';

const event = {
  source: 'com.shop',
  'detail-type': 'OrderPlaced',
  resources: ['arn:aws:s3:::a', 'arn:aws:s3:::b'],
  detail: {
    state: 'paid',
    amount: 150,
    customer: { tier: 'GOLD', ip: '10.0.3.7' },
    items: [{ sku: 'x1' }, { sku: 'y2' }],
    note: null,
  },
};

describe('event patterns', () => {
  test.each([
    [{ source: ['com.shop'] }, true],
    [{ source: ['other'] }, false],
    [{ detail: { state: ['paid', 'open'] } }, true],
    [{ detail: { amount: [150] } }, true],
    [{ detail: { amount: ['150'] } }, false],
    [{ detail: { note: [null] } }, true],
    [{ detail: { state: [{ prefix: 'pa' }] } }, true],
    [{ detail: { state: [{ suffix: 'id' }] } }, true],
    [{ detail: { customer: { tier: [{ 'equals-ignore-case': 'gold' }] } } }, true],
    [{ detail: { customer: { tier: [{ prefix: { 'equals-ignore-case': 'go' } }] } } }, true],
    [{ detail: { state: [{ 'anything-but': ['open', 'void'] }] } }, true],
    [{ detail: { state: [{ 'anything-but': 'paid' }] } }, false],
    [{ detail: { state: [{ 'anything-but': { prefix: 'pa' } }] } }, false],
    [{ detail: { missing: [{ 'anything-but': 'x' }] } }, false],
    [{ detail: { amount: [{ numeric: ['>', 100, '<=', 150] }] } }, true],
    [{ detail: { amount: [{ numeric: ['<', 100] }] } }, false],
    [{ detail: { missing: [{ exists: false }] } }, true],
    [{ detail: { state: [{ exists: false }] } }, false],
    [{ detail: { state: [{ exists: true }] } }, true],
    [{ detail: { customer: { ip: [{ cidr: '10.0.0.0/16' }] } } }, true],
    [{ detail: { customer: { ip: [{ cidr: '10.1.0.0/16' }] } } }, false],
    [{ detail: { state: [{ wildcard: 'p*d' }] } }, true],
    [{ resources: ['arn:aws:s3:::b'] }, true],
    [{ detail: { items: { sku: ['y2'] } } }, true],
    [{ $or: [{ source: ['nope'] }, { detail: { state: ['paid'] } }] }, true],
    [{ $or: [{ source: ['nope'] }, { detail: { state: ['open'] } }] }, false],
  ])('%j matches: %s', (pattern, expected) => {
    expect(patternProblem(pattern, 'eventbridge')).toBeUndefined();
    expect(matchesPattern(pattern as Record<string, unknown>, event)).toBe(expected);
  });

  test('IPv6 ranges', () => {
    expect(matchesPattern({ ip: [{ cidr: '2001:db8::/32' }] }, { ip: '2001:db8:0:1::5' })).toBe(true);
    expect(matchesPattern({ ip: [{ cidr: '2001:db8::/32' }] }, { ip: '2001:db9::1' })).toBe(false);
  });

  test.each([
    [{ source: 'com.shop' }, '"source" must be an object or an array'],
    [{ source: [] }, 'Empty arrays are not allowed'],
    [{ source: [{ bogus: 1 }] }, 'Unrecognized match type bogus'],
    [{ a: [{ numeric: ['~', 1] }] }, 'Unrecognized numeric range operator: ~'],
    [{ a: [{ numeric: ['<', 'x'] }] }, 'Value of < must be numeric'],
    [{ a: [{ numeric: ['>', 5, '<', 1] }] }, 'Bottom must be less than top'],
    [{ a: [{ exists: 'yes' }] }, 'exists match pattern must be either true or false.'],
    [{ a: [{ cidr: '10.0.0.0' }] }, "Malformed CIDR, one '/' required"],
    [{ $or: [{ a: ['x'] }] }, '$or must be an array of at least two objects'],
  ])('%j is refused: %s', (pattern, reason) => {
    expect(patternProblem(pattern, 'eventbridge')).toBe(reason);
  });

  test('SNS filter policies: flat attribute policies, 5 keys, 150 combinations', () => {
    expect(patternProblem({ a: { b: ['c'] } }, 'sns-attributes')).toBe(
      'Filter policy scope MessageAttributes does not support nested filter policy',
    );
    expect(patternProblem({ a: { b: ['c'] } }, 'sns-body')).toBeUndefined();
    expect(
      patternProblem({ a: ['1'], b: ['1'], c: ['1'], d: ['1'], e: ['1'], f: ['1'] }, 'sns-attributes'),
    ).toBe('Filter policy can not have more than 5 keys');
    const wide = Array.from({ length: 13 }, (_, i) => `v${i}`);
    expect(patternProblem({ a: wide, b: wide }, 'sns-attributes')).toBe('Filter policy is too complex');
  });
});
