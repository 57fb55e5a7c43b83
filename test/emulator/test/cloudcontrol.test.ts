import {
  CancelResourceRequestCommand,
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourceRequestsCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
  type ProgressEvent,
} from '@aws-sdk/client-cloudcontrol';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let cc: CloudControlClient;

beforeAll(() => {
  cc = new CloudControlClient(clientConfig(ctx.emulator));
});
afterAll(() => cc.destroy());
beforeEach(() => ctx.emulator.control.reset());

/** Polls a request until it leaves PENDING/IN_PROGRESS; returns every status seen and the final event. */
async function settle(token: string): Promise<{ seen: string[]; event: ProgressEvent }> {
  const seen: string[] = [];
  for (let i = 0; i < 600; i++) {
    const { ProgressEvent: event } = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: token }),
    );
    seen.push(event!.OperationStatus!);
    if (event!.OperationStatus !== 'PENDING' && event!.OperationStatus !== 'IN_PROGRESS')
      return { seen, event: event! };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('request did not settle');
}

async function create(
  TypeName: string,
  desired: Record<string, unknown>,
  ClientToken?: string,
): Promise<ProgressEvent> {
  const out = await cc.send(
    new CreateResourceCommand({ TypeName, DesiredState: JSON.stringify(desired), ClientToken }),
  );
  return (await settle(out.ProgressEvent!.RequestToken!)).event;
}

async function properties(TypeName: string, Identifier: string): Promise<Record<string, unknown>> {
  const out = await cc.send(new GetResourceCommand({ TypeName, Identifier }));
  expect(out.ResourceDescription?.Identifier).toBe(Identifier);
  return JSON.parse(out.ResourceDescription!.Properties!) as Record<string, unknown>;
}

