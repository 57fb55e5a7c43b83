/**
 * The platform under the services: one resource per object whatever API made
 * it (native or Cloud Control) and in the inventory, write-only properties
 * kept out of reads, unique generated identifiers and typed attributes,
 * AWS's public AMI parameters, faults matched on input members and services'
 * own fault modes, consistency switches, latency profiles, and a service
 * added through the module contract.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  DescribeLogGroupsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { PutObjectCommand, S3Client, CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { clientConfig, useEmulator } from './helpers';
import { logsLite } from './support/logs-lite';

const ctx = useEmulator({ services: [logsLite] });
const config = (region = 'us-east-1') => ({ ...clientConfig(ctx.emulator, region), maxAttempts: 1 });
let cc: CloudControlClient;
beforeAll(() => (cc = new CloudControlClient(config())));
afterAll(() => cc.destroy());
beforeEach(() => ctx.emulator.control.reset());

async function create(TypeName: string, desired: Record<string, unknown>) {
  const out = await cc.send(new CreateResourceCommand({ TypeName, DesiredState: JSON.stringify(desired) }));
  const { ProgressEvent } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
  return ProgressEvent!;
}

async function read(TypeName: string, Identifier: string): Promise<Record<string, unknown>> {
  const out = await cc.send(new GetResourceCommand({ TypeName, Identifier }));
  return JSON.parse(out.ResourceDescription!.Properties!) as Record<string, unknown>;
}

describe('a service added through the module contract', () => {
  test('its native resources are Cloud Control resources and inventory items, and the reverse', async () => {
    const logs = new CloudWatchLogsClient(config());
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/native' }));
    expect(await read('AWS::Logs::LogGroup', '/native')).toEqual({
      LogGroupName: '/native',
      Arn: 'arn:aws:logs:us-east-1:123456789012:log-group:/native:*',
    });
    await create('AWS::Logs::LogGroup', { LogGroupName: '/by-cloud-control', RetentionInDays: 7 });
    const { logGroups } = await logs.send(new DescribeLogGroupsCommand({}));
    expect(logGroups!.map((g) => [g.logGroupName, g.retentionInDays])).toEqual([
      ['/native', undefined],
      ['/by-cloud-control', 7],
    ]);
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Logs::LogGroup' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier).sort()).toEqual([
      '/by-cloud-control',
      '/native',
    ]);
    const inventory = (await ctx.emulator.control.inventory()).filter(
      (i) => i.type === 'AWS::Logs::LogGroup',
    );
    expect(inventory.map((i) => i.identifier).sort()).toEqual(['/by-cloud-control', '/native']);
    logs.destroy();
  });

  test('its fault modes and latency figures are reachable through the control API', async () => {
    const logs = new CloudWatchLogsClient(config());
    await ctx.emulator.control.addFault({ service: 'logs', operation: 'CreateLogGroup', mode: 'twice' });
    await expect(logs.send(new CreateLogGroupCommand({ logGroupName: '/twice' }))).rejects.toMatchObject({
      name: 'ResourceAlreadyExistsException',
    });
    await expect(ctx.emulator.control.addFault({ service: 's3', mode: 'twice' })).rejects.toThrow(/"mode"/);

    await ctx.emulator.control.setLatencyProfile({ name: 'realistic' });
    const rules = await ctx.emulator.control.latency();
    expect(rules).toEqual(
      expect.arrayContaining([
        { service: 'logs', operation: '*', ms: 40 },
        { service: 'logs', operation: 'CreateLogGroup', ms: 60 },
      ]),
    );
    const types = await ctx.emulator.control.typeSettings();
    expect(types['AWS::Logs::LogGroup']).toEqual({ latencyMsByOperation: { CREATE: 2500 } });
    await ctx.emulator.control.setLatencyProfile({ name: 'flat', callMs: 50, cloudControlMs: 1000 });
    expect(await ctx.emulator.control.latency()).toEqual([{ service: '*', operation: '*', ms: 50 }]);
    expect((await ctx.emulator.control.typeSettings())['*']).toEqual({
      latencyMsByOperation: { CREATE: 1000, UPDATE: 1000, DELETE: 1000 },
    });
    expect(await ctx.emulator.control.latencyProfile()).toEqual({
      name: 'flat',
      callMs: 50,
      cloudControlMs: 1000,
    });
    logs.destroy();
  });
});

describe('one object per resource across APIs', () => {
  test('a secret made natively is a Cloud Control resource without its write-only value, and the reverse', async () => {
    const sm = new SecretsManagerClient(config());
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'db', SecretString: 'hunter2' }));
    const props = await read('AWS::SecretsManager::Secret', ARN!);
    expect(props).toEqual({ Id: ARN, Name: 'db' });
    const event = await create('AWS::SecretsManager::Secret', {
      Name: 'generated',
      GenerateSecretString: { PasswordLength: 20, ExcludePunctuation: true },
    });
    expect(JSON.parse(event.ResourceModel!)).not.toHaveProperty('GenerateSecretString');
    const value = await sm.send(new GetSecretValueCommand({ SecretId: 'generated' }));
    expect(value.SecretString).toMatch(/^[A-Za-z0-9]{20}$/);
    sm.destroy();
  });

  test('an SSM parameter read through Cloud Control leaves out its write-only tags, description and tier', async () => {
    await create('AWS::SSM::Parameter', {
      Name: '/p',
      Type: 'String',
      Value: 'v',
      Description: 'd',
      Tags: { a: 'b' },
    });
    expect(await read('AWS::SSM::Parameter', '/p')).toEqual({
      Name: '/p',
      Type: 'String',
      Value: 'v',
      DataType: 'text',
      Arn: 'arn:aws:ssm:us-east-1:123456789012:parameter/p',
    });
    const inventory = (await ctx.emulator.control.inventory()).find((i) => i.type === 'AWS::SSM::Parameter');
    expect(inventory!.properties).toMatchObject({ Description: 'd', Tags: { a: 'b' } });
  });
});

describe('generated values follow the schema', () => {
  test('two unnamed ECS services in one cluster get distinct names and ARNs', async () => {
    const a = await create('AWS::ECS::Service', { Cluster: 'shared', TaskDefinition: 'td:1' });
    const b = await create('AWS::ECS::Service', { Cluster: 'shared', TaskDefinition: 'td:1' });
    const [arnA, arnB] = [a, b].map(
      (e) => (JSON.parse(e.ResourceModel!) as { ServiceArn: string }).ServiceArn,
    );
    expect(arnA).toMatch(/^arn:aws:ecs:us-east-1:123456789012:service\/shared\/Service-[A-Z0-9]{12}$/);
    expect(arnB).not.toBe(arnA);
    expect(a.Identifier).not.toBe(b.Identifier);
  });

  test("an RDS endpoint's Port is the engine's port, typed as the schema says", async () => {
    const instance = await create('AWS::RDS::DBInstance', {
      DBInstanceClass: 'db.t3.micro',
      Engine: 'postgres',
    });
    const model = JSON.parse(instance.ResourceModel!) as { Endpoint: { Port: unknown; Address: string } };
    expect(model.Endpoint.Port).toBe('5432');
    const cluster = await create('AWS::RDS::DBCluster', { Engine: 'aurora-mysql' });
    expect((JSON.parse(cluster.ResourceModel!) as { Endpoint: { Port: unknown } }).Endpoint.Port).toBe(
      '3306',
    );
  });
});

describe("AWS's public AMI parameters", () => {
  test('exist in every region, by name, in batches and by path', async () => {
    const names = [
      '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
      '/aws/service/ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2',
      '/aws/service/ami-windows-latest/Windows_Server-2022-English-Full-Base',
      '/aws/service/ecs/optimized-ami/amazon-linux-2/recommended/image_id',
      '/aws/service/bottlerocket/aws-ecs-2/arm64/latest/image_id',
      '/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id',
    ];
    const ids = new Map<string, string>();
    for (const region of ['us-east-1', 'eu-central-1', 'ap-southeast-2']) {
      const ssm = new SSMClient(config(region));
      const { Parameters, InvalidParameters } = await ssm.send(
        new GetParametersCommand({ Names: names.slice(0, 6) }),
      );
      expect(InvalidParameters).toEqual([]);
      for (const p of Parameters!) {
        expect(p.Value).toMatch(/^ami-[0-9a-f]{17}$/);
        expect(p).toMatchObject({ Type: 'String', DataType: 'aws:ec2:image' });
        expect(ids.get(`${region}${p.Name}`) ?? p.Value).toBe(p.Value);
        ids.set(`${region}${p.Name}`, p.Value!);
      }
      const { Parameter } = await ssm.send(new GetParameterCommand({ Name: names[0] }));
      expect(Parameter!.ARN).toBe(`arn:aws:ssm:${region}::parameter${names[0]}`);
      const byPath = await ssm.send(
        new GetParametersByPathCommand({ Path: '/aws/service/ami-amazon-linux-latest', MaxResults: 10 }),
      );
      expect(byPath.Parameters).toHaveLength(10);
      expect(byPath.NextToken).toBeDefined();
      await expect(
        ssm.send(new GetParameterCommand({ Name: '/aws/service/ami-amazon-linux-latest/no-such-alias' })),
      ).rejects.toMatchObject({ name: 'ParameterNotFound' });
      ssm.destroy();
    }
    expect(ids.get(`us-east-1${names[0]}`)).not.toBe(ids.get(`eu-central-1${names[0]}`));
    expect((await ctx.emulator.control.inventory()).filter((i) => i.type === 'AWS::SSM::Parameter')).toEqual(
      [],
    );
  });
});

describe('faults through the contract', () => {
  test('an S3 PutObject on one chosen key is applied with its reply lost; other keys are untouched', async () => {
    const s3 = new S3Client(config());
    await s3.send(new CreateBucketCommand({ Bucket: 'faulty' }));
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      match: { Key: 'locks/a.json' },
      mode: 'drop',
    });
    await s3.send(new PutObjectCommand({ Bucket: 'faulty', Key: 'locks/b.json', Body: 'b' }));
    await expect(
      s3.send(new PutObjectCommand({ Bucket: 'faulty', Key: 'locks/a.json', Body: 'a' })),
    ).rejects.toThrow();
    const got = await s3.send(new GetObjectCommand({ Bucket: 'faulty', Key: 'locks/a.json' }));
    expect(await got.Body!.transformToString()).toBe('a');
    s3.destroy();
  });

  test('error-after: the call takes effect and answers an error', async () => {
    const sqs = new SQSClient(config());
    await ctx.emulator.control.addFault({
      service: 'sqs',
      operation: 'CreateQueue',
      mode: 'error-after',
      error: 500,
    });
    await expect(sqs.send(new CreateQueueCommand({ QueueName: 'applied' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 500 },
    });
    expect((await sqs.send(new ListQueuesCommand({}))).QueueUrls).toHaveLength(1);
    sqs.destroy();
  });
});

describe('eventual consistency switches', () => {
  test('off by default; switched on, ListQueues does not list a queue younger than the lag', async () => {
    const sqs = new SQSClient(config());
    const switches = await ctx.emulator.control.consistency();
    expect(switches.find((s) => s.name === 'sqs.list-after-create')).toMatchObject({ enabled: false });
    await ctx.emulator.control.setConsistency('sqs.list-after-create', { enabled: true, delayMs: 3_600_000 });
    await sqs.send(new CreateQueueCommand({ QueueName: 'young' }));
    expect((await sqs.send(new ListQueuesCommand({}))).QueueUrls).toBeUndefined();
    await ctx.emulator.control.setConsistency('sqs.list-after-create', { enabled: false });
    expect((await sqs.send(new ListQueuesCommand({}))).QueueUrls).toHaveLength(1);
    await expect(ctx.emulator.control.setConsistency('no.such', { enabled: true })).rejects.toThrow(/404/);
    sqs.destroy();
  });
});
