import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DescribeParametersCommand,
  GetParameterCommand,
  ListTagsForResourceCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { AwsClientFactory } from '../../src/config/aws-clients';
import { createProviderContext } from '../../src/provisioning/provider-context';
import { ProviderRegistry } from '../../src/provisioning/provider-registry';
import { SchemaStore } from '../../src/provisioning/schema-store';
import { RecordingIoHost, createLogger } from '../../src/util/io-host';
import { startEmulator } from '../emulator/src';
import type { RunningEmulator } from '../emulator/src';

// Links the plain-JavaScript example pack into the BUILT CLI with
// `cdkd plugins link`, in an oclif data/config/cache folder of its own.
const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'run.js');
const example = path.join(root, 'examples', 'provider-pack-example');
const EXAMPLE_PACK = '@acme/cdkd-provider-ssm-parameter';
const BAD_PACK = '@acme/cdkd-provider-bad-example';

interface ListResult {
  providers: {
    resourceType: string;
    pack: string;
    install: string;
    handled: number;
    byDesign: number;
    total: number;
  }[];
  problems: { pack: string; resourceType?: string; properties?: string[]; message: string }[];
}

describe('provider packs through the CLI', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;

  const cdkd = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const list = (): ListResult => {
    const r = cdkd('providers', '--json');
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as ListResult;
  };

  /** A copy of the example pack, optionally renamed and edited. */
  const copyExample = (dir: string, edit?: (hook: string) => string, name?: string): string => {
    const target = path.join(home, dir);
    fs.cpSync(example, target, { recursive: true });
    if (edit)
      fs.writeFileSync(
        path.join(target, 'hook.js'),
        edit(fs.readFileSync(path.join(target, 'hook.js'), 'utf8')),
      );
    if (name) {
      for (const file of ['package.json', 'hook.js']) {
        const p = path.join(target, file);
        fs.writeFileSync(p, fs.readFileSync(p, 'utf8').split(EXAMPLE_PACK).join(name));
      }
    }
    return target;
  };

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-packs-'));
    env = {
      ...process.env,
      NO_COLOR: '1',
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
    };
  });

  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lists the bundled SQS pack', () => {
    const { providers, problems } = list();
    expect(problems).toEqual([]);
    expect(
      providers.filter((p) => p.pack === '@cdkd/provider-sqs').map((p) => [p.resourceType, p.install]),
    ).toEqual([
      ['AWS::SQS::Queue', 'core'],
      ['AWS::SQS::QueuePolicy', 'core'],
    ]);
    const human = cdkd('providers');
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/^AWS::SQS::Queue\s+@cdkd\/provider-sqs\s+0\.1\.0\s+core\s+16\s+0\s+16$/m);
  });

  it('finds a linked plain-JavaScript pack, checks it, and forgets it when uninstalled', () => {
    const pack = copyExample('pack');
    const link = cdkd('plugins', 'link', pack, '--no-install');
    expect(link.status).toBe(0);

    const { providers, problems } = list();
    expect(problems).toEqual([]);
    expect(providers.find((p) => p.resourceType === 'AWS::SSM::Parameter')).toEqual(
      expect.objectContaining({ pack: EXAMPLE_PACK, install: 'link', handled: 9, byDesign: 0, total: 9 }),
    );
    expect(providers.some((p) => p.resourceType === 'AWS::SQS::Queue')).toBe(true);

    const check = cdkd('providers', 'check', '--pack', EXAMPLE_PACK, '--json');
    expect(check.status).toBe(0);
    const result = JSON.parse(check.stdout) as {
      ok: boolean;
      coverage: { resourceType: string; counts: Record<string, number> }[];
    };
    expect(result.ok).toBe(true);
    expect(result.coverage).toEqual([
      expect.objectContaining({
        resourceType: 'AWS::SSM::Parameter',
        counts: expect.objectContaining({ handled: 9, 'read-only': 1, unaccounted: 0 }),
      }),
    ]);

    expect(cdkd('plugins', 'uninstall', EXAMPLE_PACK).status).toBe(0);
    expect(list().providers.some((p) => p.resourceType === 'AWS::SSM::Parameter')).toBe(false);
  });

  it('refuses a registration naming a property the type does not have, and still loads the other packs', () => {
    const bad = copyExample(
      'bad',
      (hook) => hook.replace('const HANDLED_PROPERTIES = [', "const HANDLED_PROPERTIES = ['NotAProperty', "),
      BAD_PACK,
    );
    expect(cdkd('plugins', 'link', bad, '--no-install').status).toBe(0);

    const { providers, problems } = list();
    expect(problems).toEqual([
      expect.objectContaining({
        pack: BAD_PACK,
        resourceType: 'AWS::SSM::Parameter',
        properties: ['NotAProperty'],
      }),
    ]);
    const [message] = problems.map((p) => p.message);
    for (const part of [BAD_PACK, 'AWS::SSM::Parameter', 'NotAProperty']) expect(message).toContain(part);
    expect(providers.map((p) => p.resourceType)).toEqual(['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy']);

    const human = cdkd('providers');
    expect(human.status).toBe(0);
    expect(human.stderr).toContain(message);
    expect(human.stdout).toContain('AWS::SQS::Queue');

    const check = cdkd('providers', 'check', '--pack', BAD_PACK);
    expect(check.status).not.toBe(0);
    expect(check.stderr).toContain(message);
    // The bundled pack is still fine.
    expect(cdkd('providers', 'check', '--pack', '@cdkd/provider-sqs').status).toBe(0);

    expect(cdkd('plugins', 'uninstall', BAD_PACK).status).toBe(0);
    expect(list().problems).toEqual([]);
  });

  it('reports a pack whose hook throws, and keeps the others', () => {
    const broken = copyExample(
      'broken',
      () => "module.exports = async () => { throw new Error('no config for widgets'); };\n",
      '@acme/broken-pack',
    );
    expect(cdkd('plugins', 'link', broken, '--no-install').status).toBe(0);
    const { providers, problems } = list();
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('@acme/broken-pack failed to load: no config for widgets'),
    ]);
    expect(providers.some((p) => p.resourceType === 'AWS::SQS::Queue')).toBe(true);
    expect(cdkd('providers', 'check', '--pack', '@acme/broken-pack').status).not.toBe(0);
  });

  it('says when --pack names no installed pack', () => {
    const r = cdkd('providers', 'check', '--pack', '@acme/not-installed');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('No installed provider pack is named @acme/not-installed');
  });
});

