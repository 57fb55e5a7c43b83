/**
 * Secrets never stored or printed in clear, through the built CLI and a real
 * aws-cdk-lib app (test/e2e/apps/secrets-app) using the emulator's Secrets
 * Manager and SSM SecureString: a NoEcho parameter, a secretsmanager and an
 * ssm-secure reference, and an IAM access key whose secret the app keeps in a
 * secret. After every step no version of any object in the state bucket, and
 * no output of any cdkd command, holds a secret value; a no-change redeploy
 * makes no provisioning call; a secret changed in Secrets Manager is deployed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { StackState } from '../../src/state/types';
import { BIN, REGION, ROOT, STATE_BUCKET, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness, CliResult } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'secrets-app');
const STACK = 'E2eSecrets';
const NOECHO = 'noecho-Pa55word-1';
const SM_SECRET = 'sm-Secret"Value\\1';
const SM_SECRET_2 = 'sm-rotated-Value-2';
const SSM_SECURE = 'ssm-Secure-Value-1';

describe('secrets through the built CLI', () => {
  let h: CdkdHarness;
  let out: string;
  let s3: S3Client;
  let sm: SecretsManagerClient;
  let ssm: SSMClient;
  /** Every secret value the run has made or used so far (the access key's is learned after the first deploy). */
  const secrets = [NOECHO, SM_SECRET, SSM_SECURE];
  /** Every output of every cdkd command run. */
  const outputs: Array<{ args: string[]; result: CliResult }> = [];

  /** Runs a command, keeping its output; app commands get the app's output folder and stack name. */
  const cdkd = async (args: string[], app = true) => {
    const result = await h.cdkd(app ? [...args, '-o', out, '-c', `stackName=${STACK}`] : args, { cwd: APP });
    outputs.push({ args, result });
    return result;
  };
  const deployArgs = () => [
    'deploy',
    '--require-approval',
    'never',
    '--progress',
    'events',
    '--verbose',
    '--parameters',
    `DbPassword=${NOECHO}`,
  ];
  const deploy = (...extra: string[]) => cdkd([...deployArgs(), ...extra]);
  const byLogicalPrefix = (state: StackState | undefined, prefix: string) =>
    Object.entries(state!.resources).find(([id]) => id.startsWith(prefix))![1];

  /** The body of every version of every object in the state bucket, delete markers aside. */
  const allStoredVersions = async (): Promise<Array<{ key: string; body: string }>> => {
    const found: Array<{ key: string; body: string }> = [];
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    for (;;) {
      const page = await s3.send(
        new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, KeyMarker, VersionIdMarker }),
      );
      for (const v of page.Versions ?? []) {
        const obj = await s3.send(
          new GetObjectCommand({ Bucket: STATE_BUCKET, Key: v.Key, VersionId: v.VersionId }),
        );
        found.push({ key: `${v.Key}@${v.VersionId}`, body: await obj.Body!.transformToString() });
      }
      if (!page.IsTruncated) return found;
      KeyMarker = page.NextKeyMarker;
      VersionIdMarker = page.NextVersionIdMarker;
    }
  };
  /** A secret as it may appear: verbatim, or escaped inside JSON. */
  const forms = (s: string) => [s, JSON.stringify(s).slice(1, -1)];
  const leaks = (text: string) => secrets.filter((s) => forms(s).some((f) => text.includes(f)));

  const expectNothingStoredInClear = async () => {
    const versions = await allStoredVersions();
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.filter((v) => leaks(v.body).length > 0).map((v) => v.key)).toEqual([]);
  };
  const expectNothingPrintedInClear = () => {
    const printed = outputs
      .map(({ args, result }) => ({ command: args.join(' '), leaked: leaks(result.stdout + result.stderr) }))
      .filter((o) => o.leaked.length > 0);
    expect(printed).toEqual([]);
  };
  const provisioningCalls = async () =>
    Object.keys((await h.emulator.control.requests()).byOperation).filter(
      (op) => /^(cloudcontrol|iam|ssm|secretsmanager):/.test(op) && !/:(Get|Describe|List)/.test(op),
    );

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-secrets-out-'));
    const client = {
      region: REGION,
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    s3 = new S3Client({ ...client, forcePathStyle: true });
    sm = new SecretsManagerClient(client);
    ssm = new SSMClient(client);
    await sm.send(
      new CreateSecretCommand({ Name: 'e2e/db', SecretString: JSON.stringify({ password: SM_SECRET }) }),
    );
    await ssm.send(new PutParameterCommand({ Name: '/e2e/secure', Type: 'SecureString', Value: SSM_SECURE }));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    s3?.destroy();
    sm?.destroy();
    ssm?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('deploys the secrets to AWS in clear and stores none of them', async () => {
    expectExit(await deploy());
    const state = await h.readState(STACK);
    // AWS got the real values.
    const value = async (prefix: string) =>
      (await ssm.send(new GetParameterCommand({ Name: byLogicalPrefix(state, prefix).physicalId })))
        .Parameter!.Value;
    expect(await value('FromNoEcho')).toBe(NOECHO);
    expect(await value('FromSecretsManager')).toBe(SM_SECRET);
    const secretOf = async (prefix: string) =>
      (await sm.send(new GetSecretValueCommand({ SecretId: byLogicalPrefix(state, prefix).physicalId })))
        .SecretString!;
    expect(await secretOf('FromSecureString')).toBe(SSM_SECURE);
    const accessKeySecret = await secretOf('KeySecret');
    expect(accessKeySecret.length).toBeGreaterThan(10);
    secrets.push(accessKeySecret);
    // State keeps the references as written and the NoEcho value masked.
    expect(byLogicalPrefix(state, 'FromSecretsManager').properties.Value).toBe(
      '{{resolve:secretsmanager:e2e/db:SecretString:password::}}',
    );
    expect(byLogicalPrefix(state, 'FromSecureString').properties.SecretString).toBe(
      '{{resolve:ssm-secure:/e2e/secure}}',
    );
    expect(byLogicalPrefix(state, 'FromNoEcho').properties.Value).toBe('***');
    expect(byLogicalPrefix(state, 'Key').attributes?.SecretAccessKey).toBe('***');
    await expectNothingStoredInClear();
  });

  it('prints no secret in diff, state and list commands', async () => {
    expectExit(await cdkd(['diff', '--parameters', `DbPassword=${NOECHO}`]));
    expectExit(await cdkd(['state', 'show', STACK], false));
    expectExit(await cdkd(['state', 'show', STACK, '--json'], false));
    expectExit(await cdkd(['state', 'resources', STACK, '--json'], false));
    expectExit(await cdkd(['state', 'list'], false));
    expectExit(await cdkd(['list'], true));
    expectNothingPrintedInClear();
  });

  it('redeploys with no changes: no provisioning call', async () => {
    await h.emulator.control.clearRequests();
    const result = await deploy();
    expectExit(result);
    expect(result.stderr).toMatch(/no changes/);
    expect(await provisioningCalls()).toEqual([]);
    await expectNothingStoredInClear();
  });

  it('rewrites a record an older cdkd wrote with a secret in clear, and purges its earlier versions', async () => {
    const state = (await h.readState(STACK))!;
    byLogicalPrefix(state, 'FromNoEcho').properties.Value = NOECHO;
    await s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: `cdkd/${STACK}/${REGION}/state.json`,
        Body: JSON.stringify(state, null, 2),
      }),
    );
    expect((await allStoredVersions()).filter((v) => leaks(v.body).length > 0)).not.toEqual([]);
    await h.emulator.control.clearRequests();
    expectExit(await deploy());
    expect(await provisioningCalls()).toEqual([]);
    await expectNothingStoredInClear();
  });

  it('cdkd scrub redacts what an older binary stored in clear, in every version; a deploy then makes no call', async () => {
    const t0 = Date.now();
    const stored = (await h.readState(STACK))!;
    const clean = JSON.parse(JSON.stringify(stored)) as StackState;
    // What a binary from before redaction wrote: every secret resolved, in properties and outputs.
    byLogicalPrefix(stored, 'FromNoEcho').properties.Value = NOECHO;
    byLogicalPrefix(stored, 'FromSecretsManager').properties.Value = SM_SECRET;
    byLogicalPrefix(stored, 'FromSecureString').properties.SecretString = SSM_SECURE;
    stored.outputs.Echoed = NOECHO;
    await s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: `cdkd/${STACK}/${REGION}/state.json`,
        Body: JSON.stringify(stored, null, 2),
      }),
    );
    expect((await allStoredVersions()).filter((v) => leaks(v.body).length > 0)).not.toEqual([]);

    const gate = await cdkd(['scrub', '--dry-run', '--fail']);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/would scrub/);
    expect(gate.stdout).toContain('state.json: resources.');
    expect(gate.stdout).toContain('state.json: outputs.Echoed');
    // A dry run changed nothing.
    expect((await allStoredVersions()).filter((v) => leaks(v.body).length > 0)).not.toEqual([]);

    const scrub = await cdkd(['scrub', '--fail']);
    expectExit(scrub);
    expect(scrub.stdout).toMatch(/1 stack\(s\) scrubbed of 1/);
    await expectNothingStoredInClear();
    // Stored as a deploy of today stores it: the references as written, the NoEcho value masked.
    const after = (await h.readState(STACK))!;
    for (const id of Object.keys(clean.resources))
      expect(after.resources[id].properties).toEqual(clean.resources[id].properties);
    expect(after.outputs).toEqual(clean.outputs);

    expectExit(await cdkd(['scrub', '--dry-run', '--fail']));
    await h.emulator.control.clearRequests();
    const redeploy = await deploy();
    expectExit(redeploy);
    expect(redeploy.stderr).toMatch(/no changes/);
    expect(await provisioningCalls()).toEqual([]);
    expectNothingPrintedInClear();
    process.stderr.write(`scrub case: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  });

  it('deploys a secret changed in Secrets Manager, and stores it nowhere', async () => {
    await sm.send(
      new PutSecretValueCommand({
        SecretId: 'e2e/db',
        SecretString: JSON.stringify({ password: SM_SECRET_2 }),
      }),
    );
    secrets.push(SM_SECRET_2);
    await h.emulator.control.clearRequests();
    const result = await deploy();
    expectExit(result);
    expect(result.stderr).not.toMatch(/no changes/);
    const state = await h.readState(STACK);
    expect(
      (
        await ssm.send(
          new GetParameterCommand({ Name: byLogicalPrefix(state, 'FromSecretsManager').physicalId }),
        )
      ).Parameter!.Value,
    ).toBe(SM_SECRET_2);
    // Only the resource using that secret was written.
    expect((await provisioningCalls()).length).toBeGreaterThan(0);
    await expectNothingStoredInClear();
    // A record without a secret in clear keeps its history (the recovery versioning exists for).
    const stateVersions = (await allStoredVersions()).filter((v) => v.key.includes('/state.json@'));
    expect(stateVersions.length).toBeGreaterThan(1);
  });

  it('settles a create killed in flight with its NoEcho value restored, never sending the mask', async () => {
    const t0 = Date.now();
    const args = [...deployArgs(), '-c', 'inFlight=1'];
    // The create is held in the emulator, so the kill lands while it is in flight; the held call
    // then fails, so nothing lands and the re-run's settle must send the values again.
    await h.emulator.control.setLatency({ service: 'cloudcontrol', operation: 'CreateResource', ms: 4000 });
    const fault = await h.emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'CreateResource',
      typeName: 'AWS::SSM::Parameter',
      error: 500,
    });
    await h.emulator.control.clearRequests();
    const child = spawn(process.execPath, [BIN, ...args, '-o', out, '-c', `stackName=${STACK}`], {
      cwd: APP,
      env: h.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('close', (_code, signal) => resolve(signal)),
    );
    let printed = '';
    child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    child.stderr.on('data', (d: Buffer) => (printed += d.toString()));
    // Its intent is durable once the request reaches the emulator (counted before the latency).
    const sent = async () =>
      ((await h.emulator.control.requests()).byOperation['cloudcontrol:CreateResource'] ?? 0) > 0;
    while (!(await sent())) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    outputs.push({ args, result: { code: null, stdout: printed, stderr: '' } });
    const fired = async () => !(await h.emulator.control.faults()).some((f) => f.id === fault.id);
    while (!(await fired())) await new Promise((r) => setTimeout(r, 50));
    await h.emulator.control.clearLatency();
    // The log keeps the intent, its NoEcho value masked.
    await expectNothingStoredInClear();
    expectExit(await cdkd(['force-unlock', STACK, '--region', REGION, '--force'], false));

    // The same value as the killed run: restored, proven by its digest, and sent in clear to AWS only.
    const rerun = await cdkd(args);
    expectExit(rerun);
    expect(rerun.stderr).toMatch(/settling 1 operation\(s\) an interrupted run left in flight/);
    const state = await h.readState(STACK);
    expect(state!.pendingIntents ?? []).toEqual([]);
    const param = byLogicalPrefix(state, 'InFlight');
    expect((await ssm.send(new GetParameterCommand({ Name: param.physicalId }))).Parameter!.Value).toBe(
      `${NOECHO}|${SM_SECRET_2}`,
    );
    await expectNothingStoredInClear();
    expectNothingPrintedInClear();
    process.stderr.write(`in-flight NoEcho case: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }, 480_000);

  it('destroys the stack and leaves no secret behind in any version', async () => {
    expectExit(await cdkd(['destroy', '--force', '--progress', 'events', '--verbose']));
    await expectNothingStoredInClear();
    expectNothingPrintedInClear();
  });
});
