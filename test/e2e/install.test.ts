/**
 * Installing cdkd the way users install a CLI: `npm pack` builds the tarball,
 * `npm i -g ./cdkd-<version>.tgz` installs it (into a temporary prefix) with
 * its bundled provider pack, and the installed binary deploys the example app.
 * cdkd's own packages come from the tarball: the registry of the @cdkd scope
 * points nowhere, so a fetch of one would fail the install. Third-party
 * dependencies come from npm's cache (filled by `npm ci`), else the registry.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, runProcess as run, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('the packed package', () => {
  let h: CdkdHarness;
  let tmp: string;

  beforeAll(async () => {
    h = await startHarness();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-install-'));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('installs globally from its tarball with the bundled SQS pack, and deploys the example app', async () => {
    const cache = execFileSync(NPM, ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    const npmEnv = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' };
    const packed = await run(NPM, ['pack', '--json', '--pack-destination', tmp], ROOT, npmEnv);
    expectExit(packed);
    const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
    const tarball = path.join(tmp, filename);

    const prefix = path.join(tmp, 'prefix');
    const install = await run(
      NPM,
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--@cdkd:registry=http://127.0.0.1:9/',
        tarball,
      ],
      tmp,
      npmEnv,
    );
    expectExit(install);
    const bin = path.join(prefix, 'bin', 'cdkd');
    // Every bundled pack came inside the tarball (the @cdkd registry above answers nothing).
    const bundled = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { oclif: { plugins: string[] } }
    ).oclif.plugins.filter((p) => p.startsWith('@cdkd/provider-'));
    expect(bundled).toContain('@cdkd/provider-sqs');
    for (const pack of bundled)
      expect(
        fs.existsSync(
          path.join(prefix, 'lib', 'node_modules', 'cdkd', 'node_modules', pack, 'dist', 'hook.js'),
        ),
      ).toBe(true);

    const version = await run(bin, ['--version'], tmp, h.env);
    expectExit(version);
    expect(version.stdout).toMatch(/^cdkd\/\d+\.\d+\.\d+/);
    const providers = await run(bin, ['providers'], tmp, h.env);
    expectExit(providers);
    expect(providers.stdout).toMatch(/AWS::SQS::Queue\s+@cdkd\/provider-sqs\s+\S+\s+core/);

    // The example app, as a user's project: outside the repository, its aws-cdk-lib its own.
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    for (const f of ['app.js', 'cdk.json'])
      fs.copyFileSync(path.join(ROOT, 'examples', 'basic-app', f), path.join(app, f));
    const env = { ...h.env, NODE_PATH: path.join(ROOT, 'node_modules') };
    expectExit(await run(bin, ['bootstrap', '--no-assets'], app, env));
    const deploy = await run(
      bin,
      ['deploy', '--progress', 'events', '-c', 'stackName=E2eInstalled'],
      app,
      env,
    );
    expectExit(deploy);
    expect(deploy.stderr).toContain('E2eInstalled: deployed');
    const state = await h.readState('E2eInstalled');
    expect(
      Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SQS::Queue')?.provisionedBy,
    ).toBe('sdk');
  }, 900_000);
});
