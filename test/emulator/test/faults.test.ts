import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let s3: S3Client;

beforeAll(() => {
  s3 = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 4 });
});
afterAll(() => s3.destroy());
beforeEach(async () => {
  await ctx.emulator.control.reset();
  await s3.send(new CreateBucketCommand({ Bucket: 'fault-bucket' }));
});

describe('fault injection', () => {
  test('a 503 SlowDown on the next call is retried by the SDK', async () => {
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      error: 'SlowDown',
      count: 2,
    });
    const out = await s3.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'k', Body: 'v' }));
    expect(out.$metadata.attempts).toBe(3);
    expect((await ctx.emulator.control.requests()).byOperation['s3:PutObject']).toBe(3);
    expect(await ctx.emulator.control.faults()).toEqual([]);
  });

  test('faults beyond the retry budget surface with AWS error code and status', async () => {
    await ctx.emulator.control.addFault({ service: 's3', operation: 'GetObject', error: 500, count: 10 });
    const err = await s3
      .send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'k' }))
      .catch((e: unknown) => e as { name: string; $metadata: { httpStatusCode: number; attempts: number } });
    expect(err).toMatchObject({ name: 'InternalError', $metadata: { httpStatusCode: 500, attempts: 4 } });
  });

  test('a throttling fault on a query service', async () => {
    const sts = new STSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    await ctx.emulator.control.addFault({ service: 'sts', error: 'Throttling' });
    await expect(sts.send(new GetCallerIdentityCommand({}))).rejects.toMatchObject({
      name: 'Throttling',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(sts.send(new GetCallerIdentityCommand({}))).resolves.toMatchObject({
      Account: '123456789012',
    });
    sts.destroy();
  });

  test('a fault by probability 1 fires until removed', async () => {
    const fault = await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'GetObject',
      error: 'AccessDenied',
      probability: 1,
    });
    const plain = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    for (let i = 0; i < 3; i++) {
      await expect(
        plain.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'k' })),
      ).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    }
    // Other operations are untouched.
    await plain.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'k', Body: 'v' }));
    expect((await ctx.emulator.control.faults())[0]).toMatchObject({ id: fault.id, fired: 3 });
    await ctx.emulator.control.removeFault(fault.id);
    expect(await ctx.emulator.control.faults()).toEqual([]);
    await expect(
      plain.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'k' })),
    ).resolves.toMatchObject({ ETag: expect.any(String) });
    plain.destroy();
  });

  test('a seeded fault makes the same fire / pass decisions every time it is set up', async () => {
    const plain = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    const decisions = async (): Promise<boolean[]> => {
      const fault = await ctx.emulator.control.addFault({
        service: 's3',
        operation: 'HeadBucket',
        error: 500,
        probability: 0.5,
        seed: 1234,
      });
      const out: boolean[] = [];
      for (let i = 0; i < 16; i++) {
        out.push(
          await plain.send(new HeadBucketCommand({ Bucket: 'fault-bucket' })).then(
            () => false,
            () => true,
          ),
        );
      }
      await ctx.emulator.control.removeFault(fault.id);
      return out;
    };
    const first = await decisions();
    expect(await decisions()).toEqual(first);
    // Both outcomes occur: the draws are not stuck at one answer.
    expect(first).toContain(true);
    expect(first).toContain(false);
    plain.destroy();
  });

  test('maxPerCall lets a retrying SDK call through after that many faults', async () => {
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'HeadBucket',
      error: 503,
      probability: 1,
      maxPerCall: 2,
    });
    const retrying = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 3 });
    const out = await retrying.send(new HeadBucketCommand({ Bucket: 'fault-bucket' }));
    expect(out.$metadata.attempts).toBe(3);
    // A call with fewer attempts than the cap still fails: every attempt is faulted.
    const once = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 2 });
    await expect(once.send(new HeadBucketCommand({ Bucket: 'fault-bucket' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 503 },
    });
    retrying.destroy();
    once.destroy();
  });

  test('a dropped response leaves the change applied: the retried conditional put sees 412', async () => {
    await ctx.emulator.control.addFault({ service: 's3', operation: 'PutObject', mode: 'drop' });
    const err = await s3
      .send(
        new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'lock.json', Body: 'mine', IfNoneMatch: '*' }),
      )
      .catch((e: unknown) => e as { name: string; $metadata: { httpStatusCode: number; attempts: number } });
    // The first attempt was applied but its reply lost; the SDK retried and S3 refused the duplicate.
    expect(err).toMatchObject({
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412, attempts: 2 },
    });
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'lock.json' }));
    expect(await stored.Body?.transformToString()).toBe('mine');
  });

  test('a fault matches chosen input members: a lost reply on one S3 key only', async () => {
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'drop',
      match: { Key: 'stacks/a/state.json' },
    });
    const plain = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    // Another key is untouched.
    await plain.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'stacks/b/state.json', Body: 'b' }));
    await expect(
      plain.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'stacks/a/state.json', Body: 'a' })),
    ).rejects.toThrow();
    // The write took effect although its reply never came.
    const stored = await s3.send(
      new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'stacks/a/state.json' }),
    );
    expect(await stored.Body?.transformToString()).toBe('a');
    expect(await ctx.emulator.control.faults()).toEqual([]);
    plain.destroy();
  });

  test('error-after applies the write and answers the error anyway', async () => {
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'PutObject',
      mode: 'error-after',
      error: 500,
    });
    const plain = new S3Client({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    await expect(
      plain.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'k2', Body: 'landed' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 } });
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'k2' }));
    expect(await stored.Body?.transformToString()).toBe('landed');
    plain.destroy();
  });

  test("the emulator's clock can run ahead of the host's: Last-Modified and Date follow it", async () => {
    await ctx.emulator.control.setClockOffset(3_600_000);
    await s3.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'later', Body: 'x' }));
    const out = await s3.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'later' }));
    expect(out.LastModified!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    await ctx.emulator.control.reset();
    await s3.send(new CreateBucketCommand({ Bucket: 'other-bucket' }));
    await s3.send(new PutObjectCommand({ Bucket: 'other-bucket', Key: 'now', Body: 'x' }));
    const now = await s3.send(new GetObjectCommand({ Bucket: 'other-bucket', Key: 'now' }));
    expect(Math.abs(now.LastModified!.getTime() - Date.now())).toBeLessThan(60_000);
  });

  test('latency rules are listed and cleared', async () => {
    await ctx.emulator.control.setLatency({ service: 's3', operation: 'GetObject', ms: 5 });
    expect(await ctx.emulator.control.latency()).toEqual([{ service: 's3', operation: 'GetObject', ms: 5 }]);
    await s3.send(new PutObjectCommand({ Bucket: 'fault-bucket', Key: 'k', Body: 'v' }));
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'fault-bucket', Key: 'k' }))
      ).Body?.transformToString(),
    ).toBe('v');
    await ctx.emulator.control.clearLatency();
    expect(await ctx.emulator.control.latency()).toEqual([]);
  });
});
