// The hook must answer without loading @aws-sdk/client-sqs (75-150 ms on every
// command); the client loads when a provider is first made. A module factory
// that throws is the tripwire: any load of the SDK fails the test.
jest.mock('@aws-sdk/client-sqs', () => {
  throw new Error('@aws-sdk/client-sqs was loaded');
});

import type { ProviderContext } from '@cdkd/plugin-api';
import hook from '../src/hook';

describe('@cdkd/provider-sqs loading', () => {
  it('answers the hook without loading the SQS client', async () => {
    const pack = (await (hook as unknown as () => Promise<{ providers: unknown[] }>)()) as {
      providers: Array<{ resourceType: string; createProvider: (ctx: ProviderContext) => unknown }>;
    };
    expect(pack.providers.map((p) => p.resourceType)).toEqual(['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy']);
  });

  it('loads the client when a provider is made', async () => {
    const pack = (await (hook as unknown as () => Promise<unknown>)()) as {
      providers: Array<{ createProvider: (ctx: ProviderContext) => unknown }>;
    };
    expect(() => pack.providers[0].createProvider({} as ProviderContext)).toThrow(
      '@aws-sdk/client-sqs was loaded',
    );
  });
});
