/**
 * The installable SSM, Secrets Manager and KMS packs as a user gets them: `npm
 * pack` tarballs → `cdkd plugins install` into the BUILT CLI → a real
 * aws-cdk-lib app deploys, updates (in place, replacement, property removal),
 * no-ops and destroys with every parameter going through Parameter Store,
 * every secret through Secrets Manager, the key and its alias through KMS, and
 * nothing through Cloud Control;
 * uninstalled, they go back to Cloud Control. After every step the
 * emulator's inventory equals what state records.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DescribeParametersCommand, GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DescribeKeyCommand, GetKeyRotationStatusCommand, KMSClient } from '@aws-sdk/client-kms';
import { ROOT, expectExit, inventoryResources, startHarness, stateResources } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const lib = (m: string) => JSON.stringify(require.resolve(m));
const STACK = 'E2eSsmPack';
const PACK = '@cdkd/provider-ssm';
const PACKS = ['provider-ssm', 'provider-secretsmanager', 'provider-kms'];
const KMS_PACK = '@cdkd/provider-kms';

const APP = `const cdk = require(${lib('aws-cdk-lib')});
const ssm = require(${lib('aws-cdk-lib/aws-ssm')});
const secretsmanager = require(${lib('aws-cdk-lib/aws-secretsmanager')});
const kms = require(${lib('aws-cdk-lib/aws-kms')});
const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const stack = new cdk.Stack(app, 'Params', { stackName: ${JSON.stringify(STACK)} });
new ssm.StringParameter(stack, 'Named', {
  parameterName: variant === 'v1' ? '/e2e/named' : '/e2e/renamed',
  stringValue: 'fixed',
});
new ssm.StringParameter(stack, 'Unnamed', {
  stringValue: 'value ' + variant,
  description: variant === 'v1' ? 'described' : undefined,
});
new ssm.StringListParameter(stack, 'List', { stringListValue: ['a', variant] });
new secretsmanager.Secret(stack, 'Secret', {
  description: variant === 'v1' ? 'generated' : undefined,
  generateSecretString: { secretStringTemplate: '{"user":"app"}', generateStringKey: 'password', passwordLength: 20 },
  removalPolicy: cdk.RemovalPolicy.DESTROY,
});
new kms.Key(stack, 'Key', {
  alias: 'alias/e2e-app',
  description: variant === 'v1' ? 'app key' : undefined,
  enableKeyRotation: variant === 'v1',
  pendingWindow: cdk.Duration.days(7),
  removalPolicy: cdk.RemovalPolicy.DESTROY,
});
app.synth();
`;

describe('an installable pack from its tarball', () => {
  let h: CdkdHarness;
  let dir: string;
  let ssm: SSMClient;
  let sm: SecretsManagerClient;
  let kmsClient: KMSClient;

  const deploy = (...context: string[]) =>
    h.cdkd(
      [
        'deploy',
        '-o',
        path.join(dir, 'out'),
        // The key's policy is a permission change; approval has its own e2e.
        '--require-approval',
        'never',
        ...context.flatMap((c) => ['-c', c]),
      ],
      { cwd: dir },
    );

  /** Operation counts since the last call, and the counts cleared. */
  const calls = async () => {
    const { byOperation } = await h.emulator.control.requests();
    await h.emulator.control.clearRequests();
    return byOperation;
  };
  const cloudControlCalls = (ops: Record<string, number>) =>
    Object.keys(ops).filter((op) => op.startsWith('cloudcontrol:'));

  const expectInventoryMatchesState = async () => {
    const state = await h.readState(STACK);
    expect(inventoryResources(await h.appInventory())).toEqual(stateResources(state));
    return state;
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-ssm-pack-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    const clientConfig = {
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    ssm = new SSMClient(clientConfig);
    sm = new SecretsManagerClient(clientConfig);
    kmsClient = new KMSClient(clientConfig);
    // The tarballs npm would publish (each pack's dist/ comes from `npm run build`).
    for (const pack of PACKS) {
      const packed = spawnSync('npm', ['pack', '--pack-destination', dir, '--json'], {
        cwd: path.join(ROOT, 'plugins', pack),
        encoding: 'utf8',
      });
      expect(packed.status).toBe(0);
      const tarball = path.join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
      // A path with a scheme: oclif reads a bare path with a slash as a GitHub repository.
      expectExit(await h.cdkd(['plugins', 'install', `file:${tarball}`]));
    }
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    ssm?.destroy();
    sm?.destroy();
    kmsClient?.destroy();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is listed as an installed (user) pack, 100 % accounted for', async () => {
    const listed = await h.cdkd(['providers', '--json']);
    expectExit(listed);
    expect(
      (JSON.parse(listed.stdout) as { providers: Array<Record<string, unknown>> }).providers.find(
        (p) => p.resourceType === 'AWS::SSM::Parameter',
      ),
    ).toMatchObject({ pack: PACK, install: 'user', handled: 9, total: 9 });
    expectExit(await h.cdkd(['providers', 'check', '--pack', PACK]));
    expectExit(await h.cdkd(['providers', 'check', '--pack', KMS_PACK]));
  });

  /** The physical id of the app's secret in state. */
  const secretArn = (state: Awaited<ReturnType<CdkdHarness['readState']>>) =>
    Object.values(state!.resources).find((r) => r.resourceType === 'AWS::SecretsManager::Secret')!.physicalId;

  /** The physical id of the app's key in state. */
  const keyId = (state: Awaited<ReturnType<CdkdHarness['readState']>>) =>
    Object.values(state!.resources).find((r) => r.resourceType === 'AWS::KMS::Key')!.physicalId;

  it('creates every parameter through Parameter Store, the secret through Secrets Manager, the key through KMS, none through Cloud Control', async () => {
    await calls();
    expectExit(await deploy());
    const ops = await calls();
    expect(ops['ssm:PutParameter']).toBe(3);
    expect(ops['secretsmanager:CreateSecret']).toBe(1);
    expect(ops['kms:CreateKey']).toBe(1);
    expect(ops['kms:EnableKeyRotation']).toBe(1);
    expect(ops['kms:CreateAlias']).toBe(1);
    expect(cloudControlCalls(ops)).toEqual([]);
    const state = await expectInventoryMatchesState();
    const secret = JSON.parse(
      (await sm.send(new GetSecretValueCommand({ SecretId: secretArn(state) }))).SecretString!,
    );
    expect(secret).toMatchObject({ user: 'app', password: expect.stringMatching(/^.{20}$/) });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: secretArn(state) }))).Description).toBe(
      'generated',
    );
    const unnamed = Object.values(state!.resources).find((r) =>
      r.physicalId.startsWith('CFN-E2eSsmPack-Unnamed'),
    );
    expect(unnamed).toBeDefined();
    const described = await ssm.send(
      new DescribeParametersCommand({
        ParameterFilters: [{ Key: 'Name', Option: 'Equals', Values: [unnamed!.physicalId] }],
      }),
    );
    expect(described.Parameters![0]!.Description).toBe('described');
    const key = (await kmsClient.send(new DescribeKeyCommand({ KeyId: 'alias/e2e-app' }))).KeyMetadata!;
    expect(key).toMatchObject({ KeyId: keyId(state), Description: 'app key' });
  });

  it('updates in place, replaces a renamed parameter and resets a removed description', async () => {
    expectExit(await deploy('variant=v2'));
    const ops = await calls();
    expect(cloudControlCalls(ops)).toEqual([]);
    expect(ops['ssm:DeleteParameter']).toBe(1);
    const state = await expectInventoryMatchesState();
    const ids = Object.values(state!.resources).map((r) => r.physicalId);
    expect(ids).toContain('/e2e/renamed');
    expect(ids).not.toContain('/e2e/named');
    const unnamed = ids.find((id) => id.startsWith('CFN-E2eSsmPack-Unnamed'))!;
    expect((await ssm.send(new GetParameterCommand({ Name: unnamed }))).Parameter!.Value).toBe('value v2');
    const described = await ssm.send(
      new DescribeParametersCommand({
        ParameterFilters: [{ Key: 'Name', Option: 'Equals', Values: [unnamed] }],
      }),
    );
    expect(described.Parameters![0]!.Description).toBeUndefined();
    expect(
      (await sm.send(new DescribeSecretCommand({ SecretId: secretArn(state) }))).Description,
    ).toBeUndefined();
    // The key's description removed (cleared) and its rotation turned off, in place.
    expect(ops['kms:CreateKey'] ?? 0).toBe(0);
    expect(
      (await kmsClient.send(new DescribeKeyCommand({ KeyId: keyId(state) }))).KeyMetadata!.Description,
    ).toBe('');
    expect(
      (await kmsClient.send(new GetKeyRotationStatusCommand({ KeyId: keyId(state) }))).KeyRotationEnabled,
    ).toBe(false);
  });

  it('redeploys with no changes without writing a parameter', async () => {
    expectExit(await deploy('variant=v2'));
    const ops = await calls();
    expect(ops['ssm:PutParameter'] ?? 0).toBe(0);
    expect(ops['secretsmanager:UpdateSecret'] ?? 0).toBe(0);
    expect(
      Object.keys(ops).filter((op) => op.startsWith('kms:') && !/:(Describe|List|Get)/.test(op)),
    ).toEqual([]);
    expect(cloudControlCalls(ops)).toEqual([]);
  });

  it('destroys through Parameter Store and Secrets Manager', async () => {
    expectExit(await h.cdkd(['destroy', '--force', STACK, '-o', path.join(dir, 'out')], { cwd: dir }));
    const ops = await calls();
    expect(ops['ssm:DeleteParameter']).toBe(3);
    expect(ops['secretsmanager:DeleteSecret']).toBe(1);
    expect(ops['kms:ScheduleKeyDeletion']).toBe(1);
    expect(ops['kms:DeleteAlias']).toBe(1);
    expect(cloudControlCalls(ops)).toEqual([]);
    expect(inventoryResources(await h.appInventory())).toEqual([]);
  });

  it('uninstalled, parameters, secrets and keys go back to Cloud Control, and the summary names the packs', async () => {
    expectExit(await h.cdkd(['plugins', 'uninstall', PACK]));
    expectExit(await h.cdkd(['plugins', 'uninstall', '@cdkd/provider-secretsmanager']));
    expectExit(await h.cdkd(['plugins', 'uninstall', KMS_PACK]));
    const result = await deploy();
    expectExit(result);
    const ops = await calls();
    expect(ops['cloudcontrol:CreateResource']).toBe(6);
    expect(Object.keys(ops).filter((op) => op.startsWith('kms:') && /Create|Alias/.test(op))).toEqual([]);
    expect(result.stdout + result.stderr).toContain(`cdkd plugins install ${KMS_PACK}`);
    await expectInventoryMatchesState();
    expectExit(await h.cdkd(['destroy', '--force', STACK, '-o', path.join(dir, 'out')], { cwd: dir }));
    expect(inventoryResources(await h.appInventory())).toEqual([]);
  });
});
