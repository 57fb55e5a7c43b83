/**
 * Every first-party provider pack in one real aws-cdk-lib app
 * (apps/first-party-packs-app: every type each pack under plugins/ registers),
 * the installable ones as a user gets them: published to a real npm registry
 * (verdaccio on loopback, support/registry.ts) and installed with `cdkd
 * plugins install`, one of them pinned to a version older than the registry's
 * latest. The BUILT CLI deploys, updates (in place, replacement, property
 * removal), no-ops and destroys with every resource going through its pack —
 * the emulator's request log shows no Cloud Control request for any
 * pack-owned type — and after every step the emulator's inventory equals what
 * state records. Uninstalled, the installable packs' types fall back to Cloud
 * Control with the reason. One synthesis per variant: every command reads the
 * cloud assembly (`--app <dir>`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import { startRegistry } from './support/registry';
import type { LocalRegistry } from './support/registry';

const APP_DIR = path.join(__dirname, 'apps', 'first-party-packs-app');
const STACK = 'E2eFirstPartyPacks';
/** The installable packs (plugins/<folder>), and the version each is installed at. */
const INSTALLABLE = ['provider-ssm', 'provider-events', 'provider-secretsmanager', 'provider-kms'];
const PINNED = { name: '@cdkd/provider-kms', version: '0.1.0', newer: '0.2.0' };

// An inline policy and a group membership are parts of their principals, not
// inventory items of their own (as in iam-pack.test.ts).
const NOT_IN_INVENTORY = /^AWS::IAM::(Policy|UserToGroupAddition) /;

type State = Awaited<ReturnType<CdkdHarness['readState']>>;
interface Listed {
  resourceType: string;
  pack: string;
  version: string;
  install: string;
}

