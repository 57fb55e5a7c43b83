import type { S3ServiceException } from '@aws-sdk/client-s3';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteBucketEncryptionCommand,
  DeleteBucketPolicyCommand,
  DeleteBucketTaggingCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  DeletePublicAccessBlockCommand,
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketEncryptionCommand,
  PutBucketPolicyCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import { Readable } from 'node:stream';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let s3: S3Client;

beforeAll(() => {
  s3 = new S3Client(clientConfig(ctx.emulator));
});
afterAll(() => s3.destroy());
beforeEach(() => ctx.emulator.control.reset());

/** The error an SDK call rejects with. */
async function failure(promise: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as S3ServiceException;
  }
  throw new Error('expected the call to fail');
}

function md5(text: string | Buffer): string {
  return `"${createHash('md5').update(text).digest('hex')}"`;
}

async function bucket(name: string, versioned = false): Promise<string> {
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  if (versioned)
    await s3.send(
      new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }),
    );
  return name;
}

describe('buckets', () => {
  test('BlockPublicPolicy refuses only statements that allow everyone without a condition', async () => {
    await bucket('policy-bucket');
    const put = (statements: unknown[]) =>
      s3.send(
        new PutBucketPolicyCommand({
          Bucket: 'policy-bucket',
          Policy: JSON.stringify({ Version: '2012-10-17', Statement: statements }),
        }),
      );
    const resource = 'arn:aws:s3:::policy-bucket/*';
    const publicRead = { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: resource };
    expect((await failure(put([publicRead]))).name).toBe('AccessDenied');
    expect((await failure(put([{ ...publicRead, Principal: { AWS: ['*'] } }]))).name).toBe('AccessDenied');
    // A Deny for everyone beside an Allow for a named principal is not public.
    await put([
      {
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:*',
        Resource: resource,
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::123456789012:role/Deployer' },
        Action: 's3:GetObject',
        Resource: resource,
      },
    ]);
    // An Allow for everyone narrowed by a condition is not public either.
    await put([{ ...publicRead, Condition: { StringEquals: { 'aws:PrincipalAccount': '123456789012' } } }]);
  });

  test('create, head, location, list, delete', async () => {
    await bucket('state-bucket');
    const head = await s3.send(new HeadBucketCommand({ Bucket: 'state-bucket' }));
    expect(head.BucketRegion).toBe('us-east-1');
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: 'state-bucket' }));
    expect(location.LocationConstraint).toBeUndefined();
    const list = await s3.send(new ListBucketsCommand({}));
    expect(list.Buckets?.map((b) => b.Name)).toEqual(['state-bucket']);
    await s3.send(new DeleteBucketCommand({ Bucket: 'state-bucket' }));
    const missing = await failure(s3.send(new HeadBucketCommand({ Bucket: 'state-bucket' })));
    expect(missing.$metadata.httpStatusCode).toBe(404);
    expect(missing.name).toBe('NotFound');
  });

  test("ListBuckets reports each bucket's CreationDate to the second, on the emulator's clock", async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'dated-bucket' }));
    const listed = async () =>
      (await s3.send(new ListBucketsCommand({ Prefix: 'dated-' }))).Buckets?.map((b) => [
        b.Name,
        b.CreationDate?.getUTCMilliseconds(),
        b.BucketRegion,
      ]);
    const first = (await s3.send(new ListBucketsCommand({ Prefix: 'dated-' }))).Buckets![0].CreationDate!;
    expect(await listed()).toEqual([['dated-bucket', 0, 'us-east-1']]);
    // Deleted and made again an hour later: the name is the same, the date is not.
    await s3.send(new DeleteBucketCommand({ Bucket: 'dated-bucket' }));
    await ctx.emulator.control.setClockOffset(3_600_000);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'dated-bucket' }));
    } finally {
      await ctx.emulator.control.setClockOffset(0);
    }
    const again = (await s3.send(new ListBucketsCommand({ Prefix: 'dated-' }))).Buckets![0].CreationDate!;
    expect(again.getTime() - first.getTime()).toBeGreaterThanOrEqual(3_600_000);
    await s3.send(new DeleteBucketCommand({ Bucket: 'dated-bucket' }));
  });

  test('a bucket in another region reports its location constraint', async () => {
    const eu = new S3Client(clientConfig(ctx.emulator, 'eu-west-1'));
    await eu.send(
      new CreateBucketCommand({
        Bucket: 'eu-bucket',
        CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
      }),
    );
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: 'eu-bucket' }));
    expect(location.LocationConstraint).toBe('eu-west-1');
    const wrongRegion = await failure(s3.send(new HeadBucketCommand({ Bucket: 'eu-bucket' })));
    expect(wrongRegion.$metadata.httpStatusCode).toBe(301);
    const mismatch = await failure(
      eu.send(
        new CreateBucketCommand({
          Bucket: 'eu-bucket-2',
          CreateBucketConfiguration: { LocationConstraint: 'eu-central-1' },
        }),
      ),
    );
    expect(mismatch.name).toBe('IllegalLocationConstraintException');
    eu.destroy();
  });

  test('BucketAlreadyOwnedByYou outside us-east-1, BucketAlreadyExists for another account', async () => {
    const eu = new S3Client(clientConfig(ctx.emulator, 'eu-west-1'));
    await eu.send(
      new CreateBucketCommand({
        Bucket: 'owned-bucket',
        CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
      }),
    );
    const again = await failure(
      eu.send(
        new CreateBucketCommand({
          Bucket: 'owned-bucket',
          CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
        }),
      ),
    );
    expect(again.name).toBe('BucketAlreadyOwnedByYou');
    expect(again.$metadata.httpStatusCode).toBe(409);
    eu.destroy();

    await bucket('taken-bucket');
    const other = new S3Client(
      clientConfig(ctx.emulator, 'us-east-1', { accessKeyId: '210987654321', secretAccessKey: 'x' }),
    );
    const taken = await failure(other.send(new CreateBucketCommand({ Bucket: 'taken-bucket' })));
    expect(taken.name).toBe('BucketAlreadyExists');
    const denied = await failure(other.send(new GetObjectCommand({ Bucket: 'taken-bucket', Key: 'x' })));
    expect(denied.name).toBe('AccessDenied');
    other.destroy();
  });

  test('invalid names and non-empty buckets are refused', async () => {
    expect((await failure(s3.send(new CreateBucketCommand({ Bucket: 'Bad_Name' })))).name).toBe(
      'InvalidBucketName',
    );
    await bucket('full-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'full-bucket', Key: 'k', Body: 'x' }));
    const notEmpty = await failure(s3.send(new DeleteBucketCommand({ Bucket: 'full-bucket' })));
    expect(notEmpty.name).toBe('BucketNotEmpty');
    expect(notEmpty.$metadata.httpStatusCode).toBe(409);
    expect((await failure(s3.send(new DeleteBucketCommand({ Bucket: 'no-such-bucket' })))).name).toBe(
      'NoSuchBucket',
    );
  });

  test('versioning, encryption, policy, public access block and tagging', async () => {
    await bucket('config-bucket');
    expect(
      (await s3.send(new GetBucketVersioningCommand({ Bucket: 'config-bucket' }))).Status,
    ).toBeUndefined();
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'config-bucket',
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'config-bucket' }))).Status).toBe(
      'Enabled',
    );

    const defaultEncryption = await s3.send(new GetBucketEncryptionCommand({ Bucket: 'config-bucket' }));
    expect(
      defaultEncryption.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault
        ?.SSEAlgorithm,
    ).toBe('AES256');
    await s3.send(
      new PutBucketEncryptionCommand({
        Bucket: 'config-bucket',
        ServerSideEncryptionConfiguration: {
          Rules: [
            {
              ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/state' },
              BucketKeyEnabled: true,
            },
          ],
        },
      }),
    );
    const kms = await s3.send(new GetBucketEncryptionCommand({ Bucket: 'config-bucket' }));
    expect(kms.ServerSideEncryptionConfiguration?.Rules?.[0]).toEqual({
      ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/state' },
      BucketKeyEnabled: true,
    });
    await s3.send(new DeleteBucketEncryptionCommand({ Bucket: 'config-bucket' }));
    expect(
      (await s3.send(new GetBucketEncryptionCommand({ Bucket: 'config-bucket' })))
        .ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
    ).toBe('AES256');

    expect((await failure(s3.send(new GetBucketPolicyCommand({ Bucket: 'config-bucket' })))).name).toBe(
      'NoSuchBucketPolicy',
    );
    const policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Deny', Principal: '*', Action: 's3:DeleteBucket', Resource: 'arn:aws:s3:::config-bucket' },
      ],
    });
    await s3.send(new PutBucketPolicyCommand({ Bucket: 'config-bucket', Policy: policy }));
    expect((await s3.send(new GetBucketPolicyCommand({ Bucket: 'config-bucket' }))).Policy).toBe(policy);
    expect(
      (await failure(s3.send(new PutBucketPolicyCommand({ Bucket: 'config-bucket', Policy: 'not json' }))))
        .name,
    ).toBe('MalformedPolicy');
    await s3.send(new DeleteBucketPolicyCommand({ Bucket: 'config-bucket' }));
    expect((await failure(s3.send(new GetBucketPolicyCommand({ Bucket: 'config-bucket' })))).name).toBe(
      'NoSuchBucketPolicy',
    );

    const pab = await s3.send(new GetPublicAccessBlockCommand({ Bucket: 'config-bucket' }));
    expect(pab.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    });
    await s3.send(
      new PutPublicAccessBlockCommand({
        Bucket: 'config-bucket',
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          IgnorePublicAcls: false,
          BlockPublicPolicy: true,
          RestrictPublicBuckets: false,
        },
      }),
    );
    expect(
      (await s3.send(new GetPublicAccessBlockCommand({ Bucket: 'config-bucket' })))
        .PublicAccessBlockConfiguration?.IgnorePublicAcls,
    ).toBe(false);
    await s3.send(new DeletePublicAccessBlockCommand({ Bucket: 'config-bucket' }));
    expect((await failure(s3.send(new GetPublicAccessBlockCommand({ Bucket: 'config-bucket' })))).name).toBe(
      'NoSuchPublicAccessBlockConfiguration',
    );

    expect((await failure(s3.send(new GetBucketTaggingCommand({ Bucket: 'config-bucket' })))).name).toBe(
      'NoSuchTagSet',
    );
    await s3.send(
      new PutBucketTaggingCommand({
        Bucket: 'config-bucket',
        Tagging: {
          TagSet: [
            { Key: 'owner', Value: 'cdkd' },
            { Key: 'env', Value: 'test' },
          ],
        },
      }),
    );
    expect((await s3.send(new GetBucketTaggingCommand({ Bucket: 'config-bucket' }))).TagSet).toEqual([
      { Key: 'owner', Value: 'cdkd' },
      { Key: 'env', Value: 'test' },
    ]);
    await s3.send(new DeleteBucketTaggingCommand({ Bucket: 'config-bucket' }));
    expect((await failure(s3.send(new GetBucketTaggingCommand({ Bucket: 'config-bucket' })))).name).toBe(
      'NoSuchTagSet',
    );
  });
});

