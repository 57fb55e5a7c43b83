/**
 * Purging the noncurrent versions of a key: on a versioned bucket a
 * `DeleteObject` only writes a delete marker, and every earlier body stays
 * readable by `VersionId`. Every site that deletes a transient object (lock,
 * rollback journal, custom-resource response, transient template, bootstrap
 * marker) calls this one utility afterwards.
 *
 * Scoped to EXACT keys (a listing by prefix is filtered to the key itself, so a
 * sibling like `lock.json.bak` or another stack's key is never touched), and it
 * never removes a CURRENT version or the current delete marker. It never throws:
 * it runs on cleanup paths that must not abort the operation they follow, so it
 * returns per-key results and the caller reports them.
 */
import { DeleteObjectsCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import type { ListObjectVersionsCommandOutput, ObjectIdentifier, S3Client } from '@aws-sdk/client-s3';
import type { Logger } from '../util/io-host';
import { s3ErrorCode } from './s3-errors';

/** The kinds of object cdkd purges; each names itself in the warning. */
export type PurgeObjectKind =
  | 'lock'
  | 'rollback-journal'
  | 'custom-resource-response'
  | 'transient-template'
  | 'bootstrap-marker'
  | 'state-with-secrets'
  | 'exports-index-with-secrets';

/** What an object's previous versions hold, for the warning's parenthetical. */
export const PURGE_OBJECT_DESCRIPTIONS: Record<PurgeObjectKind, string> = {
  lock: 'the stack lock, whose versions hold only its owner, timestamps and operation; no secret',
  'rollback-journal':
    'the rollback journal, whose `failedOperations[].attemptedProperties` records the properties of the failed write verbatim',
  'custom-resource-response':
    "a custom-resource response object, which holds the handler's full cfn-response, `Data` included",
  'transient-template': 'the transient CloudFormation template, which holds the template body',
  'bootstrap-marker':
    'the bootstrap marker, which names the asset bucket and container repository; no secret',
  'state-with-secrets':
    'the state record, whose earlier versions were written before cdkd masked secrets and hold them in clear',
  'exports-index-with-secrets':
    'the exports index, whose earlier versions were written before cdkd masked secrets and hold exported values in clear',
};

/** One key the purge could not finish. */
export interface PurgeFailure {
  key: string;
  /** S3 error code, e.g. `AccessDenied`. */
  code: string;
  /** The S3 action that was refused or failed. */
  action: 's3:ListBucketVersions' | 's3:DeleteObjectVersion';
  message?: string;
}

export interface PurgeResult {
  /** Keys whose noncurrent versions are all gone. */
  purgedKeys: string[];
  /** Noncurrent versions and delete markers removed (a `NoSuchVersion` counts: it is gone). */
  versionsDeleted: number;
  /** Keys that still have noncurrent versions, one entry per key. */
  failures: PurgeFailure[];
}

/** DeleteObjects takes at most this many versions per call. */
const DELETE_BATCH = 1000;

/** Removes every noncurrent version and noncurrent delete marker of each key. Never throws. */
export async function purgeNoncurrentVersions(
  client: S3Client,
  bucket: string,
  keys: string[],
): Promise<PurgeResult> {
  const result: PurgeResult = { purgedKeys: [], versionsDeleted: 0, failures: [] };
  for (const key of [...new Set(keys)]) {
    const failure = await purgeKey(client, bucket, key, result);
    if (failure) result.failures.push(failure);
    else result.purgedKeys.push(key);
  }
  return result;
}

async function purgeKey(
  client: S3Client,
  bucket: string,
  key: string,
  result: PurgeResult,
): Promise<PurgeFailure | undefined> {
  let noncurrent: ObjectIdentifier[];
  try {
    noncurrent = await listNoncurrentVersions(client, bucket, key);
  } catch (err) {
    return {
      key,
      code: s3ErrorCode(err) ?? 'Error',
      action: 's3:ListBucketVersions',
      message: (err as Error)?.message,
    };
  }
  let failure: PurgeFailure | undefined;
  for (let i = 0; i < noncurrent.length; i += DELETE_BATCH) {
    const batch = noncurrent.slice(i, i + DELETE_BATCH);
    try {
      const out = await client.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }),
      );
      // DeleteObjects succeeds overall and reports refusals per key: read them.
      const errors = out.Errors ?? [];
      for (const e of errors) {
        if (e.Code === 'NoSuchVersion') continue;
        failure ??= { key, code: e.Code ?? 'Error', action: 's3:DeleteObjectVersion', message: e.Message };
      }
      result.versionsDeleted += batch.length - errors.filter((e) => e.Code !== 'NoSuchVersion').length;
    } catch (err) {
      failure ??= {
        key,
        code: s3ErrorCode(err) ?? 'Error',
        action: 's3:DeleteObjectVersion',
        message: (err as Error)?.message,
      };
    }
  }
  return failure;
}

