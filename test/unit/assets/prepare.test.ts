import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as cdk from 'aws-cdk-lib';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { prepareStackAssets } from '../../../src/assets/prepare';
import { rewriteStorageNames } from '../../../src/assets/template-rewrite';
import { readStacks } from '../../../src/synth/cloud-assembly';
import type { CloudAssemblyLike, SynthesizedStack } from '../../../src/synth/cloud-assembly';
import { AssetPublishError } from '../../../src/util/errors';

// Real aws-cdk-lib synthesis (in-process) of stacks with file, directory and image assets.
jest.setTimeout(60_000);

let root: string;
let agnostic: SynthesizedStack;
let pinned: SynthesizedStack;
let withImage: SynthesizedStack;
let withNested: SynthesizedStack;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-assets-'));
  const code = path.join(root, 'code');
  fs.mkdirSync(code);
  fs.writeFileSync(path.join(code, 'index.js'), 'exports.handler = async () => 1;\n');
  const image = path.join(root, 'image');
  fs.mkdirSync(image);
  fs.writeFileSync(path.join(image, 'Dockerfile'), 'FROM scratch\n');

  const app = new cdk.App({ outdir: path.join(root, 'cdk.out') });
  const addAssets = (stack: cdk.Stack): void => {
    new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(code),
    });
    const file = new s3assets.Asset(stack, 'File', { path: path.join(code, 'index.js') });
    file.grantRead(
      new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
    );
  };
  addAssets(new cdk.Stack(app, 'Agnostic'));
  addAssets(new cdk.Stack(app, 'Pinned', { env: { account: '123456789012', region: 'eu-west-1' } }));
  const imageStack = new cdk.Stack(app, 'WithImage');
  const imageAsset = new ecrAssets.DockerImageAsset(imageStack, 'Image', { directory: image });
  new ssm.StringParameter(imageStack, 'ImageUri', { stringValue: imageAsset.imageUri });
  const parent = new cdk.Stack(app, 'WithNested');
  const nested = new cdk.NestedStack(parent, 'Child');
  new lambda.Function(nested, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromAsset(code),
  });
  const assembly = app.synth() as unknown as CloudAssemblyLike;
  [agnostic, pinned, withImage, withNested] = readStacks(assembly, {
    account: '111111111111',
    region: 'us-west-2',
  });
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** Every string in the value, flattened. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('prepareStackAssets in cdkd mode', () => {
  const mode = {
    mode: 'cdkd' as const,
    assetBucket: 'cdkd-assets-111111111111-us-west-2',
    containerRepository: 'cdkd-container-assets-111111111111-us-west-2',
  };

  test("plans the stack's file and directory assets to the cdkd bucket, without the stack's own template", () => {
    const prepared = prepareStackAssets(agnostic, mode);
    expect(prepared.assets.map((a) => [a.type, a.displayName]).sort()).toEqual([
      ['file', 'File'],
      ['file', 'Fn/Code'],
    ]);
    for (const a of prepared.assets) {
      expect(a.destination).toMatch(/^s3:\/\/cdkd-assets-111111111111-us-west-2\/[0-9a-f]{64}\.(zip|js)$/);
      expect(fs.existsSync(a.sourcePath!)).toBe(true);
      // No role to assume, and the stack's region.
      expect(a.entry.genericDestination).toEqual({
        bucketName: mode.assetBucket,
        objectKey: expect.any(String),
        region: 'us-west-2',
      });
    }
  });

  test('rewrites every template reference to the CDK asset bucket, and leaves the synthesized template alone', () => {
    const { template } = prepareStackAssets(agnostic, mode);
    const fn = Object.values(
      template.Resources as Record<string, { Type: string; Properties: { Code?: unknown } }>,
    ).find((r) => r.Type === 'AWS::Lambda::Function')!;
    expect(fn.Properties.Code).toEqual({
      S3Bucket: { 'Fn::Sub': mode.assetBucket },
      S3Key: expect.stringMatching(/\.zip$/),
    });
    expect(strings(template).filter((s) => s.includes('hnb659fds-assets'))).toEqual([]);
    expect(strings(template).filter((s) => s.includes(mode.assetBucket)).length).toBeGreaterThanOrEqual(3);
    expect(
      strings(agnostic.template).some((s) =>
        s.includes('cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}'),
      ),
    ).toBe(true);
  });

  test("rewrites the concrete bucket names of a stack with an explicit environment, and keeps the stack's region", () => {
    const prepared = prepareStackAssets(pinned, {
      mode: 'cdkd',
      assetBucket: 'cdkd-assets-123456789012-eu-west-1',
    });
    expect(strings(prepared.template).filter((s) => s.includes('cdk-hnb659fds-assets'))).toEqual([]);
    expect(strings(prepared.template)).toContain(':s3:::cdkd-assets-123456789012-eu-west-1/*');
    for (const a of prepared.assets)
      expect((a.entry.genericDestination as { region: string }).region).toBe('eu-west-1');
  });

  test('plans image assets to the cdkd container repository and rewrites the image URI', () => {
    const prepared = prepareStackAssets(withImage, mode);
    expect(prepared.assets.map((a) => a.type)).toEqual(['docker-image']);
    expect(prepared.assets[0].destination).toMatch(
      /^cdkd-container-assets-111111111111-us-west-2:[0-9a-f]{64}$/,
    );
    expect(prepared.assets[0].sourcePath).toMatch(/asset\.[0-9a-f]{64}$/);
    const uris = strings(prepared.template).filter((s) => s.includes('.dkr.ecr.'));
    expect(uris).toEqual([
      expect.stringMatching(/\/cdkd-container-assets-111111111111-us-west-2:[0-9a-f]{64}$/),
    ]);
  });

  test("the same rewrite applies to the stack's nested-stack templates, whose assets share its manifest", () => {
    const prepared = prepareStackAssets(withNested, mode);
    expect(prepared.assets.map((a) => a.displayName).sort()).toEqual([
      'Child Nested Stack Template',
      'Child/Fn/Code',
    ]);
    const nestedFile = fs
      .readdirSync(withNested.assemblyDirectory)
      .find((f) => f.endsWith('.nested.template.json'))!;
    const nestedTemplate = JSON.parse(
      fs.readFileSync(path.join(withNested.assemblyDirectory, nestedFile), 'utf8'),
    ) as Record<string, unknown>;
    expect(strings(nestedTemplate).some((s) => s.includes('hnb659fds-assets'))).toBe(true);
    const rewritten = rewriteStorageNames(nestedTemplate, prepared.replacements);
    expect(strings(rewritten).filter((s) => s.includes('hnb659fds-assets'))).toEqual([]);
    expect(strings(rewritten)).toContain(mode.assetBucket);
  });

  test('image assets without a cdkd container repository are refused, naming the stack and the asset', () => {
    let caught: unknown;
    try {
      prepareStackAssets(withImage, { mode: 'cdkd', assetBucket: mode.assetBucket });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AssetPublishError);
    expect((caught as AssetPublishError).message).toContain('WithImage');
    expect((caught as AssetPublishError).message).toContain('Image');
    expect((caught as AssetPublishError).remedy).toContain('cdkd bootstrap');
  });
});

describe('prepareStackAssets in cdk-bootstrap mode', () => {
  test("keeps the manifest's destinations (bootstrap bucket and publishing role) and the template as synthesized", () => {
    const prepared = prepareStackAssets(agnostic, { mode: 'cdk-bootstrap' });
    expect(prepared.template).toBe(agnostic.template);
    expect(prepared.assets).toHaveLength(2);
    for (const a of prepared.assets) {
      expect(a.destination).toMatch(
        /^s3:\/\/cdk-hnb659fds-assets-111111111111-us-west-2\/[0-9a-f]{64}\.(zip|js)$/,
      );
      expect((a.entry.genericDestination as { assumeRoleArn: string }).assumeRoleArn).toContain(
        'cdk-hnb659fds-file-publishing-role',
      );
    }
  });
});
