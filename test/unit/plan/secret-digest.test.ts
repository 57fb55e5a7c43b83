import { classifyResourceChange } from '../../../src/plan/classify';
import {
  hasSecretReference,
  holdsSecret,
  matchesSecretDigest,
  secretDigestOf,
  withSecretChanges,
} from '../../../src/plan/secret-digest';
import type { ResourceState } from '../../../src/state/types';
import { SECRET_MASK, clearSecrets, registerSecret } from '../../../src/template/redaction';

const REF = '{{resolve:secretsmanager:db:SecretString:password}}';

describe('secret digests', () => {
  afterEach(() => clearSecrets());

  it('matches the same sent properties whatever their key order, and nothing else', () => {
    const digest = secretDigestOf({ Value: 'v1', Name: 'n' });
    expect(digest).not.toContain('v1');
    expect(matchesSecretDigest(digest, { Name: 'n', Value: 'v1' })).toBe(true);
    expect(matchesSecretDigest(digest, { Name: 'n', Value: 'v2' })).toBe(false);
    expect(matchesSecretDigest('garbage', { Name: 'n', Value: 'v1' })).toBe(false);
    // Salted: two digests of the same value differ.
    expect(secretDigestOf({ Value: 'v1' })).not.toBe(secretDigestOf({ Value: 'v1' }));
  });

  it('knows which properties hold a secret', () => {
    expect(hasSecretReference({ a: [{ b: `x${REF}` }] })).toBe(true);
    expect(hasSecretReference({ a: '{{resolve:ssm:/plain}}' })).toBe(false);
    registerSecret('noecho-value');
    expect(holdsSecret({ Value: 'noecho-value' }, { Value: 'noecho-value' })).toBe(true);
    expect(holdsSecret({ Value: 'plain' }, { Value: 'plain' })).toBe(false);
  });

  it('turns an unchanged-looking resource into an UPDATE when its secret changed', async () => {
    const record: ResourceState = {
      physicalId: 'p',
      resourceType: 'AWS::SSM::Parameter',
      properties: { Value: REF },
      secretDigest: secretDigestOf({ Value: 'old' }),
    };
    const desired = { properties: { Value: REF } };
    const change = classifyResourceChange('AWS::SSM::Parameter', desired, record, undefined);
    expect(change.action).toBe('NO_CHANGE');
    let reads = 0;
    const resolve = (value: string) => async () => {
      reads++;
      return { Value: value };
    };
    expect((await withSecretChanges(change, desired, record, resolve('old'))).action).toBe('NO_CHANGE');
    const changed = await withSecretChanges(change, desired, record, resolve('new'));
    expect(changed.action).toBe('UPDATE');
    expect(changed.propertyChanges[0]).toMatchObject({ before: SECRET_MASK, after: SECRET_MASK });
    expect(reads).toBe(2);
    // A record without a digest reads nothing.
    const { secretDigest: _d, ...plain } = record;
    await withSecretChanges(change, desired, plain, resolve('new'));
    expect(reads).toBe(2);
  });

  it('compares a NoEcho value as stored: masked on both sides', () => {
    registerSecret('noecho-value');
    const record: ResourceState = { physicalId: 'p', resourceType: 'T', properties: { Value: SECRET_MASK } };
    expect(
      classifyResourceChange('T', { properties: { Value: 'noecho-value' } }, record, undefined).action,
    ).toBe('NO_CHANGE');
  });
});
