import { SQSClient } from '@aws-sdk/client-sqs';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { assertRegionMatch } from '../../../src/provisioning/region-check';
import { CdkdError, ProvisioningError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';

describe('assertRegionMatch', () => {
  it('is a no-op without an expected region, and when the regions match', () => {
    expect(() => assertRegionMatch('us-east-1', undefined, 'AWS::SQS::Queue', 'Q', 'url')).not.toThrow();
    expect(() => assertRegionMatch('us-east-1', 'us-east-1', 'AWS::SQS::Queue', 'Q', 'url')).not.toThrow();
  });

  it('refuses a NotFound in another region, naming both regions, the resource and the remedy', () => {
    let thrown: unknown;
    try {
      assertRegionMatch('eu-west-1', 'us-east-1', 'AWS::SQS::Queue', 'Queue', 'https://q');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProvisioningError);
    const err = thrown as ProvisioningError;
    expect(err.code).toBe('REGION_MISMATCH');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      'Queue (AWS::SQS::Queue, https://q) was not found in region eu-west-1, but state records it in us-east-1; refusing to treat it as already deleted.',
    );
    expect(err.remedy).toMatch(/--region us-east-1/);
    expect(err.resource).toEqual({
      logicalId: 'Queue',
      resourceType: 'AWS::SQS::Queue',
      physicalId: 'https://q',
    });
  });

  it('words the pre-delete and pre-update phases as refusals to act', () => {
    expect(() => assertRegionMatch('eu-west-1', 'us-east-1', 'T', 'L', 'P', 'pre-delete')).toThrow(
      'Refusing to delete L (T, P) through region eu-west-1: state records it in us-east-1.',
    );
    expect(() => assertRegionMatch(undefined, 'us-east-1', 'T', 'L', 'P', 'pre-update')).toThrow(
      'Refusing to update L (T, P) through an unknown region: state records it in us-east-1.',
    );
  });
});

describe('createProviderContext', () => {
  const env = { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' };

  async function context(region?: string) {
    const factory = await AwsClientFactory.create({ region: 'us-east-1', env });
    const host = new RecordingIoHost();
    return {
      factory,
      host,
      ctx: createProviderContext({ clients: factory, logger: createLogger(host), region }),
    };
  }

  it('hands out the factory clients for its region unless asked for another', async () => {
    const { factory, ctx } = await context('eu-west-1');
    expect(ctx.region).toBe('eu-west-1');
    const client = ctx.clients.get(SQSClient);
    expect(client).toBe(factory.get(SQSClient, { region: 'eu-west-1' }));
    expect(await client.config.region()).toBe('eu-west-1');
    expect(ctx.clients.get(SQSClient, { region: 'us-west-2' })).toBe(
      factory.get(SQSClient, { region: 'us-west-2' }),
    );
  });

  it('defaults to the factory region and derives the partition', async () => {
    expect((await context()).ctx.region).toBe('us-east-1');
    expect((await context()).ctx.partition).toBe('aws');
    expect((await context('cn-north-1')).ctx.partition).toBe('aws-cn');
  });

  it('gives providers cdkd errors that the core recognises, and the region check', async () => {
    const { ctx } = await context();
    const err = new ctx.errors.ProvisioningError('failed', { remedy: 'do this', retryable: true });
    expect(CdkdError.isCdkdError(err)).toBe(true);
    expect(ctx.errors.isCdkdError(err)).toBe(true);
    expect(ctx.errors.isCdkdError(new Error('x'))).toBe(false);
    expect(err.retryable).toBe(true);
    expect(() => ctx.assertRegionMatch('eu-west-1', 'us-east-1', 'T', 'L', 'P')).toThrow(ProvisioningError);
  });

  it('retries transient errors only', async () => {
    const { ctx } = await context();
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: {} });
    let calls = 0;
    const value = await ctx.retry(
      async () => {
        calls++;
        if (calls < 3) throw throttled;
        return 'done';
      },
      { baseDelayMs: 1, maxDelayMs: 2 },
    );
    expect(value).toBe('done');
    expect(calls).toBe(3);
    expect(ctx.isTransientError(throttled)).toBe(true);
    expect(ctx.isTransientError(new Error('AccessDenied'))).toBe(false);
    calls = 0;
    await expect(
      ctx.retry(
        async () => {
          calls++;
          throw new Error('bad input');
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow('bad input');
    expect(calls).toBe(1);
  });

  it('sends provider log lines to cdkd output', async () => {
    const { ctx, host } = await context();
    ctx.logger.warn('careful', { a: 1 });
    expect(host.messages).toEqual([
      expect.objectContaining({ level: 'warn', message: 'careful', data: { a: 1 } }),
    ]);
  });
});