describe('every first-party pack in one app, the installable ones from a registry', () => {
  let h: CdkdHarness;
  let registry: LocalRegistry;
  let tmp: string;
  /** Resource type → the first-party pack that registers it (after the install). */
  let packOf: Map<string, string>;
  let clients: { ssm: SSMClient; sm: SecretsManagerClient; kms: KMSClient; lambda: LambdaClient };

  const assembly = (variant: string) => path.join(tmp, `cdk.out.${variant}`);
  const deploy = (variant: string) =>
    // The app's policies are permission changes; approval has its own e2e.
    h.cdkd(['deploy', '--app', assembly(variant), '--require-approval', 'never']);
  const manifest = (dir: string) =>
    JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown> & {
      name: string;
      version: string;
      dependencies?: Record<string, string>;
    };

  /** The request log since the last call, and the log cleared. */
  const requests = async () => {
    const log = await h.emulator.control.requests();
    await h.emulator.control.clearRequests();
    return log;
  };
  /** The pack-owned types the log shows a Cloud Control request for, with those requests. */
  const cloudControlForPackTypes = (
    log: Awaited<ReturnType<typeof requests>>,
    owned: (t: string) => boolean,
  ) => Object.fromEntries(Object.entries(log.byResourceType).filter(([type]) => owned(type)));

  const expectInventoryMatchesState = async (): Promise<State> => {
    const state = await h.readState(STACK);
    expect(inventoryResources(await h.appInventory())).toEqual(
      stateResources(state).filter((r) => !NOT_IN_INVENTORY.test(r)),
    );
    return state;
  };
  const recordOf = (state: State, type: string) =>
    Object.values(state!.resources).find((r) => r.resourceType === type)!;

  beforeAll(async () => {
    [h, registry] = await Promise.all([startHarness(), startRegistry()]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-first-party-'));
    const packDirs = INSTALLABLE.map((p) => path.join(ROOT, 'plugins', p));
    const config = {
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    clients = {
      ssm: new SSMClient(config),
      sm: new SecretsManagerClient(config),
      kms: new KMSClient(config),
      lambda: new LambdaClient(config),
    };
    // The registry's packages and the emulator's side are independent: prepared side by side.
    await Promise.all([
      (async () => {
        // The packs' own dependencies (their SDK clients), from this repository's installed copies.
        await registry.seedInstalled(
          packDirs.flatMap((dir) =>
            Object.keys(manifest(dir).dependencies ?? {}).map((dep) =>
              path.dirname(require.resolve(`${dep}/package.json`, { paths: [dir] })),
            ),
          ),
        );
        // A newer KMS pack, so the registry's latest is not what the pinned install asks for.
        const newer = path.join(tmp, 'provider-kms-newer');
        fs.cpSync(path.join(ROOT, 'plugins', 'provider-kms'), newer, {
          recursive: true,
          filter: (src) => !src.includes(`${path.sep}node_modules`),
        });
        fs.writeFileSync(
          path.join(newer, 'package.json'),
          JSON.stringify({ ...manifest(newer), version: PINNED.newer }, null, 2),
        );
        await Promise.all(packDirs.map((dir) => registry.publish(dir)));
        // Last, so the registry's `latest` tag is the newer one.
        await registry.publish(newer);
      })(),
      (async () => {
        expectExit(await h.cdkd(['bootstrap']));
        // One synthesis per variant; every later command reads the assembly.
        await Promise.all(
          ['v1', 'v2'].map(async (variant) =>
            expectExit(
              await h.cdkd(['synth', '-o', assembly(variant), '-c', `variant=${variant}`, '--quiet'], {
                cwd: APP_DIR,
              }),
            ),
          ),
        );
      })(),
    ]);
  });

  afterAll(async () => {
    for (const c of Object.values(clients ?? {})) c.destroy();
    await Promise.all([h?.stop(), registry?.stop()]);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('installs the installable packs from the registry, the pinned one at the version asked for', async () => {
    const names = INSTALLABLE.map((p) => manifest(path.join(ROOT, 'plugins', p)).name);
    const asked = names.map((n) => (n === PINNED.name ? `${n}@${PINNED.version}` : n));
    // npm's registry for the install is the local one.
    expectExit(await h.cdkd(['plugins', 'install', ...asked], { env: { CDKD_NPM_REGISTRY: registry.url } }));

    // The registry's latest KMS pack is the newer one; the pin got the older.
    const latest = await registry.npm(['view', PINNED.name, 'dist-tags.latest'], tmp);
    expect(latest.stdout.trim()).toBe(PINNED.newer);

    const listed = await h.cdkd(['providers', '--json']);
    expectExit(listed);
    const providers = (JSON.parse(listed.stdout) as { providers: Listed[] }).providers.filter((p) =>
      p.pack.startsWith('@cdkd/'),
    );
    packOf = new Map(providers.map((p) => [p.resourceType, p.pack]));
    for (const name of names) {
      const types = providers.filter((p) => p.pack === name);
      expect(types.length).toBeGreaterThan(0);
      for (const p of types) {
        expect(p).toMatchObject({
          install: 'user',
          version: name === PINNED.name ? PINNED.version : '0.1.0',
        });
      }
    }
    expect(providers.filter((p) => p.install === 'core').length).toBeGreaterThan(20);
    expectExit(await h.cdkd(['providers', 'check']));
  });

  it('creates every type through its pack, none through Cloud Control', async () => {
    await requests();
    expectExit(await deploy('v1'));
    const log = await requests();
    expect(cloudControlForPackTypes(log, (t) => packOf.has(t))).toEqual({});
    expect(Object.keys(log.byOperation).filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);

    const state = await expectInventoryMatchesState();
    const records = Object.values(state!.resources);
    // The app has every type every first-party pack registers, each provisioned by that pack.
    expect([...new Set(records.map((r) => r.resourceType))].sort()).toEqual([...packOf.keys()].sort());
    for (const r of records) {
      expect({ type: r.resourceType, pack: r.providerPack, by: r.provisionedBy }).toEqual({
        type: r.resourceType,
        pack: packOf.get(r.resourceType),
        by: 'sdk',
      });
    }
    expect(recordOf(state, 'AWS::KMS::Key').providerPackVersion).toBe(PINNED.version);

    const fn = await clients.lambda.send(
      new GetFunctionConfigurationCommand({
        FunctionName: recordOf(state, 'AWS::Lambda::Function').physicalId,
      }),
    );
    expect(fn).toMatchObject({ MemorySize: 256, Timeout: 10, Layers: [expect.anything()] });
    const secret = await clients.sm.send(
      new GetSecretValueCommand({ SecretId: recordOf(state, 'AWS::SecretsManager::Secret').physicalId }),
    );
    expect(JSON.parse(secret.SecretString!)).toMatchObject({ user: 'app', password: expect.any(String) });
  });

  it('updates in place, replaces the renamed queue and parameter, resets removed properties', async () => {
    const before = await h.readState(STACK);
    expectExit(await deploy('v2'));
    const log = await requests();
    expect(Object.keys(log.byOperation).filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    const state = await expectInventoryMatchesState();

    // Replacements: a new queue and parameter, the old ones deleted.
    expect(log.byOperation).toMatchObject({
      'sqs:CreateQueue': 1,
      'sqs:DeleteQueue': 1,
      'ssm:DeleteParameter': 1,
    });
    expect(recordOf(state, 'AWS::SQS::Queue').physicalId).toMatch(/-jobs-b$/);
    expect(recordOf(state, 'AWS::SSM::Parameter').physicalId).toBe('/e2e/first-party/b');
    // In place: the function, the key, the table keep their physical ids.
    for (const type of [
      'AWS::Lambda::Function',
      'AWS::KMS::Key',
      'AWS::DynamoDB::Table',
      'AWS::SNS::Topic',
    ]) {
      expect(recordOf(state, type).physicalId).toBe(recordOf(before, type).physicalId);
    }
    expect(log.byOperation['lambda:CreateFunction'] ?? 0).toBe(0);

    // Removed properties are back to AWS's defaults.
    const fn = await clients.lambda.send(
      new GetFunctionConfigurationCommand({
        FunctionName: recordOf(state, 'AWS::Lambda::Function').physicalId,
      }),
    );
    expect(fn.MemorySize).toBe(128);
    expect(fn.Timeout).toBe(20);
    expect(fn.Environment?.Variables ?? {}).toEqual({});
    const key = await clients.kms.send(
      new DescribeKeyCommand({ KeyId: recordOf(state, 'AWS::KMS::Key').physicalId }),
    );
    expect(key.KeyMetadata!.Description).toBe('');
    const parameter = await clients.ssm.send(new GetParameterCommand({ Name: '/e2e/first-party/b' }));
    expect(parameter.Parameter!.Value).toBe('two');
  });

  it('redeploys with no changes without a single change call', async () => {
    expectExit(await deploy('v2'));
    const log = await requests();
    const changes = Object.keys(log.byOperation).filter(
      (op) => !op.startsWith('s3:') && !op.startsWith('sts:') && !/:(Describe|Get|List|Head|Lookup)/.test(op),
    );
    expect(changes).toEqual([]);
    await expectInventoryMatchesState();
  });

  it('destroys every resource through its pack', async () => {
    expectExit(await h.cdkd(['destroy', '--app', assembly('v2'), '--force', STACK]));
    const log = await requests();
    expect(Object.keys(log.byOperation).filter((op) => op.startsWith('cloudcontrol:'))).toEqual([]);
    // The function and its published version (DeleteFunction with the version as qualifier).
    expect(log.byOperation).toMatchObject({ 'kms:ScheduleKeyDeletion': 1, 'lambda:DeleteFunction': 2 });
    expect(inventoryResources(await h.appInventory())).toEqual([]);
  });

  it('uninstalled, the installable packs’ types go to Cloud Control with the reason; the bundled ones stay', async () => {
    const names = INSTALLABLE.map((p) => manifest(path.join(ROOT, 'plugins', p)).name);
    expectExit(await h.cdkd(['plugins', 'uninstall', ...names]));
    const installable = new Set([...packOf].filter(([, pack]) => names.includes(pack)).map(([t]) => t));

    const result = await deploy('v1');
    expectExit(result);
    const log = await requests();
    // Every type of the uninstalled packs was created through Cloud Control, no bundled one was.
    expect(Object.keys(cloudControlForPackTypes(log, (t) => installable.has(t))).sort()).toEqual(
      [...installable].sort(),
    );
    expect(cloudControlForPackTypes(log, (t) => packOf.has(t) && !installable.has(t))).toEqual({});
    const output = result.stdout + result.stderr;
    for (const name of names) expect(output).toContain(`cdkd plugins install ${name}`);
    const state = await expectInventoryMatchesState();
    for (const type of installable) expect(recordOf(state, type).provisionedBy).toBe('cc-api');

    expectExit(await h.cdkd(['destroy', '--app', assembly('v1'), '--force', STACK]));
    expect(inventoryResources(await h.appInventory())).toEqual([]);
  });
});
