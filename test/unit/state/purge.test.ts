/** The noncurrent-version purge: against the emulator, plus per-key DeleteObjects errors (mocked: the emulator cannot refuse one key of a batch). */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { formatPurgeWarning, purgeNoncurrentVersions } from '../../../src/state/purge';
import type { PurgeResult } from '../../../src/state/purge';
import { createBucket, emulatorFactory, useEmulator } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

afterEach(async () => {
  await ctx.emulator.control.clearFaults();
});

async function versionsOf(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<{ latest: boolean; marker: boolean }[]> {
  const out = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
  return [
    ...(out.Versions ?? [])
      .filter((v) => v.Key === key)
      .map((v) => ({ latest: !!v.IsLatest, marker: false })),
    ...(out.DeleteMarkers ?? [])
      .filter((v) => v.Key === key)
      .map((v) => ({ latest: !!v.IsLatest, marker: true })),
  ];
}

describe('purgeNoncurrentVersions against the emulator', () => {
  it('removes exactly the noncurrent versions of exactly the given keys', async () => {
    const factory = await emulatorFactory(ctx.emulator);
    const bucket = await createBucket(factory);
    const client = factory.get(S3Client);
    const put = (Key: string, Body: string) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key, Body }));
    for (const body of ['1', '2', '3']) await put('cdkd/S/r/rollback-journal.json', body);
    for (const body of ['a', 'b']) await put('cdkd/S/r/rollback-journal.json.bak', body);
    for (const body of ['x', 'y']) await put('custom-resource-responses/req-1.json', body);
    await client.send(
      new DeleteObjectCommand({ Bucket: bucket, Key: 'custom-resource-responses/req-1.json' }),
    );

    const result = await purgeNoncurrentVersions(client, bucket, [
      'cdkd/S/r/rollback-journal.json',
      'custom-resource-responses/req-1.json',
    ]);
    expect(result.failures).toEqual([]);
    expect(result.versionsDeleted).toBe(4);
    expect(result.purgedKeys.sort()).toEqual([
      'cdkd/S/r/rollback-journal.json',
      'custom-resource-responses/req-1.json',
    ]);
    // The current version (and a current delete marker) are never touched; the sibling key is not in scope.
    expect(await versionsOf(client, bucket, 'cdkd/S/r/rollback-journal.json')).toEqual([
      { latest: true, marker: false },
    ]);
    expect(await versionsOf(client, bucket, 'custom-resource-responses/req-1.json')).toEqual([
      { latest: true, marker: true },
    ]);
    expect(await versionsOf(client, bucket, 'cdkd/S/r/rollback-journal.json.bak')).toHaveLength(2);
  });

  it('counts a refused listing as a failure of s3:ListBucketVersions and never throws', async () => {
    const factory = await emulatorFactory(ctx.emulator);
    const bucket = await createBucket(factory);
    const client = factory.get(S3Client);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: '1' }));
    await ctx.emulator.control.addFault({
      service: 's3',
      operation: 'ListObjectVersions',
      error: 'AccessDenied',
      count: 1,
    });
    const result = await purgeNoncurrentVersions(client, bucket, ['k']);
    expect(result.failures).toEqual([
      expect.objectContaining({ key: 'k', code: 'AccessDenied', action: 's3:ListBucketVersions' }),
    ]);
    expect(result.purgedKeys).toEqual([]);
  });
});

describe('purgeNoncurrentVersions per-key accounting', () => {
  it('reads DeleteObjects per-key errors; NoSuchVersion counts as success', async () => {
    const s3 = mockClient(S3Client);
    s3.on(ListObjectVersionsCommand).callsFake((input: { Prefix: string }) => ({
      Versions: [
        { Key: input.Prefix, VersionId: 'current', IsLatest: true },
        { Key: input.Prefix, VersionId: 'old1', IsLatest: false },
        { Key: input.Prefix, VersionId: 'old2', IsLatest: false },
      ],
    }));
    s3.on(DeleteObjectsCommand).callsFake(
      (input: { Delete: { Objects: { Key: string; VersionId: string }[] } }) => {
        const key = input.Delete.Objects[0].Key;
        if (key === 'gone')
          return { Errors: [{ Key: key, VersionId: 'old1', Code: 'NoSuchVersion', Message: 'gone' }] };
        if (key === 'denied')
          return {
            Errors: [{ Key: key, VersionId: 'old2', Code: 'AccessDenied', Message: 'Access Denied' }],
          };
        return {};
      },
    );
    const client = new S3Client({ region: 'us-east-1' });
    const result = await purgeNoncurrentVersions(client, 'b', ['ok', 'gone', 'denied']);
    expect(result.purgedKeys).toEqual(['ok', 'gone']);
    expect(result.failures).toEqual([
      expect.objectContaining({ key: 'denied', code: 'AccessDenied', action: 's3:DeleteObjectVersion' }),
    ]);
    expect(result.versionsDeleted).toBe(2 + 2 + 1);
    // The current version is never part of a delete.
    for (const call of s3.commandCalls(DeleteObjectsCommand)) {
      expect(call.args[0].input.Delete?.Objects?.map((o) => o.VersionId)).toEqual(['old1', 'old2']);
    }
    s3.restore();
  });
});

describe('formatPurgeWarning', () => {
  const failures = (n: number): PurgeResult => ({
    purgedKeys: [],
    versionsDeleted: 0,
    failures: Array.from({ length: n }, (_, i) => ({
      key: `cdkd/S${i}/us-east-1/rollback-journal.json`,
      code: 'AccessDenied',
      action: 's3:ListBucketVersions' as const,
    })),
  });

  it('is absent when nothing failed', () => {
    expect(
      formatPurgeWarning('b', { purgedKeys: ['k'], versionsDeleted: 3, failures: [] }, 'lock'),
    ).toBeUndefined();
  });

  it('names the bucket, the keys, the refused action, what the versions hold and the two grants', () => {
    const text = formatPurgeWarning('cdkd-state-bucket', failures(1), 'rollback-journal')!;
    expect(text).toBe(
      'Could not purge noncurrent versions of 1 key(s) in s3://cdkd-state-bucket. Their previous versions survive and remain ' +
        'readable via GetObject with a VersionId (the rollback journal, whose `failedOperations[].attemptedProperties` records ' +
        'the properties of the failed write verbatim). Grant s3:ListBucketVersions and s3:DeleteObjectVersion on the state ' +
        'bucket, or purge the key(s) by hand. Failures: cdkd/S0/us-east-1/rollback-journal.json (AccessDenied: s3:ListBucketVersions)',
    );
  });

  it('names up to five keys and appends "(and N more)" from six', () => {
    expect(formatPurgeWarning('b', failures(5), 'lock')).not.toContain('more)');
    const six = formatPurgeWarning('b', failures(6), 'custom-resource-response')!;
    expect(six).toContain('6 key(s)');
    expect(six).toContain('cdkd/S4/');
    expect(six).not.toContain('cdkd/S5/');
    expect(six.endsWith('(and 1 more)')).toBe(true);
    expect(six).toContain('custom-resource response object');
  });
});
