import { assertPacksReady, declaredPackStatuses } from '../../../src/packs/status';
import type { InstalledPack } from '../../../src/packs/layout';
import type { PackLock } from '../../../src/packs/lock-file';
import type { RegistrationProblem } from '../../../src/provisioning/provider-registry';

const declared = {
  packs: {
    '@acme/a': '^1.0.0',
    '@acme/b': '~2.0.0',
    '@acme/c': '^3.0.0',
    '@acme/d': '^4.0.0',
    '@acme/e': '5.x',
  },
  projectDir: '/p',
  declaredIn: 'cdk.json (context.cdkd.packs)',
};
const lock: PackLock = {
  lockfileVersion: 1,
  packs: {
    '@acme/a': { spec: '^1.0.0', version: '1.1.0' },
    '@acme/b': { spec: '~1.0.0', version: '1.0.4' },
    '@acme/c': { spec: '^3.0.0', version: '3.2.0' },
    '@acme/d': { spec: '^4.0.0', version: '4.0.0' },
  },
  npm: {},
};
const installed = new Map<string, InstalledPack>(
  (
    [
      ['@acme/a', '1.1.0'],
      ['@acme/b', '1.0.4'],
      ['@acme/c', '3.1.0'],
      ['@acme/d', '4.0.0'],
    ] as const
  ).map(([name, version]) => [name, { name, version, root: `/p/.cdkd/packs/node_modules/${name}` }]),
);
const problem = (pluginName: string, message: string): RegistrationProblem => ({
  pack: pluginName,
  pluginName,
  pluginType: 'project',
  message,
  remedy: `fix ${pluginName}`,
});

describe('declared pack status', () => {
  const registry = {
    problems: [
      problem('@acme/d', 'Provider pack @acme/d declares plugin API version 2'),
      problem('@acme/z', 'z broke'),
    ],
    loaded: new Map([
      ['@acme/a', { pluginType: 'project' as const }],
      ['@acme/d', { pluginType: 'project' as const }],
    ]),
    allRegistrations: () => [{ pluginName: '@acme/a', resourceType: 'Acme::A::Thing' }] as never,
  };
  const statuses = declaredPackStatuses(declared, lock, installed, registry);

  it('says, per declared pack, what is wrong and what fixes it', () => {
    expect(statuses.map((s) => [s.name, s.state, s.problem])).toEqual([
      ['@acme/a', 'ok', undefined],
      ['@acme/b', 'not-locked', 'declared as ~2.0.0, but cdkd-packs.lock.json locks it from ~1.0.0'],
      ['@acme/c', 'version-drift', '3.1.0 is installed, cdkd-packs.lock.json locks 3.2.0'],
      ['@acme/d', 'refused', 'Provider pack @acme/d declares plugin API version 2'],
      ['@acme/e', 'not-installed', 'not installed in .cdkd/packs'],
    ]);
    expect(statuses[0]).toMatchObject({ locked: '1.1.0', installed: '1.1.0', types: ['Acme::A::Thing'] });
    expect(statuses[4].remedy).toContain('cdkd packs install');
  });

  it('says a package without the hook is not a provider pack', () => {
    const noHook = declaredPackStatuses(
      { ...declared, packs: { '@acme/c': '^3.0.0' } },
      lock,
      new Map([['@acme/c', { name: '@acme/c', version: '3.2.0', root: '/x' }]]),
      { ...registry, problems: [] },
    );
    expect(noHook[0]).toMatchObject({ state: 'not-a-pack' });
  });

  it('refuses to go on while a declared pack is not ready, naming each with the fixes', () => {
    let caught: Error & { remedy?: string; code?: string } = new Error();
    try {
      assertPacksReady(statuses, registry, { strict: false, command: 'deploy' });
    } catch (err) {
      caught = err as typeof caught;
    }
    expect(caught.code).toBe('PACKS_NOT_READY');
    expect(caught.message).toMatch(
      /^Declared provider packs are not ready, so cdkd deploy changed nothing:\n/,
    );
    expect(caught.message).toContain('  @acme/e 5.x: not installed in .cdkd/packs');
    expect(caught.message).not.toContain('@acme/a ');
    expect(caught.message).not.toContain('z broke');
    expect(caught.remedy).toContain('fix @acme/d');
  });

  it('with --strict-packs, also refuses the problems of packs nobody declared', () => {
    const ok = statuses.filter((s) => s.state === 'ok');
    expect(() => assertPacksReady(ok, registry, { strict: false, command: 'diff' })).not.toThrow();
    expect(() => assertPacksReady(ok, registry, { strict: true, command: 'diff' })).toThrow(
      /Provider packs are not ready, so cdkd diff changed nothing:\n {2}Provider pack @acme\/d declares plugin API version 2\n {2}z broke/,
    );
  });
});
