/**
 * What cdkd trusts a pack with, through the built CLI against the emulator: a
 * pack built with an old AWS SDK (3.300, which ignores AWS_ENDPOINT_URL) still
 * reaches only the endpoint cdkd resolved; a hook that never answers is
 * abandoned and never keeps cdkd running; a fork declaring a bundled pack's
 * name is refused, and --strict-packs turns every pack problem into a refusal.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const STACK = 'E2ePackTrust';
const OLD_SDK_PACK = path.join(ROOT, 'test', 'fixtures', 'packs', 'old-sdk-ssm');

const APP_JS = `const cdk = require(${JSON.stringify(require.resolve('aws-cdk-lib'))});
const ssm = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-ssm'))});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'Trust', { stackName: '${STACK}' });
new ssm.CfnParameter(stack, 'Param', { name: 'e2e-trust-param', type: 'String', value: app.node.tryGetContext('value') ?? 'one' });
app.synth();
`;

describe('pack trust and isolation', () => {
  let h: CdkdHarness;
  let tmp: string;
  let app: string;

  const cdkd = (args: string[], env?: NodeJS.ProcessEnv) => h.cdkd(args, { cwd: app, env });
  const deploy = (args: string[] = [], env?: NodeJS.ProcessEnv) =>
    cdkd(['deploy', '--progress', 'events', ...args], env);
  /** Packs linked by the running test, unlinked after it whatever happens. */
  let linked: string[] = [];
  const link = async (dir: string) => {
    expectExit(await cdkd(['plugins', 'link', dir, '--no-install']));
    linked.push(
      (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string }).name,
    );
  };

  /** A pack folder: the given hook source under a package name. */
  const pack = (name: string, hook: string): string => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pack-'));
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name,
        version: '1.0.0',
        main: 'hook.js',
        oclif: { hooks: { 'cdkd:providers': './hook.js' } },
      }),
    );
    fs.writeFileSync(path.join(dir, 'hook.js'), hook);
    return dir;
  };

  beforeAll(async () => {
    h = await startHarness();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-pack-trust-'));
    app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    fs.writeFileSync(path.join(app, 'app.js'), APP_JS);
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterEach(async () => {
    for (const name of linked) expectExit(await cdkd(['plugins', 'uninstall', name]));
    linked = [];
  });

  afterAll(async () => {
    await h?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('sends the calls of a pack built with @aws-sdk/client-ssm 3.300 to the endpoint cdkd resolved', async () => {
    await link(OLD_SDK_PACK);
    await h.emulator.control.clearRequests();
    const created = await deploy(['--verbose']);
    expectExit(created);
    expect(created.stderr).toMatch(
      /Param \(AWS::SSM::Parameter\) → sdk: @cdkd-fixtures\/old-sdk-ssm handles/,
    );
    const state = await h.readState(STACK);
    expect(state?.resources.Param).toMatchObject({
      providerPack: '@cdkd-fixtures/old-sdk-ssm',
      providerPackVersion: '1.0.0',
      physicalId: 'e2e-trust-param',
    });
    // AWS_ENDPOINT_URL (the only setting, as in the bug report) is the emulator: the old client's calls arrived.
    expect((await h.emulator.control.requests()).byOperation['ssm:PutParameter']).toBe(1);

    expectExit(await cdkd(['destroy', '--force']));
    expect((await h.emulator.control.requests()).byOperation['ssm:DeleteParameter']).toBe(1);
    expect(await h.appInventory()).toEqual([]);
  });

  it('abandons a hook that never answers, warns once with the remedy, and exits when the command is done', async () => {
    // The hook holds a timer open forever: only exiting on completion ends the process.
    await link(
      pack(
        '@acme/hung-pack',
        'module.exports = () => { setInterval(() => {}, 1000); return new Promise(() => {}); };\n',
      ),
    );
    const env = { CDKD_PACK_HOOK_TIMEOUT_SECONDS: '1' };
    const listed = await cdkd(['providers'], env);
    expectExit(listed);
    const warning =
      '@acme/hung-pack failed to load: its cdkd:providers hook did not answer within 1 s and was abandoned';
    expect(listed.stderr.split(warning)).toHaveLength(2);
    expect(listed.stderr).toContain('cdkd plugins unlink @acme/hung-pack');
    expect(listed.stdout).toMatch(/^AWS::SQS::Queue/m);

    const deployed = await deploy([], env);
    expectExit(deployed);
    expect(deployed.stderr.split(warning)).toHaveLength(2);
    expect((await h.readState(STACK))?.resources.Param).toMatchObject({ provisionedBy: 'cc-api' });

    const strict = await deploy(['--strict-packs', '-c', 'value=three'], env);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('Provider packs are not ready, so cdkd deploy changed nothing');
    expect(strict.stderr).toContain(warning);
  });

  it('moves a resource between Cloud Control and a pack that addresses it by its Cloud Control identifier', async () => {
    const example = path.join(ROOT, 'examples', 'provider-pack-example');
    const EXAMPLE = '@acme/cdkd-provider-ssm-parameter';
    expectExit(await cdkd(['destroy', '--force']));
    expectExit(await deploy(['-c', 'value=one']));
    expect((await h.readState(STACK))?.resources.Param).toMatchObject({ provisionedBy: 'cc-api' });

    await link(example);
    const moved = await deploy(['--verbose', '-c', 'value=two']);
    expectExit(moved);
    expect(moved.stderr).toContain(`moves from Cloud Control to ${EXAMPLE}`);
    expect((await h.readState(STACK))?.resources.Param).toMatchObject({
      provisionedBy: 'sdk',
      providerPack: EXAMPLE,
      providerPackVersion: '0.1.0',
      physicalId: 'e2e-trust-param',
    });
    expectExit(await cdkd(['plugins', 'uninstall', EXAMPLE]));
    linked = [];

    const strict = await deploy(['--strict-packs', '-c', 'value=three']);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain(
      `Param (AWS::SSM::Parameter): it was provisioned by ${EXAMPLE} 0.1.0, which is not installed (--strict-packs)`,
    );
    expect(strict.stderr).toContain('Nothing was changed');

    const back = await deploy(['-c', 'value=three']);
    expectExit(back);
    const warning = `Provider pack ${EXAMPLE}, which provisioned resources of this app, is not installed`;
    expect(back.stderr.split(warning)).toHaveLength(2);
    const record = (await h.readState(STACK))?.resources.Param;
    expect(record).toMatchObject({ provisionedBy: 'cc-api', physicalId: 'e2e-trust-param' });
    expect(record?.providerPack).toBeUndefined();
    expect(await h.appInventory()).toEqual([
      expect.objectContaining({ type: 'AWS::SSM::Parameter', identifier: 'e2e-trust-param' }),
    ]);
  });

  it("refuses a fork that declares a bundled pack's name, keeping the bundled pack", async () => {
    const forkHook = fs
      .readFileSync(path.join(ROOT, 'examples', 'provider-pack-example', 'hook.js'), 'utf8')
      .split("'@acme/cdkd-provider-ssm-parameter'")
      .join("'@cdkd/provider-sqs'")
      .replace(
        "require('./ssm-parameter-provider')",
        "require('" +
          path.join(ROOT, 'examples', 'provider-pack-example', 'ssm-parameter-provider.js') +
          "')",
      );
    await link(pack('@fork/sqs-provider', forkHook));
    const r = await cdkd(['providers', '--json']);
    expectExit(r);
    const { providers, problems } = JSON.parse(r.stdout) as {
      providers: Array<{ resourceType: string; pack: string; install: string }>;
      problems: Array<{ pack: string; message: string; remedy: string }>;
    };
    expect(problems).toEqual([
      expect.objectContaining({
        pack: '@fork/sqs-provider',
        message:
          "Provider pack @fork/sqs-provider declares the name @cdkd/provider-sqs; a pack's name must be its npm package name, so it is not used.",
        remedy: expect.stringContaining('cdkd plugins unlink @fork/sqs-provider'),
      }),
    ]);
    // The bundled SQS pack keeps its types; the fork registers nothing.
    expect(
      providers
        .filter((p) => p.resourceType.startsWith('AWS::SQS::'))
        .map((p) => `${p.resourceType} ${p.pack} ${p.install}`),
    ).toEqual(['AWS::SQS::Queue @cdkd/provider-sqs core', 'AWS::SQS::QueuePolicy @cdkd/provider-sqs core']);
    expect(providers.filter((p) => p.pack === '@fork/sqs-provider')).toEqual([]);
  });
});