describe('objects', () => {
  test('put and get return quoted MD5 ETags, metadata and content type', async () => {
    await bucket('objects-bucket');
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'objects-bucket',
        Key: 'dir/state file+1.json',
        Body: '{"a":1}',
        ContentType: 'application/json',
        Metadata: { purpose: 'state' },
      }),
    );
    expect(put.ETag).toBe(md5('{"a":1}'));
    expect(put.VersionId).toBeUndefined();
    const get = await s3.send(
      new GetObjectCommand({ Bucket: 'objects-bucket', Key: 'dir/state file+1.json' }),
    );
    expect(await get.Body?.transformToString()).toBe('{"a":1}');
    expect(get.ETag).toBe(md5('{"a":1}'));
    expect(get.ContentType).toBe('application/json');
    expect(get.Metadata).toEqual({ purpose: 'state' });
    expect(get.ContentLength).toBe(7);
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: 'objects-bucket', Key: 'dir/state file+1.json' }),
    );
    expect(head.ETag).toBe(md5('{"a":1}'));
    expect(head.ContentLength).toBe(7);
    const missing = await failure(s3.send(new GetObjectCommand({ Bucket: 'objects-bucket', Key: 'nope' })));
    expect(missing.name).toBe('NoSuchKey');
    expect(missing.$metadata.httpStatusCode).toBe(404);
    const headMissing = await failure(
      s3.send(new HeadObjectCommand({ Bucket: 'objects-bucket', Key: 'nope' })),
    );
    expect(headMissing.$metadata.httpStatusCode).toBe(404);
  });

  test('100 concurrent If-None-Match: * puts of one key: exactly one succeeds', async () => {
    await bucket('lock-bucket');
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        s3.send(
          new PutObjectCommand({
            Bucket: 'lock-bucket',
            Key: 'lock.json',
            Body: `owner-${i}`,
            IfNoneMatch: '*',
          }),
        ),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(99);
    for (const r of lost) {
      expect((r.reason as S3ServiceException).$metadata.httpStatusCode).toBe(412);
      expect((r.reason as S3ServiceException).name).toBe('PreconditionFailed');
    }
    const winner = (won[0] as PromiseFulfilledResult<{ ETag?: string }>).value.ETag;
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'lock-bucket', Key: 'lock.json' }));
    expect(stored.ETag).toBe(winner);
  });

  test('If-Match: a current ETag writes, a stale ETag gets 412, a missing key 404', async () => {
    await bucket('cas-bucket');
    const first = await s3.send(
      new PutObjectCommand({ Bucket: 'cas-bucket', Key: 'state.json', Body: 'v1' }),
    );
    const second = await s3.send(
      new PutObjectCommand({ Bucket: 'cas-bucket', Key: 'state.json', Body: 'v2', IfMatch: first.ETag }),
    );
    expect(second.ETag).toBe(md5('v2'));
    const stale = await failure(
      s3.send(
        new PutObjectCommand({ Bucket: 'cas-bucket', Key: 'state.json', Body: 'v3', IfMatch: first.ETag }),
      ),
    );
    expect(stale.$metadata.httpStatusCode).toBe(412);
    expect(stale.name).toBe('PreconditionFailed');
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'cas-bucket', Key: 'state.json' }))
      ).Body?.transformToString(),
    ).toBe('v2');
    const missing = await failure(
      s3.send(
        new PutObjectCommand({ Bucket: 'cas-bucket', Key: 'other.json', Body: 'x', IfMatch: first.ETag }),
      ),
    );
    expect(missing.name).toBe('NoSuchKey');
  });

  test('a delete that completes while an If-None-Match write is in flight makes the write 409 ConditionalRequestConflict', async () => {
    await bucket('conflict-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'conflict-bucket', Key: 'lock.json', Body: 'held' }));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    async function* slowBody() {
      yield Buffer.from('mi');
      await released;
      yield Buffer.from('ne');
    }
    const write = s3
      .send(
        new PutObjectCommand({
          Bucket: 'conflict-bucket',
          Key: 'lock.json',
          Body: Readable.from(slowBody()),
          ContentLength: 4,
          IfNoneMatch: '*',
        }),
      )
      .then(
        () => undefined,
        (e: S3ServiceException) => e,
      );
    // The write's headers and first bytes reach the emulator; the rest waits until the lock is deleted.
    while ((await ctx.emulator.control.stats()).inFlight < 1) await new Promise((r) => setTimeout(r, 10));
    await s3.send(new DeleteObjectCommand({ Bucket: 'conflict-bucket', Key: 'lock.json' }));
    release();
    const err = await write;
    expect(err).toMatchObject({ name: 'ConditionalRequestConflict', $metadata: { httpStatusCode: 409 } });
  });

  test('server-side encryption: the bucket default, or what the write asked for', async () => {
    await bucket('sse-bucket');
    const plain = await s3.send(new PutObjectCommand({ Bucket: 'sse-bucket', Key: 'plain', Body: 'x' }));
    expect(plain.ServerSideEncryption).toBe('AES256');
    const kms = await s3.send(
      new PutObjectCommand({
        Bucket: 'sse-bucket',
        Key: 'kms',
        Body: 'x',
        ServerSideEncryption: 'aws:kms',
        SSEKMSKeyId: 'alias/state',
      }),
    );
    expect(kms).toMatchObject({ ServerSideEncryption: 'aws:kms', SSEKMSKeyId: 'alias/state' });
    expect(await s3.send(new HeadObjectCommand({ Bucket: 'sse-bucket', Key: 'kms' }))).toMatchObject({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: 'alias/state',
    });
    await expect(
      s3.send(
        new PutObjectCommand({
          Bucket: 'sse-bucket',
          Key: 'bad',
          Body: 'x',
          ServerSideEncryption: 'AES256',
          SSEKMSKeyId: 'k',
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidArgument' });
  });

  test('ExpectedBucketOwner: another owner is 403 AccessDenied', async () => {
    await bucket('owned-check');
    await s3.send(
      new PutObjectCommand({
        Bucket: 'owned-check',
        Key: 'k',
        Body: 'x',
        ExpectedBucketOwner: '123456789012',
      }),
    );
    await expect(
      s3.send(new GetObjectCommand({ Bucket: 'owned-check', Key: 'k', ExpectedBucketOwner: '999999999999' })),
    ).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    await expect(
      s3.send(new HeadBucketCommand({ Bucket: 'owned-check', ExpectedBucketOwner: '999999999999' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  });

  test('conditional GET and HEAD headers', async () => {
    await bucket('cond-bucket');
    const put = await s3.send(new PutObjectCommand({ Bucket: 'cond-bucket', Key: 'k', Body: 'body' }));
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfMatch: '"0000"' }))))
        .$metadata.httpStatusCode,
    ).toBe(412);
    expect(
      (
        await failure(
          s3.send(new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfNoneMatch: put.ETag })),
        )
      ).$metadata.httpStatusCode,
    ).toBe(304);
    expect(
      (
        await failure(
          s3.send(new HeadObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfNoneMatch: put.ETag })),
        )
      ).$metadata.httpStatusCode,
    ).toBe(304);
    const ok = await s3.send(new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfMatch: put.ETag }));
    expect(await ok.Body?.transformToString()).toBe('body');
    const later = new Date(Date.now() + 60_000);
    expect(
      (
        await failure(
          s3.send(new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfModifiedSince: later })),
        )
      ).$metadata.httpStatusCode,
    ).toBe(304);
    const earlier = new Date(Date.now() - 60_000);
    expect(
      (
        await failure(
          s3.send(new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', IfUnmodifiedSince: earlier })),
        )
      ).$metadata.httpStatusCode,
    ).toBe(412);
    const range = await s3.send(
      new GetObjectCommand({ Bucket: 'cond-bucket', Key: 'k', Range: 'bytes=1-2' }),
    );
    expect(await range.Body?.transformToString()).toBe('od');
    expect(range.ContentRange).toBe('bytes 1-2/4');
  });

  test('DeleteObject with If-Match', async () => {
    await bucket('del-bucket');
    const put = await s3.send(new PutObjectCommand({ Bucket: 'del-bucket', Key: 'lock', Body: 'me' }));
    const wrong = await failure(
      s3.send(new DeleteObjectCommand({ Bucket: 'del-bucket', Key: 'lock', IfMatch: md5('someone else') })),
    );
    expect(wrong.$metadata.httpStatusCode).toBe(412);
    await s3.send(new DeleteObjectCommand({ Bucket: 'del-bucket', Key: 'lock', IfMatch: put.ETag }));
    expect(
      (await failure(s3.send(new HeadObjectCommand({ Bucket: 'del-bucket', Key: 'lock' })))).$metadata
        .httpStatusCode,
    ).toBe(404);
    // Deleting a key that does not exist succeeds.
    const again = await s3.send(new DeleteObjectCommand({ Bucket: 'del-bucket', Key: 'lock' }));
    expect(again.$metadata.httpStatusCode).toBe(204);
  });

  test('a versioned bucket keeps old versions readable and a delete leaves a delete marker', async () => {
    await bucket('versioned-bucket', true);
    const v1 = await s3.send(
      new PutObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', Body: 'one' }),
    );
    const v2 = await s3.send(
      new PutObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', Body: 'two' }),
    );
    expect(v1.VersionId).toBeTruthy();
    expect(v2.VersionId).not.toBe(v1.VersionId);
    const deleted = await s3.send(new DeleteObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json' }));
    expect(deleted.DeleteMarker).toBe(true);
    expect(deleted.VersionId).toBeTruthy();

    const gone = await failure(
      s3.send(new GetObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json' })),
    );
    expect(gone.name).toBe('NoSuchKey');
    const old = await s3.send(
      new GetObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', VersionId: v1.VersionId }),
    );
    expect(await old.Body?.transformToString()).toBe('one');
    expect(old.VersionId).toBe(v1.VersionId);
    const markerRead = await failure(
      s3.send(
        new GetObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', VersionId: deleted.VersionId }),
      ),
    );
    expect(markerRead.$metadata.httpStatusCode).toBe(405);

    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'versioned-bucket' }));
    expect(versions.DeleteMarkers).toEqual([
      expect.objectContaining({ Key: 'state.json', VersionId: deleted.VersionId, IsLatest: true }),
    ]);
    expect(versions.Versions?.map((v) => [v.VersionId, v.IsLatest, v.ETag])).toEqual([
      [v2.VersionId, false, md5('two')],
      [v1.VersionId, false, md5('one')],
    ]);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'versioned-bucket' }))).KeyCount).toBe(0);

    // Removing the delete marker by version id restores the previous version.
    const removed = await s3.send(
      new DeleteObjectCommand({
        Bucket: 'versioned-bucket',
        Key: 'state.json',
        VersionId: deleted.VersionId,
      }),
    );
    expect(removed.DeleteMarker).toBe(true);
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json' }))
      ).Body?.transformToString(),
    ).toBe('two');
    // Deleting every version empties the bucket.
    await s3.send(
      new DeleteObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', VersionId: v1.VersionId }),
    );
    await s3.send(
      new DeleteObjectCommand({ Bucket: 'versioned-bucket', Key: 'state.json', VersionId: v2.VersionId }),
    );
    await s3.send(new DeleteBucketCommand({ Bucket: 'versioned-bucket' }));
  });

  test('ListObjectVersions paginates with key and version-id markers', async () => {
    await bucket('many-versions', true);
    for (const key of ['a', 'b']) {
      for (let i = 0; i < 3; i++)
        await s3.send(new PutObjectCommand({ Bucket: 'many-versions', Key: key, Body: `${key}${i}` }));
    }
    await s3.send(new DeleteObjectCommand({ Bucket: 'many-versions', Key: 'a' }));
    const seen: string[] = [];
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await s3.send(
        new ListObjectVersionsCommand({
          Bucket: 'many-versions',
          MaxKeys: 2,
          KeyMarker: keyMarker,
          VersionIdMarker: versionIdMarker,
        }),
      );
      pages++;
      for (const v of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])])
        seen.push(`${v.Key}:${v.VersionId}`);
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      versionIdMarker = page.NextVersionIdMarker;
    }
    expect(pages).toBe(4);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  test('ListObjectsV2 with prefix, delimiter and continuation', async () => {
    await bucket('list-bucket');
    const keys = ['a/1', 'a/2', 'a/sub/3', 'b/1', 'c', 'd/x/y'];
    for (const key of keys)
      await s3.send(new PutObjectCommand({ Bucket: 'list-bucket', Key: key, Body: key }));

    const all: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: 'list-bucket', MaxKeys: 4, ContinuationToken: token }),
      );
      pages++;
      all.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
      expect(page.IsTruncated).toBe(token !== undefined);
    } while (token);
    expect(pages).toBe(2);
    expect(all).toEqual(keys);

    const top = await s3.send(new ListObjectsV2Command({ Bucket: 'list-bucket', Delimiter: '/' }));
    expect(top.Contents?.map((o) => o.Key)).toEqual(['c']);
    expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'b/', 'd/']);
    expect(top.KeyCount).toBe(4);

    const inA = await s3.send(
      new ListObjectsV2Command({ Bucket: 'list-bucket', Prefix: 'a/', Delimiter: '/' }),
    );
    expect(inA.Contents?.map((o) => o.Key)).toEqual(['a/1', 'a/2']);
    expect(inA.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/sub/']);

    // Paging by one through a delimited listing never repeats a common prefix.
    const entries: string[] = [];
    token = undefined;
    do {
      const page: ListObjectsV2CommandOutput = await s3.send(
        new ListObjectsV2Command({
          Bucket: 'list-bucket',
          Delimiter: '/',
          MaxKeys: 1,
          ContinuationToken: token,
        }),
      );
      entries.push(
        ...(page.Contents ?? []).map((o) => o.Key!),
        ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!),
      );
      token = page.NextContinuationToken;
    } while (token);
    expect(entries).toEqual(['a/', 'b/', 'c', 'd/']);
    const after = await s3.send(new ListObjectsV2Command({ Bucket: 'list-bucket', StartAfter: 'b/1' }));
    expect(after.Contents?.map((o) => o.Key)).toEqual(['c', 'd/x/y']);
  });

  test('DeleteObjects reports per-key results and errors', async () => {
    await bucket('batch-bucket');
    const a = await s3.send(new PutObjectCommand({ Bucket: 'batch-bucket', Key: 'a', Body: 'a' }));
    await s3.send(new PutObjectCommand({ Bucket: 'batch-bucket', Key: 'b', Body: 'b' }));
    const out = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'batch-bucket',
        Delete: {
          Objects: [{ Key: 'a', ETag: a.ETag }, { Key: 'b', ETag: md5('stale') }, { Key: 'never-existed' }],
        },
      }),
    );
    expect(out.Deleted?.map((d) => d.Key).sort()).toEqual(['a', 'never-existed']);
    expect(out.Errors).toEqual([expect.objectContaining({ Key: 'b', Code: 'PreconditionFailed' })]);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: 'batch-bucket' }));
    expect(left.Contents?.map((o) => o.Key)).toEqual(['b']);
  });

  /** A bucket policy refusing s3:DeleteObjectVersion on `resource` (an object ARN pattern). */
  const denyVersionDelete = (name: string, resource: string) =>
    s3.send(
      new PutBucketPolicyCommand({
        Bucket: name,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Deny', Principal: '*', Action: 's3:DeleteObjectVersion', Resource: resource },
          ],
        }),
      }),
    );

  test('deleting a version needs s3:DeleteObjectVersion: DeleteObject is refused, DeleteObjects reports it per key', async () => {
    await bucket('version-grants', true);
    const v1 = await s3.send(new PutObjectCommand({ Bucket: 'version-grants', Key: 'k', Body: 'one' }));
    await s3.send(new PutObjectCommand({ Bucket: 'version-grants', Key: 'k', Body: 'two' }));
    await denyVersionDelete('version-grants', 'arn:aws:s3:::version-grants/*');
    expect(
      (
        await failure(
          s3.send(new DeleteObjectCommand({ Bucket: 'version-grants', Key: 'k', VersionId: v1.VersionId })),
        )
      ).name,
    ).toBe('AccessDenied');
    const out = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'version-grants',
        Delete: { Objects: [{ Key: 'k', VersionId: v1.VersionId }], Quiet: true },
      }),
    );
    expect(out.Errors).toEqual([expect.objectContaining({ Key: 'k', Code: 'AccessDenied' })]);
    // The version is still there; a plain delete (a delete marker) needs only s3:DeleteObject.
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'version-grants' }));
    expect(versions.Versions?.map((v) => v.VersionId)).toContain(v1.VersionId);
    const marker = await s3.send(new DeleteObjectCommand({ Bucket: 'version-grants', Key: 'k' }));
    expect(marker.DeleteMarker).toBe(true);
  });

  test("a version delete denied on one key's ARN is refused for that key alone", async () => {
    await bucket('key-grants', true);
    const put = (Key: string, Body: string) =>
      s3.send(new PutObjectCommand({ Bucket: 'key-grants', Key, Body }));
    const denied = await put('cdkd/S/r/state.json', 'one');
    await put('cdkd/S/r/state.json', 'two');
    const allowed = await put('cdkd/S/r/rollback-journal.json', 'one');
    await put('cdkd/S/r/rollback-journal.json', 'two');
    await denyVersionDelete('key-grants', 'arn:aws:s3:::key-grants/cdkd/S/r/state.json');
    const out = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'key-grants',
        Delete: {
          Objects: [
            { Key: 'cdkd/S/r/state.json', VersionId: denied.VersionId },
            { Key: 'cdkd/S/r/rollback-journal.json', VersionId: allowed.VersionId },
          ],
        },
      }),
    );
    expect(out.Errors).toEqual([
      expect.objectContaining({ Key: 'cdkd/S/r/state.json', Code: 'AccessDenied' }),
    ]);
    expect(out.Deleted?.map((d) => d.Key)).toEqual(['cdkd/S/r/rollback-journal.json']);
  });

  test('CopyObject copies body and metadata, or replaces metadata', async () => {
    await bucket('copy-bucket');
    await s3.send(
      new PutObjectCommand({
        Bucket: 'copy-bucket',
        Key: 'src key',
        Body: 'payload',
        ContentType: 'text/plain',
        Metadata: { a: '1' },
      }),
    );
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'copy-bucket', Key: 'dst', CopySource: 'copy-bucket/src%20key' }),
    );
    expect(copy.CopyObjectResult?.ETag).toBe(md5('payload'));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'copy-bucket', Key: 'dst' }));
    expect(await got.Body?.transformToString()).toBe('payload');
    expect(got.Metadata).toEqual({ a: '1' });
    expect(got.ContentType).toBe('text/plain');
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'copy-bucket',
        Key: 'dst2',
        CopySource: 'copy-bucket/src%20key',
        MetadataDirective: 'REPLACE',
        Metadata: { b: '2' },
      }),
    );
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'copy-bucket', Key: 'dst2' }))).Metadata).toEqual({
      b: '2',
    });
    const self = await failure(
      s3.send(new CopyObjectCommand({ Bucket: 'copy-bucket', Key: 'dst', CopySource: 'copy-bucket/dst' })),
    );
    expect(self.name).toBe('InvalidRequest');
    const missing = await failure(
      s3.send(new CopyObjectCommand({ Bucket: 'copy-bucket', Key: 'x', CopySource: 'copy-bucket/missing' })),
    );
    expect(missing.name).toBe('NoSuchKey');
  });

  test('multipart upload: parts, list, complete with a multipart ETag, abort', async () => {
    await bucket('mpu-bucket');
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({
        Bucket: 'mpu-bucket',
        Key: 'big.bin',
        ContentType: 'application/octet-stream',
      }),
    );
    const part1 = Buffer.alloc(5 * 1024 * 1024, 1);
    const part2 = Buffer.from('tail');
    const p1 = await s3.send(
      new UploadPartCommand({ Bucket: 'mpu-bucket', Key: 'big.bin', UploadId, PartNumber: 1, Body: part1 }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({ Bucket: 'mpu-bucket', Key: 'big.bin', UploadId, PartNumber: 2, Body: part2 }),
    );
    expect(p1.ETag).toBe(md5(part1));
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'mpu-bucket', Key: 'big.bin', UploadId }));
    expect(parts.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'mpu-bucket' }));
    expect(uploads.Uploads?.map((u) => u.UploadId)).toEqual([UploadId]);

    const wrongOrder = await failure(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'mpu-bucket',
          Key: 'big.bin',
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 2, ETag: p2.ETag },
              { PartNumber: 1, ETag: p1.ETag },
            ],
          },
        }),
      ),
    );
    expect(wrongOrder.name).toBe('InvalidPartOrder');
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'mpu-bucket',
        Key: 'big.bin',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    const expected = createHash('md5')
      .update(
        Buffer.concat([createHash('md5').update(part1).digest(), createHash('md5').update(part2).digest()]),
      )
      .digest('hex');
    expect(done.ETag).toBe(`"${expected}-2"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'mpu-bucket', Key: 'big.bin' }));
    expect(head.ContentLength).toBe(part1.length + 4);

    const small = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'mpu-bucket', Key: 'small.bin' }));
    const s1 = await s3.send(
      new UploadPartCommand({
        Bucket: 'mpu-bucket',
        Key: 'small.bin',
        UploadId: small.UploadId,
        PartNumber: 1,
        Body: 'tiny',
      }),
    );
    const s2 = await s3.send(
      new UploadPartCommand({
        Bucket: 'mpu-bucket',
        Key: 'small.bin',
        UploadId: small.UploadId,
        PartNumber: 2,
        Body: 'tiny',
      }),
    );
    const tooSmall = await failure(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'mpu-bucket',
          Key: 'small.bin',
          UploadId: small.UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: s1.ETag },
              { PartNumber: 2, ETag: s2.ETag },
            ],
          },
        }),
      ),
    );
    expect(tooSmall.name).toBe('EntityTooSmall');
    await s3.send(
      new AbortMultipartUploadCommand({ Bucket: 'mpu-bucket', Key: 'small.bin', UploadId: small.UploadId }),
    );
    const aborted = await failure(
      s3.send(new ListPartsCommand({ Bucket: 'mpu-bucket', Key: 'small.bin', UploadId: small.UploadId })),
    );
    expect(aborted.name).toBe('NoSuchUpload');
  });
});

describe('HTTP-level behaviour', () => {
  test('pre-signed GET and PUT URLs work without an Authorization header', async () => {
    await bucket('presign-bucket');
    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'presign-bucket', Key: 'up.txt' }), {
      expiresIn: 60,
    });
    const put = await fetch(putUrl, { method: 'PUT', body: 'uploaded via url' });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe(md5('uploaded via url'));
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'presign-bucket', Key: 'up.txt' }), {
      expiresIn: 60,
    });
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('uploaded via url');
  });

  test('an expired pre-signed URL and an unsigned request are refused with 403 AccessDenied', async () => {
    await bucket('private-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'private-bucket', Key: 'secret', Body: 's' }));
    const url = new URL(
      await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'private-bucket', Key: 'secret' }), {
        expiresIn: 1,
      }),
    );
    url.searchParams.set('X-Amz-Date', '20200101T000000Z');
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('<Code>AccessDenied</Code>');
    const anonymous = await fetch(`${ctx.emulator.url}/private-bucket/secret`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
  });

  test('virtual-host-style addressing (bucket.s3.localhost)', async () => {
    await bucket('vhost-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'vhost-bucket', Key: 'k/v', Body: 'via host' }));
    const port = new URL(ctx.emulator.url).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/k/v',
          headers: {
            host: `vhost-bucket.s3.localhost:${port}`,
            authorization:
              'AWS4-HMAC-SHA256 Credential=AKIAX/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(body).toBe('via host');
  });

  test('request counts are kept per service and operation', async () => {
    await ctx.emulator.control.clearRequests();
    await bucket('count-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'count-bucket', Key: 'a', Body: 'a' }));
    await s3.send(new PutObjectCommand({ Bucket: 'count-bucket', Key: 'b', Body: 'b' }));
    const counts = await ctx.emulator.control.requests();
    expect(counts.byOperation['s3:PutObject']).toBe(2);
    expect(counts.byOperation['s3:CreateBucket']).toBe(1);
    expect(counts.total).toBe(3);
  });
});
