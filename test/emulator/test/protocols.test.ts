/**
 * Conformance of the model-driven codecs, one protocol at a time, through the
 * real AWS SDK v3 clients: a round trip, the four error kinds a client must
 * tell apart (not found, already exists, validation, throttling) and
 * pagination. restJson1 and restXml run on test-only services (Lambda's and
 * Route 53's models) registered through the same module contract.
 */
import {
  CloudFormationClient,
  DescribeStacksCommand,
  ListExportsCommand,
  paginateListExports,
} from '@aws-sdk/client-cloudformation';
import { DescribeAvailabilityZonesCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  CreateFunctionCommand,
  DeleteFunctionCommand,
  GetFunctionCommand,
  InvokeCommand,
  LambdaClient,
  paginateListFunctions,
} from '@aws-sdk/client-lambda';
import {
  CreateHostedZoneCommand,
  GetHostedZoneCommand,
  ListHostedZonesCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { CreateQueueCommand, GetQueueUrlCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  GetParameterCommand,
  paginateGetParametersByPath,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { clientConfig, useEmulator } from './helpers';
import { lambdaLite } from './support/lambda-lite';
import { route53Lite } from './support/route53-lite';

const ctx = useEmulator({ services: [lambdaLite, route53Lite] });
const config = () => ({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
beforeEach(() => ctx.emulator.control.reset());

/** The error a call rejects with. */
async function failure(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { $metadata?: { httpStatusCode?: number } };
  }
  throw new Error('expected the call to fail');
}

describe('awsJson1_0 (SQS, awsQueryCompatible)', () => {
  let sqs: SQSClient;
  beforeAll(() => (sqs = new SQSClient(config())));
  afterAll(() => sqs.destroy());

  test('round trip, errors with their query-compatible codes, pagination', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'a', tags: { t: '1' } }));
    expect(QueueUrl).toMatch(/\/123456789012\/a$/);
    expect(await failure(sqs.send(new GetQueueUrlCommand({ QueueName: 'missing' })))).toMatchObject({
      name: 'QueueDoesNotExist',
      $metadata: { httpStatusCode: 400 },
    });
    expect(
      await failure(sqs.send(new CreateQueueCommand({ QueueName: 'a', Attributes: { DelaySeconds: '9' } }))),
    ).toMatchObject({ name: 'QueueNameExists' });
    expect(
      await failure(
        sqs.send(new CreateQueueCommand({ QueueName: 'b', Attributes: { DelaySeconds: '9999' } })),
      ),
    ).toMatchObject({ name: 'InvalidAttributeValue' });
    await ctx.emulator.control.addFault({ service: 'sqs', operation: 'ListQueues', error: 429 });
    expect(await failure(sqs.send(new ListQueuesCommand({})))).toMatchObject({
      name: 'RequestThrottled',
      $metadata: { httpStatusCode: 403 },
    });
    for (const n of ['b', 'c', 'd']) await sqs.send(new CreateQueueCommand({ QueueName: n }));
    const first = await sqs.send(new ListQueuesCommand({ MaxResults: 3 }));
    const second = await sqs.send(new ListQueuesCommand({ MaxResults: 3, NextToken: first.NextToken }));
    expect([...first.QueueUrls!, ...second.QueueUrls!].map((u) => u.split('/').pop())).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(second.NextToken).toBeUndefined();
  });
});

describe('awsJson1_1 (SSM)', () => {
  let ssm: SSMClient;
  beforeAll(() => (ssm = new SSMClient(config())));
  afterAll(() => ssm.destroy());

  test('round trip with timestamps, errors, pagination', async () => {
    const before = Date.now() - 1000;
    await ssm.send(new PutParameterCommand({ Name: '/app/a', Value: 'x', Type: 'String' }));
    const { Parameter } = await ssm.send(new GetParameterCommand({ Name: '/app/a' }));
    expect(Parameter).toMatchObject({ Name: '/app/a', Value: 'x', Version: 1 });
    expect(Parameter!.LastModifiedDate).toBeInstanceOf(Date);
    expect(Parameter!.LastModifiedDate!.getTime()).toBeGreaterThan(before);
    expect(await failure(ssm.send(new GetParameterCommand({ Name: '/nope' })))).toMatchObject({
      name: 'ParameterNotFound',
      $metadata: { httpStatusCode: 400 },
    });
    expect(
      await failure(ssm.send(new PutParameterCommand({ Name: '/app/a', Value: 'y', Type: 'String' }))),
    ).toMatchObject({ name: 'ParameterAlreadyExists' });
    expect(
      await failure(
        ssm.send(new PutParameterCommand({ Name: '/app/b', Value: 'y', Type: 'Strong' as 'String' })),
      ),
    ).toMatchObject({ name: 'ValidationException' });
    await ctx.emulator.control.addFault({ service: 'ssm', error: 'ThrottlingException' });
    expect(await failure(ssm.send(new GetParameterCommand({ Name: '/app/a' })))).toMatchObject({
      name: 'ThrottlingException',
    });
    for (let i = 0; i < 12; i++)
      await ssm.send(
        new PutParameterCommand({ Name: `/many/p${String(i).padStart(2, '0')}`, Value: 'v', Type: 'String' }),
      );
    const names: string[] = [];
    for await (const page of paginateGetParametersByPath({ client: ssm }, { Path: '/many', MaxResults: 5 }))
      names.push(...(page.Parameters ?? []).map((p) => p.Name!));
    expect(names).toHaveLength(12);
  });
});

