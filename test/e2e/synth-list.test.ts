import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import * as YAML from 'yaml';
import { startEmulator } from '../emulator/src';
import type { RunningEmulator } from '../emulator/src';

// Runs the BUILT CLI (`npx tsc -p tsconfig.build.json` first) on the example apps.
jest.setTimeout(180_000);

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'run.js');
const examples = path.join(root, 'examples');

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-synth-e2e-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Runs cdkd in `cwd`, synthesizing into a private output directory (tests may run side by side).
 * Asynchronous, so an emulator running in this process keeps answering.
 */
function cdkd(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string; output: string }> {
  const output = fs.mkdtempSync(path.join(tmp, 'out-'));
  const hasOutput = args.includes('--output') || args.includes('--app');
  const child = spawn(process.execPath, [bin, ...args, ...(hasOutput ? [] : ['--output', output])], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', AWS_REGION: 'us-east-1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr, output }));
  });
}

type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  [k: string]: unknown;
};

function resourceOfType(template: Template, type: string) {
  return Object.values(template.Resources).find((r) => r.Type === type);
}

const multi = path.join(examples, 'multi-stack-app');
let multiAssembly: Promise<string> | undefined;
/**
 * The multi-stack app's cloud assembly, synthesized once: the selection and
 * listing cases read it with `--app <dir>` (stack selection runs on the
 * assembly either way; the app itself is synthesized by the first case).
 */
function multiStackAssembly(): Promise<string> {
  multiAssembly ??= (async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'multi-'));
    const synth = await cdkd(multi, ['synth', '--all', '--output', dir]);
    expect(synth.status).toBe(0);
    return dir;
  })();
  return multiAssembly;
}
/** cdkd on the multi-stack app's assembly. */
async function onMulti(args: string[]) {
  return cdkd(tmp, [...args, '--app', await multiStackAssembly()]);
}

describe('cdkd synth', () => {
  const basic = path.join(examples, 'basic-app');

  test('prints the template as YAML on stdout, exactly as aws-cdk-lib synthesized it, and logs on stderr', async () => {
    const { status, stdout, stderr, output } = await cdkd(basic, ['synth']);
    expect(status).toBe(0);
    const template = YAML.parse(stdout) as Template;
    expect(template).toEqual(
      JSON.parse(fs.readFileSync(path.join(output, 'BasicApp.template.json'), 'utf8')),
    );
    expect(
      Object.values(template.Resources)
        .map((r) => r.Type)
        .sort(),
    ).toEqual(['AWS::CDK::Metadata', 'AWS::Logs::LogGroup', 'AWS::SQS::Queue', 'AWS::SSM::Parameter']);
    expect(template.Parameters).toHaveProperty('BootstrapVersion');
    expect(template.Rules).toHaveProperty('CheckBootstrapVersion');
    expect((template.Outputs as Record<string, { Export?: unknown }>).QueueUrl.Export).toEqual({
      Name: 'CdkdBasicApp-QueueUrl',
    });
    expect(stderr).toContain('Synthesized BasicApp (CdkdBasicApp)');
    expect(stdout).not.toContain('Synthesized');
  });

  test('--json prints JSON; --context reaches the app (update, replacement and removal switches)', async () => {
    const { status, stdout } = await cdkd(basic, [
      'synth',
      '--json',
      '-c',
      'variant=v2',
      '--context',
      'queueSuffix=a',
      '-c',
      'withLogGroup=false',
    ]);
    expect(status).toBe(0);
    const template = JSON.parse(stdout) as Template;
    expect(resourceOfType(template, 'AWS::SQS::Queue')!.Properties).toEqual({
      VisibilityTimeout: 60,
      QueueName: 'CdkdBasicApp-queue-a',
    });
    expect(resourceOfType(template, 'AWS::SSM::Parameter')!.Properties!.Value).toBe('variant v2');
    expect(resourceOfType(template, 'AWS::Logs::LogGroup')).toBeUndefined();
  });

  test('--app reads an existing cloud assembly directory', async () => {
    const first = await cdkd(basic, ['synth', '--json']);
    expect(first.status).toBe(0);
    const again = await cdkd(tmp, ['synth', '--json', '--app', first.output]);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
  });

  describe('stack selection in a multi-stack app', () => {
    test('several stacks and no name: an error that lists the stacks and suggests --all', async () => {
      const { status, stdout, stderr } = await cdkd(multi, ['synth']);
      expect(status).not.toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toContain('This app has more than one stack');
      expect(stderr).toContain('--all');
      expect(stderr).toContain('Stacks in this app: Producer, Consumer, Staging/Service (Staging-Service)');
      expect(stderr).toContain("'Staging/*'");
    });

    test('an unknown name: an error naming it and listing the stacks that exist', async () => {
      const { status, stdout, stderr } = await onMulti(['synth', 'Nope']);
      expect(status).not.toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toContain("No stack in this app matches 'Nope'.");
      expect(stderr).toContain('Stacks in this app: Producer, Consumer, Staging/Service (Staging-Service)');
    });

    test('a stack brings the stacks it depends on, unless --exclusively', async () => {
      const withDeps = await onMulti(['synth', 'Consumer']);
      expect(withDeps.status).toBe(0);
      const docs = YAML.parseAllDocuments(withDeps.stdout).map((d) => d.toJS() as Template);
      expect(docs.map((t) => resourceOfType(t, 'AWS::SQS::Queue') !== undefined)).toEqual([true, false]);
      expect(withDeps.stderr).toContain('Including dependency stacks: Producer');

      const alone = await onMulti(['synth', 'Consumer', '--exclusively', '--json']);
      expect(alone.status).toBe(0);
      const template = JSON.parse(alone.stdout) as Template;
      expect(resourceOfType(template, 'AWS::SSM::Parameter')!.Properties!.Value).toEqual({
        'Fn::ImportValue': expect.stringMatching(/^Producer:ExportsOutput/),
      });
    });

    test('stage paths and globs select stacks in stages; --all takes the top-level stacks', async () => {
      const staged = await onMulti(['synth', 'Staging/*', '--json']);
      expect(staged.status).toBe(0);
      expect(resourceOfType(JSON.parse(staged.stdout) as Template, 'AWS::SQS::Queue')).toBeDefined();

      const all = await onMulti(['synth', '--all', '--json']);
      expect(all.status).toBe(0);
      expect(Object.keys(JSON.parse(all.stdout))).toEqual(['Producer', 'Consumer']);

      const everything = await onMulti(['synth', '**', '--json']);
      expect(Object.keys(JSON.parse(everything.stdout))).toEqual(['Producer', 'Consumer', 'Staging/Service']);
    });
  });
});

