/**
 * `cdkd gc`: collects stranded custom-resource response placeholders
 * (`custom-resource-responses/{RequestId}.json` in the state bucket): the ones
 * an interrupted deploy, a throw before cleanup, or a handler's late PUT left.
 *
 * Which are stranded is decided from the write-ahead logs and the locks. A
 * deploy announces an operation in its stack's log (a pending intent) before
 * it writes the placeholder, and the request id is derived from the intent's
 * token, so every placeholder a run may still wait on is named by a pending
 * intent, found by listing the placeholders first and reading the logs after.
 * A placeholder
 *   - named by no pending intent is collected: nobody waits on it;
 *   - named by a pending intent of a stack whose lock is live is kept: that
 *     run may be waiting on it right now;
 *   - named by a pending intent of an unlocked stack is kept until it is older
 *     than the custom-resource timeout (the re-run that settles the intent
 *     waits on it instead of sending the request again), then collected.
 * When a stack's log cannot be read, placeholders younger than the timeout
 * are kept. Collecting deletes the key's every version (the response may hold
 * a handler-minted secret in `Data`), scoped to that one key.
 */
import { DeleteObjectCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { requestIdFor } from '../provisioning/custom-resource-provider';
import { CUSTOM_RESOURCE_RESPONSE_PREFIX, lockingStackName } from '../state/keys';
import { formatPurgeWarning, purgeNoncurrentVersions } from '../state/purge';
import { s3ErrorCode } from '../state/s3-errors';
import { listKeys } from '../state/state-backend';
import type { StateStore } from '../state/state-store';
import { readStackStateView } from '../state/wal-replay';
import { formatError } from '../util/errors';

export interface GcOptions {
  store: StateStore;
  /** The custom-resource timeout, in seconds (`customResourceTimeoutSeconds`). */
  timeoutSeconds: number;
  /** List what would be collected; delete nothing. */
  dryRun?: boolean;
  now?: () => number;
}

export interface GcPlaceholder {
  key: string;
  requestId: string;
  /** When its current version was written, Unix ms; absent when only old versions or delete markers are left. */
  lastModified?: number;
  /** Why it is collected or kept. */
  reason: string;
}

export interface GcResult {
  bucket: string;
  dryRun: boolean;
  collected: GcPlaceholder[];
  kept: GcPlaceholder[];
  /** Placeholders whose delete failed (they stay for the next gc). */
  failed: Array<{ key: string; error: string }>;
  /** Warnings: logs that could not be read, versions that could not be purged. */
  warnings: string[];
}

interface Found {
  key: string;
  requestId: string;
  /** The current version's LastModified; undefined when the key has no current object. */
  lastModified?: number;
}

const REQUEST_TYPES = ['Create', 'Update', 'Delete'] as const;

export async function collectGarbage(options: GcOptions): Promise<GcResult> {
  const { store } = options;
  const now = options.now ?? Date.now;
  const client = await store.bucket.client();
  const bucket = store.bucket.name;
  const result: GcResult = {
    bucket,
    dryRun: options.dryRun ?? false,
    collected: [],
    kept: [],
    failed: [],
    warnings: [],
  };
  // First the placeholders, then the logs: a placeholder listed here had its intent durable before it.
  const placeholders = await listPlaceholders(client, bucket);
  if (placeholders.length === 0) return result;
  const { owners, unreadable } = await pendingRequests(store, result.warnings);
  const liveLocks = new Map<string, boolean>();
  const isLocked = async (stackName: string, region: string): Promise<boolean> => {
    const key = `${lockingStackName(stackName)}\u0000${region}`;
    if (!liveLocks.has(key)) {
      const lock = await store.locks.readLock(stackName, region);
      liveLocks.set(key, lock !== undefined && !lock.expired);
    }
    return liveLocks.get(key)!;
  };

  const timeoutMs = options.timeoutSeconds * 1000;
  for (const p of placeholders) {
    const age = p.lastModified === undefined ? Infinity : now() - p.lastModified;
    const owner = owners.get(p.requestId);
    let keep: string | undefined;
    if (owner && (await isLocked(owner.stackName, owner.region))) {
      keep = `a pending operation of ${owner.stackName} (${owner.region}) names it, and the stack is locked: its deploy may be waiting on it`;
    } else if (owner && age <= timeoutMs) {
      keep = `a pending operation of ${owner.stackName} (${owner.region}) names it; the next run of that stack waits on it (collected once older than the ${options.timeoutSeconds}s timeout)`;
    } else if (!owner && unreadable && age <= timeoutMs) {
      keep = `not every stack's write-ahead log could be read, and it is younger than the ${options.timeoutSeconds}s timeout`;
    }
    if (keep) {
      result.kept.push({ ...p, reason: keep });
      continue;
    }
    const why =
      p.lastModified === undefined
        ? 'only earlier versions of it are left'
        : owner
          ? `older than the ${options.timeoutSeconds}s custom-resource timeout, and no run holds the lock of ${owner.stackName}`
          : 'no pending operation names its request';
    if (!result.dryRun) {
      try {
        await removeEveryVersion(client, bucket, p.key, result.warnings);
      } catch (err) {
        result.failed.push({ key: p.key, error: s3ErrorCode(err) ?? formatError(err) });
        continue;
      }
    }
    result.collected.push({ ...p, reason: why });
  }
  return result;
}

/** Every placeholder key, current or left only as old versions / delete markers. */
async function listPlaceholders(client: S3Client, bucket: string): Promise<Found[]> {
  const byKey = new Map<string, Found>();
  let keyMarker: string | undefined;
  let versionMarker: string | undefined;
  do {
    const page = await client.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        Prefix: CUSTOM_RESOURCE_RESPONSE_PREFIX,
        KeyMarker: keyMarker,
        VersionIdMarker: versionMarker,
      }),
    );
    const entries = [
      ...(page.Versions ?? []).map((v) => ({ ...v, marker: false })),
      ...(page.DeleteMarkers ?? []).map((m) => ({ ...m, marker: true })),
    ];
    for (const v of entries) {
      if (!v.Key) continue;
      const requestId = v.Key.slice(CUSTOM_RESOURCE_RESPONSE_PREFIX.length).replace(/\.json$/, '');
      const found = byKey.get(v.Key) ?? { key: v.Key, requestId };
      if (v.IsLatest && !v.marker && v.LastModified) found.lastModified = v.LastModified.getTime();
      byKey.set(v.Key, found);
    }
    keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    versionMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
  } while (keyMarker);
  return [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** The request ids pending intents of every stack (and region) in the bucket may use, by owner. */
async function pendingRequests(
  store: StateStore,
  warnings: string[],
): Promise<{ owners: Map<string, { stackName: string; region: string }>; unreadable: boolean }> {
  const client = await store.bucket.client();
  const keys = store.bucket.keys;
  const stacks = new Map<string, { stackName: string; region: string }>();
  const root = keys.root();
  for (const key of await listKeys(client, store.bucket.name, root)) {
    const parsed = keys.parse(key);
    const wal = keys.walSegmentSeq(key) !== undefined ? key.slice(root.length).split('/') : undefined;
    const at =
      parsed && 'region' in parsed
        ? { stackName: parsed.stackName, region: parsed.region }
        : wal && wal.length === 4
          ? { stackName: wal[0], region: wal[1] }
          : undefined;
    if (at) stacks.set(`${at.stackName}\u0000${at.region}`, at);
  }
  const owners = new Map<string, { stackName: string; region: string }>();
  let unreadable = false;
  for (const at of stacks.values()) {
    let intents;
    try {
      intents = (
        await readStackStateView(store.backend, store.wal, at.stackName, at.region)
      ).builder.pendingIntents();
    } catch (err) {
      unreadable = true;
      warnings.push(
        `Could not read the write-ahead log of ${at.stackName} (${at.region}): ${formatError(err)}`,
      );
      continue;
    }
    for (const intent of intents) {
      for (let attempt = 0; attempt <= (intent.attempt ?? 0); attempt++)
        for (const type of REQUEST_TYPES) owners.set(requestIdFor(intent.token, type, attempt), at);
    }
  }
  return { owners, unreadable };
}

/** Deletes the key's current version, every earlier version and its delete markers: nothing of it stays readable. */
async function removeEveryVersion(
  client: S3Client,
  bucket: string,
  key: string,
  warnings: string[],
): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  const purged = await purgeNoncurrentVersions(client, bucket, [key]);
  const warning = formatPurgeWarning(bucket, purged, 'custom-resource-response');
  if (warning) warnings.push(warning);
  // The delete above left a (current) delete marker on a versioned bucket; it holds nothing, and goes too.
  const out = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
  for (const marker of out.DeleteMarkers ?? []) {
    if (marker.Key === key && marker.VersionId)
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: marker.VersionId }));
  }
}
