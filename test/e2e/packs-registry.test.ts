/**
 * Packs for a team, against a real npm registry (verdaccio on loopback, see
 * support/registry.ts): a CDK app declares a first-party pack and an
 * org-internal one (with its own schema) in cdk.json, and the built CLI takes
 * it through declare -> deploy refused -> packs install -> lock -> deploy ->
 * upgrade -> a teammate's machine with the lock (--frozen) -> drift refused ->
 * a missing pack refused -> user-level plugins install -> uninstall; and a
 * TypeScript pack made with `cdkd pack new` builds against @cdkd/plugin-api
 * from the registry.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { PackLock } from '../../src/packs/lock-file';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness, CliResult } from './support/cdkd-cli';
import { startRegistry } from './support/registry';
import type { LocalRegistry } from './support/registry';

const STACK = 'E2eTeamApp';
const SSM_PACK = '@cdkd/provider-e2e-ssm';
const BILLING_PACK = '@acme/cdkd-provider-billing';
const SSM_SDK_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@aws-sdk/client-ssm/package.json'), 'utf8')) as {
    version: string;
  }
).version;

const APP_JS = `const cdk = require(${JSON.stringify(require.resolve('aws-cdk-lib'))});
const ssm = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-ssm'))});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'TeamApp', { stackName: '${STACK}' });
new ssm.CfnParameter(stack, 'Setting', { name: 'e2e-team-setting', type: 'String', value: app.node.tryGetContext('value') ?? 'v1' });
const budget = app.node.tryGetContext('budget');
const account = new cdk.CfnResource(stack, 'Account', {
  type: 'Acme::Billing::Account',
  properties: { AccountName: 'team-a', Owner: 'alice', ...(budget === undefined ? {} : { Budget: Number(budget) }) },
});
new cdk.CfnOutput(stack, 'AccountId', { value: account.getAtt('AccountId').toString() });
app.synth();
`;

describe('declared packs from a registry: install, lock, deploy, upgrade, frozen, refuse', () => {
  let h: CdkdHarness;
  let registry: LocalRegistry;
  let tmp: string;
  let app: string;
  let ssm: SSMClient;

  const cdkd = (cwd: string, ...args: string[]): Promise<CliResult> => h.cdkd(args, { cwd });
  const deploy = (cwd: string, ...context: string[]) =>
    cdkd(cwd, 'deploy', '--progress', 'events', ...context.flatMap((c) => ['-c', c]));
  const lockOf = (dir: string) =>
    JSON.parse(fs.readFileSync(path.join(dir, 'cdkd-packs.lock.json'), 'utf8')) as PackLock;
  const installedVersion = (dir: string, name: string) =>
    (
      JSON.parse(
        fs.readFileSync(path.join(dir, '.cdkd', 'packs', 'node_modules', name, 'package.json'), 'utf8'),
      ) as { version: string }
    ).version;
  const parameter = async (name: string) =>
    (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;

  /** A project folder: cdk.json declaring `packs`, the app, the project's .npmrc. */
  const project = (dir: string, packs: Record<string, string>) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'cdk.json'),
      JSON.stringify({ app: 'node app.js', context: { cdkd: { packs } } }, null, 2),
    );
    fs.writeFileSync(path.join(dir, 'app.js'), APP_JS);
    // The org's scope from its registry, everything else from the default one (here both are verdaccio).
    fs.writeFileSync(path.join(dir, '.npmrc'), `registry=${registry.url}\n@acme:registry=${registry.url}\n`);
    return dir;
  };

  /** Publishes the example SSM pack as a first-party @cdkd pack at `version`. */
  const publishSsmPack = async (version: string) => {
    const dir = path.join(tmp, `ssm-pack-${version}`);
    fs.cpSync(path.join(ROOT, 'examples', 'provider-pack-example'), dir, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete manifest.private;
    delete manifest.devDependencies;
    Object.assign(manifest, {
      name: SSM_PACK,
      version,
      dependencies: { '@aws-sdk/client-ssm': `^${SSM_SDK_VERSION}` },
    });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    const hook = path.join(dir, 'hook.js');
    fs.writeFileSync(
      hook,
      fs.readFileSync(hook, 'utf8').split('@acme/cdkd-provider-ssm-parameter').join(SSM_PACK),
    );
    await registry.publish(dir);
  };

  /** Publishes the org-internal billing pack fixture at `version`. */
  const publishBillingPack = async (version: string) => {
    const dir = path.join(tmp, `billing-pack-${version}`);
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'registry-packs', 'acme-billing'), dir, {
      recursive: true,
    });
    const file = path.join(dir, 'package.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    Object.assign(manifest, { version, dependencies: { '@aws-sdk/client-ssm': `^${SSM_SDK_VERSION}` } });
    fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
    await registry.publish(dir);
  };

  beforeAll(async () => {
    [h, registry] = await Promise.all([startHarness(), startRegistry()]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-packs-registry-'));
    // What the packs and a TypeScript pack's build need, from this repository's installed copies.
    await registry.seedInstalled([
      path.join(ROOT, 'node_modules', '@aws-sdk', 'client-ssm'),
      path.join(ROOT, 'node_modules', 'typescript'),
      path.join(ROOT, 'node_modules', '@types', 'node'),
    ]);
    await registry.publish(path.join(ROOT, 'plugins', 'plugin-api'));
    await Promise.all([publishSsmPack('0.2.0'), publishBillingPack('2.3.0')]);
    ssm = new SSMClient({
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    expectExit(await h.cdkd(['bootstrap']));
    app = project(path.join(tmp, 'app'), { [SSM_PACK]: '^0.2.0', [BILLING_PACK]: '~2.3.0' });
  });

  afterAll(async () => {
    ssm?.destroy();
    await Promise.all([h?.stop(), registry?.stop()]);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('refuses to deploy, diff or destroy before the declared packs are installed, changing nothing', async () => {
    for (const args of [['deploy', '--progress', 'events'], ['diff'], ['destroy', '--force']]) {
      const r = await cdkd(app, ...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('Declared provider packs are not ready');
      expect(r.stderr).toContain(`${SSM_PACK} ^0.2.0: not installed in .cdkd/packs`);
      expect(r.stderr).toContain(`${BILLING_PACK} ~2.3.0: not installed in .cdkd/packs`);
      expect(r.stderr).toContain('cdkd packs install');
    }
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });

  it('installs the declared packs into the project (not the user data dir) and writes the lock', async () => {
    const r = await cdkd(app, 'packs', 'install');
    expectExit(r);
    expect(r.stdout).toContain(`${SSM_PACK} 0.2.0 (new)`);
    expect(r.stdout).toContain(`${BILLING_PACK} 2.3.0 (new)`);
    expect(r.stdout).toContain('Locked in cdkd-packs.lock.json');
    const lock = lockOf(app);
    expect(lock.packs[SSM_PACK]).toMatchObject({ spec: '^0.2.0', version: '0.2.0' });
    expect(lock.packs[BILLING_PACK]).toMatchObject({ spec: '~2.3.0', version: '2.3.0' });
    for (const entry of Object.values(lock.packs)) expect(entry.integrity).toMatch(/^sha512-/);
    expect(installedVersion(app, BILLING_PACK)).toBe('2.3.0');
    expect(fs.existsSync(path.join(h.env.XDG_DATA_HOME!, 'cdkd', 'package.json'))).toBe(false);

    const list = await cdkd(app, 'packs', '--json');
    expectExit(list);
    const { packs } = JSON.parse(list.stdout) as {
      packs: Array<{ name: string; state: string; locked: string; installed: string; types: string[] }>;
    };
    expect(packs).toEqual([
      expect.objectContaining({
        name: BILLING_PACK,
        state: 'ok',
        locked: '2.3.0',
        installed: '2.3.0',
        types: ['Acme::Billing::Account'],
      }),
      expect.objectContaining({ name: SSM_PACK, state: 'ok', types: ['AWS::SSM::Parameter'] }),
    ]);
  });

  it('deploys through the declared packs, and state records each pack and its version', async () => {
    const r = await deploy(app, 'budget=100');
    expectExit(r);
    expect(r.stdout).toMatch(/AccountId = acct-[0-9a-f]{12}/);
    const state = await h.readState(STACK);
    expect(state?.resources.Setting).toMatchObject({
      provisionedBy: 'sdk',
      providerPack: SSM_PACK,
      providerPackVersion: '0.2.0',
      physicalId: 'e2e-team-setting',
    });
    expect(state?.resources.Account).toMatchObject({
      resourceType: 'Acme::Billing::Account',
      provisionedBy: 'sdk',
      providerPack: BILLING_PACK,
      providerPackVersion: '2.3.0',
      physicalId: 'team-a',
    });
    expect(JSON.parse((await parameter('/acme/billing/team-a'))!)).toEqual({ owner: 'alice', budget: 100 });

    const resources = await cdkd(app, 'state', 'resources', STACK);
    expectExit(resources);
    expect(resources.stdout).toMatch(
      /^Account\s+Acme::Billing::Account\s+sdk\s+@acme\/cdkd-provider-billing@2\.3\.0\s+team-a$/m,
    );
  });

  it("refuses, before changing anything, an org-internal resource that its pack's schema rejects", async () => {
    const r = await deploy(app, 'budget=-5');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Account (Acme::Billing::Account)');
    expect(r.stderr).toMatch(/Budget must be >= 0/);
    expect(r.stderr).toContain('Nothing was changed');
    expect(JSON.parse((await parameter('/acme/billing/team-a'))!)).toEqual({ owner: 'alice', budget: 100 });
  });

  it('upgrades within the declared ranges, showing from -> to, and deploys with the new version', async () => {
    // npm refuses to publish 2.3.1 as latest once 2.4.0 exists: the billing versions go in order.
    await Promise.all([
      publishSsmPack('0.2.1'),
      publishBillingPack('2.3.1').then(() => publishBillingPack('2.4.0')),
    ]);
    const r = await cdkd(app, 'packs', 'upgrade');
    expectExit(r);
    expect(r.stdout).toContain(`${SSM_PACK} 0.2.0 → 0.2.1`);
    expect(r.stdout).toContain(`${BILLING_PACK} 2.3.0 → 2.3.1`);
    expect(lockOf(app).packs[BILLING_PACK].version).toBe('2.3.1');

    expectExit(await deploy(app, 'budget=100', 'value=v2'));
    const state = await h.readState(STACK);
    expect(state?.resources.Setting.providerPackVersion).toBe('0.2.1');
    expect(await parameter('e2e-team-setting')).toBe('v2');
  });

  it("installs exactly the locked versions on a teammate's machine (--frozen), and deploys through them", async () => {
    await publishSsmPack('0.2.2');
    const mate = project(path.join(tmp, 'teammate'), { [SSM_PACK]: '^0.2.0', [BILLING_PACK]: '~2.3.0' });
    fs.copyFileSync(path.join(app, 'cdkd-packs.lock.json'), path.join(mate, 'cdkd-packs.lock.json'));

    const install = await cdkd(mate, 'packs', 'install', '--frozen');
    expectExit(install);
    expect(install.stdout).toContain('Installed the packs cdkd-packs.lock.json locks');
    expect(installedVersion(mate, SSM_PACK)).toBe('0.2.1');
    expect(fs.readFileSync(path.join(mate, 'cdkd-packs.lock.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(app, 'cdkd-packs.lock.json'), 'utf8'),
    );

    expectExit(await deploy(mate, 'budget=250', 'value=v2'));
    const state = await h.readState(STACK);
    expect(state?.resources.Setting.providerPackVersion).toBe('0.2.1');
    expect(state?.resources.Account.providerPackVersion).toBe('2.3.1');
    expect(JSON.parse((await parameter('/acme/billing/team-a'))!)).toEqual({ owner: 'alice', budget: 250 });
  });

  it('--frozen refuses a lock that differs from the declared packs', async () => {
    const drifted = project(path.join(tmp, 'drifted'), { [SSM_PACK]: '^0.2.0', [BILLING_PACK]: '^2.4.0' });
    fs.copyFileSync(path.join(app, 'cdkd-packs.lock.json'), path.join(drifted, 'cdkd-packs.lock.json'));
    const r = await cdkd(drifted, 'packs', 'install', '--frozen');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${BILLING_PACK} is declared as ^2.4.0 but locked from ~2.3.0`);
    expect(fs.existsSync(path.join(drifted, '.cdkd'))).toBe(false);
  });

  it('refuses a deploy and a destroy when a declared pack is missing, naming it and the fix', async () => {
    const mate = path.join(tmp, 'teammate');
    fs.rmSync(path.join(mate, '.cdkd', 'packs', 'node_modules', '@acme'), { recursive: true, force: true });
    const before = await h.readState(STACK);
    for (const args of [
      ['deploy', '--progress', 'events', '-c', 'budget=999'],
      ['destroy', '--force'],
    ]) {
      const r = await cdkd(mate, ...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`${BILLING_PACK} ~2.3.0: not installed in .cdkd/packs`);
      expect(r.stderr).not.toContain(`${SSM_PACK} ^0.2.0:`);
      expect(r.stderr).toContain('cdkd packs install');
    }
    expect(await h.readState(STACK)).toEqual(before);
  });

  it('keeps user-level plugins install working, maps short names to @cdkd/provider-<name>, refuses the rest', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'user-'));
    const env = { CDKD_NPM_REGISTRY: registry.url };
    const install = await h.cdkd(['plugins', 'install', 'e2e-ssm'], { cwd: home, env });
    expectExit(install);
    const list = await h.cdkd(['providers', '--json'], { cwd: home });
    const { providers } = JSON.parse(list.stdout) as { providers: Array<Record<string, string>> };
    expect(providers.find((p) => p.resourceType === 'AWS::SSM::Parameter')).toMatchObject({
      pack: SSM_PACK,
      install: 'user',
      version: '0.2.2',
    });

    const bundled = await h.cdkd(['plugins', 'install', '@cdkd/provider-sqs'], { cwd: home, env });
    expect(bundled.code).not.toBe(0);
    expect(bundled.stderr).toContain('@cdkd/provider-sqs is bundled with cdkd');
    const unrelated = await h.cdkd(['plugins', 'install', 'left-pad'], { cwd: home, env });
    expect(unrelated.code).not.toBe(0);
    expect(unrelated.stderr).toMatch(/cdkd will not install the unrelated npm package\s+"left-pad"/);

    // In the project, the declared (locked) version wins over the user's.
    const inProject = await h.cdkd(['providers', '--json'], { cwd: app });
    const fromProject = JSON.parse(inProject.stdout) as { providers: Array<Record<string, string>> };
    expect(fromProject.providers.find((p) => p.resourceType === 'AWS::SSM::Parameter')).toMatchObject({
      install: 'project',
      version: '0.2.1',
    });
    expectExit(await h.cdkd(['plugins', 'uninstall', SSM_PACK], { cwd: home }));
  });

  it('destroys through the packs, then uninstalls a pack no longer declared', async () => {
    expectExit(await cdkd(app, 'destroy', '--force'));
    expect(await h.appInventory()).toEqual([]);

    fs.writeFileSync(
      path.join(app, 'cdk.json'),
      JSON.stringify({ app: 'node app.js', context: { cdkd: { packs: { [BILLING_PACK]: '~2.3.0' } } } }),
    );
    const r = await cdkd(app, 'packs', 'install');
    expectExit(r);
    expect(r.stdout).toContain(`${SSM_PACK} removed (no longer declared)`);
    expect(Object.keys(lockOf(app).packs)).toEqual([BILLING_PACK]);
    expect(fs.existsSync(path.join(app, '.cdkd', 'packs', 'node_modules', ...SSM_PACK.split('/')))).toBe(
      false,
    );
  });

  it('scaffolds a TypeScript pack that builds and tests against @cdkd/plugin-api from the registry', async () => {
    const dir = path.join(tmp, 'widgets');
    const created = await cdkd(tmp, 'pack', 'new', '@acme/cdkd-provider-widgets', '--dir', dir);
    expectExit(created);
    fs.writeFileSync(path.join(dir, '.npmrc'), `registry=${registry.url}\n`);
    const install = await registry.npm(['install', '--no-audit', '--no-fund'], dir);
    expect(install).toMatchObject({ code: 0 });
    expect(
      JSON.parse(
        fs.readFileSync(path.join(dir, 'node_modules', '@cdkd', 'plugin-api', 'package.json'), 'utf8'),
      ),
    ).toMatchObject({ name: '@cdkd/plugin-api', version: expect.stringMatching(/^1\./) });
    const test = await registry.npm(['test'], dir);
    if (test.code !== 0) throw new Error(`npm test failed:\n${test.stdout}\n${test.stderr}`);
    expect(test.stdout).toMatch(/# pass 3/);

    expectExit(await h.cdkd(['plugins', 'link', dir, '--no-install'], { cwd: tmp }));
    const check = await h.cdkd(['providers', 'check', '--pack', '@acme/cdkd-provider-widgets', '--json'], {
      cwd: tmp,
    });
    expectExit(check);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  });
});
