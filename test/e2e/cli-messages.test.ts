/**
 * The messages a new user meets before anything deploys: a mistyped flag, a bad
 * region, missing credentials or profile, an endpoint that does not answer, a
 * stack name CloudFormation would reject, a cloud assembly directory held by
 * another process, and resources cdkd cannot deploy. Each names the thing and
 * the remedy, exits non-zero and changes nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'examples', 'basic-app');

describe('messages', () => {
  let h: CdkdHarness;
  let tmp: string;

  beforeAll(async () => {
    h = await startHarness();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-messages-'));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an unknown flag prints the error, a guess, and one line pointing to --help, not the help page', async () => {
    const result = await h.cdkd(['deploy', '--requre-approval', 'never'], { cwd: APP });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'Error: Nonexistent flag: --requre-approval Did you mean --require-approval?',
      "Run 'cdkd deploy --help' for the flags it takes.",
    ]);
  });

  it('names the region rule, the missing credentials, the unknown profile and the unreachable endpoint', async () => {
    const region = await h.cdkd(['state', 'list', '--region', 'us east 1']);
    expect(region.code).toBe(1);
    expect(region.stderr).toContain('Invalid region "us east 1" (from --region)');

    const noCredentials = await h.cdkd(['state', 'list'], {
      env: { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
    });
    expect(noCredentials.code).toBe(1);
    expect(noCredentials.stderr).toContain('No AWS credentials found');
    expect(noCredentials.stderr).toContain('Pass --profile (or set AWS_PROFILE)');
    expect(noCredentials.stderr).not.toContain('Could not load credentials from any providers');

    const profile = await h.cdkd(['state', 'list', '--profile', 'staging']);
    expect(profile.code).toBe(1);
    expect(profile.stderr).toContain(
      "The AWS profile 'staging' is not defined in ~/.aws/config and ~/.aws/credentials",
    );

    const endpoint = await h.cdkd(['state', 'list'], { env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' } });
    expect(endpoint.code).toBe(1);
    expect(endpoint.stderr).toContain(
      'Cannot reach the AWS endpoint http://127.0.0.1:1 (set by AWS_ENDPOINT_URL) for STS: connect ECONNREFUSED 127.0.0.1:1.',
    );
    expect(endpoint.stderr).toContain('unset AWS_ENDPOINT_URL to talk to AWS itself');
  });

  it('refuses a stack name CloudFormation would reject, with the rule, before changing anything', async () => {
    // aws-cdk-lib refuses such names itself; they arrive in a cloud assembly written by other tools.
    const assembly = path.join(tmp, 'assembly');
    expectExit(await h.cdkd(['synth', '-q', '-o', assembly], { cwd: APP }));
    const manifestFile = path.join(assembly, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    manifest.artifacts.BasicApp.properties.stackName = '2nd Basic App';
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const result = await h.cdkd(['deploy', '--app', assembly]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Invalid stack name "2nd Basic App" (stack BasicApp of the app): it does not start with a letter. A stack name has only letters, digits and hyphens, starts with a letter and has at most 128 characters.',
    );
    expect(await h.appInventory()).toEqual([]);
  });

  it('says when another process holds the cloud assembly directory, instead of blaming the app', async () => {
    const out = path.join(tmp, 'busy');
    fs.mkdirSync(out);
    // How the CDK toolkits mark a directory being written: a lock file naming a live process.
    fs.writeFileSync(path.join(out, 'synth.lock'), String(process.pid));
    const result = await h.cdkd(['synth', '-o', out], { cwd: APP });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The cloud assembly directory ${out} is in use by another process`);
    expect(result.stderr).toContain('--output (-o)');
    expect(result.stderr).not.toMatch(/Fix the app/);
  });

  it('diff flags resources cdkd cannot deploy, with the remedy', async () => {
    const app = path.join(tmp, 'custom-app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'cdk.json'), '{ "app": "node app.js" }');
    fs.writeFileSync(
      path.join(app, 'app.js'),
      `const cdk = require('aws-cdk-lib');
const app = new cdk.App();
const stack = new cdk.Stack(app, 'E2eCustom');
new cdk.CfnResource(stack, 'Child', { type: 'AWS::SNS::Topick', properties: {} });
app.synth();
`,
    );
    const env = { NODE_PATH: path.join(ROOT, 'node_modules') };
    const result = await h.cdkd(['diff', '-o', path.join(app, 'out')], { cwd: app, env });
    expectExit(result);
    expect(result.stdout).toMatch(
      /\[!\] Child \(AWS::SNS::Topick\): cdkd cannot deploy it: it is not a type in AWS's CloudFormation catalogue/,
    );
    expect(result.stderr).toMatch(
      /E2eCustom: cdkd deploy will refuse this stack: Child \(AWS::SNS::Topick\)/,
    );
    expect(result.stderr).toContain('Check the spelling');
    const json = await h.cdkd(['diff', '-j', '-o', path.join(app, 'out')], { cwd: app, env });
    expectExit(json);
    const payload = JSON.parse(json.stdout) as {
      stacks: Array<{ unprovisionable: Array<{ logicalId: string }> }>;
    };
    expect(payload.stacks[0].unprovisionable.map((r) => r.logicalId)).toEqual(['Child']);
  });
});
