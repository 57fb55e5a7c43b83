import {
  SECRET_MASK,
  clearSecrets,
  maskMintedSecrets,
  redactSecrets,
  redactSecretsInText,
  registerSecret,
} from '../../../src/template/redaction';
import { ParameterSet } from '../../../src/template/parameters';
import { resolveDynamicReferences } from '../../../src/template/dynamic-references';
import { runInNewContext } from 'node:vm';

describe('secret redaction', () => {
  afterEach(() => clearSecrets());

  it('masks whole values at any length and substrings of four characters or more', () => {
    registerSecret('abc');
    registerSecret('hunter22');
    expect(redactSecrets({ a: 'abc', b: 'xabcx', c: 'pw=hunter22;', d: ['hunter22', 1, true] })).toEqual({
      a: SECRET_MASK,
      b: 'xabcx',
      c: `pw=${SECRET_MASK};`,
      d: [SECRET_MASK, 1, true],
    });
  });

  it('never rewrites object keys, and returns the same object when nothing is secret', () => {
    registerSecret('s3cr3t-value');
    const clean = { name: 'queue', nested: { list: ['a'] } };
    expect(redactSecrets(clean)).toBe(clean);
    expect(redactSecrets({ 's3cr3t-value': 'x' })).toEqual({ 's3cr3t-value': 'x' });
  });

  it('masks secrets inside objects built in another realm (structuredClone, a vm context), but not inside class instances', () => {
    registerSecret('realm-secret-1');
    // jest's test realm and Node's structuredClone are two realms: the clone's prototype is not this Object.prototype.
    const cloned = structuredClone({ a: { b: 'realm-secret-1' } });
    const foreign = runInNewContext('({ list: [{ pw: "realm-secret-1" }] })') as unknown;
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { pw: 'realm-secret-1' });
    expect(redactSecrets(cloned)).toEqual({ a: { b: SECRET_MASK } });
    expect(JSON.stringify(redactSecrets(foreign))).toBe(JSON.stringify({ list: [{ pw: SECRET_MASK }] }));
    expect(redactSecrets(bare)).toEqual({ pw: SECRET_MASK });
    class Holder {
      constructor(readonly pw: string) {}
    }
    const holder = new Holder('realm-secret-1');
    expect(redactSecrets(holder)).toBe(holder);
  });

  it('masks a secret quoted inside JSON text (escaped) and the longest secret first', () => {
    registerSecret('pa"ss\\word');
    registerSecret('long-secret-value');
    registerSecret('secret');
    const text = `error: ${JSON.stringify({ Password: 'pa"ss\\word' })} and long-secret-value`;
    expect(redactSecretsInText(text)).toBe(`error: {"Password":"${SECRET_MASK}"} and ${SECRET_MASK}`);
  });

  it('masks only minted secrets for the digest form', () => {
    registerSecret('derived-value');
    registerSecret({ SecretAccessKey: 'minted-value' }, 'minted');
    expect(maskMintedSecrets({ a: 'derived-value', b: 'minted-value' })).toEqual({
      a: 'derived-value',
      b: SECRET_MASK,
    });
  });

  it('registers NoEcho parameter values as soon as they are given, and no other parameter', () => {
    new ParameterSet(
      { Parameters: { Pw: { Type: 'String', NoEcho: true }, Name: { Type: 'String' } } },
      { Pw: 'the-password', Name: 'plain-name' },
    );
    expect(redactSecretsInText('the-password plain-name')).toBe(`${SECRET_MASK} plain-name`);
  });

  it('registers every resolved secret reference, and plain SSM values not', async () => {
    const text = await resolveDynamicReferences(
      '{{resolve:ssm:/plain}} {{resolve:ssm-secure:/s}} {{resolve:secretsmanager:db}}',
      {
        ssmParameter: async (name) => (name === '/plain' ? 'plain-value' : 'secure-value'),
        secretValue: async () => 'manager-value',
      },
    );
    expect(text).toBe('plain-value secure-value manager-value');
    expect(redactSecretsInText(text)).toBe(`plain-value ${SECRET_MASK} ${SECRET_MASK}`);
  });
});
