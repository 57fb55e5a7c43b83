/**
 * The Cloud Control provider against the emulator's Cloud Control service,
 * with the real SDK client.
 */
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { CloudControlProvider } from '../../../src/provisioning/cloud-control-provider';
import { PollSchedule } from '../../../src/provisioning/poll-schedule';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { CdkdError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { startEmulator } from '../../emulator/src';
import type { RunningEmulator } from '../../emulator/src';

describe('CloudControlProvider', () => {
  let emulator: RunningEmulator;
  let factory: AwsClientFactory;
  const schemas = SchemaStore.default();

  const provider = (region = 'us-east-1') =>
    new CloudControlProvider(
      createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()), region }),
      {
        schemas: { get: (t) => schemas.tryGet(t) },
      },
    );
  const ctx = (token: string) => ({ stackName: 'S', region: 'us-east-1', idempotencyToken: token });

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    factory = await AwsClientFactory.create({
      region: 'us-east-1',
      endpointUrl: emulator.url,
      env: {},
    });
    process.env.AWS_ACCESS_KEY_ID = 'AKID';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
  });
  afterAll(async () => {
    await emulator?.stop();
  });
  beforeEach(async () => {
    await emulator.control.reset();
  });

  it('creates through the request lifecycle, returns the identifier and the schema attributes', async () => {
    await emulator.control.setTypeLatency('AWS::Logs::LogGroup', 300);
    const created = await provider().create(
      'Logs',
      'AWS::Logs::LogGroup',
      { LogGroupName: 'my-group', RetentionInDays: '7' },
      ctx('t1'),
    );
    expect(created.physicalId).toBe('my-group');
    expect(created.attributes).toEqual({
      Arn: expect.stringMatching(/^arn:aws:logs:us-east-1:123456789012:log-group:my-group/),
    });
    const [item] = (await emulator.control.inventory()).filter((r) => r.type === 'AWS::Logs::LogGroup');
    // The template's "7" reached Cloud Control as the integer the schema declares.
    expect(item.properties.RetentionInDays).toBe(7);
    const { byOperation } = await emulator.control.requests();
    expect(byOperation['cloudcontrol:GetResourceRequestStatus']).toBeGreaterThanOrEqual(1);
  });

  it('makes one resource when the same create is retried (stable ClientToken)', async () => {
    const p = provider();
    const a = await p.create('Topic', 'AWS::SNS::Topic', {}, ctx('same-token'));
    const b = await p.create('Topic', 'AWS::SNS::Topic', {}, ctx('same-token'));
    expect(b.physicalId).toBe(a.physicalId);
    expect((await emulator.control.inventory()).filter((r) => r.type === 'AWS::SNS::Topic')).toHaveLength(1);
  });

  it('updates with a patch and refreshes attributes', async () => {
    const p = provider();
    const { physicalId } = await p.create(
      'Param',
      'AWS::SSM::Parameter',
      { Name: 'p1', Type: 'String', Value: 'a' },
      ctx('p1'),
    );
    await emulator.control.clearRequests();
    const updated = await p.update(
      'Param',
      physicalId,
      'AWS::SSM::Parameter',
      { Name: 'p1', Type: 'String', Value: 'b' },
      { Name: 'p1', Type: 'String', Value: 'a' },
      { expectedRegion: 'us-east-1' },
    );
    expect(updated).toEqual(expect.objectContaining({ physicalId: 'p1', wasReplaced: false }));
    expect(updated.attributes?.Value).toBe('b');
    expect((await emulator.control.requests()).byOperation['cloudcontrol:UpdateResource']).toBe(1);
  });

  it('treats a resource that is already gone as deleted in its own region', async () => {
    await expect(
      provider().delete('Gone', 'no-such-topic', 'AWS::SNS::Topic', {}, { expectedRegion: 'us-east-1' }),
    ).resolves.toBeUndefined();
  });

  it('refuses to delete from another region than the one recorded', async () => {
    await expect(
      provider('eu-west-1').delete('Topic', 'arn:x', 'AWS::SNS::Topic', {}, { expectedRegion: 'us-east-1' }),
    ).rejects.toThrow(/us-east-1.*eu-west-1|eu-west-1.*us-east-1/);
  });

  it('names the type and suggests a provider pack when Cloud Control cannot provision it', async () => {
    await emulator.control.setTypeProvisionable('AWS::SNS::Topic', false);
    const err = await provider()
      .create('Topic', 'AWS::SNS::Topic', {}, ctx('u1'))
      .catch((e: unknown) => e);
    expect(CdkdError.isCdkdError(err)).toBe(true);
    expect((err as CdkdError).code).toBe('TYPE_NOT_PROVISIONABLE');
    expect((err as CdkdError).message).toContain('AWS::SNS::Topic');
    expect((err as CdkdError).remedy).toMatch(/provider pack/);
  });

  it('reports a failed request with its handler error, retryable when the error is transient', async () => {
    await emulator.control.setTypeSettings('AWS::SNS::Topic', { failWith: { errorCode: 'Throttling' } });
    const err = (await provider()
      .create('Topic', 'AWS::SNS::Topic', {}, ctx('f1'))
      .catch((e: unknown) => e)) as CdkdError & { retryable?: boolean };
    expect(err.message).toMatch(/Topic \(AWS::SNS::Topic\).*Throttling/);
    expect(err.retryable).toBe(true);
  });

  it('checks a request that is done when accepted once, and asks the schedule for every check', async () => {
    const schedule = new PollSchedule();
    const p = new CloudControlProvider(
      createProviderContext({
        clients: factory,
        logger: createLogger(new RecordingIoHost()),
        region: 'us-east-1',
      }),
      { schemas: { get: (t) => schemas.tryGet(t) }, schedule },
    );
    await p.create('Topic', 'AWS::SNS::Topic', {}, ctx('poll-0'));
    expect((await emulator.control.requests()).byOperation['cloudcontrol:GetResourceRequestStatus']).toBe(1);
    expect(schedule.stats()).toEqual([
      { typeName: 'AWS::SNS::Topic', operation: 'CREATE', requests: 1, checks: 1, unanswered: 0 },
    ]);
  });

  it('keeps waiting when status checks are throttled past the SDK retries', async () => {
    const oneAttempt = await AwsClientFactory.create({
      region: 'us-east-1',
      endpointUrl: emulator.url,
      env: {},
      maxAttempts: 1,
    });
    const schedule = new PollSchedule();
    const p = new CloudControlProvider(
      createProviderContext({
        clients: oneAttempt,
        logger: createLogger(new RecordingIoHost()),
        region: 'us-east-1',
      }),
      { schemas: { get: (t) => schemas.tryGet(t) }, schedule },
    );
    await emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'GetResourceRequestStatus',
      error: 'ThrottlingException',
      count: 2,
    });
    const created = await p.create('Topic', 'AWS::SNS::Topic', {}, ctx('throttled-checks'));
    expect(created.physicalId).toMatch(/^arn:aws:sns:/);
    expect(schedule.stats()[0]).toEqual(expect.objectContaining({ checks: 3, unanswered: 2 }));
  });
});