describe('Cloud Control lifecycle', () => {
  test('create → get → update (JSON patch) → delete, through PENDING, IN_PROGRESS and SUCCESS with latency', async () => {
    await ctx.emulator.control.setTypeLatency('AWS::Logs::LogGroup', 300);
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: JSON.stringify({ LogGroupName: '/app/logs', RetentionInDays: 7 }),
      }),
    );
    expect(created.ProgressEvent).toMatchObject({
      TypeName: 'AWS::Logs::LogGroup',
      Operation: 'CREATE',
      OperationStatus: 'PENDING',
      Identifier: '/app/logs',
    });
    expect(created.ProgressEvent?.EventTime).toBeInstanceOf(Date);
    const { seen, event } = await settle(created.ProgressEvent!.RequestToken!);
    expect(seen[seen.length - 1]).toBe('SUCCESS');
    expect(seen.slice(0, -1).every((s) => s === 'IN_PROGRESS')).toBe(true);
    expect(event.Identifier).toBe('/app/logs');
    expect(JSON.parse(event.ResourceModel!)).toMatchObject({ LogGroupName: '/app/logs', RetentionInDays: 7 });

    expect(await properties('AWS::Logs::LogGroup', '/app/logs')).toEqual({
      LogGroupName: '/app/logs',
      RetentionInDays: 7,
      Arn: 'arn:aws:logs:us-east-1:123456789012:log-group:/app/logs:*',
      // CloudWatch Logs' defaults, as its read handler reports them.
      LogGroupClass: 'STANDARD',
      DeletionProtectionEnabled: false,
      BearerTokenAuthenticationEnabled: false,
    });

    const updated = await cc.send(
      new UpdateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        Identifier: '/app/logs',
        PatchDocument: JSON.stringify([
          { op: 'replace', path: '/RetentionInDays', value: 30 },
          { op: 'add', path: '/Tags', value: [{ Key: 'team', Value: 'core' }] },
        ]),
      }),
    );
    expect(updated.ProgressEvent?.OperationStatus).toBe('PENDING');
    expect((await settle(updated.ProgressEvent!.RequestToken!)).event.OperationStatus).toBe('SUCCESS');
    expect(await properties('AWS::Logs::LogGroup', '/app/logs')).toMatchObject({
      RetentionInDays: 30,
      Tags: [{ Key: 'team', Value: 'core' }],
    });

    const deleted = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: '/app/logs' }),
    );
    expect((await settle(deleted.ProgressEvent!.RequestToken!)).event).toMatchObject({
      Operation: 'DELETE',
      OperationStatus: 'SUCCESS',
    });
    await expect(
      cc.send(new GetResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: '/app/logs' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    const again = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: '/app/logs' }),
    );
    expect((await settle(again.ProgressEvent!.RequestToken!)).event).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'NotFound',
    });
  });

  test('a request stays IN_PROGRESS until its latency passes, and can be canceled meanwhile', async () => {
    await ctx.emulator.control.setTypeLatency('AWS::SNS::Topic', 600_000);
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SNS::Topic',
        DesiredState: JSON.stringify({ TopicName: 'slow' }),
      }),
    );
    const token = created.ProgressEvent!.RequestToken!;
    expect(
      (await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }))).ProgressEvent
        ?.OperationStatus,
    ).toBe('IN_PROGRESS');
    expect(
      (await cc.send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }))).ResourceDescriptions,
    ).toEqual([]);
    const canceled = await cc.send(new CancelResourceRequestCommand({ RequestToken: token }));
    expect(canceled.ProgressEvent?.OperationStatus).toBe('CANCEL_IN_PROGRESS');
    expect(
      (await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }))).ProgressEvent
        ?.OperationStatus,
    ).toBe('CANCEL_COMPLETE');
    await expect(cc.send(new CancelResourceRequestCommand({ RequestToken: token }))).rejects.toMatchObject({
      name: 'ConcurrentModificationException',
    });
    await expect(
      cc.send(new GetResourceRequestStatusCommand({ RequestToken: 'no-such-token' })),
    ).rejects.toMatchObject({ name: 'RequestTokenNotFoundException' });
  });

  test('a second request on a resource with one in progress is ConcurrentOperationException', async () => {
    await ctx.emulator.control.setTypeLatency('AWS::Logs::LogGroup', 600_000);
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: JSON.stringify({ LogGroupName: 'busy' }),
      }),
    );
    await expect(
      cc.send(new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: 'busy' })),
    ).rejects.toMatchObject({ name: 'ConcurrentOperationException' });
    await cc.send(new CancelResourceRequestCommand({ RequestToken: created.ProgressEvent!.RequestToken! }));
    await ctx.emulator.control.setTypeLatency('AWS::Logs::LogGroup', 0);
    const del = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: 'busy' }),
    );
    // The canceled create never made the log group.
    expect((await settle(del.ProgressEvent!.RequestToken!)).event).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'NotFound',
    });
  });

  test('a patch that changes a create-only property is refused with NotUpdatableException', async () => {
    const event = await create('AWS::SQS::Queue', { QueueName: 'fixed-name', VisibilityTimeout: 30 });
    expect(event.OperationStatus).toBe('SUCCESS');
    const url = event.Identifier!;
    await expect(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SQS::Queue',
          Identifier: url,
          PatchDocument: JSON.stringify([{ op: 'replace', path: '/QueueName', value: 'other-name' }]),
        }),
      ),
    ).rejects.toMatchObject({
      name: 'NotUpdatableException',
      message: 'Invalid patch update: createOnlyProperties [/properties/QueueName] cannot be updated',
      $metadata: { httpStatusCode: 400 },
    });
    expect((await properties('AWS::SQS::Queue', url)).QueueName).toBe('fixed-name');
    // A read-only property cannot be patched either; a patch that breaks the schema is a ValidationException.
    await expect(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SQS::Queue',
          Identifier: url,
          PatchDocument: JSON.stringify([{ op: 'replace', path: '/Arn', value: 'x' }]),
        }),
      ),
    ).rejects.toMatchObject({
      name: 'NotUpdatableException',
    });
    await expect(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SQS::Queue',
          Identifier: url,
          PatchDocument: JSON.stringify([{ op: 'replace', path: '/DelaySeconds', value: '2' }]),
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Model validation failed (#/DelaySeconds: expected type: Integer, found: String)',
    });
    await expect(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SQS::Queue',
          Identifier: `${ctx.emulator.url}/123456789012/missing`,
          PatchDocument: '[]',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('ClientToken makes a request idempotent; reusing it for another request conflicts', async () => {
    const desired = JSON.stringify({ LogGroupName: 'idempotent' });
    const first = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: desired,
        ClientToken: 'token-1',
      }),
    );
    const second = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: desired,
        ClientToken: 'token-1',
      }),
    );
    expect(second.ProgressEvent?.RequestToken).toBe(first.ProgressEvent?.RequestToken);
    expect(second.ProgressEvent?.OperationStatus).toBe('SUCCESS');
    expect(
      (await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Logs::LogGroup' }))).ResourceDescriptions,
    ).toHaveLength(1);
    await expect(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::Logs::LogGroup',
          DesiredState: JSON.stringify({ LogGroupName: 'different' }),
          ClientToken: 'token-1',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ClientTokenConflictException' });
  });

  test('AlreadyExists for a second resource with the same identifier', async () => {
    expect((await create('AWS::Logs::LogGroup', { LogGroupName: 'dup' })).OperationStatus).toBe('SUCCESS');
    const dup = await create('AWS::Logs::LogGroup', { LogGroupName: 'dup' });
    expect(dup).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'AlreadyExists' });
    expect(dup.StatusMessage).toContain("identifier 'dup' already exists");
  });

  test('the desired state is validated against the schema before the request is accepted (ValidationException)', async () => {
    const send = (TypeName: string, desired: Record<string, unknown>) =>
      cc.send(new CreateResourceCommand({ TypeName, DesiredState: JSON.stringify(desired) }));
    await expect(send('AWS::IAM::Role', { RoleName: 'no-policy' })).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Model validation failed (#: required key [AssumeRolePolicyDocument] not found)',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(send('AWS::SQS::Queue', { QueueName: 'typed', DelaySeconds: '5' })).rejects.toMatchObject({
      message: 'Model validation failed (#/DelaySeconds: expected type: Integer, found: String)',
    });
    await expect(send('AWS::Logs::LogGroup', { LogGroupName: 'x', Colour: 'red' })).rejects.toMatchObject({
      message: expect.stringContaining('extraneous key [Colour] is not permitted'),
    });
    await expect(
      send('AWS::Logs::LogGroup', {
        LogGroupName: 'y',
        Arn: 'arn:aws:logs:us-east-1:123456789012:log-group:y',
      }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    expect((await cc.send(new ListResourceRequestsCommand({}))).ResourceRequestStatusSummaries).toEqual([]);
  });

  test('unknown types are TypeNotFoundException; non-provisionable types UnsupportedActionException', async () => {
    await expect(
      cc.send(new CreateResourceCommand({ TypeName: 'AWS::Nope::Thing', DesiredState: '{}' })),
    ).rejects.toMatchObject({ name: 'TypeNotFoundException', $metadata: { httpStatusCode: 400 } });
    await ctx.emulator.control.setTypeProvisionable('AWS::SNS::Topic', false);
    await expect(
      cc.send(new CreateResourceCommand({ TypeName: 'AWS::SNS::Topic', DesiredState: '{}' })),
    ).rejects.toMatchObject({ name: 'UnsupportedActionException' });
    await expect(cc.send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }))).rejects.toMatchObject({
      name: 'UnsupportedActionException',
    });
  });

  test('types only CloudFormation runs are refused although their schemas exist; a custom type is no type name', async () => {
    for (const TypeName of ['AWS::CloudFormation::CustomResource', 'AWS::CloudFormation::Stack']) {
      await expect(
        cc.send(
          new CreateResourceCommand({ TypeName, DesiredState: '{"ServiceToken":"x","TemplateURL":"y"}' }),
        ),
      ).rejects.toMatchObject({ name: 'UnsupportedActionException', $metadata: { httpStatusCode: 400 } });
    }
    await expect(
      cc.send(new CreateResourceCommand({ TypeName: 'Custom::Seeder', DesiredState: '{}' })),
    ).rejects.toMatchObject({ name: 'ValidationException' }); // two parts: not a registry type name
    expect((await cc.send(new ListResourceRequestsCommand({}))).ResourceRequestStatusSummaries).toEqual([]);
  });

  test('read-only attributes are generated: ARNs from templates, generated names when none is given', async () => {
    const topic = await create('AWS::SNS::Topic', {});
    expect(topic.OperationStatus).toBe('SUCCESS');
    expect(topic.Identifier).toMatch(/^arn:aws:sns:us-east-1:123456789012:Topic-[A-Z0-9]{12}$/);
    const props = await properties('AWS::SNS::Topic', topic.Identifier!);
    expect(props.TopicArn).toBe(topic.Identifier);
    expect(topic.Identifier!.endsWith(`:${props.TopicName as string}`)).toBe(true);

    const fn = await create('AWS::Lambda::Function', {
      FunctionName: 'handler',
      Role: 'arn:aws:iam::123456789012:role/r',
      Code: { ZipFile: 'x' },
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
    });
    expect(fn.OperationStatus).toBe('SUCCESS');
    expect((await properties('AWS::Lambda::Function', 'handler')).Arn).toBe(
      'arn:aws:lambda:us-east-1:123456789012:function:handler',
    );

    const role = await create('AWS::IAM::Role', {
      RoleName: 'reader',
      Path: '/svc/',
      AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [] },
    });
    const roleProps = await properties('AWS::IAM::Role', role.Identifier!);
    expect(roleProps.Arn).toBe('arn:aws:iam::123456789012:role/svc/reader');
    expect(roleProps.RoleId).toMatch(/^AROA[A-Z0-9]{17}$/);

    const table = await create('AWS::DynamoDB::Table', {
      TableName: 'items',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(table.OperationStatus).toBe('SUCCESS');
    expect((await properties('AWS::DynamoDB::Table', 'items')).Arn).toBe(
      'arn:aws:dynamodb:us-east-1:123456789012:table/items',
    );
  });

  test('ListResources and ListResourceRequests with filters', async () => {
    for (const name of ['a', 'b', 'c']) await create('AWS::Logs::LogGroup', { LogGroupName: name });
    await create('AWS::Logs::LogGroup', { LogGroupName: 'a' });
    const page1 = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Logs::LogGroup', MaxResults: 2 }));
    expect(page1.ResourceDescriptions?.map((d) => d.Identifier)).toEqual(['a', 'b']);
    const page2 = await cc.send(
      new ListResourcesCommand({
        TypeName: 'AWS::Logs::LogGroup',
        MaxResults: 2,
        NextToken: page1.NextToken,
      }),
    );
    expect(page2.ResourceDescriptions?.map((d) => d.Identifier)).toEqual(['c']);
    expect(page2.NextToken).toBeUndefined();
    const failed = await cc.send(
      new ListResourceRequestsCommand({
        ResourceRequestStatusFilter: { Operations: ['CREATE'], OperationStatuses: ['FAILED'] },
      }),
    );
    expect(failed.ResourceRequestStatusSummaries?.map((e) => [e.Identifier, e.ErrorCode])).toEqual([
      ['a', 'AlreadyExists'],
    ]);
    const all = await cc.send(new ListResourceRequestsCommand({}));
    expect(all.ResourceRequestStatusSummaries).toHaveLength(4);
  });
});

