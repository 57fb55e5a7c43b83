/**
 * The client factory: where clients send their calls (cdkd's endpoint, also for
 * an SDK too old to read it), how they are cached, which are refused, and what
 * it reports of each call attempt (against the emulator: the SDK's own
 * classification of a throttled attempt, then the accepted retry).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { DescribeParametersCommand } from '@aws-sdk/client-ssm';
import { SSMClient } from '@aws-sdk/client-ssm';
import { CloudControlClient, ListResourcesCommand } from '@aws-sdk/client-cloudcontrol';
import { AwsClientFactory, MINIMUM_SDK_VERSION, serviceIdOf } from '../../../src/config/aws-clients';
import type { CallOutcome } from '../../../src/config/aws-clients';
import { CdkdError } from '../../../src/util/errors';
import { startEmulator } from '../../emulator/src';
import type { RunningEmulator } from '../../emulator/src';

// The SSM client of the fixture pack: @aws-sdk/client-ssm 3.300.0, which reads
// neither AWS_ENDPOINT_URL nor AWS_ENDPOINT_URL_SSM by itself.
const OLD = require(
  path.resolve(__dirname, '../../fixtures/packs/old-sdk-ssm/node_modules/@aws-sdk/client-ssm'),
) as { SSMClient: typeof SSMClient; DescribeParametersCommand: typeof DescribeParametersCommand };

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

async function factory(env: NodeJS.ProcessEnv, endpointUrl?: string): Promise<AwsClientFactory> {
  return (await AwsClientFactory.create({ region: 'us-east-1', env, endpointUrl })).withCredentials(
    credentials,
    'test',
  );
}

/** A loopback SSM endpoint that records the operations it is asked for. */
async function listener(): Promise<{ url: string; operations: string[]; close(): Promise<void> }> {
  const operations: string[] = [];
  const server = http.createServer((req, res) => {
    operations.push(String(req.headers['x-amz-target']));
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end('{"Parameters":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    operations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('AwsClientFactory', () => {
  let ssm: Awaited<ReturnType<typeof listener>>;
  beforeEach(async () => (ssm = await listener()));
  afterEach(() => ssm.close());

  it('sends an SDK 3.300 client to AWS_ENDPOINT_URL_SSM, which that SDK does not read itself', async () => {
    const f = await factory({ AWS_ENDPOINT_URL_SSM: ssm.url, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' });
    const client = f.get(OLD.SSMClient);
    await client.send(new OLD.DescribeParametersCommand({}));
    expect(ssm.operations).toEqual(['AmazonSSM.DescribeParameters']);
  });

  it('sends an SDK 3.300 client to AWS_ENDPOINT_URL, and --endpoint-url over both', async () => {
    await (
      await factory({ AWS_ENDPOINT_URL: ssm.url })
    )
      .get(OLD.SSMClient)
      .send(new OLD.DescribeParametersCommand({}));
    const flagged = await factory(
      { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9' },
      ssm.url,
    );
    await flagged.get(OLD.SSMClient).send(new OLD.DescribeParametersCommand({}));
    expect(ssm.operations).toEqual(['AmazonSSM.DescribeParameters', 'AmazonSSM.DescribeParameters']);
  });

  it('resolves no endpoint when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is set, except the flag', async () => {
    const env = { AWS_ENDPOINT_URL: ssm.url, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' };
    expect((await factory(env)).endpointOverride('SSM')).toBeUndefined();
    expect((await factory(env, ssm.url)).endpointOverride('SSM')).toBe(ssm.url);
  });

  it('keys clients by class, not by class name: two SDK copies never share a client', async () => {
    const f = await factory({});
    expect(OLD.SSMClient.name).toBe(SSMClient.name);
    const modern = f.get(SSMClient);
    const old = f.get(OLD.SSMClient);
    expect(old).not.toBe(modern);
    expect(old).toBeInstanceOf(OLD.SSMClient);
    expect(f.get(SSMClient)).toBe(modern);
    expect(f.get(SSMClient, { region: 'eu-west-1' })).not.toBe(modern);
  });

  it('gives S3 path-style addressing when an endpoint is set, by service id', async () => {
    const s3 = (await factory({ AWS_ENDPOINT_URL_S3: ssm.url })).get(S3Client);
    expect(s3.config.forcePathStyle).toBe(true);
    expect((await factory({})).get(S3Client).config.forcePathStyle).toBe(false);
  });

  it('refuses a client without endpoint rules, naming the minimum SDK version', () => {
    // An SDK release before endpoint rules: a service id, no endpointProvider (the emulator cannot stand in for a client).
    class SQSClient {
      readonly config = { serviceId: 'SQS' };
      constructor(_config: Record<string, unknown>) {}
    }
    let caught: unknown;
    try {
      serviceIdOf(SQSClient);
    } catch (err) {
      caught = err;
    }
    expect(CdkdError.isCdkdError(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'AWS_SDK_TOO_OLD' });
    expect((caught as CdkdError).message).toContain('SQSClient');
    expect((caught as CdkdError).remedy).toContain(`@aws-sdk/client-* ${MINIMUM_SDK_VERSION} or newer`);
    expect(serviceIdOf(OLD.SSMClient)).toBe('SSM');
  });
});

describe('AwsClientFactory call observers', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    process.env.AWS_ACCESS_KEY_ID = 'AKID';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  it('reports a throttled attempt and the accepted retry, for clients of derived factories too', async () => {
    const factory = await AwsClientFactory.create({
      region: 'us-east-1',
      endpointUrl: emulator.url,
      env: {},
    });
    const seen: CallOutcome[] = [];
    const stop = factory.observeCalls((call) => seen.push(call));
    await emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'ListResources',
      error: 'ThrottlingException',
      count: 1,
    });
    const derived = factory.withCredentials({ accessKeyId: 'AKID2', secretAccessKey: 's' }, 'role');
    await derived.get(CloudControlClient).send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }));
    expect(seen).toEqual([
      { client: 'CloudControlClient', outcome: 'throttled' },
      { client: 'CloudControlClient', outcome: 'accepted' },
    ]);
    stop();
    await factory.get(CloudControlClient).send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }));
    expect(seen).toHaveLength(2);
  });
});
