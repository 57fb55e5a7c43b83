import { findDynamicReferences, hasDynamicReference } from '../../../src/template/dynamic-references';

describe('dynamic reference parsing', () => {
  it('finds every reference and parses its parts', () => {
    const text =
      'a {{resolve:ssm:/p}} b {{resolve:ssm:arn:aws:ssm:eu-west-1:1:parameter/shared:4}} ' +
      '{{resolve:ssm-secure:pw}} {{resolve:secretsmanager:MySecret}} {{resolve:secretsmanager:MySecret:SecretString:key::v-id}}';
    expect(hasDynamicReference(text)).toBe(true);
    expect(hasDynamicReference('no references')).toBe(false);
    expect(findDynamicReferences(text)).toEqual([
      { service: 'ssm', text: '{{resolve:ssm:/p}}', name: '/p' },
      {
        service: 'ssm',
        text: '{{resolve:ssm:arn:aws:ssm:eu-west-1:1:parameter/shared:4}}',
        name: 'arn:aws:ssm:eu-west-1:1:parameter/shared',
        version: '4',
      },
      { service: 'ssm-secure', text: '{{resolve:ssm-secure:pw}}', name: 'pw' },
      { service: 'secretsmanager', text: '{{resolve:secretsmanager:MySecret}}', secretId: 'MySecret' },
      {
        service: 'secretsmanager',
        text: '{{resolve:secretsmanager:MySecret:SecretString:key::v-id}}',
        secretId: 'MySecret',
        jsonKey: 'key',
        versionId: 'v-id',
      },
    ]);
  });

  it.each([
    ['{{resolve:vault:x}}', 'unknown service "vault"'],
    ['{{resolve:secretsmanager:s:SecretBinary}}', 'must be SecretString'],
    ['{{resolve:secretsmanager:s:SecretString:k:AWSCURRENT:id}}', 'not both'],
    ['{{resolve:secretsmanager:arn:aws:secretsmanager}}', 'incomplete'],
  ])('refuses %s', (text, message) => {
    expect(() => findDynamicReferences(text)).toThrow(message);
  });
});
