import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AssociateKmsKeyCommand,
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  DeleteDataProtectionPolicyCommand,
  DeleteIndexPolicyCommand,
  DeleteLogGroupCommand,
  DeleteLogStreamCommand,
  DeleteResourcePolicyCommand,
  DeleteRetentionPolicyCommand,
  DescribeIndexPoliciesCommand,
  DescribeLogGroupsCommand,
  DescribeLogStreamsCommand,
  DescribeResourcePoliciesCommand,
  DisassociateKmsKeyCommand,
  FilterLogEventsCommand,
  GetDataProtectionPolicyCommand,
  GetLogEventsCommand,
  ListTagsForResourceCommand,
  ListTagsLogGroupCommand,
  paginateDescribeLogGroups,
  paginateGetLogEvents,
  PutBearerTokenAuthenticationCommand,
  PutDataProtectionPolicyCommand,
  PutIndexPolicyCommand,
  PutLogEventsCommand,
  PutLogGroupDeletionProtectionCommand,
  PutResourcePolicyCommand,
  PutRetentionPolicyCommand,
  TagLogGroupCommand,
  TagResourceCommand,
  UntagLogGroupCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { AwsJsonCodec, type Platform, type ServiceModule } from '../src/index';
import type { LogsApi } from '../src/services/logs';
import { clientConfig, useEmulator } from './helpers';

// A test-only module that only borrows the platform, to reach the logs api as another service does.
let platform: Platform | undefined;
const probe: ServiceModule = {
  name: 'logs-api-probe',
  signingNames: ['logs-api-probe'],
  create(p) {
    platform = p;
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'LogsApiProbe',
        namespace: 'probe',
        model: () => require('@aws-sdk/client-cloudwatch-logs') as Record<string, unknown>,
      }),
      operations: {},
    };
  },
};

