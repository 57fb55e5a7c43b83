import { StateKeys, bootstrapMarkerKey, nestedStackName } from '../../../src/state/keys';
import { accountOnlyPolicy, mergeAccountOnlyPolicy } from '../../../src/state/bucket-policy';

describe('StateKeys', () => {
  const keys = new StateKeys('cdkd');

  it('lays out region-scoped, legacy and index keys', () => {
    expect(keys.stateKey('App', 'us-east-1')).toBe('cdkd/App/us-east-1/state.json');
    expect(keys.lockKey('App', 'us-east-1')).toBe('cdkd/App/us-east-1/lock.json');
    expect(keys.journalKey('App', 'us-east-1')).toBe('cdkd/App/us-east-1/rollback-journal.json');
    expect(keys.legacyStateKey('App')).toBe('cdkd/App/state.json');
    expect(keys.exportsIndexKey('eu-west-1')).toBe('cdkd/_index/eu-west-1/exports.json');
    expect(keys.stateKey(nestedStackName('Parent', 'Child'), 'us-east-1')).toBe(
      'cdkd/Parent~Child/us-east-1/state.json',
    );
    expect(bootstrapMarkerKey('us-west-2')).toBe('cdkd-bootstrap/us-west-2.json');
  });

  it('normalizes the prefix, including none', () => {
    expect(new StateKeys('/team/cdkd/').stateKey('A', 'r')).toBe('team/cdkd/A/r/state.json');
    expect(new StateKeys('').stateKey('A', 'r')).toBe('A/r/state.json');
    expect(new StateKeys('').root()).toBe('');
  });

  it('parses keys back, ignoring everything that is not a stack record', () => {
    expect(keys.parse('cdkd/App/us-east-1/state.json')).toEqual({
      kind: 'state',
      stackName: 'App',
      region: 'us-east-1',
    });
    expect(keys.parse('cdkd/App/us-east-1/lock.json')).toEqual({
      kind: 'lock',
      stackName: 'App',
      region: 'us-east-1',
    });
    expect(keys.parse('cdkd/App/state.json')).toEqual({ kind: 'legacy-state', stackName: 'App' });
    expect(keys.parse('cdkd/_index/us-east-1/exports.json')).toBeUndefined();
    expect(keys.parse('cdkd/App/deployments/x/state.json')).toBeUndefined();
    expect(keys.parse('cdkd-bootstrap/us-east-1.json')).toBeUndefined();
    expect(keys.parse('other/App/us-east-1/state.json')).toBeUndefined();
  });

  it('refuses a stack name that would break the layout', () => {
    expect(() => keys.stateKey('a/b', 'us-east-1')).toThrow(/Invalid stack name 'a\/b'/);
    expect(() => keys.stateKey('', 'us-east-1')).toThrow(/Invalid stack name/);
    expect(() => keys.lockKey('A', '')).toThrow(/Invalid region/);
  });
});

describe('account-only bucket policy', () => {
  const wanted = accountOnlyPolicy('b', '123456789012', 'aws-cn');

  it('denies other accounts and insecure transport on the bucket and its objects', () => {
    expect(wanted.Statement).toHaveLength(2);
    for (const s of wanted.Statement) {
      expect(s.Effect).toBe('Deny');
      expect(s.Resource).toEqual(['arn:aws-cn:s3:::b', 'arn:aws-cn:s3:::b/*']);
    }
    expect(wanted.Statement[0].Condition).toEqual({
      StringNotEquals: { 'aws:PrincipalAccount': '123456789012' },
    });
  });

  it('is unchanged when present (in any key order), merged next to foreign statements otherwise', () => {
    const reordered = JSON.stringify({
      Statement: wanted.Statement.map((s) => Object.fromEntries(Object.entries(s).reverse())),
      Version: '2012-10-17',
    });
    expect(mergeAccountOnlyPolicy(reordered, wanted)).toBeUndefined();
    expect(mergeAccountOnlyPolicy(undefined, wanted)).toEqual(wanted);
    const foreign = {
      Sid: 'Mine',
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::123456789012:role/R' },
      Action: 's3:GetObject',
      Resource: 'arn:aws-cn:s3:::b/*',
    };
    const merged = mergeAccountOnlyPolicy(
      JSON.stringify({ Version: '2012-10-17', Statement: [foreign] }),
      wanted,
    );
    expect(merged?.Statement).toEqual([foreign, ...wanted.Statement]);
  });
});
