import { preinstallRefusal } from '../../../src/cli/hooks/plugins-preinstall';

const oclif = {
  scope: 'cdkd',
  pluginPrefix: 'provider',
  plugins: ['@oclif/plugin-help', '@cdkd/provider-sqs'],
};

describe('cdkd plugins install refusals', () => {
  it('says a bundled pack is bundled, by its full or its short name', () => {
    for (const name of ['@cdkd/provider-sqs', 'sqs']) {
      expect(preinstallRefusal(name, oclif)).toMatch(/^@cdkd\/provider-sqs is bundled with cdkd/);
    }
  });

  it('refuses the unrelated package a short name would fall back to', () => {
    expect(preinstallRefusal('ssm', oclif)).toMatch(
      /"ssm" is short for @cdkd\/provider-ssm, which the registry does not have; cdkd will not install the unrelated npm package "ssm"/,
    );
  });

  it('lets a scoped pack and an unscoped cdkd-provider- pack through', () => {
    expect(preinstallRefusal('@cdkd/provider-ssm', oclif)).toBeUndefined();
    expect(preinstallRefusal('@acme/cdkd-provider-billing', oclif)).toBeUndefined();
    expect(preinstallRefusal('cdkd-provider-widgets', oclif)).toBeUndefined();
  });
});
