import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfig } from '../../../src/config/config';
import { ConfigError } from '../../../src/util/errors';

function tmpDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-config-'));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

describe('resolveConfig', () => {
  it('applies flag > env > config file > cdk.json > default', () => {
    const cwd = tmpDir({
      'cdk.json': JSON.stringify({
        app: 'node app.js',
        context: { a: 1, cdkd: { stateBucket: 'from-cdk-json', statePrefix: 'p1', concurrency: 3 } },
      }),
      'cdkd.config.json': JSON.stringify({ statePrefix: 'p2', lockTtlSeconds: 60 }),
    });
    const base = resolveConfig({ cwd, env: {} });
    expect(base.app).toBe('node app.js');
    expect(base.stateBucket).toBe('from-cdk-json');
    expect(base.sources.stateBucket).toBe('cdk.json');
    expect(base.statePrefix).toBe('p2');
    expect(base.sources.statePrefix).toBe('config-file');
    expect(base.lockTtlSeconds).toBe(60);
    expect(base.concurrency).toBe(3);
    expect(base.output).toBe('cdk.out');
    expect(base.sources.output).toBe('default');
    expect(base.context).toEqual({ a: 1 });

    const env = resolveConfig({ cwd, env: { CDKD_STATE_BUCKET: 'from-env', AWS_REGION: 'eu-west-1' } });
    expect(env.stateBucket).toBe('from-env');
    expect(env.sources.stateBucket).toBe('env');
    expect(env.region).toBe('eu-west-1');

    const flag = resolveConfig({
      cwd,
      env: { CDKD_STATE_BUCKET: 'from-env' },
      flags: { stateBucket: 'from-flag', context: ['a=2', 'b=x=y'] },
    });
    expect(flag.stateBucket).toBe('from-flag');
    expect(flag.sources.stateBucket).toBe('cli-flag');
    expect(flag.context).toEqual({ a: '2', b: 'x=y' });
  });

  it('reads package.json#cdkd and .cdkdrc', () => {
    const pkg = tmpDir({
      'package.json': JSON.stringify({ name: 'x', cdkd: { stateBucket: 'pkg-bucket' } }),
    });
    expect(resolveConfig({ cwd: pkg, env: {} }).stateBucket).toBe('pkg-bucket');
    const rc = tmpDir({ '.cdkdrc': 'stateBucket: rc-bucket\n' });
    expect(resolveConfig({ cwd: rc, env: {} }).stateBucket).toBe('rc-bucket');
  });

  it('fails on a malformed config file with its path and the parse error', () => {
    const cwd = tmpDir({ 'cdkd.config.json': '{ "stateBucket": ' });
    let caught: unknown;
    try {
      resolveConfig({ cwd, env: {} });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain(path.join(cwd, 'cdkd.config.json'));
    expect((caught as Error).message).toMatch(/JSON|Unexpected|end/i);
  });

  it('refuses unknown settings and wrong types', () => {
    expect(() => resolveConfig({ cwd: tmpDir({ '.cdkdrc.json': '{"stateBuckt":"x"}' }), env: {} })).toThrow(
      /unknown setting 'stateBuckt'/,
    );
    expect(() =>
      resolveConfig({ cwd: tmpDir({ '.cdkdrc.json': '{"concurrency":"ten"}' }), env: {} }),
    ).toThrow(/'concurrency' must be a number/);
    expect(() => resolveConfig({ cwd: tmpDir({}), env: { CDKD_CONCURRENCY: 'abc' } })).toThrow(
      /CDKD_CONCURRENCY/,
    );
  });

  it('fails on malformed cdk.json', () => {
    const cwd = tmpDir({ 'cdk.json': '{nope' });
    expect(() => resolveConfig({ cwd, env: {} })).toThrow(
      new RegExp(`Cannot parse ${path.join(cwd, 'cdk.json').replace(/[/.]/g, '\\$&')}`),
    );
  });
});

describe('resolveConfig: the CDK CLI settings', () => {
  it('reads requireApproval, tags and watch from cdk.json, flags winning', () => {
    const cwd = tmpDir({
      'cdk.json': JSON.stringify({
        app: 'node app.js',
        requireApproval: 'never',
        tags: { team: 'a', env: 'dev' },
        watch: { include: 'src/**', exclude: ['test'] },
      }),
    });
    const base = resolveConfig({ cwd, env: {} });
    expect(base.requireApproval).toBe('never');
    expect(base.tags).toEqual({ team: 'a', env: 'dev' });
    expect(base.watch).toEqual({ include: ['src/**'], exclude: ['test'] });
    const flagged = resolveConfig({
      cwd,
      env: {},
      flags: { requireApproval: 'any-change', tags: ['x=1=2'] },
    });
    expect(flagged.requireApproval).toBe('any-change');
    // --tags replaces the configured tags, as with the CDK CLI; a value may contain '='.
    expect(flagged.tags).toEqual({ x: '1=2' });
  });

  it('defaults: broadening, no tags (the app decides), no watch settings, include everything when watch names none', () => {
    const cwd = tmpDir({ 'cdk.json': JSON.stringify({ watch: {} }) });
    const config = resolveConfig({ cwd, env: {} });
    expect(config.requireApproval).toBe('broadening');
    expect(config.tags).toBeUndefined();
    expect(config.watch).toEqual({ include: ['**'], exclude: [] });
    expect(resolveConfig({ cwd: tmpDir({}), env: {} }).watch).toBeUndefined();
  });

  it('refuses a bad approval level, malformed and reserved tags, and a bad region with where it came from', () => {
    const cwd = tmpDir({});
    expect(() => resolveConfig({ cwd, env: {}, flags: { requireApproval: 'sometimes' } })).toThrow(
      /Invalid requireApproval 'sometimes' \(cli-flag\): expected never, any-change, broadening/,
    );
    expect(() => resolveConfig({ cwd, env: {}, flags: { tags: ['novalue'] } })).toThrow(/expected Key=Value/);
    expect(() => resolveConfig({ cwd, env: {}, flags: { tags: ['aws:x=1'] } })).toThrow(/reserved for AWS/);
    expect(() => resolveConfig({ cwd, env: { AWS_REGION: 'us east 1' } })).toThrow(
      /Invalid region "us east 1" \(from AWS_REGION/,
    );
  });

  it('is in CI when CI is set to anything but false or 0, unless --no-ci; NO_COLOR turns colour off', () => {
    const cwd = tmpDir({});
    expect(resolveConfig({ cwd, env: { CI: 'true' } }).ci).toBe(true);
    expect(resolveConfig({ cwd, env: { CI: '1' } }).ci).toBe(true);
    expect(resolveConfig({ cwd, env: { CI: 'false' } }).ci).toBe(false);
    expect(resolveConfig({ cwd, env: {} }).ci).toBe(false);
    expect(resolveConfig({ cwd, env: { CI: 'true' }, flags: { ci: false } }).ci).toBe(false);
    expect(resolveConfig({ cwd, env: { NO_COLOR: '1' } }).color).toBe(false);
    expect(resolveConfig({ cwd, env: {} }).color).toBeUndefined();
    expect(resolveConfig({ cwd, env: { NO_COLOR: '1' }, flags: { color: true } }).color).toBe(true);
  });
});

describe('declared packs', () => {
  const packs = { '@cdkd/provider-ssm': '^0.2.0', '@acme/cdkd-provider-billing': '~2.3.0' };

  it('reads packs under context.cdkd in cdk.json, with the project folder and where they were declared', () => {
    const cwd = tmpDir({ 'cdk.json': JSON.stringify({ app: 'node app.js', context: { cdkd: { packs } } }) });
    const config = resolveConfig({ cwd, env: {} });
    expect(config.packs).toEqual({ packs, projectDir: cwd, declaredIn: 'cdk.json (context.cdkd.packs)' });
    expect(config.sources.packs).toBe('cdk.json');
    expect(config.context).toEqual({});
  });

  it('reads packs at the top of the cdkd config file, which replaces (not merges) the cdk.json list', () => {
    const cwd = tmpDir({
      'cdk.json': JSON.stringify({ context: { cdkd: { packs } } }),
      'cdkd.config.json': JSON.stringify({ packs: { '@acme/other': 'file:./vendor/other-1.0.0.tgz' } }),
    });
    const config = resolveConfig({ cwd, env: {} });
    expect(config.packs.packs).toEqual({ '@acme/other': 'file:./vendor/other-1.0.0.tgz' });
    expect(config.packs.declaredIn).toBe(`${path.join(cwd, 'cdkd.config.json')} (packs)`);
  });

  it('declares nothing by default', () => {
    const cwd = tmpDir({});
    expect(resolveConfig({ cwd, env: {} }).packs).toEqual({ packs: {}, projectDir: cwd });
  });

  it.each([
    [{ 'Not A Name': '^1.0.0' }, /'Not A Name' is not an npm package name/],
    [{ '@acme/x': '' }, /'@acme\/x' must map to a version range, tag or path/],
    [{ '@acme/x': 2 }, /'@acme\/x' must map to a version range, tag or path, got 2/],
    [{ '@acme/x': 'npm:@other/x@1' }, /'@acme\/x' is an npm alias/],
  ])('refuses a bad declaration %j', (bad, message) => {
    const cwd = tmpDir({ '.cdkdrc.json': JSON.stringify({ packs: bad }) });
    expect(() => resolveConfig({ cwd, env: {} })).toThrow(message);
  });

  it('resolves strictPacks (flag > env > file) and the hook deadline', () => {
    const cwd = tmpDir({ '.cdkdrc.json': JSON.stringify({ strictPacks: false, packHookTimeoutSeconds: 5 }) });
    expect(resolveConfig({ cwd, env: {} })).toMatchObject({ strictPacks: false, packHookTimeoutSeconds: 5 });
    expect(resolveConfig({ cwd, env: { CDKD_STRICT_PACKS: 'true' } }).strictPacks).toBe(true);
    expect(resolveConfig({ cwd, env: {}, flags: { strictPacks: true } }).strictPacks).toBe(true);
    expect(
      resolveConfig({ cwd, env: { CDKD_PACK_HOOK_TIMEOUT_SECONDS: '0.5' } }).packHookTimeoutSeconds,
    ).toBe(0.5);
    expect(resolveConfig({ cwd: tmpDir({}), env: {} })).toMatchObject({
      strictPacks: false,
      packHookTimeoutSeconds: 30,
    });
    expect(() => resolveConfig({ cwd, env: { CDKD_STRICT_PACKS: 'maybe' } })).toThrow(
      /CDKD_STRICT_PACKS must be true or false/,
    );
  });
});