describe("the example pack's provider against the emulator", () => {
  // Loaded the way cdkd loads it: the hook's answer, validated by the registry,
  // its provider built from cdkd's provider context.

  const TYPE = 'AWS::SSM::Parameter';
  let emulator: RunningEmulator;
  const saved = { ...process.env };

  beforeAll(async () => {
    emulator = await startEmulator();
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    delete process.env.AWS_PROFILE;
  });
  afterAll(async () => {
    await emulator?.stop();
    process.env = saved;
  });

  it('creates, updates (resetting a removed property) and deletes a parameter', async () => {
    const hook = require(path.join(example, 'hook.js')) as (this: unknown, o: unknown) => Promise<unknown>;
    const result = await hook.call({ warn: () => undefined }, { apiVersions: [1], cdkdVersion: '0.1.0' });
    const registry = ProviderRegistry.fromPacks(
      [{ pluginName: EXAMPLE_PACK, pluginType: 'link', result }],
      SchemaStore.default(),
    );
    expect(registry.problems).toEqual([]);

    const factory = await AwsClientFactory.create({ region: 'us-east-1', endpointUrl: emulator.url });
    const ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
    const decision = registry.providerFor(TYPE, { Type: 'String', Value: 'v1', Description: 'first' });
    expect(decision.route).toBe('sdk');
    const provider = registry.providerInstance(decision, ctx);
    const ssm = factory.get(SSMClient);

    const created = await provider.create(
      'Param',
      TYPE,
      { Type: 'String', Value: 'v1', Description: 'first', Tags: { team: 'a' } },
      { stackName: 'PackExample', region: 'us-east-1', idempotencyToken: 'tok-1' },
    );
    const name = created.physicalId;
    expect(name).toMatch(/^CFN-Param-[0-9A-F]{12}$/);
    expect(created.attributes).toMatchObject({
      Type: 'String',
      Value: 'v1',
      Arn: expect.stringContaining(`parameter/${name}`),
    });

    await provider.update(
      'Param',
      name,
      TYPE,
      { Type: 'String', Value: 'v2', Tags: { team: 'b' } },
      { Type: 'String', Value: 'v1', Description: 'first', Tags: { team: 'a' } },
      { expectedRegion: 'us-east-1' },
    );
    expect((await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value).toBe('v2');
    const tags = (
      await ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: name }))
    ).TagList;
    expect(tags).toEqual([{ Key: 'team', Value: 'b' }]);
    const described = await ssm.send(
      new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Name', Values: [name] }] }),
    );
    expect(described.Parameters?.[0]?.Description ?? '').toBe('');
    expect(await provider.getAttribute?.(name, TYPE, 'Value')).toBe('v2');

    await provider.delete('Param', name, TYPE, {}, { expectedRegion: 'us-east-1' });
    await expect(ssm.send(new GetParameterCommand({ Name: name }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
    await expect(
      provider.delete('Param', name, TYPE, {}, { expectedRegion: 'us-east-1' }),
    ).resolves.toBeUndefined();
    await expect(
      provider.delete('Param', name, TYPE, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });
  });
});
