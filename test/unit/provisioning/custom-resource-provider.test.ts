/**
 * The custom-resource provider against the emulator: a real Node.js handler in
 * the emulator's Lambda (answering the way cfn-response code does, with
 * https.request to the ResponseURL's host) and an SNS-subscribed one; the
 * response placeholder in a versioned state bucket. Timeouts run on a manual
 * clock.
 */
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetObjectCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { AddPermissionCommand } from '@aws-sdk/client-lambda';
import type { AwsClientFactory } from '../../../src/config/aws-clients';
import { CustomResourceProvider, requestIdFor } from '../../../src/provisioning/custom-resource-provider';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { StateBucket } from '../../../src/state/state-bucket';
import { customResourceResponseKey } from '../../../src/state/keys';
import { CdkdError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { startEmulator } from '../../emulator/src';
import type { RunningEmulator } from '../../emulator/src';
import { zipOf } from '../../emulator/test/support/zip';
import { createBucket, emulatorFactory } from '../state/helpers';
import { ManualClock } from '../support/manual-clock';

const ACCOUNT = '123456789012';
const EVENTS_BUCKET = 'custom-resource-events';

// Writes every request it gets to the events bucket, then answers as ResourceProperties.Mode says.
const HANDLER = `
const https = require('https');
const { URL } = require('url');
const { S3Client, PutObjectCommand } = require('@aws-sdk/client-s3');
function respond(event, body) {
  const url = new URL(event.ResponseURL);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { hostname: url.hostname, path: url.pathname + url.search, method: 'PUT',
        headers: { 'content-type': '', 'content-length': Buffer.byteLength(data) } },
      (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', reject);
    req.end(data);
  });
}
exports.handler = async (received) => {
  // Through SNS the request is the notification's Message.
  const event = received.Records ? JSON.parse(received.Records[0].Sns.Message) : received;
  await new S3Client({}).send(new PutObjectCommand({ Bucket: '${EVENTS_BUCKET}', Key: event.RequestId, Body: JSON.stringify(event) }));
  const p = event.ResourceProperties;
  if (p.Mode === 'silent') return;
  const base = { StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId };
  if (p.Mode === 'fail') return respond(event, { ...base, Status: 'FAILED', Reason: 'the widget is broken', PhysicalResourceId: 'half-made' });
  const id = p.Mode === 'new-id' ? 'widget-' + p.Name : (event.PhysicalResourceId || 'widget-' + p.Name);
  return respond(event, { ...base, Status: 'SUCCESS', PhysicalResourceId: id, NoEcho: p.Secret === 'true', Data: { Greeting: 'hello ' + p.Name, Count: p.Count } });
};
`;

describe('CustomResourceProvider', () => {
  let emulator: RunningEmulator;
  let factory: AwsClientFactory;
  let bucket: StateBucket;
  let s3: S3Client;
  let functionArn: string;
  let topicArn: string;
  const host = new RecordingIoHost();

  const provider = (options: { clock?: ManualClock; timeoutSeconds?: number } = {}) =>
    new CustomResourceProvider(
      createProviderContext({ clients: factory, logger: createLogger(host), region: 'us-east-1' }),
      { responses: bucket, pollIntervalsMs: [50, 100], ...options },
    );
  const event = async (requestId: string) =>
    JSON.parse(
      await (
        await s3.send(new GetObjectCommand({ Bucket: EVENTS_BUCKET, Key: requestId }))
      ).Body!.transformToString(),
    );
  const responseVersions = async () =>
    (
      await s3.send(
        new ListObjectVersionsCommand({ Bucket: bucket.name, Prefix: 'custom-resource-responses/' }),
      )
    ).Versions ?? [];

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    factory = await emulatorFactory(emulator);
    s3 = factory.get(S3Client);
    const name = await createBucket(factory);
    await createBucket(factory, { name: EVENTS_BUCKET, versioned: false });
    bucket = new StateBucket(factory, name, 'cli-flag', 'cdkd', createLogger(host));
    const lambda = factory.get(LambdaClient);
    const fn = await lambda.send(
      new CreateFunctionCommand({
        FunctionName: 'widget-handler',
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Role: `arn:aws:iam::${ACCOUNT}:role/handler-role`,
        Code: { ZipFile: await zipOf({ 'index.js': HANDLER }) },
        Timeout: 30,
      }),
    );
    functionArn = fn.FunctionArn!;
    const sns = factory.get(SNSClient);
    topicArn = (await sns.send(new CreateTopicCommand({ Name: 'widget-requests' }))).TopicArn!;
    await lambda.send(
      new AddPermissionCommand({
        FunctionName: 'widget-handler',
        StatementId: 'sns',
        Action: 'lambda:InvokeFunction',
        Principal: 'sns.amazonaws.com',
        SourceArn: topicArn,
      }),
    );
    await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'lambda', Endpoint: functionArn }));
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  it('sends Create as CloudFormation does and returns the physical id and Data', async () => {
    const token = 'create-token-1';
    const created = await provider().create(
      'Widget',
      'Custom::Widget',
      { ServiceToken: functionArn, Name: 'a', Count: 3, Nested: { On: true } },
      { stackName: 'Shop', region: 'us-east-1', idempotencyToken: token },
    );
    expect(created).toEqual({ physicalId: 'widget-a', attributes: { Greeting: 'hello a', Count: '3' } });
    const sent = await event(requestIdFor(token, 'Create'));
    expect(sent).toMatchObject({
      RequestType: 'Create',
      ServiceToken: functionArn,
      RequestId: requestIdFor(token, 'Create'),
      LogicalResourceId: 'Widget',
      ResourceType: 'Custom::Widget',
      StackId: expect.stringMatching(/^arn:aws:cloudformation:us-east-1:123456789012:stack\/Shop\//),
      // CloudFormation hands scalars over as strings.
      ResourceProperties: { ServiceToken: functionArn, Name: 'a', Count: '3', Nested: { On: 'true' } },
    });
    expect(sent.ResponseURL).toContain(`/${customResourceResponseKey(requestIdFor(token, 'Create'))}?`);
    expect(sent).not.toHaveProperty('PhysicalResourceId');
    expect(sent).not.toHaveProperty('OldResourceProperties');
    // The placeholder is gone, its versions (the response) purged.
    expect(await responseVersions()).toEqual([]);
  });

  it('sends Update with OldResourceProperties; a new PhysicalResourceId asks for the old one to be deleted', async () => {
    const same = await provider().update(
      'Widget',
      'widget-a',
      'Custom::Widget',
      { ServiceToken: functionArn, Name: 'b' },
      { ServiceToken: functionArn, Name: 'a' },
      { stackName: 'Shop', idempotencyToken: 'update-1' },
    );
    expect(same).toEqual({ physicalId: 'widget-a', wasReplaced: false, attributes: { Greeting: 'hello b' } });
    const sent = await event(requestIdFor('update-1', 'Update'));
    expect(sent).toMatchObject({
      RequestType: 'Update',
      PhysicalResourceId: 'widget-a',
      ResourceProperties: { Name: 'b' },
      OldResourceProperties: { Name: 'a' },
    });
    const replaced = await provider().update(
      'Widget',
      'widget-a',
      'Custom::Widget',
      { ServiceToken: functionArn, Name: 'c', Mode: 'new-id' },
      { ServiceToken: functionArn, Name: 'b' },
      { stackName: 'Shop', idempotencyToken: 'update-2' },
    );
    expect(replaced).toMatchObject({ physicalId: 'widget-c', wasReplaced: true, deletePrevious: true });
  });

  it('sends Delete with the physical id, through an SNS topic too', async () => {
    await provider().delete(
      'Widget',
      'widget-c',
      'Custom::Widget',
      { ServiceToken: topicArn, Name: 'c' },
      {
        stackName: 'Shop',
        idempotencyToken: 'delete-1',
      },
    );
    expect(await event(requestIdFor('delete-1', 'Delete'))).toMatchObject({
      RequestType: 'Delete',
      PhysicalResourceId: 'widget-c',
      ServiceToken: topicArn,
    });
  });

  it('passes NoEcho on as noEchoAttributes', async () => {
    const created = await provider().create(
      'Secret',
      'AWS::CloudFormation::CustomResource',
      { ServiceToken: functionArn, Name: 's', Secret: true },
      { stackName: 'Shop', region: 'us-east-1', idempotencyToken: 'noecho-1' },
    );
    expect(created.noEchoAttributes).toBe(true);
  });

  it("fails with the handler's Reason, naming what the failed Create made", async () => {
    const err = await provider()
      .create(
        'Widget',
        'Custom::Widget',
        { ServiceToken: functionArn, Mode: 'fail' },
        {
          stackName: 'Shop',
          region: 'us-east-1',
          idempotencyToken: 'fail-1',
        },
      )
      .catch((e: unknown) => e);
    expect(CdkdError.isCdkdError(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /Create of Widget \(Custom::Widget\) failed: the handler reported FAILED: the widget is broken/,
    );
    expect(err).toMatchObject({ createdPhysicalId: 'half-made' });
    expect(await responseVersions()).toEqual([]);
  });

  it('fails the resource when the handler never answers within ServiceTimeout (manual clock)', async () => {
    const clock = new ManualClock();
    const pending = provider({ clock })
      .create(
        'Widget',
        'Custom::Widget',
        { ServiceToken: functionArn, Mode: 'silent', ServiceTimeout: 30 },
        {
          stackName: 'Shop',
          region: 'us-east-1',
          idempotencyToken: 'silent-1',
        },
      )
      .catch((e: unknown) => e);
    let settled = false;
    void pending.then(() => (settled = true));
    // Each poll is a real S3 read; advance the clock whenever the provider sleeps.
    while (!settled) {
      if (clock.pending > 0) await clock.advance(5000);
      else await new Promise((r) => setImmediate(r));
    }
    const err = await pending;
    expect((err as Error).message).toMatch(/its handler did not respond within 30 s/);
    expect(clock.now()).toBeGreaterThanOrEqual(1_000_000 + 30_000);
  });

  it('never sends a request twice: a rerun that finds the placeholder waits for that response', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const ctx = {
      stackName: 'Shop',
      region: 'us-east-1',
      idempotencyToken: 'rerun-1',
      signal: controller.signal,
    };
    const first = provider({ clock })
      .create('Widget', 'Custom::Widget', { ServiceToken: functionArn, Mode: 'silent' }, ctx)
      .catch((e: unknown) => e);
    while (clock.pending === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    expect(await first).toMatchObject({ inDoubt: true });
    const requestId = requestIdFor('rerun-1', 'Create');
    const key = customResourceResponseKey(requestId);
    // The placeholder stays for the rerun.
    expect((await responseVersions()).map((v) => v.Key)).toContain(key);
    const before = (await emulator.control.requests()).byOperation['lambda:Invoke'] ?? 0;
    // The rerun (another process) answers from the handler's late response without invoking again.
    const rerun = provider().create(
      'Widget',
      'Custom::Widget',
      { ServiceToken: functionArn, Mode: 'silent' },
      {
        ...ctx,
        signal: undefined,
      },
    );
    const url = (await event(requestId)).ResponseURL as string;
    await fetch(url, {
      method: 'PUT',
      body: JSON.stringify({ Status: 'SUCCESS', RequestId: requestId, PhysicalResourceId: 'late', Data: {} }),
    });
    expect(await rerun).toEqual({ physicalId: 'late', attributes: {} });
    expect((await emulator.control.requests()).byOperation['lambda:Invoke'] ?? 0).toBe(before);
  });

  it('refuses a ServiceToken that is neither a function nor a topic, before sending anything', async () => {
    await expect(
      provider().create(
        'Widget',
        'Custom::Widget',
        { ServiceToken: 'arn:aws:sqs:us-east-1:123456789012:q' },
        {
          stackName: 'Shop',
          region: 'us-east-1',
          idempotencyToken: 'bad-1',
        },
      ),
    ).rejects.toThrow(/neither a Lambda function ARN nor an SNS topic ARN/);
  });

  it('counts a Delete whose handler function is gone as deleted', async () => {
    await provider().delete(
      'Widget',
      'widget-x',
      'Custom::Widget',
      { ServiceToken: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:gone` },
      { stackName: 'Shop', idempotencyToken: 'gone-1' },
    );
    expect(host.messages.map((m) => m.message).join('\n')).toMatch(
      /no longer exists, so nothing can run its Delete/,
    );
    expect(await responseVersions()).toEqual([]);
  });
});