describe('cdkd list / ls', () => {
  test('prints one stack per line on stdout, stages included', async () => {
    const { status, stdout } = await onMulti(['list']);
    expect(status).toBe(0);
    expect(stdout).toBe('Producer\nConsumer\nStaging/Service (Staging-Service)\n');
  });

  test('ls --long adds environments and dependencies', async () => {
    const { status, stdout } = await onMulti(['ls', '--long']);
    expect(status).toBe(0);
    const stacks = YAML.parse(stdout) as Array<{
      id: string;
      name: string;
      environment: { region: string };
      dependencies: string[];
    }>;
    expect(stacks.map((s) => [s.id, s.name, s.dependencies])).toEqual([
      ['Producer', 'Producer', []],
      ['Consumer', 'Consumer', ['Producer']],
      ['Staging/Service (Staging-Service)', 'Staging-Service', []],
    ]);
    // Environment-agnostic stacks show the configured region.
    expect(stacks.every((s) => s.environment.region === 'us-east-1')).toBe(true);
  });

  test('--json, with names: the stacks and what they depend on', async () => {
    const { status, stdout } = await onMulti(['ls', 'Consumer', '--json']);
    expect(status).toBe(0);
    expect((JSON.parse(stdout) as Array<{ path: string }>).map((s) => s.path)).toEqual([
      'Producer',
      'Consumer',
    ]);
  });

  test('an unknown name lists the stacks that exist', async () => {
    const { status, stderr } = await onMulti(['ls', 'Nope']);
    expect(status).not.toBe(0);
    expect(stderr).toContain('Stacks in this app: Producer, Consumer, Staging/Service (Staging-Service)');
  });
});

describe('context lookups (emulator)', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  test('a lookup goes through toolkit-lib to AWS (--endpoint-url included), and its result persists in cdk.context.json', async () => {
    const env = {
      AWS_ENDPOINT_URL: emulator.url,
      AWS_ACCESS_KEY_ID: 'AKIAEMULATOREXAMPLE1',
      AWS_SECRET_ACCESS_KEY: 'emulator-secret',
      AWS_REGION: 'us-east-1',
    };
    const account = (await emulator.control.settings()).accountId;
    const ssm = new SSMClient({
      region: 'us-east-1',
      endpoint: emulator.url,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
    });
    await ssm.send(
      new PutParameterCommand({ Name: '/cdkd/e2e/greeting', Value: 'hello from ssm', Type: 'String' }),
    );

    const appDir = path.join(tmp, 'lookup-app');
    fs.mkdirSync(appDir);
    fs.writeFileSync(path.join(appDir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    fs.writeFileSync(
      path.join(appDir, 'app.js'),
      `const cdk = require(${JSON.stringify(require.resolve('aws-cdk-lib'))});
const ssm = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-ssm'))});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'Lookup', { env: { account: process.env.LOOKUP_ACCOUNT, region: 'us-east-1' } });
new cdk.CfnOutput(stack, 'Greeting', { value: ssm.StringParameter.valueFromLookup(stack, '/cdkd/e2e/greeting') });
app.synth();
`,
    );
    // The first run names the endpoint with --endpoint-url only: lookups must honour it too.
    const first = await cdkd(appDir, ['synth', '--json', '--endpoint-url', emulator.url], {
      ...env,
      AWS_ENDPOINT_URL: undefined,
      LOOKUP_ACCOUNT: account,
    });
    expect(first.stderr).not.toMatch(/^Error/m);
    expect(first.stderr).toContain('Synthesized Lookup');
    expect(first.status).toBe(0);
    expect(
      (JSON.parse(first.stdout) as { Outputs: { Greeting: { Value: string } } }).Outputs.Greeting.Value,
    ).toBe('hello from ssm');
    const saved = JSON.parse(fs.readFileSync(path.join(appDir, 'cdk.context.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(saved[`ssm:account=${account}:parameterName=/cdkd/e2e/greeting:region=us-east-1`]).toBe(
      'hello from ssm',
    );

    // The saved value is used from then on, as with the CDK CLI: no new lookup.
    await ssm.send(
      new PutParameterCommand({
        Name: '/cdkd/e2e/greeting',
        Value: 'changed',
        Type: 'String',
        Overwrite: true,
      }),
    );
    await emulator.control.clearRequests();
    const second = await cdkd(appDir, ['synth', '--json'], { ...env, LOOKUP_ACCOUNT: account });
    expect(second.status).toBe(0);
    expect(
      (JSON.parse(second.stdout) as { Outputs: { Greeting: { Value: string } } }).Outputs.Greeting.Value,
    ).toBe('hello from ssm');
    expect((await emulator.control.requests()).byOperation['ssm:GetParameter'] ?? 0).toBe(0);
  });
});
