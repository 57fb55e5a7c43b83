import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { startEmulator } from '../emulator/src';
import type { RunningEmulator } from '../emulator/src';
import { publishAssets } from '../../src/assets/publish';
import type { AssetMode } from '../../src/assets/asset-mode';
import { AwsClientFactory } from '../../src/config/aws-clients';
import { defaultEnvironmentOf, synthesize } from '../../src/synth/synthesize';
import type { SynthesizedAssembly } from '../../src/synth/cloud-assembly';
import { AssetPublishError } from '../../src/util/errors';
import { RecordingIoHost } from '../../src/util/io-host';

// Asset publishing into the emulator through the real AWS SDK, of real aws-cdk-lib apps.
jest.setTimeout(120_000);
const root = path.resolve(__dirname, '..', '..');
const REGION = 'us-east-1';
const credentials = { accessKeyId: 'AKIAEMULATOREXAMPLE1', secretAccessKey: 'emulator-secret' };

let emulator: RunningEmulator;
let s3: S3Client;
let aws: AwsClientFactory;
let account: string;
let tmp: string;
/** examples/lambda-asset-app, synthesized once for the tests that publish it. */
let lambdaApp: SynthesizedAssembly;

beforeAll(async () => {
  emulator = await startEmulator();
  s3 = new S3Client({ region: REGION, endpoint: emulator.url, forcePathStyle: true, credentials });
  aws = (
    await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url, env: {} })
  ).withCredentials(credentials, 'test');
  account = (await aws.callerIdentity()).account;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-assets-e2e-'));
  lambdaApp = await synth(path.join(root, 'examples', 'lambda-asset-app'));
});

afterAll(async () => {
  await lambdaApp?.dispose();
  await emulator?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(async () => {
  await emulator.control.reset();
});

async function synth(appDir: string): Promise<SynthesizedAssembly> {
  return synthesize({
    config: {
      cwd: appDir,
      app: 'node app.js',
      output: path.join(tmp, path.basename(appDir), 'cdk.out'),
      context: {},
    },
    ioHost: new RecordingIoHost(),
    defaultEnvironment: await defaultEnvironmentOf(aws),
  });
}

/** What `cdkd bootstrap` leaves behind: the state bucket, the asset bucket and the region's marker. */
async function bootstrapCdkdStorage(): Promise<AssetMode> {
  const stateBucket = `cdkd-state-${account}`;
  const assetBucket = `cdkd-assets-${account}-${REGION}`;
  await s3.send(new CreateBucketCommand({ Bucket: stateBucket }));
  await s3.send(new CreateBucketCommand({ Bucket: assetBucket }));
  const marker = {
    version: 1,
    region: REGION,
    assetBucket,
    containerRepository: `cdkd-container-assets-${account}-${REGION}`,
    createdAt: new Date().toISOString(),
  };
  await s3.send(
    new PutObjectCommand({
      Bucket: stateBucket,
      Key: `cdkd-bootstrap/${REGION}.json`,
      Body: JSON.stringify(marker),
    }),
  );
  // As the engine does: the mode comes from the marker.
  const body = await (
    await s3.send(new GetObjectCommand({ Bucket: stateBucket, Key: `cdkd-bootstrap/${REGION}.json` }))
  ).Body!.transformToString();
  const read = JSON.parse(body) as typeof marker;
  return { mode: 'cdkd', assetBucket: read.assetBucket, containerRepository: read.containerRepository };
}

async function keys(bucket: string): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

async function count(operation: string): Promise<number> {
  return (await emulator.control.requests()).byOperation[operation] ?? 0;
}

test("the Lambda's directory asset is zipped into the cdkd asset bucket once, and the template points at it", async () => {
  const mode = await bootstrapCdkdStorage();
  if (mode.mode !== 'cdkd') throw new Error('unreachable');
  {
    const [stack] = lambdaApp.select({});
    const host = new RecordingIoHost();
    const first = await publishAssets({ targets: [{ stack, mode }], aws, ioHost: host });

    expect(first.assets).toEqual([
      expect.objectContaining({
        type: 'file',
        displayName: 'Handler/Code',
        status: 'uploaded',
        stack: 'LambdaAssetApp',
      }),
    ]);
    const zipKey = first.assets[0].destination.replace(`s3://${mode.assetBucket}/`, '');
    // Only the function code: the stack's own template is not an asset cdkd needs.
    expect(await keys(mode.assetBucket)).toEqual([zipKey]);
    const zip = await (
      await s3.send(new GetObjectCommand({ Bucket: mode.assetBucket, Key: zipKey }))
    ).Body!.transformToByteArray();
    expect(Buffer.from(zip.subarray(0, 2)).toString('latin1')).toBe('PK');
    expect(Buffer.from(zip).includes(Buffer.from('index.js'))).toBe(true);

    const template = first.templates.get(stack.artifactId)! as {
      Resources: Record<string, { Type: string; Properties: { Code?: unknown } }>;
    };
    const fn = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::Function')!;
    expect(fn.Properties.Code).toEqual({ S3Bucket: { 'Fn::Sub': mode.assetBucket }, S3Key: zipKey });
    expect(
      host.messages.some(
        (m) => m.code === 'CDKD_ASSET_PROGRESS' && m.level === 'info' && /Upload/.test(m.message),
      ),
    ).toBe(true);

    // A second publish finds the object and uploads nothing.
    await emulator.control.clearRequests();
    const second = await publishAssets({ targets: [{ stack, mode }], aws, ioHost: new RecordingIoHost() });
    expect(second.assets.map((a) => a.status)).toEqual(['already-published']);
    expect(await count('s3:PutObject')).toBe(0);
    expect(await count('s3:CreateMultipartUpload')).toBe(0);
    expect(await count('s3:ListObjectsV2')).toBe(1);
  }
});

test('without the marker, assets go to the CDK bootstrap bucket as the manifest says, through its publishing role', async () => {
  const cdkBucket = `cdk-hnb659fds-assets-${account}-${REGION}`;
  await s3.send(new CreateBucketCommand({ Bucket: cdkBucket }));
  {
    const [stack] = lambdaApp.select({});
    const result = await publishAssets({
      targets: [{ stack, mode: { mode: 'cdk-bootstrap' } }],
      aws,
      ioHost: new RecordingIoHost(),
    });
    expect(result.assets.map((a) => a.status)).toEqual(['uploaded']);
    expect(await keys(cdkBucket)).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.zip$/)]);
    expect(result.templates.get(stack.artifactId)).toBe(stack.template);
    expect(await count('sts:AssumeRole')).toBe(1);
  }
});

