import { CloudControlClient, CreateResourceCommand, GetResourceCommand } from '@aws-sdk/client-cloudcontrol';
import { CloudFormationClient, ListExportsCommand } from '@aws-sdk/client-cloudformation';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator as start, type EmulatorOptions, type RunningEmulator } from '../src/index';
import { clientConfig } from './helpers';

// Stopped after the test even when an assertion fails, so no server is left open.
const running = new Set<RunningEmulator>();
async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const emulator = await start(options);
  const stop = emulator.stop;
  emulator.stop = async () => {
    running.delete(emulator);
    await stop();
  };
  running.add(emulator);
  return emulator;
}
afterEach(async () => {
  for (const emulator of [...running]) await emulator.stop();
});

test('--state-dir keeps every resource across a restart', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emulator-state-'));
  const first = await startEmulator({ port: 0, stateDir: dir });
  const s3 = new S3Client(clientConfig(first));
  await s3.send(new CreateBucketCommand({ Bucket: 'kept-bucket' }));
  await s3.send(
    new PutBucketVersioningCommand({ Bucket: 'kept-bucket', VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const v1 = await s3.send(new PutObjectCommand({ Bucket: 'kept-bucket', Key: 'state.json', Body: 'one' }));
  await s3.send(new PutObjectCommand({ Bucket: 'kept-bucket', Key: 'state.json', Body: 'two' }));
  await new SQSClient(clientConfig(first)).send(new CreateQueueCommand({ QueueName: 'kept-queue' }));
  await new SSMClient(clientConfig(first)).send(
    new PutParameterCommand({ Name: '/kept', Value: 'v', Type: 'SecureString' }),
  );
  const cc = new CloudControlClient(clientConfig(first));
  await cc.send(
    new CreateResourceCommand({
      TypeName: 'AWS::Logs::LogGroup',
      DesiredState: JSON.stringify({ LogGroupName: 'kept-logs' }),
    }),
  );
  await first.control.seedStack({
    stackName: 'Kept',
    outputs: [{ OutputKey: 'O', OutputValue: 'v', ExportName: 'kept-export' }],
  });
  const assumed = await new STSClient(clientConfig(first)).send(
    new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::444444444444:role/r', RoleSessionName: 'session' }),
  );
  await first.stop();
  expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(true);

  const second = await startEmulator({ port: 0, stateDir: dir });
  const s3b = new S3Client(clientConfig(second));
  expect(
    await (
      await s3b.send(new GetObjectCommand({ Bucket: 'kept-bucket', Key: 'state.json' }))
    ).Body?.transformToString(),
  ).toBe('two');
  expect(
    await (
      await s3b.send(
        new GetObjectCommand({ Bucket: 'kept-bucket', Key: 'state.json', VersionId: v1.VersionId }),
      )
    ).Body?.transformToString(),
  ).toBe('one');
  expect((await s3b.send(new ListObjectVersionsCommand({ Bucket: 'kept-bucket' }))).Versions).toHaveLength(2);
  expect(
    (await new SQSClient(clientConfig(second)).send(new GetQueueUrlCommand({ QueueName: 'kept-queue' })))
      .QueueUrl,
  ).toBe(`${second.url}/123456789012/kept-queue`);
  expect(
    (
      await new SSMClient(clientConfig(second)).send(
        new GetParameterCommand({ Name: '/kept', WithDecryption: true }),
      )
    ).Parameter?.Value,
  ).toBe('v');
  const got = await new CloudControlClient(clientConfig(second)).send(
    new GetResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: 'kept-logs' }),
  );
  expect(JSON.parse(got.ResourceDescription!.Properties!)).toMatchObject({ LogGroupName: 'kept-logs' });
  expect(
    (await new CloudFormationClient(clientConfig(second)).send(new ListExportsCommand({}))).Exports?.map(
      (e) => e.Name,
    ),
  ).toEqual(['kept-export']);
  const asRole = new STSClient(
    clientConfig(second, 'us-east-1', {
      accessKeyId: assumed.Credentials!.AccessKeyId!,
      secretAccessKey: assumed.Credentials!.SecretAccessKey!,
      sessionToken: assumed.Credentials!.SessionToken!,
    }),
  );
  expect((await asRole.send(new GetCallerIdentityCommand({}))).Account).toBe('444444444444');
  await second.control.reset();
  await second.stop();

  const third = await startEmulator({ port: 0, stateDir: dir });
  expect(await third.control.inventory()).toEqual([]);
  await third.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a state file of format 1 (every store at the top level) is read back', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emulator-state-v1-'));
  const now = new Date('2025-01-01T00:00:00Z').toISOString();
  fs.writeFileSync(
    path.join(dir, 'state.json'),
    JSON.stringify({
      formatVersion: 1,
      defaultAccount: '123456789012',
      credentials: [],
      buckets: [
        {
          name: 'old-bucket',
          account: '123456789012',
          region: 'us-east-1',
          creationDate: now,
          encryption: [{ SSEAlgorithm: 'AES256', BucketKeyEnabled: false }],
          extraProperties: {},
          objects: [
            [
              {
                key: 'k',
                versionId: 'null',
                deleteMarker: false,
                body: Buffer.from('old').toString('base64'),
                etag: '"x"',
                lastModified: now,
                contentType: 'text/plain',
                metadata: {},
                systemHeaders: {},
                storageClass: 'STANDARD',
                tags: [],
              },
            ],
          ],
          uploads: [],
        },
      ],
      queues: [
        {
          account: '123456789012',
          region: 'us-east-1',
          name: 'old-queue',
          created: 1,
          lastModified: 1,
          attributes: {},
          tags: {},
        },
      ],
      parameters: [],
      stacks: [],
      records: [],
    }),
  );
  const emulator = await startEmulator({ port: 0, stateDir: dir });
  const s3 = new S3Client(clientConfig(emulator));
  const object = await s3.send(new GetObjectCommand({ Bucket: 'old-bucket', Key: 'k' }));
  expect(await object.Body!.transformToString()).toBe('old');
  const sqs = new SQSClient(clientConfig(emulator));
  expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'old-queue' }))).QueueUrl).toMatch(/old-queue$/);
  s3.destroy();
  sqs.destroy();
  await emulator.stop();
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'))).toMatchObject({
    formatVersion: 2,
    services: { s3: { buckets: [{ name: 'old-bucket' }] }, sqs: { queues: [{ name: 'old-queue' }] } },
  });
  fs.rmSync(dir, { recursive: true, force: true });
});
