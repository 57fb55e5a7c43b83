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
