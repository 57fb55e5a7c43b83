/**
 * The Cloud Control provider against the emulator's Cloud Control service,
 * with the real SDK client.
 */
import { CloudControlClient, ListResourceRequestsCommand } from '@aws-sdk/client-cloudcontrol';
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

  it('reports a create that failed after making its resource with that resource, never as retryable', async () => {
    await emulator.control.setTypeSettings('AWS::SNS::Topic', {
      failWith: { errorCode: 'NotStabilized', afterCreate: true, count: 1 },
    });
    const err = (await provider()
      .create('Topic', 'AWS::SNS::Topic', {}, ctx('made-then-failed'))
      .catch((e: unknown) => e)) as CdkdError & { retryable?: boolean; createdPhysicalId?: string };
    const [topic] = (await emulator.control.inventory()).filter((r) => r.type === 'AWS::SNS::Topic');
    expect(err.createdPhysicalId).toBe(topic.identifier);
    expect(err.retryable).toBe(false);
  });

  it('reads the identifier a failed create carries: one that names no resource was not made', async () => {
    // Cloud Control may report an identifier before the handler made anything; the emulator's
    // injected failure of a named resource does so (the name from the desired state, nothing made).
    await emulator.control.setTypeSettings('AWS::SSM::Parameter', {
      failWith: { errorCode: 'InvalidRequest', count: 1 },
    });
    const err = (await provider()
      .create('P', 'AWS::SSM::Parameter', { Name: 'never-made', Type: 'String', Value: 'v' }, ctx('nm'))
      .catch((e: unknown) => e)) as CdkdError & {
      createdPhysicalId?: string;
      resource?: { physicalId?: string };
    };
    expect(err.message).toMatch(/InvalidRequest/);
    expect((await emulator.control.inventory()).filter((r) => r.type === 'AWS::SSM::Parameter')).toEqual([]);
    expect(err.createdPhysicalId).toBeUndefined();
    expect(err.resource?.physicalId).toBeUndefined();
  });

  it('does not retry a NotStabilized create even without an identifier; retries other handler throttling', async () => {
    await emulator.control.setTypeSettings('AWS::SNS::Topic', {
      failWith: { errorCode: 'NotStabilized', count: 1 },
    });
    const err = (await provider()
      .create('Topic', 'AWS::SNS::Topic', {}, ctx('ns'))
      .catch((e: unknown) => e)) as CdkdError & { retryable?: boolean };
    expect(err.retryable).toBe(false);
  });

  it('sends a ClientToken per attempt on update and delete: the same attempt is the same request', async () => {
    const p = provider();
    const { physicalId } = await p.create(
      'P',
      'AWS::SSM::Parameter',
      { Name: 'tok', Type: 'String', Value: 'a' },
      ctx('c'),
    );
    const update = () =>
      p.update(
        'P',
        physicalId,
        'AWS::SSM::Parameter',
        { Name: 'tok', Type: 'String', Value: 'b' },
        { Name: 'tok', Type: 'String', Value: 'a' },
        { expectedRegion: 'us-east-1', idempotencyToken: 'update-intent', attempt: 0 },
      );
    await update();
    // A re-run of the same intent (after a lost reply, or by a later process) gets the same request back.
    await update();
    const stored = (await emulator.control.inventory()).find((r) => r.identifier === 'tok');
    expect(stored?.properties.Value).toBe('b');
    const del = () =>
      p.delete(
        'P',
        physicalId,
        'AWS::SSM::Parameter',
        {},
        { expectedRegion: 'us-east-1', idempotencyToken: 'del', attempt: 0 },
      );
    await del();
    await del();
    expect((await emulator.control.inventory()).find((r) => r.identifier === 'tok')).toBeUndefined();
    const requests = async (operation: 'UPDATE' | 'DELETE') =>
      (
        await factory
          .get(CloudControlClient)
          .send(new ListResourceRequestsCommand({ ResourceRequestStatusFilter: { Operations: [operation] } }))
      ).ResourceRequestStatusSummaries ?? [];
    expect(await requests('UPDATE')).toHaveLength(1);
    expect(await requests('DELETE')).toHaveLength(1);
  });

  it('cancels the Cloud Control request when its signal aborts during the wait, and reports the outcome in doubt', async () => {
    await emulator.control.setTypeLatency('AWS::SNS::Topic', 60_000);
    const controller = new AbortController();
    const tokens: string[] = [];
    const creating = provider()
      .create('Topic', 'AWS::SNS::Topic', {}, {
        ...ctx('cancelled'),
        signal: controller.signal,
        onRequestToken: (t: string) => {
          tokens.push(t);
          controller.abort();
        },
      } as Parameters<CloudControlProvider['create']>[3])
      .catch((e: unknown) => e);
    const err = (await creating) as CdkdError & { inDoubt?: boolean };
    expect(err.inDoubt).toBe(true);
    expect(tokens).toHaveLength(1);
    expect((await emulator.control.requests()).byOperation['cloudcontrol:CancelResourceRequest']).toBe(1);
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