describe('awsQuery (STS, CloudFormation)', () => {
  let cfn: CloudFormationClient;
  let sts: STSClient;
  beforeAll(() => {
    cfn = new CloudFormationClient(config());
    sts = new STSClient(config());
  });
  afterAll(() => {
    cfn.destroy();
    sts.destroy();
  });

  test('round trip with nested lists and timestamps, errors, pagination', async () => {
    const role = await sts.send(
      new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::210987654321:role/deployer', RoleSessionName: 's1' }),
    );
    expect(role.Credentials!.Expiration).toBeInstanceOf(Date);
    expect(role.AssumedRoleUser!.Arn).toBe('arn:aws:sts::210987654321:assumed-role/deployer/s1');
    expect(
      await failure(
        sts.send(
          new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::210987654321:role/deployer', RoleSessionName: 'x' }),
        ),
      ),
    ).toMatchObject({ name: 'ValidationError', $metadata: { httpStatusCode: 400 } });

    const outputs = Array.from({ length: 120 }, (_, i) => ({
      OutputKey: `O${i}`,
      OutputValue: `v${i}`,
      ExportName: `E${String(i).padStart(3, '0')}`,
    }));
    await ctx.emulator.control.seedStack({
      stackName: 'Producer',
      outputs,
      tags: [{ Key: 'k', Value: 'v' }],
    });
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: 'Producer' }));
    expect(Stacks![0]!.Outputs).toHaveLength(120);
    expect(Stacks![0]!.Tags).toEqual([{ Key: 'k', Value: 'v' }]);
    expect(Stacks![0]!.CreationTime).toBeInstanceOf(Date);
    expect(await failure(cfn.send(new DescribeStacksCommand({ StackName: 'Nope' })))).toMatchObject({
      name: 'ValidationError',
      message: 'Stack with id Nope does not exist',
    });
    const names: string[] = [];
    for await (const page of paginateListExports({ client: cfn }, {}))
      names.push(...page.Exports!.map((e) => e.Name!));
    expect(names).toHaveLength(120);
    await ctx.emulator.control.addFault({ service: 'cloudformation', error: 429 });
    expect(await failure(cfn.send(new ListExportsCommand({})))).toMatchObject({ name: 'Throttling' });
  });
});

describe('ec2Query (EC2)', () => {
  let ec2: EC2Client;
  beforeAll(() => (ec2 = new EC2Client({ ...config(), region: 'eu-west-1' })));
  afterAll(() => ec2.destroy());

  test('flattened lists and filters in, item lists out, errors', async () => {
    const { AvailabilityZones } = await ec2.send(
      new DescribeAvailabilityZonesCommand({
        Filters: [{ Name: 'zone-name', Values: ['eu-west-1a', 'eu-west-1c'] }],
      }),
    );
    expect(AvailabilityZones!.map((z) => z.ZoneName)).toEqual(['eu-west-1a', 'eu-west-1c']);
    expect(AvailabilityZones![0]).toMatchObject({
      State: 'available',
      RegionName: 'eu-west-1',
      ZoneId: 'euw1-az1',
    });
    expect(
      await failure(
        ec2.send(new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'colour', Values: ['x'] }] })),
      ),
    ).toMatchObject({ name: 'InvalidParameterValue', $metadata: { httpStatusCode: 400 } });
    await ctx.emulator.control.addFault({ service: 'ec2', error: 429 });
    expect(await failure(ec2.send(new DescribeAvailabilityZonesCommand({})))).toMatchObject({
      name: 'RequestLimitExceeded',
      $metadata: { httpStatusCode: 503 },
    });
  });
});

