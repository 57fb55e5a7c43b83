import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { synthesize } from '../../../src/synth/synthesize';
import { ANNOTATION_CODE } from '../../../src/synth/annotations';
import { TOOLKIT_MESSAGE_CODE } from '../../../src/synth/toolkit-io-host';
import { RecordingIoHost } from '../../../src/util/io-host';
import { CdkdError, ConfigError, SynthesisError } from '../../../src/util/errors';

// Real synthesis through toolkit-lib, of apps written to a temp directory.
jest.setTimeout(60_000);

const CDK_LIB = JSON.stringify(require.resolve('aws-cdk-lib'));

function writeApp(dir: string, body: string, cdkJson: Record<string, unknown> = {}): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `const cdk = require(${CDK_LIB});\nconst app = new cdk.App();\n${body}\napp.synth();\n`,
  );
  fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js', ...cdkJson }));
}

function config(dir: string, extra: { context?: Record<string, unknown>; app?: string } = {}) {
  return {
    cwd: dir,
    app: extra.app ?? 'node app.js',
    output: 'cdk.out',
    context: extra.context ?? {},
    region: undefined,
    profile: undefined,
  };
}

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-synth-'));
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('synthesize an app with stages, dependencies, context and environments', () => {
  const dir = () => path.join(root, 'main');
  const host = new RecordingIoHost();

  beforeAll(() => {
    writeApp(
      dir(),
      `
const fs = require('node:fs');
fs.appendFileSync('runs.txt', 'run\\n');
console.error('hello from the app');
const producer = new cdk.Stack(app, 'Producer', { stackName: 'ProducerStack', tags: { team: 'blue' } });
new cdk.CfnOutput(producer, 'Greeting', { value: String(app.node.tryGetContext('greeting')) });
new cdk.CfnOutput(producer, 'FromFile', { value: String(app.node.tryGetContext('fromFile')) });
const consumer = new cdk.Stack(app, 'Consumer', { env: { account: '111122223333', region: 'eu-west-1' } });
consumer.addDependency(producer);
cdk.Annotations.of(consumer).addWarningV2('test:warn', 'careful with this one');
const pinned = new cdk.Stack(app, 'Pinned', { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } });
new cdk.CfnOutput(pinned, 'Account', { value: String(process.env.CDK_DEFAULT_ACCOUNT) });
const stage = new cdk.Stage(app, 'Beta');
new cdk.Stack(stage, 'Service');
`,
      { context: { greeting: 'from cdk.json', fromFile: 'cdk.json value' } },
    );
  });

  let result: Awaited<ReturnType<typeof synthesize>>;
  beforeAll(async () => {
    result = await synthesize({
      config: config(dir(), { context: { greeting: 'from --context' } }),
      ioHost: host,
      defaultEnvironment: { account: '444455556666', region: 'ap-southeast-2' },
    });
  });
  afterAll(async () => {
    await result?.dispose();
  });

  test('reads every stack, stages included, in assembly order', () => {
    expect(result.stacks.map((s) => [s.displayPath, s.stackName, s.topLevel])).toEqual([
      ['Producer', 'ProducerStack', true],
      ['Consumer', 'Consumer', true],
      ['Pinned', 'Pinned', true],
      ['Beta/Service', 'Beta-Service', false],
    ]);
    expect(result.stack('Beta/Service')?.displayName).toBe('Beta/Service (Beta-Service)');
    expect(result.directory).toBe(path.join(dir(), 'cdk.out'));
  });

  test('context from the command line wins over cdk.json, and both reach the app', () => {
    const outputs = result.stack('ProducerStack')!.template.Outputs as Record<string, { Value: string }>;
    expect(outputs.Greeting.Value).toBe('from --context');
    expect(outputs.FromFile.Value).toBe('cdk.json value');
  });

  test("environment-agnostic stacks take the caller's account and region; the app's own env is kept", () => {
    expect(result.stack('Producer')!.environment).toEqual({
      account: '444455556666',
      region: 'ap-southeast-2',
      name: 'aws://444455556666/ap-southeast-2',
      accountFromApp: false,
      regionFromApp: false,
    });
    expect(result.stack('Consumer')!.environment).toMatchObject({
      account: '111122223333',
      region: 'eu-west-1',
      accountFromApp: true,
    });
  });

  test('the default environment reaches the app as CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION', () => {
    const pinned = result.stack('Pinned')!;
    expect(pinned.environment).toMatchObject({
      account: '444455556666',
      region: 'ap-southeast-2',
      accountFromApp: true,
    });
    expect((pinned.template.Outputs as Record<string, { Value: string }>).Account.Value).toBe('444455556666');
  });

  test('dependencies, tags, template file and asset manifests are read', () => {
    const consumer = result.stack('Consumer')!;
    expect(consumer.dependencies).toEqual(['Producer']);
    expect(consumer.dependencyNames).toEqual(['ProducerStack']);
    const producer = result.stack('Producer')!;
    expect(producer.tags).toEqual({ team: 'blue' });
    expect(JSON.parse(fs.readFileSync(producer.templateFile, 'utf8'))).toEqual(producer.template);
    expect(producer.assetManifests).toHaveLength(1);
    expect(fs.existsSync(producer.assetManifests[0].file)).toBe(true);
    const service = result.stack('Beta/Service')!;
    expect(service.assemblyDirectory).toBe(path.join(dir(), 'cdk.out', 'assembly-Beta'));
  });

  test("the app's stderr is forwarded to the IoHost as ordinary output", () => {
    const forwarded = host
      .byCode(TOOLKIT_MESSAGE_CODE)
      .filter((m) => m.message.includes('hello from the app'));
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0].level).toBe('info');
  });

  test('selecting a stack reports its warnings with the construct path, and the app ran once', () => {
    const before = host.byCode(ANNOTATION_CODE).length;
    expect(result.select({ patterns: ['Consumer'], exclusively: true }).map((s) => s.stackName)).toEqual([
      'Consumer',
    ]);
    const warnings = host.byCode(ANNOTATION_CODE).slice(before);
    expect(warnings.map((m) => [m.level, m.message])).toEqual([
      ['warn', expect.stringMatching(/^\[Consumer\] careful with this one/)],
    ]);
    expect(fs.readFileSync(path.join(dir(), 'runs.txt'), 'utf8')).toBe('run\n');
  });

  test('--app pointing at a cloud assembly directory reads it without running the app (or loading toolkit-lib), under a read lock', async () => {
    await result.dispose();
    const out = path.join(dir(), 'cdk.out');
    const locks = () => fs.readdirSync(out).filter((f) => f.endsWith('.lock'));
    const again = await synthesize({
      config: config(dir(), { app: 'cdk.out' }),
      ioHost: new RecordingIoHost(),
    });
    try {
      expect(again.stacks.map((s) => s.displayPath)).toEqual([
        'Producer',
        'Consumer',
        'Pinned',
        'Beta/Service',
      ]);
      expect(again.stacks.find((s) => s.displayPath === 'Consumer')!.template).toEqual(
        JSON.parse(
          fs.readFileSync(again.stacks.find((s) => s.displayPath === 'Consumer')!.templateFile, 'utf8'),
        ),
      );
      expect(fs.readFileSync(path.join(dir(), 'runs.txt'), 'utf8')).toBe('run\n');
      // toolkit-lib's reader marker, which a CDK CLI synthesizing into the directory respects.
      expect(locks()).toEqual([expect.stringMatching(new RegExp(`^read\\.${process.pid}\\.\\d+\\.lock$`))]);
    } finally {
      await again.dispose();
    }
    expect(locks()).toEqual([]);
  });

  test("an assembly directory another live process is writing into is refused; a dead writer's lock is cleared", async () => {
    const out = path.join(dir(), 'cdk.out');
    const writerLock = path.join(out, 'synth.lock');
    const livePid = process.ppid;
    fs.writeFileSync(writerLock, String(livePid));
    try {
      await expect(
        synthesize({ config: config(dir(), { app: 'cdk.out' }), ioHost: new RecordingIoHost() }),
      ).rejects.toMatchObject({
        code: 'ASSEMBLY_DIRECTORY_BUSY',
        message: expect.stringContaining(`another CLI (PID=${livePid}) is currently synthesizing into it`),
      });
      // A PID no process has: the lock is stale, removed, and the read goes ahead.
      fs.writeFileSync(writerLock, '999999999');
      const read = await synthesize({
        config: config(dir(), { app: 'cdk.out' }),
        ioHost: new RecordingIoHost(),
      });
      await read.dispose();
      expect(fs.existsSync(writerLock)).toBe(false);
    } finally {
      fs.rmSync(writerLock, { force: true });
    }
  });
});