const ctx = useEmulator({ services: [probe] });
let logs: CloudWatchLogsClient;
let cc: CloudControlClient;
const ACCOUNT = '123456789012';
const KEY = `arn:aws:kms:us-east-1:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const arn = (name: string) => `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:${name}`;

beforeAll(() => {
  logs = new CloudWatchLogsClient(clientConfig(ctx.emulator));
  cc = new CloudControlClient(clientConfig(ctx.emulator));
});
afterAll(() => {
  logs.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function ccSettle(token: string) {
  const { ProgressEvent } = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }));
  expect(ProgressEvent).toMatchObject({ OperationStatus: 'SUCCESS' });
  return ProgressEvent!;
}

async function ccRead(name: string): Promise<Record<string, unknown>> {
  const out = await cc.send(new GetResourceCommand({ TypeName: 'AWS::Logs::LogGroup', Identifier: name }));
  return JSON.parse(out.ResourceDescription!.Properties!) as Record<string, unknown>;
}

describe('log groups', () => {
  test('create, describe (prefix, pattern, class, identifiers), delete', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/app/orders', tags: { team: 'core' } }));
    await logs.send(
      new CreateLogGroupCommand({ logGroupName: '/app/payments', logGroupClass: 'INFREQUENT_ACCESS' }),
    );
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'other' }));
    const { logGroups } = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: '/app/' }));
    expect(logGroups).toEqual([
      expect.objectContaining({
        logGroupName: '/app/orders',
        arn: `${arn('/app/orders')}:*`,
        logGroupArn: arn('/app/orders'),
        logGroupClass: 'STANDARD',
        metricFilterCount: 0,
        storedBytes: 0,
        deletionProtectionEnabled: false,
        creationTime: expect.any(Number),
      }),
      expect.objectContaining({ logGroupName: '/app/payments', logGroupClass: 'INFREQUENT_ACCESS' }),
    ]);
    expect(logGroups![0]!.retentionInDays).toBeUndefined();
    const pattern = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePattern: 'pay' }));
    expect(pattern.logGroups!.map((g) => g.logGroupName)).toEqual(['/app/payments']);
    const byClass = await logs.send(new DescribeLogGroupsCommand({ logGroupClass: 'INFREQUENT_ACCESS' }));
    expect(byClass.logGroups!.map((g) => g.logGroupName)).toEqual(['/app/payments']);
    const byId = await logs.send(
      new DescribeLogGroupsCommand({ logGroupIdentifiers: [arn('other'), '/app/orders'] }),
    );
    expect(byId.logGroups!.map((g) => g.logGroupName)).toEqual(['/app/orders', 'other']);
    await expect(
      logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: '/a', logGroupNamePattern: 'b' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });

    await logs.send(new DeleteLogGroupCommand({ logGroupName: '/app/orders' }));
    const after = await logs.send(new DescribeLogGroupsCommand({}));
    expect(after.logGroups!.map((g) => g.logGroupName)).toEqual(['/app/payments', 'other']);
  });

  test('errors: already exists, not found, invalid names, classes and tags', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'dup' }));
    await expect(logs.send(new CreateLogGroupCommand({ logGroupName: 'dup' }))).rejects.toMatchObject({
      name: 'ResourceAlreadyExistsException',
      message: 'The specified log group already exists',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(logs.send(new DeleteLogGroupCommand({ logGroupName: 'missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'The specified log group does not exist.',
    });
    await expect(logs.send(new CreateLogGroupCommand({ logGroupName: 'bad name' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining("Value 'bad name' at 'logGroupName' failed to satisfy constraint"),
    });
    await expect(
      logs.send(new CreateLogGroupCommand({ logGroupName: 'x'.repeat(513) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(new CreateLogGroupCommand({ logGroupName: 'c', logGroupClass: 'COLD' as never })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(new CreateLogGroupCommand({ logGroupName: 't', tags: { 'aws:reserved': 'x' } })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  test('a throttled call is retried by the SDK, and surfaces once the retries run out', async () => {
    await ctx.emulator.control.addFault({
      service: 'logs',
      operation: 'CreateLogGroup',
      error: 'ThrottlingException',
      count: 1,
    });
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'throttled' }));
    await ctx.emulator.control.addFault({
      service: 'logs',
      operation: 'DescribeLogGroups',
      error: 'ThrottlingException',
      count: 3,
    });
    await expect(logs.send(new DescribeLogGroupsCommand({}))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { attempts: 3 },
    });
  });

  test('describe pages with limit and nextToken, and the SDK paginator reads every page', async () => {
    for (let i = 0; i < 7; i++) await logs.send(new CreateLogGroupCommand({ logGroupName: `g${i}` }));
    const first = await logs.send(new DescribeLogGroupsCommand({ limit: 3 }));
    expect(first.logGroups!.map((g) => g.logGroupName)).toEqual(['g0', 'g1', 'g2']);
    const second = await logs.send(new DescribeLogGroupsCommand({ limit: 3, nextToken: first.nextToken }));
    expect(second.logGroups!.map((g) => g.logGroupName)).toEqual(['g3', 'g4', 'g5']);
    const names: string[] = [];
    for await (const p of paginateDescribeLogGroups({ client: logs, pageSize: 2 }, {}))
      names.push(...p.logGroups!.map((g) => g.logGroupName!));
    expect(names).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
    await expect(logs.send(new DescribeLogGroupsCommand({ limit: 51 }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  test('retention: put, validated, deleted (never expire)', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'r' }));
    await logs.send(new PutRetentionPolicyCommand({ logGroupName: 'r', retentionInDays: 14 }));
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.retentionInDays).toBe(14);
    await expect(
      logs.send(new PutRetentionPolicyCommand({ logGroupName: 'r', retentionInDays: 2 })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('Member must satisfy enum value set: [1, 3, 5, 7, 14'),
    });
    await logs.send(new DeleteRetentionPolicyCommand({ logGroupName: 'r' }));
    expect(
      (await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.retentionInDays,
    ).toBeUndefined();
    await expect(
      logs.send(new PutRetentionPolicyCommand({ logGroupName: 'missing', retentionInDays: 1 })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('KMS: associate by name or ARN, validated, disassociated', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'k', kmsKeyId: KEY }));
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.kmsKeyId).toBe(KEY);
    await logs.send(new DisassociateKmsKeyCommand({ logGroupName: 'k' }));
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.kmsKeyId).toBeUndefined();
    await logs.send(new AssociateKmsKeyCommand({ resourceIdentifier: arn('k'), kmsKeyId: KEY }));
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.kmsKeyId).toBe(KEY);
    await expect(
      logs.send(new AssociateKmsKeyCommand({ logGroupName: 'k', kmsKeyId: 'alias/mine' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(
        new AssociateKmsKeyCommand({ logGroupName: 'k', kmsKeyId: KEY.replace('us-east-1', 'eu-west-1') }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  test('deletion protection blocks deletes until it is switched off; bearer token authentication', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'p', deletionProtectionEnabled: true }));
    await expect(logs.send(new DeleteLogGroupCommand({ logGroupName: 'p' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await logs.send(
      new PutLogGroupDeletionProtectionCommand({ logGroupIdentifier: 'p', deletionProtectionEnabled: false }),
    );
    await logs.send(
      new PutBearerTokenAuthenticationCommand({
        logGroupIdentifier: arn('p'),
        bearerTokenAuthenticationEnabled: true,
      }),
    );
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]).toMatchObject({
      deletionProtectionEnabled: false,
      bearerTokenAuthenticationEnabled: true,
    });
    await logs.send(new DeleteLogGroupCommand({ logGroupName: 'p' }));
  });

  test('tags through TagResource (ARN without :*) and the legacy log-group calls', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 't', tags: { a: '1' } }));
    await logs.send(new TagResourceCommand({ resourceArn: arn('t'), tags: { b: '2' } }));
    expect((await logs.send(new ListTagsForResourceCommand({ resourceArn: arn('t') }))).tags).toEqual({
      a: '1',
      b: '2',
    });
    await logs.send(new UntagResourceCommand({ resourceArn: arn('t'), tagKeys: ['a'] }));
    await logs.send(new TagLogGroupCommand({ logGroupName: 't', tags: { c: '3' } }));
    await logs.send(new UntagLogGroupCommand({ logGroupName: 't', tags: ['b'] }));
    expect((await logs.send(new ListTagsLogGroupCommand({ logGroupName: 't' }))).tags).toEqual({ c: '3' });
    await expect(
      logs.send(new ListTagsForResourceCommand({ resourceArn: `${arn('t')}:*` })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    await expect(
      logs.send(new TagResourceCommand({ resourceArn: arn('t'), tags: many })),
    ).rejects.toMatchObject({
      name: 'TooManyTagsException',
    });
  });

  test('data protection, field index and resource policies', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'pol' }));
    const doc = JSON.stringify({ Name: 'dp', Version: '2021-06-01', Statement: [] });
    const put = await logs.send(
      new PutDataProtectionPolicyCommand({ logGroupIdentifier: 'pol', policyDocument: doc }),
    );
    expect(put).toMatchObject({
      logGroupIdentifier: 'pol',
      policyDocument: doc,
      lastUpdatedTime: expect.any(Number),
    });
    expect(
      (await logs.send(new GetDataProtectionPolicyCommand({ logGroupIdentifier: 'pol' }))).policyDocument,
    ).toBe(doc);
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups![0]!.dataProtectionStatus).toBe(
      'ACTIVATED',
    );
    await logs.send(new DeleteDataProtectionPolicyCommand({ logGroupIdentifier: 'pol' }));
    await expect(
      logs.send(new DeleteDataProtectionPolicyCommand({ logGroupIdentifier: 'pol' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(
      logs.send(
        new PutDataProtectionPolicyCommand({ logGroupIdentifier: 'pol', policyDocument: 'not json' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });

    const index = JSON.stringify({ Fields: ['requestId'] });
    await logs.send(new PutIndexPolicyCommand({ logGroupIdentifier: 'pol', policyDocument: index }));
    const { indexPolicies } = await logs.send(
      new DescribeIndexPoliciesCommand({ logGroupIdentifiers: ['pol'] }),
    );
    expect(indexPolicies).toEqual([expect.objectContaining({ policyDocument: index, source: 'LOG_GROUP' })]);
    await logs.send(new DeleteIndexPolicyCommand({ logGroupIdentifier: 'pol' }));
    expect(
      (await logs.send(new DescribeIndexPoliciesCommand({ logGroupIdentifiers: ['pol'] }))).indexPolicies,
    ).toEqual([]);

    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [] });
    const rp = await logs.send(
      new PutResourcePolicyCommand({ resourceArn: arn('pol'), policyDocument: policy }),
    );
    expect(rp.resourcePolicy).toMatchObject({
      policyScope: 'RESOURCE',
      resourceArn: arn('pol'),
      policyDocument: policy,
    });
    await expect(
      logs.send(
        new PutResourcePolicyCommand({
          resourceArn: arn('pol'),
          policyDocument: policy,
          expectedRevisionId: 'stale',
        }),
      ),
    ).rejects.toMatchObject({ name: 'OperationAbortedException' });
    await logs.send(new PutResourcePolicyCommand({ policyName: 'account-wide', policyDocument: policy }));
    expect(
      (await logs.send(new DescribeResourcePoliciesCommand({ resourceArn: arn('pol') }))).resourcePolicies,
    ).toHaveLength(1);
    expect((await logs.send(new DescribeResourcePoliciesCommand({}))).resourcePolicies).toEqual([
      expect.objectContaining({ policyName: 'account-wide', policyScope: 'ACCOUNT' }),
    ]);
    await logs.send(new DeleteResourcePolicyCommand({ resourceArn: arn('pol') }));
    await logs.send(new DeleteResourcePolicyCommand({ policyName: 'account-wide' }));
    await expect(
      logs.send(new DeleteResourcePolicyCommand({ policyName: 'account-wide' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('groups are kept per account and region', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'regional' }));
    const west = new CloudWatchLogsClient(clientConfig(ctx.emulator, 'us-west-2'));
    expect((await west.send(new DescribeLogGroupsCommand({}))).logGroups).toEqual([]);
    await west.send(new CreateLogGroupCommand({ logGroupName: 'regional' }));
    west.destroy();
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.map((i) => [i.region, i.type, i.identifier])).toEqual([
      ['us-east-1', 'AWS::Logs::LogGroup', 'regional'],
      ['us-west-2', 'AWS::Logs::LogGroup', 'regional'],
    ]);
  });
});

describe('log streams and events', () => {
  const now = Date.now();

  beforeEach(async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: 'app' }));
  });

  test('streams: create, describe by name or last event time, prefix, delete, errors', async () => {
    for (const name of ['b', 'a', 'c'])
      await logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: name }));
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 'a',
        logEvents: [{ timestamp: now, message: 'x' }],
      }),
    );
    const byName = await logs.send(new DescribeLogStreamsCommand({ logGroupName: 'app' }));
    expect(byName.logStreams!.map((s) => s.logStreamName)).toEqual(['a', 'b', 'c']);
    expect(byName.logStreams![0]).toMatchObject({
      arn: `${arn('app')}:log-stream:a`,
      firstEventTimestamp: now,
      lastEventTimestamp: now,
      lastIngestionTime: expect.any(Number),
    });
    const byTime = await logs.send(
      new DescribeLogStreamsCommand({
        logGroupIdentifier: arn('app'),
        orderBy: 'LastEventTime',
        descending: true,
      }),
    );
    expect(byTime.logStreams![0]!.logStreamName).toBe('a');
    const paged = await logs.send(new DescribeLogStreamsCommand({ logGroupName: 'app', limit: 2 }));
    expect(paged.logStreams).toHaveLength(2);
    const rest = await logs.send(
      new DescribeLogStreamsCommand({ logGroupName: 'app', nextToken: paged.nextToken }),
    );
    expect(rest.logStreams!.map((s) => s.logStreamName)).toEqual(['c']);
    await expect(
      logs.send(
        new DescribeLogStreamsCommand({
          logGroupName: 'app',
          orderBy: 'LastEventTime',
          logStreamNamePrefix: 'a',
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: 'a' })),
    ).rejects.toMatchObject({ name: 'ResourceAlreadyExistsException' });
    await expect(
      logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: 'bad:name' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(new CreateLogStreamCommand({ logGroupName: 'none', logStreamName: 's' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await logs.send(new DeleteLogStreamCommand({ logGroupName: 'app', logStreamName: 'b' }));
    await expect(
      logs.send(new DeleteLogStreamCommand({ logGroupName: 'app', logStreamName: 'b' })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'The specified log stream does not exist.',
    });
  });

  test('PutLogEvents: order and span enforced, too-old, expired and too-new events reported', async () => {
    await logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: 's' }));
    await expect(
      logs.send(
        new PutLogEventsCommand({
          logGroupName: 'app',
          logStreamName: 's',
          logEvents: [
            { timestamp: now, message: 'b' },
            { timestamp: now - 1, message: 'a' },
          ],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('chronological'),
    });
    await expect(
      logs.send(
        new PutLogEventsCommand({
          logGroupName: 'app',
          logStreamName: 's',
          logEvents: [
            { timestamp: now - 25 * 3_600_000, message: 'a' },
            { timestamp: now, message: 'b' },
          ],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('24 hours'),
    });
    const out = await logs.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        logEvents: [
          { timestamp: now, message: 'kept' },
          { timestamp: now + 3 * 3_600_000, message: 'too new' },
        ],
      }),
    );
    expect(out.rejectedLogEventsInfo).toEqual({ tooNewLogEventStartIndex: 1 });
    await logs.send(new PutRetentionPolicyCommand({ logGroupName: 'app', retentionInDays: 1 }));
    const expired = await logs.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        logEvents: [{ timestamp: now - 25 * 3_600_000, message: 'expired' }],
      }),
    );
    expect(expired.rejectedLogEventsInfo).toEqual({ expiredLogEventEndIndex: 1 });
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        logEvents: [{ timestamp: now + 1, message: 'kept too' }],
      }),
    );
    await expect(
      logs.send(
        new PutLogEventsCommand({
          logGroupName: 'app',
          logStreamName: 'missing',
          logEvents: [{ timestamp: now, message: 'x' }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    const { events } = await logs.send(
      new GetLogEventsCommand({ logGroupName: 'app', logStreamName: 's', startFromHead: true }),
    );
    expect(events!.map((e) => e.message)).toEqual(['kept', 'kept too']);
  });

  test('GetLogEvents: latest first page by default, forward and backward tokens, time window', async () => {
    await logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: 's' }));
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        logEvents: Array.from({ length: 5 }, (_, i) => ({ timestamp: now + i, message: `m${i}` })),
      }),
    );
    const latest = await logs.send(
      new GetLogEventsCommand({ logGroupName: 'app', logStreamName: 's', limit: 2 }),
    );
    expect(latest.events!.map((e) => e.message)).toEqual(['m3', 'm4']);
    const before = await logs.send(
      new GetLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        limit: 2,
        nextToken: latest.nextBackwardToken,
      }),
    );
    expect(before.events!.map((e) => e.message)).toEqual(['m1', 'm2']);
    const window = await logs.send(
      new GetLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 's',
        startTime: now + 1,
        endTime: now + 3,
        startFromHead: true,
      }),
    );
    expect(window.events!.map((e) => e.message)).toEqual(['m1', 'm2']);
    const messages: string[] = [];
    // As against AWS, the paginator needs stopOnSameToken: the end of a stream repeats the forward token.
    for await (const p of paginateGetLogEvents(
      { client: logs, stopOnSameToken: true },
      { logGroupName: 'app', logStreamName: 's', startFromHead: true, limit: 2 },
    ))
      messages.push(...p.events!.map((e) => e.message!));
    expect(messages).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  test('FilterLogEvents: across streams, terms, JSON patterns, stream selection, pages', async () => {
    for (const s of ['web-1', 'web-2', 'worker']) {
      await logs.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: s }));
    }
    const put = (stream: string, messages: string[], offset: number) =>
      logs.send(
        new PutLogEventsCommand({
          logGroupName: 'app',
          logStreamName: stream,
          logEvents: messages.map((message, i) => ({ timestamp: now + offset + i * 10, message })),
        }),
      );
    await put('web-1', ['ERROR timeout on /orders', 'INFO ok'], 0);
    await put('web-2', ['WARN slow', '{"level":"error","latency":250}'], 1);
    await put('worker', ['{"level":"info","latency":20}', 'ERROR disk full'], 2);
    const messages = async (input: Record<string, unknown>) =>
      (await logs.send(new FilterLogEventsCommand({ logGroupName: 'app', ...input }))).events!.map(
        (e) => e.message,
      );
    expect(await messages({})).toHaveLength(6);
    expect(await messages({ filterPattern: 'ERROR' })).toEqual([
      'ERROR timeout on /orders',
      'ERROR disk full',
    ]);
    expect(await messages({ filterPattern: 'ERROR -disk' })).toEqual(['ERROR timeout on /orders']);
    expect(await messages({ filterPattern: '?WARN ?timeout' })).toEqual([
      'ERROR timeout on /orders',
      'WARN slow',
    ]);
    expect(await messages({ filterPattern: '"disk full"' })).toEqual(['ERROR disk full']);
    expect(await messages({ filterPattern: '%time[o]ut%' })).toEqual(['ERROR timeout on /orders']);
    expect(await messages({ filterPattern: '{ $.latency > 100 }' })).toEqual([
      '{"level":"error","latency":250}',
    ]);
    expect(await messages({ filterPattern: '{ $.level = "err*" || $.latency < 50 }' })).toEqual([
      '{"level":"info","latency":20}',
      '{"level":"error","latency":250}',
    ]);
    expect(await messages({ logStreamNamePrefix: 'web-' })).toHaveLength(4);
    expect(await messages({ logStreamNames: ['worker'], filterPattern: 'ERROR' })).toEqual([
      'ERROR disk full',
    ]);
    const first = await logs.send(new FilterLogEventsCommand({ logGroupName: 'app', limit: 4 }));
    expect(first.events).toHaveLength(4);
    expect(first.events![0]).toMatchObject({ logStreamName: 'web-1', eventId: expect.any(String) });
    const second = await logs.send(
      new FilterLogEventsCommand({ logGroupName: 'app', nextToken: first.nextToken }),
    );
    expect(second.events).toHaveLength(2);
    expect(second.nextToken).toBeUndefined();
    await expect(
      logs.send(
        new FilterLogEventsCommand({ logGroupName: 'app', logStreamNames: ['a'], logStreamNamePrefix: 'b' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      logs.send(new FilterLogEventsCommand({ logGroupName: 'app', filterPattern: '{ $.a = }' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  test('the api writes events other services produce, creating the group and stream as Lambda does', async () => {
    const api = platform!.api<LogsApi>('logs');
    api.putLogEvents(
      {
        account: ACCOUNT,
        region: 'us-east-1',
        logGroupName: '/aws/lambda/fn',
        logStreamName: '2026/01/01/[$LATEST]abc',
      },
      [
        { timestamp: now + 1, message: 'END' },
        { timestamp: now, message: 'START' },
      ],
    );
    const { events } = await logs.send(new FilterLogEventsCommand({ logGroupName: '/aws/lambda/fn' }));
    expect(events!.map((e) => [e.logStreamName, e.message])).toEqual([
      ['2026/01/01/[$LATEST]abc', 'START'],
      ['2026/01/01/[$LATEST]abc', 'END'],
    ]);
    expect(
      api
        .readEvents({ account: ACCOUNT, region: 'us-east-1', logGroupName: '/aws/lambda/fn' })
        .map((e) => e.message),
    ).toEqual(['START', 'END']);
    expect(
      api.readEvents({ account: ACCOUNT, region: 'us-east-1', logGroupName: '/aws/lambda/none' }),
    ).toEqual([]);
  });
});

describe('the shared view with Cloud Control', () => {
  test('a native log group is a Cloud Control resource, and one made by Cloud Control is native', async () => {
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/native', tags: { a: '1' } }));
    await logs.send(new PutRetentionPolicyCommand({ logGroupName: '/native', retentionInDays: 30 }));
    expect(await ccRead('/native')).toEqual({
      LogGroupName: '/native',
      Arn: `${arn('/native')}:*`,
      RetentionInDays: 30,
      LogGroupClass: 'STANDARD',
      DeletionProtectionEnabled: false,
      BearerTokenAuthenticationEnabled: false,
      Tags: [{ Key: 'a', Value: '1' }],
    });

    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        DesiredState: JSON.stringify({
          LogGroupName: '/by-cc',
          RetentionInDays: 7,
          KmsKeyId: KEY,
          DataProtectionPolicy: { Name: 'dp', Version: '2021-06-01', Statement: [] },
          Tags: [{ Key: 'team', Value: 'core' }],
        }),
      }),
    );
    await ccSettle(created.ProgressEvent!.RequestToken!);
    const { logGroups } = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: '/by-cc' }));
    expect(logGroups![0]).toMatchObject({
      retentionInDays: 7,
      kmsKeyId: KEY,
      dataProtectionStatus: 'ACTIVATED',
    });
    expect((await logs.send(new ListTagsForResourceCommand({ resourceArn: arn('/by-cc') }))).tags).toEqual({
      team: 'core',
    });

    // An update without RetentionInDays and KmsKeyId returns them to their defaults.
    const updated = await cc.send(
      new UpdateResourceCommand({
        TypeName: 'AWS::Logs::LogGroup',
        Identifier: '/by-cc',
        PatchDocument: JSON.stringify([
          { op: 'remove', path: '/RetentionInDays' },
          { op: 'remove', path: '/KmsKeyId' },
        ]),
      }),
    );
    await ccSettle(updated.ProgressEvent!.RequestToken!);
    const after = (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: '/by-cc' })))
      .logGroups![0]!;
    expect(after.retentionInDays).toBeUndefined();
    expect(after.kmsKeyId).toBeUndefined();

    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::Logs::LogGroup' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual(['/by-cc', '/native']);
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.map((i) => i.identifier).sort()).toEqual(['/by-cc', '/native']);
  });

  test('Cloud Control generates a name when the model gives none', async () => {
    const created = await cc.send(
      new CreateResourceCommand({ TypeName: 'AWS::Logs::LogGroup', DesiredState: JSON.stringify({}) }),
    );
    const event = await ccSettle(created.ProgressEvent!.RequestToken!);
    expect(event.Identifier).toMatch(/^LogGroup-[A-Z0-9]{12}$/);
    expect((await logs.send(new DescribeLogGroupsCommand({}))).logGroups!.map((g) => g.logGroupName)).toEqual(
      [event.Identifier],
    );
  });
});
