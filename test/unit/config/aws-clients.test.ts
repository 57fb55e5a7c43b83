/**
 * What the client factory reports of each call attempt, against the emulator:
 * the SDK's own classification of a throttled attempt, then the accepted retry.
 */
import { CloudControlClient, ListResourcesCommand } from '@aws-sdk/client-cloudcontrol';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import type { CallOutcome } from '../../../src/config/aws-clients';
import { startEmulator } from '../../emulator/src';
import type { RunningEmulator } from '../../emulator/src';

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