describe('synthesis failures', () => {
  test('an error annotation fails the selection, naming the construct path', async () => {
    const dir = path.join(root, 'annotated');
    writeApp(
      dir,
      `
const stack = new cdk.Stack(app, 'Broken');
const res = new cdk.CfnResource(stack, 'Thing', { type: 'AWS::SQS::Queue' });
cdk.Annotations.of(res).addError('this queue is misconfigured');
`,
    );
    const host = new RecordingIoHost();
    const asm = await synthesize({ config: config(dir), ioHost: host });
    try {
      let caught: unknown;
      try {
        asm.select({});
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(SynthesisError);
      expect((caught as SynthesisError).message).toContain('[Broken/Thing] this queue is misconfigured');
      expect(host.byCode(ANNOTATION_CODE).map((m) => m.level)).toEqual(['error']);
    } finally {
      await asm.dispose();
    }
  });

  test("the validation report's violations are shown, and its errors fail the selection", async () => {
    const dir = path.join(root, 'validated');
    writeApp(
      dir,
      `
const report = (name, severity, logicalId) => ({
  name, version: '1.0.0',
  validate: (ctx) => ({
    success: severity !== 'error',
    violations: [{ ruleName: name + '-rule', description: name + ' says no', severity,
      violatingResources: [{ resourceLogicalId: logicalId, templatePath: ctx.templatePaths[0], locations: ['Properties'] }] }],
  }),
});
cdk.Validations.of(app).addPlugins(report('lenient', 'warning', 'First'), report('strict', 'error', 'Second'));
const stack = new cdk.Stack(app, 'Checked');
new cdk.CfnResource(stack, 'First', { type: 'AWS::SQS::Queue' });
new cdk.CfnResource(stack, 'Second', { type: 'AWS::SQS::Queue' });
`,
    );
    const host = new RecordingIoHost();
    const asm = await synthesize({ config: config(dir), ioHost: host });
    try {
      expect(asm.stacks[0].annotations).toEqual([
        { level: 'warning', path: 'Checked/First', message: 'lenient says no (lenient lenient-rule)' },
        { level: 'error', path: 'Checked/Second', message: 'strict says no (strict strict-rule)' },
      ]);
      let caught: unknown;
      try {
        asm.select({});
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(SynthesisError);
      expect((caught as Error).message).toContain('[Checked/Second] strict says no');
      expect((caught as Error).message).not.toContain('lenient');
      expect(host.byCode(ANNOTATION_CODE).map((m) => m.level)).toEqual(['warn', 'error']);
    } finally {
      await asm.dispose();
    }
  });

  test('an app that throws fails with a SynthesisError that carries its message', async () => {
    const dir = path.join(root, 'throws');
    writeApp(dir, `throw new Error('the app blew up');`);
    const host = new RecordingIoHost();
    const err = await synthesize({ config: config(dir), ioHost: host }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SynthesisError);
    expect(CdkdError.isCdkdError(err) && err.code).toBe('SYNTHESIS_FAILED');
    expect((err as Error).message).toMatch(/Synthesis of the CDK app failed/);
    expect(host.text().join('\n')).toContain('the app blew up');
  });

  test('no app configured is a ConfigError naming the remedy', async () => {
    const err = await synthesize({
      config: { ...config(root), app: undefined },
      ioHost: new RecordingIoHost(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).remedy).toMatch(/--app/);
  });
});
