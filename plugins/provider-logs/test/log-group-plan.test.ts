import { canonicalJson, planLogGroup } from '../src/log-group-plan';

describe('planLogGroup', () => {
  const policy = { Name: 'p', Version: '2021-06-01', Statement: [{ Sid: 'a' }] };

  it('a create applies what CreateLogGroup cannot take, deletion protection last', () => {
    expect(
      planLogGroup(
        {
          RetentionInDays: '7',
          KmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/k',
          DataProtectionPolicy: policy,
          FieldIndexPolicies: [{ Fields: ['a'] }],
          ResourcePolicyDocument: { Version: '2012-10-17', Statement: [] },
          BearerTokenAuthenticationEnabled: true,
          DeletionProtectionEnabled: 'true',
          Tags: [{ Key: 'a', Value: '1' }],
        },
        {},
        true,
      ).map((s) => s.kind),
    ).toEqual([
      'putRetention',
      'putDataProtectionPolicy',
      'putIndexPolicy',
      'putResourcePolicy',
      'setBearerTokenAuthentication',
      'setDeletionProtection',
    ]);
    expect(planLogGroup({}, {}, true)).toEqual([]);
  });

  it('resets what the template removed, and nothing it never set', () => {
    const previous = {
      RetentionInDays: 7,
      KmsKeyId: 'k',
      DataProtectionPolicy: policy,
      FieldIndexPolicies: [{ Fields: ['a'] }],
      ResourcePolicyDocument: { Statement: [] },
      BearerTokenAuthenticationEnabled: true,
      DeletionProtectionEnabled: true,
      Tags: [{ Key: 'a', Value: '1' }],
    };
    expect(planLogGroup({}, previous, false)).toEqual([
      { kind: 'deleteRetention' },
      { kind: 'disassociateKmsKey' },
      { kind: 'deleteDataProtectionPolicy' },
      { kind: 'deleteIndexPolicy' },
      { kind: 'deleteResourcePolicy' },
      { kind: 'setBearerTokenAuthentication', enabled: false },
      { kind: 'untag', keys: ['a'] },
      { kind: 'setDeletionProtection', enabled: false },
    ]);
    expect(planLogGroup({ LogGroupName: 'x' }, { LogGroupName: 'x' }, false)).toEqual([]);
  });

  it('changes only what changed; documents compare by content, not key order', () => {
    const reordered = { Statement: [{ Sid: 'a' }], Version: '2021-06-01', Name: 'p' };
    expect(
      planLogGroup(
        {
          RetentionInDays: 14,
          DataProtectionPolicy: reordered,
          Tags: [
            { Key: 'a', Value: '2' },
            { Key: 'b', Value: '1' },
          ],
        },
        {
          RetentionInDays: 7,
          DataProtectionPolicy: policy,
          Tags: [
            { Key: 'a', Value: '1' },
            { Key: 'c', Value: '1' },
          ],
        },
        false,
      ),
    ).toEqual([
      { kind: 'putRetention', days: 14 },
      { kind: 'untag', keys: ['c'] },
      { kind: 'tag', tags: { a: '2', b: '1' } },
    ]);
    expect(canonicalJson(JSON.stringify(reordered))).toBe(canonicalJson(policy));
  });
});