describe('one resource store for every service', () => {
  test('a queue made with SQS is an AWS::SQS::Queue to Cloud Control, and the reverse', async () => {
    const sqs = new SQSClient(clientConfig(ctx.emulator));
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'made-by-sqs', Attributes: { DelaySeconds: '3' } }),
    );
    expect(await properties('AWS::SQS::Queue', QueueUrl!)).toMatchObject({
      QueueName: 'made-by-sqs',
      QueueUrl,
      Arn: 'arn:aws:sqs:us-east-1:123456789012:made-by-sqs',
      DelaySeconds: 3,
      VisibilityTimeout: 30,
    });
    const made = await create('AWS::SQS::Queue', {
      QueueName: 'made-by-cc',
      VisibilityTimeout: 45,
      Tags: [{ Key: 'k', Value: 'v' }],
    });
    expect(made.Identifier).toBe(`${ctx.emulator.url}/123456789012/made-by-cc`);
    const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'made-by-cc' }))).QueueUrl;
    expect(url).toBe(made.Identifier);
    expect(
      (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] }),
        )
      ).Attributes,
    ).toEqual({ VisibilityTimeout: '45' });
    const generated = await create('AWS::SQS::Queue', {});
    expect(generated.Identifier).toMatch(/\/123456789012\/Queue-[A-Z0-9]{12}$/);
    sqs.destroy();
  });

  test('a parameter made with Cloud Control is readable through SSM; a bucket through S3', async () => {
    const param = await create('AWS::SSM::Parameter', { Name: '/cfg/mode', Type: 'String', Value: 'fast' });
    expect(param).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: '/cfg/mode' });
    const ssm = new SSMClient(clientConfig(ctx.emulator));
    expect((await ssm.send(new GetParameterCommand({ Name: '/cfg/mode' }))).Parameter?.Value).toBe('fast');
    ssm.destroy();

    const bucket = await create('AWS::S3::Bucket', {
      BucketName: 'cc-bucket',
      VersioningConfiguration: { Status: 'Enabled' },
    });
    expect(bucket.OperationStatus).toBe('SUCCESS');
    const s3 = new S3Client(clientConfig(ctx.emulator));
    expect((await s3.send(new HeadBucketCommand({ Bucket: 'cc-bucket' }))).$metadata.httpStatusCode).toBe(
      200,
    );
    await s3.send(new CreateBucketCommand({ Bucket: 's3-bucket' }));
    expect(await properties('AWS::S3::Bucket', 's3-bucket')).toMatchObject({
      BucketName: 's3-bucket',
      Arn: 'arn:aws:s3:::s3-bucket',
      RegionalDomainName: 's3-bucket.s3.us-east-1.amazonaws.com',
    });
    s3.destroy();

    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.map((i) => `${i.type} ${i.identifier}`).sort()).toEqual([
      'AWS::S3::Bucket cc-bucket',
      'AWS::S3::Bucket s3-bucket',
      'AWS::SSM::Parameter /cfg/mode',
    ]);
  });
});

