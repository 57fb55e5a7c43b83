/** Cloud Control's modelled rate limits: token buckets per account, region and operation. */
import { CloudControlClient, ListResourcesCommand } from '@aws-sdk/client-cloudcontrol';
import { CloudControlRateLimits, DEFAULT_RATE_LIMITS } from '../src/services/cloudcontrol/rate-limits';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();

function setup() {
  let now = 0;
  const limits = new CloudControlRateLimits(() => now);
  return { limits, advance: (ms: number) => (now += ms) };
}

/** Calls admitted in a row before the first ThrottlingException. */
function admitted(
  limits: CloudControlRateLimits,
  account: string,
  region: string,
  operation: string,
): number {
  for (let n = 0; ; n++) {
    try {
      limits.admit(account, region, operation);
    } catch (err) {
      expect(err).toMatchObject({ code: 'ThrottlingException', status: 400, message: 'Rate exceeded' });
      return n;
    }
  }
}

describe('Cloud Control rate limits', () => {
  it('are off until switched on', () => {
    const { limits } = setup();
    for (let i = 0; i < 1000; i++) limits.admit('111111111111', 'us-east-1', 'CreateResource');
    expect(limits.view()).toEqual({ enabled: false, limits: DEFAULT_RATE_LIMITS, throttled: {} });
  });

  it('admit a burst, then the refill rate, per account, region and operation', () => {
    const { limits, advance } = setup();
    limits.configure({ enabled: true });
    const burst = DEFAULT_RATE_LIMITS.GetResourceRequestStatus.burst;
    expect(admitted(limits, '111111111111', 'us-east-1', 'GetResourceRequestStatus')).toBe(burst);
    // Other buckets are untouched.
    expect(admitted(limits, '111111111111', 'us-east-1', 'CreateResource')).toBe(
      DEFAULT_RATE_LIMITS.CreateResource.burst,
    );
    expect(admitted(limits, '111111111111', 'eu-west-1', 'GetResourceRequestStatus')).toBe(burst);
    expect(admitted(limits, '222222222222', 'us-east-1', 'GetResourceRequestStatus')).toBe(burst);
    advance(1000);
    expect(admitted(limits, '111111111111', 'us-east-1', 'GetResourceRequestStatus')).toBe(
      DEFAULT_RATE_LIMITS.GetResourceRequestStatus.rate,
    );
    expect(limits.view().throttled).toEqual({ GetResourceRequestStatus: 4, CreateResource: 1 });
  });

  it('take figures from the control API, validated, and return to the defaults on reset', () => {
    const { limits, advance } = setup();
    limits.configure({ enabled: true, limits: { CreateResource: { rate: 2, burst: 1 }, GetResource: null } });
    expect(admitted(limits, 'a', 'r', 'CreateResource')).toBe(1);
    advance(500);
    expect(admitted(limits, 'a', 'r', 'CreateResource')).toBe(1);
    for (let i = 0; i < 100; i++) limits.admit('a', 'r', 'GetResource');
    expect(() => limits.configure({ limits: { CreateResource: { rate: 0, burst: 1 } } })).toThrow(/rate > 0/);
    expect(() => limits.configure({ enabled: 'yes' })).toThrow(/boolean/);
    limits.reset();
    expect(limits.view()).toEqual({ enabled: false, limits: DEFAULT_RATE_LIMITS, throttled: {} });
  });
});

describe('Cloud Control rate limits through the control API and the SDK', () => {
  beforeEach(() => ctx.emulator.control.reset());

  it('answer ThrottlingException "Rate exceeded" past the burst, a code the SDK retries as throttling', async () => {
    const cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    const view = await ctx.emulator.control.setCloudControlRateLimits({
      enabled: true,
      limits: { ListResources: { rate: 0.001, burst: 2 } },
    });
    expect(view.enabled).toBe(true);
    const list = () => cc.send(new ListResourcesCommand({ TypeName: 'AWS::SNS::Topic' }));
    await list();
    await list();
    await expect(list()).rejects.toMatchObject({
      name: 'ThrottlingException',
      message: 'Rate exceeded',
      $metadata: { httpStatusCode: 400 },
    });
    expect((await ctx.emulator.control.cloudControlRateLimits()).throttled).toEqual({ ListResources: 1 });

    // Off again (and by reset): nothing is throttled.
    await ctx.emulator.control.setCloudControlRateLimits({ enabled: false });
    await list();
    await ctx.emulator.control.reset();
    expect(await ctx.emulator.control.cloudControlRateLimits()).toEqual({
      enabled: false,
      limits: DEFAULT_RATE_LIMITS,
      throttled: {},
    });
    cc.destroy();
  });

  it('refuses bad figures with 400', async () => {
    await expect(
      ctx.emulator.control.setCloudControlRateLimits({ limits: { CreateResource: { rate: -1, burst: 1 } } }),
    ).rejects.toThrow(/rate > 0/);
  });
});