describe('restJson1 (a test service on the Lambda model)', () => {
  let lambda: LambdaClient;
  beforeAll(() => (lambda = new LambdaClient(config())));
  afterAll(() => lambda.destroy());

  test('body, labels, query, headers, blob payload and status codes; modelled errors; pagination', async () => {
    const created = await lambda.send(
      new CreateFunctionCommand({
        FunctionName: 'f1',
        Role: 'arn:aws:iam::123456789012:role/r',
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Code: { ZipFile: Buffer.from('zip') },
        Environment: { Variables: { A: 'b' } },
      }),
    );
    expect(created).toMatchObject({ FunctionName: 'f1', Timeout: 3, Environment: { Variables: { A: 'b' } } });
    expect(created.$metadata.httpStatusCode).toBe(201);
    const got = await lambda.send(new GetFunctionCommand({ FunctionName: 'f1', Qualifier: 'prod' }));
    expect(got.Configuration!.FunctionArn).toBe('arn:aws:lambda:us-east-1:123456789012:function:f1');
    expect(got.Tags).toEqual({ qualifier: 'prod' });

    const ok = await lambda.send(new InvokeCommand({ FunctionName: 'f1', Payload: Buffer.from('{"a":1}') }));
    expect(ok).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
    expect(ok.FunctionError).toBeUndefined();
    expect(JSON.parse(Buffer.from(ok.Payload!).toString())).toEqual({ echo: { a: 1 } });
    const failed = await lambda.send(
      new InvokeCommand({ FunctionName: 'f1', Payload: Buffer.from('{"fail":true}') }),
    );
    expect(failed.FunctionError).toBe('Unhandled');
    const queued = await lambda.send(new InvokeCommand({ FunctionName: 'f1', InvocationType: 'Event' }));
    expect(queued.StatusCode).toBe(202);

    expect(await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'nope' })))).toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    const base = { Role: 'arn:aws:iam::123456789012:role/r', Code: { ZipFile: Buffer.from('z') } };
    expect(
      await failure(lambda.send(new CreateFunctionCommand({ FunctionName: 'f1', ...base }))),
    ).toMatchObject({
      name: 'ResourceConflictException',
      $metadata: { httpStatusCode: 409 },
    });
    expect(
      await failure(lambda.send(new CreateFunctionCommand({ FunctionName: 'f2', Timeout: 0, ...base }))),
    ).toMatchObject({ name: 'InvalidParameterValueException', $metadata: { httpStatusCode: 400 } });
    await ctx.emulator.control.addFault({ service: 'lambda', operation: 'GetFunction', error: 429 });
    expect(await failure(lambda.send(new GetFunctionCommand({ FunctionName: 'f1' })))).toMatchObject({
      name: 'TooManyRequestsException',
      $metadata: { httpStatusCode: 429 },
    });

    for (const n of ['f2', 'f3', 'f4', 'f5'])
      await lambda.send(new CreateFunctionCommand({ FunctionName: n, ...base }));
    const names: string[] = [];
    for await (const page of paginateListFunctions({ client: lambda }, { MaxItems: 2 }))
      names.push(...page.Functions!.map((f) => f.FunctionName!));
    expect(names).toEqual(['f1', 'f2', 'f3', 'f4', 'f5']);
    await lambda.send(new DeleteFunctionCommand({ FunctionName: 'f5' }));
    expect((await ctx.emulator.control.requests()).byOperation['lambda:DeleteFunction']).toBe(1);
  });
});

describe('restXml (a test service on the Route 53 model)', () => {
  let route53: Route53Client;
  beforeAll(() => (route53 = new Route53Client(config())));
  afterAll(() => route53.destroy());

  test('XML bodies, labels, query, a header and 201; modelled errors; pagination', async () => {
    const created = await route53.send(
      new CreateHostedZoneCommand({
        Name: 'example.com',
        CallerReference: 'ref-1',
        HostedZoneConfig: { Comment: 'a & b', PrivateZone: false },
      }),
    );
    expect(created.$metadata.httpStatusCode).toBe(201);
    expect(created.Location).toMatch(/\/hostedzone\/Z0+1$/);
    expect(created.HostedZone).toMatchObject({
      Name: 'example.com.',
      Config: { Comment: 'a & b', PrivateZone: false },
    });
    expect(created.ChangeInfo!.SubmittedAt).toEqual(new Date('2025-01-02T03:04:05Z'));
    expect(created.DelegationSet!.NameServers).toEqual(['ns-1.awsdns-01.org', 'ns-2.awsdns-02.com']);
    const got = await route53.send(new GetHostedZoneCommand({ Id: created.HostedZone!.Id }));
    expect(got.HostedZone!.CallerReference).toBe('ref-1');

    expect(await failure(route53.send(new GetHostedZoneCommand({ Id: 'Z999' })))).toMatchObject({
      name: 'NoSuchHostedZone',
      $metadata: { httpStatusCode: 404 },
    });
    expect(
      await failure(
        route53.send(new CreateHostedZoneCommand({ Name: 'example.com', CallerReference: 'ref-2' })),
      ),
    ).toMatchObject({ name: 'HostedZoneAlreadyExists', $metadata: { httpStatusCode: 409 } });
    expect(
      await failure(
        route53.send(new CreateHostedZoneCommand({ Name: 'BAD NAME', CallerReference: 'ref-3' })),
      ),
    ).toMatchObject({ name: 'InvalidInput', $metadata: { httpStatusCode: 400 } });
    await ctx.emulator.control.addFault({ service: 'route53', error: 'ThrottlingException' });
    expect(await failure(route53.send(new ListHostedZonesCommand({})))).toMatchObject({
      name: 'ThrottlingException',
    });

    for (const n of ['b.com', 'c.com'])
      await route53.send(new CreateHostedZoneCommand({ Name: n, CallerReference: n }));
    const first = await route53.send(new ListHostedZonesCommand({ MaxItems: 2 }));
    expect(first).toMatchObject({ IsTruncated: true, MaxItems: 2 });
    const second = await route53.send(new ListHostedZonesCommand({ MaxItems: 2, Marker: first.NextMarker }));
    expect([...first.HostedZones!, ...second.HostedZones!].map((z) => z.Name)).toEqual([
      'example.com.',
      'b.com.',
      'c.com.',
    ]);
  });
});
