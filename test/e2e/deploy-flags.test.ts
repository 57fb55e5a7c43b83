/**
 * The deploy flags CDK users type, through the built CLI against the emulator:
 * synth and deploy see the same app (byte-identical templates), -q, -j,
 * --outputs-file / -O with each output once, --tags / -t, --force, --role-arn,
 * --progress with the CDK CLI's values, --color / --no-color.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ACCOUNT, REGION, ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');

describe('deploy flags', () => {
  let h: CdkdHarness;
  let tmp: string;
  const run = (...args: string[]) => h.cdkd(args, { cwd: APP });
  /** The stack the --tags and --force tests share, with its tags (-t and --tags alike). */
  const tagged = () => [
    '-o',
    path.join(tmp, 'tags'),
    '-c',
    'stackName=E2eTags',
    '-t',
    'team=payments',
    '--tags',
    'cost-center=42',
  ];

  beforeAll(async () => {
    h = await startHarness();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-flags-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('synth and deploy synthesize the app the same way: byte-identical templates, the caller account in both', async () => {
    const synthOut = path.join(tmp, 'synth-out');
    const deployOut = path.join(tmp, 'deploy-out');
    const context = ['-c', 'callerEnv=true', '-c', 'stackName=E2eSame'];
    const synth = await run('synth', '-q', '-o', synthOut, ...context);
    expectExit(synth);
    expect(synth.stdout).toBe('');
    const outputsFile = path.join(tmp, 'out', 'outputs.json');
    const deploy = await run(
      'deploy',
      '--progress',
      'events',
      '-o',
      deployOut,
      '-O',
      outputsFile,
      ...context,
    );
    expectExit(deploy);
    const template = (dir: string) => fs.readFileSync(path.join(dir, 'BasicApp.template.json'));
    expect(template(deployOut).equals(template(synthOut))).toBe(true);
    expect(template(synthOut).toString()).toContain(`"${ACCOUNT}/${REGION}"`);

    // Each output once: an exported one under its own name, with the export name beside it.
    expect(deploy.stdout).toMatch(/^ {2}QueueUrl = \S+ \(exported as E2eSame-QueueUrl\)$/m);
    expect(deploy.stdout).not.toMatch(/^ {2}E2eSame-QueueUrl =/m);
    expect(deploy.stdout).toMatch(new RegExp(`^ {2}DeployedTo = ${ACCOUNT}/${REGION}$`, 'm'));
    // --outputs-file: the CDK CLI's shape, each output once.
    const written = JSON.parse(fs.readFileSync(outputsFile, 'utf8'));
    expect(Object.keys(written)).toEqual(['E2eSame']);
    expect(Object.keys(written.E2eSame).sort()).toEqual([
      'DeployedTo',
      'ParameterName',
      'QueueArn',
      'QueueUrl',
    ]);

    // -j is --json: outputs and exports apart.
    const again = await run('deploy', '-j', '-o', deployOut, ...context);
    expectExit(again);
    const [stack] = (JSON.parse(again.stdout) as { stacks: Array<Record<string, unknown>> }).stacks;
    expect(stack.noChanges).toBe(true);
    expect(Object.keys(stack.outputs as object).sort()).toEqual([
      'DeployedTo',
      'ParameterName',
      'QueueArn',
      'QueueUrl',
    ]);
    expect(stack.exports).toEqual({ 'E2eSame-QueueUrl': 'QueueUrl' });
  });

  it("--tags puts the stack tags on every taggable resource, in each type's tag shape", async () => {
    const result = await run('deploy', '--progress', 'errors-only', ...tagged());
    expectExit(result);
    // errors-only: nothing but warnings and errors on stderr.
    expect(result.stderr).not.toMatch(/created|deploying/);
    const state = await h.readState('E2eTags');
    const byType = (t: string) => Object.values(state!.resources).find((r) => r.resourceType === t)!;
    const list = [
      { Key: 'team', Value: 'payments' },
      { Key: 'cost-center', Value: '42' },
    ];
    expect(byType('AWS::SQS::Queue').properties?.Tags).toEqual(list);
    expect(byType('AWS::Logs::LogGroup').properties?.Tags).toEqual(list);
    expect(byType('AWS::SSM::Parameter').properties?.Tags).toEqual({ team: 'payments', 'cost-center': '42' });
    // And on the resources themselves.
    const inventory = await h.appInventory();
    const logGroup = inventory.find((r) => r.identifier === byType('AWS::Logs::LogGroup').physicalId)!;
    expect(logGroup.properties.Tags).toEqual(expect.arrayContaining(list));
  });

  it('--force re-applies every resource even when nothing changed', async () => {
    const args = ['--progress', 'bar', ...tagged()];
    const unchanged = await run('deploy', ...args);
    expectExit(unchanged);
    // --progress bar without a terminal prints events, as the CDK CLI does.
    expect(unchanged.stderr).toContain('E2eTags: no changes');
    await h.emulator.control.clearRequests();
    const forced = await run('deploy', '--force', ...args);
    expectExit(forced);
    expect(forced.stderr).toMatch(/E2eTags: deployed in [\d.]+s \(3 updated\)/);
    const ops = (await h.emulator.control.requests()).byOperation;
    // The parameter through Cloud Control; the queue and the log group through their bundled packs.
    expect(ops['cloudcontrol:UpdateResource']).toBe(1);
    expect(ops['sqs:SetQueueAttributes']).toBeGreaterThanOrEqual(1);
    expect(ops['logs:PutRetentionPolicy']).toBeGreaterThanOrEqual(1);
  });

  it('--role-arn makes every AWS call of the deploy as the role: its account gets the state and the resources', async () => {
    const roleAccount = '210987654321';
    // The role's account has its own state bucket (the emulator lets a 12-digit access key act in that account).
    expectExit(await h.cdkd(['bootstrap', '--no-assets'], { env: { AWS_ACCESS_KEY_ID: roleAccount } }));
    await h.emulator.control.clearRequests();
    const result = await run(
      'deploy',
      '--progress',
      'events',
      '-o',
      path.join(tmp, 'role'),
      '-c',
      'stackName=E2eRole',
      '-r',
      `arn:aws:iam::${roleAccount}:role/cdkd-deployer`,
    );
    expectExit(result);
    expect((await h.emulator.control.requests()).byOperation['sts:AssumeRole']).toBeGreaterThanOrEqual(1);
    const queue = (await h.emulator.control.inventory()).find(
      (r) => r.type === 'AWS::SQS::Queue' && r.identifier.includes('E2eRole'),
    );
    expect(queue?.account).toBe(roleAccount);
    expect(await h.readState('E2eRole')).toBeUndefined();
    const s3 = new S3Client({
      region: REGION,
      endpoint: h.emulator.url,
      forcePathStyle: true,
      credentials: { accessKeyId: roleAccount, secretAccessKey: 'x' },
    });
    const state = await s3.send(
      new GetObjectCommand({ Bucket: `cdkd-state-${roleAccount}`, Key: 'cdkd/E2eRole/us-east-1/state.json' }),
    );
    expect(JSON.parse(await state.Body!.transformToString()).stackName).toBe('E2eRole');
    s3.destroy();
  });

  it('colours the diff when asked, and not under NO_COLOR', async () => {
    const args = ['diff', '-o', path.join(tmp, 'color'), '-c', 'stackName=E2eColor'];
    const colored = await run(...args, '--color');
    expectExit(colored);
    expect(colored.stdout).toContain('\u001b[');
    // NO_COLOR is the convention; --no-color says the same on the command line (unit-tested alike).
    const noColorEnv = await h.cdkd(args, { cwd: APP, env: { NO_COLOR: '1' } });
    expect(noColorEnv.stdout).not.toContain('\u001b[');
  });
});