test('a missing CDK bootstrap bucket fails naming the asset and the remedy', async () => {
  {
    const [stack] = lambdaApp.select({});
    const err = await publishAssets({
      targets: [{ stack, mode: { mode: 'cdk-bootstrap' } }],
      aws,
      ioHost: new RecordingIoHost(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssetPublishError);
    expect((err as AssetPublishError).message).toContain('LambdaAssetApp: Handler/Code');
    expect((err as AssetPublishError).message).toContain(
      `to s3://cdk-hnb659fds-assets-${account}-${REGION}/`,
    );
    expect((err as AssetPublishError).remedy).toMatch(/cdk bootstrap/);
  }
});

test('an image asset without docker fails before anything is uploaded, naming the asset and what is missing', async () => {
  const mode = await bootstrapCdkdStorage();
  if (mode.mode !== 'cdkd') throw new Error('unreachable');
  const appDir = path.join(tmp, 'image-app');
  fs.mkdirSync(path.join(appDir, 'image'), { recursive: true });
  fs.writeFileSync(path.join(appDir, 'image', 'Dockerfile'), 'FROM scratch\n');
  fs.writeFileSync(
    path.join(appDir, 'app.js'),
    `const cdk = require(${JSON.stringify(require.resolve('aws-cdk-lib'))});
const { DockerImageAsset } = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-ecr-assets'))});
const { Asset } = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-s3-assets'))});
const ssm = require(${JSON.stringify(require.resolve('aws-cdk-lib/aws-ssm'))});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'ImageApp');
const image = new DockerImageAsset(stack, 'Image', { directory: __dirname + '/image' });
const file = new Asset(stack, 'File', { path: __dirname + '/app.js' });
new ssm.StringParameter(stack, 'Refs', { stringValue: image.imageUri + ' ' + file.s3ObjectUrl });
app.synth();
`,
  );
  const assembly = await synth(appDir);
  try {
    const [stack] = assembly.select({});
    const err = await publishAssets({
      targets: [{ stack, mode }],
      aws,
      ioHost: new RecordingIoHost(),
      dockerCommand: 'cdkd-test-no-such-docker',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssetPublishError);
    const e = err as AssetPublishError;
    expect(e.code).toBe('DOCKER_NOT_FOUND');
    expect(e.message).toContain("need 'cdkd-test-no-such-docker'");
    expect(e.message).toMatch(/ImageApp: Image \(asset [0-9a-f]{64}, built from .*asset\.[0-9a-f]{64}\)/);
    expect(e.remedy).toMatch(/Install Docker/);
    expect(await keys(mode.assetBucket)).toEqual([]);
  } finally {
    await assembly.dispose();
  }
});
