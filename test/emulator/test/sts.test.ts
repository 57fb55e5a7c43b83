import {
  GetObjectCommand,
  CreateBucketCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { STSServiceException } from '@aws-sdk/client-sts';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator({ account: '111111111111' });
let sts: STSClient;

beforeAll(() => {
  sts = new STSClient(clientConfig(ctx.emulator));
});
afterAll(() => sts.destroy());
beforeEach(() => ctx.emulator.control.reset());

describe('STS', () => {
  test('GetCallerIdentity answers with the default account', async () => {
    const me = await sts.send(new GetCallerIdentityCommand({}));
    expect(me.Account).toBe('111111111111');
    expect(me.Arn).toBe('arn:aws:iam::111111111111:root');
  });

  test('the default account can be changed through the control API', async () => {
    await ctx.emulator.control.setAccountId('333333333333');
    expect(await ctx.emulator.control.accountId()).toBe('333333333333');
    expect((await sts.send(new GetCallerIdentityCommand({}))).Account).toBe('333333333333');
    await ctx.emulator.control.setAccountId('111111111111');
  });

  test('AssumeRole returns credentials that act in the role account', async () => {
    const assumed = await sts.send(
      new AssumeRoleCommand({
        RoleArn: 'arn:aws:iam::222222222222:role/cdkd-reader',
        RoleSessionName: 'cdkd-test',
      }),
    );
    expect(assumed.Credentials?.AccessKeyId).toMatch(/^ASIA/);
    expect(assumed.Credentials?.Expiration!.getTime()).toBeGreaterThan(Date.now());
    expect(assumed.AssumedRoleUser?.Arn).toBe('arn:aws:sts::222222222222:assumed-role/cdkd-reader/cdkd-test');
    const credentials = {
      accessKeyId: assumed.Credentials!.AccessKeyId!,
      secretAccessKey: assumed.Credentials!.SecretAccessKey!,
      sessionToken: assumed.Credentials!.SessionToken!,
    };
    const asRole = new STSClient(clientConfig(ctx.emulator, 'us-east-1', credentials));
    const who = await asRole.send(new GetCallerIdentityCommand({}));
    expect(who.Account).toBe('222222222222');
    expect(who.Arn).toBe('arn:aws:sts::222222222222:assumed-role/cdkd-reader/cdkd-test');
    asRole.destroy();
  });

  test('cross-account reads: a bucket of the role account is readable only with the role credentials', async () => {
    const assumed = await sts.send(
      new AssumeRoleCommand({
        RoleArn: 'arn:aws:iam::222222222222:role/producer',
        RoleSessionName: 'producer',
      }),
    );
    const roleS3 = new S3Client(
      clientConfig(ctx.emulator, 'us-east-1', {
        accessKeyId: assumed.Credentials!.AccessKeyId!,
        secretAccessKey: assumed.Credentials!.SecretAccessKey!,
        sessionToken: assumed.Credentials!.SessionToken!,
      }),
    );
    await roleS3.send(new CreateBucketCommand({ Bucket: 'producer-state' }));
    await roleS3.send(new PutObjectCommand({ Bucket: 'producer-state', Key: 'stack.json', Body: '{}' }));
    const mine = new S3Client(clientConfig(ctx.emulator));
    await expect(
      mine.send(new GetObjectCommand({ Bucket: 'producer-state', Key: 'stack.json' })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    // A bucket policy granting the consumer account opens it.
    await roleS3.send(
      new PutBucketPolicyCommand({
        Bucket: 'producer-state',
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { AWS: 'arn:aws:iam::111111111111:root' },
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::producer-state/*',
            },
          ],
        }),
      }),
    );
    const read = await mine.send(new GetObjectCommand({ Bucket: 'producer-state', Key: 'stack.json' }));
    expect(await read.Body?.transformToString()).toBe('{}');
    roleS3.destroy();
    mine.destroy();
  });

  test('AssumeRole validates its input', async () => {
    const err = await sts
      .send(new AssumeRoleCommand({ RoleArn: 'not-an-arn-at-all-really', RoleSessionName: 's' }))
      .catch((e: STSServiceException) => e);
    expect((err as STSServiceException).name).toBe('ValidationError');
    expect((err as STSServiceException).$metadata.httpStatusCode).toBe(400);
  });

  test('an unsigned request is refused with MissingAuthenticationToken', async () => {
    const res = await fetch(`${ctx.emulator.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>MissingAuthenticationToken</Code>');
  });
});