/**
 * Every noncurrent version of exactly `key`, and its noncurrent delete markers
 * unless `markers` is false (a reader of the earlier bodies wants none).
 */
export async function listNoncurrentVersions(
  client: S3Client,
  bucket: string,
  key: string,
  markers = true,
): Promise<ObjectIdentifier[]> {
  const found: ObjectIdentifier[] = [];
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  for (;;) {
    const page: ListObjectVersionsCommandOutput = await client.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        Prefix: key,
        KeyMarker: keyMarker,
        VersionIdMarker: versionIdMarker,
      }),
    );
    const listed = [...(page.Versions ?? []), ...(markers ? (page.DeleteMarkers ?? []) : [])];
    for (const v of listed) {
      if (v.Key === key && v.IsLatest !== true && v.VersionId)
        found.push({ Key: key, VersionId: v.VersionId });
    }
    if (!page.IsTruncated) return found;
    keyMarker = page.NextKeyMarker;
    versionIdMarker = page.NextVersionIdMarker;
    // Keys sort after `key` once the listing has moved past it: nothing more can match.
    if (keyMarker !== undefined && keyMarker !== key && keyMarker > key) return found;
  }
}

/** Keys a warning names before it appends `(and N more)`. */
const NAMED_KEYS = 5;

/**
 * The one-line warning for a purge that could not finish, or undefined when it did.
 * Names the bucket, up to five keys with the refused action, what the previous
 * versions hold, and the two grants.
 */
export function formatPurgeWarning(
  bucket: string,
  result: PurgeResult,
  kind: PurgeObjectKind,
): string | undefined {
  if (result.failures.length === 0) return undefined;
  const named = result.failures
    .slice(0, NAMED_KEYS)
    .map((f) => `${f.key} (${f.code}: ${f.action})`)
    .join(', ');
  const more =
    result.failures.length > NAMED_KEYS ? ` (and ${result.failures.length - NAMED_KEYS} more)` : '';
  return (
    `Could not purge noncurrent versions of ${result.failures.length} key(s) in s3://${bucket}. ` +
    `Their previous versions survive and remain readable via GetObject with a VersionId ` +
    `(${PURGE_OBJECT_DESCRIPTIONS[kind]}). Grant s3:ListBucketVersions and s3:DeleteObjectVersion on the ` +
    `state bucket, or purge the key(s) by hand. Failures: ${named}${more}`
  );
}

export interface PurgeAndReportOptions {
  client: S3Client;
  bucket: string;
  keys: string[];
  kind: PurgeObjectKind;
  logger: Logger;
  /** Level of the failure report: `warn` everywhere except the lock's release path (`debug`). */
  reportLevel?: 'warn' | 'debug';
}

/** Purges and reports: a failure is logged (at `reportLevel`), success at debug. Never throws. */
export async function purgeAndReport(options: PurgeAndReportOptions): Promise<PurgeResult> {
  const result = await purgeNoncurrentVersions(options.client, options.bucket, options.keys);
  const warning = formatPurgeWarning(options.bucket, result, options.kind);
  if (warning) {
    if ((options.reportLevel ?? 'warn') === 'warn') options.logger.warn(warning);
    else options.logger.debug(warning);
  } else if (result.versionsDeleted > 0) {
    options.logger.debug(
      `Purged ${result.versionsDeleted} noncurrent version(s) of ${options.keys.join(', ')} in s3://${options.bucket}.`,
    );
  }
  return result;
}