describe('faults on Cloud Control', () => {
  test('a throttling fault for one type is retried by the SDK; failWith makes requests FAIL', async () => {
    await ctx.emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'CreateResource',
      typeName: 'AWS::Logs::LogGroup',
      error: 'ThrottlingException',
    });
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: JSON.stringify({ LogGroupName: 'throttled' }),
      }),
    );
    expect(created.$metadata.attempts).toBe(2);
    await ctx.emulator.control.setTypeSettings('AWS::Logs::LogGroup', {
      failWith: { errorCode: 'GeneralServiceException', message: 'boom', operations: ['DELETE'], count: 1 },
    });
    const del = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: 'throttled' }),
    );
    expect((await settle(del.ProgressEvent!.RequestToken!)).event).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'GeneralServiceException',
      StatusMessage: 'boom',
    });
    const retry = await cc.send(
      new DeleteResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: 'throttled' }),
    );
    expect((await settle(retry.ProgressEvent!.RequestToken!)).event.OperationStatus).toBe('SUCCESS');
  });

  test('failWith afterCreate: the create fails after making its resource, and the FAILED event names it', async () => {
    await ctx.emulator.control.setTypeSettings('AWS::SNS::Topic', {
      failWith: { errorCode: 'NotStabilized', message: 'did not stabilize', afterCreate: true, count: 1 },
    });
    const created = await cc.send(
      new CreateResourceCommand({ TypeName: 'AWS::SNS::Topic', DesiredState: JSON.stringify({}) }),
    );
    const { event } = await settle(created.ProgressEvent!.RequestToken!);
    expect(event).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'NotStabilized' });
    expect(event.Identifier).toEqual(expect.stringMatching(/^arn:aws:sns:/));
    const topics = (await ctx.emulator.control.inventory()).filter((r) => r.type === 'AWS::SNS::Topic');
    expect(topics.map((t) => t.identifier)).toEqual([event.Identifier]);
  });

  test('a dropped CreateResource reply: the resource exists and the SDK retry sees it', async () => {
    await ctx.emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'CreateResource',
      mode: 'drop',
    });
    const out = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: JSON.stringify({ LogGroupName: 'lost-reply' }),
        ClientToken: 'lost-1',
      }),
    );
    expect(out.$metadata.attempts).toBe(2);
    expect((await settle(out.ProgressEvent!.RequestToken!)).event.OperationStatus).toBe('SUCCESS');
    expect(
      (await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Logs::LogGroup' }))).ResourceDescriptions,
    ).toHaveLength(1);
  });
});
