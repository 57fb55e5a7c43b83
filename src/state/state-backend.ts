/**
 * Stack state in S3: `{prefix}/{stack}/{region}/state.json`, read with its ETag
 * and written with S3 conditional writes — `If-Match` the ETag that was read, or
 * `If-None-Match: *` for a stack with no state yet — so a stale writer gets a
 * {@link StateConflictError} and never overwrites someone else's update.
 *
 * Legacy v1 records at `{prefix}/{stack}/state.json` are read when their embedded
 * region matches; the next save writes the region-scoped key and then deletes
 * the legacy one (its history is kept: state versions are the recovery path).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { StateConflictError, ValidationError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { isTransientAwsError, withRetry } from '../util/retry';
import { parseStackState, serializeStackState } from './schema';
import { describeAwsError, isConditionalConflict, isNoSuchKey, isPreconditionFailed } from './s3-errors';
import type { StateBucket } from './state-bucket';
import type { StackState } from './types';

/** A state record as read from S3. */
export interface StateRecord {
  /** The record, upgraded in memory to the current schema version. */
  state: StackState;
  /** The object's ETag (with its quotes); pass it back to {@link S3StateBackend.saveState}. */
  etag: string;
  /** The key it was read from. */
  key: string;
  /** The schema version stored in the file. */
  sourceVersion: number;
  /** True when read from the legacy v1 key; the next save moves it. */
  legacy: boolean;
}

/** A (stack, region) pair that has a state record. */
export interface StackRef {
  stackName: string;
  region: string;
  /** Stored at the legacy v1 key. */
  legacy?: boolean;
}

export interface SaveStateResult {
  /** The new ETag. */
  etag: string;
  /** Bytes written. */
  bytes: number;
  key: string;
  versionId?: string;
}

export interface ObjectBody {
  body: string;
  etag: string;
  versionId?: string;
  /** When S3 stored this version (S3's clock, second precision). */
  lastModified?: Date;
  /** S3's clock when it answered (the response's `Date` header), when known. */
  serverTime?: Date;
}

/** Reads an object's body and ETag; undefined when the key does not exist. */
export async function getObjectText(
  client: S3Client,
  bucket: string,
  key: string,
  options: { abortSignal?: AbortSignal; versionId?: string } = {},
): Promise<ObjectBody | undefined> {
  const command = new GetObjectCommand({
    Bucket: bucket,
    Key: key,
    ...(options.versionId ? { VersionId: options.versionId } : {}),
  });
  let serverTime: Date | undefined;
  // The Date header is not part of the modelled output; read it from the raw response.
  command.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const date = (out.response as { headers?: Record<string, string> } | undefined)?.headers?.date;
      const parsed = date ? new Date(date) : undefined;
      if (parsed && !Number.isNaN(parsed.getTime())) serverTime = parsed;
      return out;
    },
    { step: 'deserialize', name: 'cdkdServerTime' },
  );
  try {
    const out = await client.send(command, { abortSignal: options.abortSignal });
    const body = (await out.Body?.transformToString('utf-8')) ?? '';
    return {
      body,
      etag: out.ETag ?? '',
      ...(out.VersionId && out.VersionId !== 'null' ? { versionId: out.VersionId } : {}),
      ...(out.LastModified ? { lastModified: out.LastModified } : {}),
      ...(serverTime ? { serverTime } : {}),
    };
  } catch (err) {
    if (isNoSuchKey(err)) return undefined;
    throw err;
  }
}

/** A conditional write's condition: `If-Match` an ETag, or `If-None-Match: *` (create only). */
export type WriteCondition = { IfMatch: string } | { IfNoneMatch: '*' } | Record<string, never>;

export interface PutTextOptions {
  condition?: WriteCondition;
  /** Also retry S3's 409 ConditionalRequestConflict, as AWS advises for conditional writes. */
  retryConflicts?: boolean;
  abortSignal?: AbortSignal;
}

/** A write that landed: its ETag and version, and whether it was confirmed by reading it back. */
export interface PutTextResult {
  etag: string;
  versionId?: string;
  /** The reply was lost; the stored body was read back and is ours. */
  confirmed: boolean;
}

/**
 * The one way cdkd writes a small JSON object to the state bucket: PutObject with
 * its condition, and when it fails in a way that may hide a write that landed
 * (the SDK retried a request whose reply was lost and met our own write with a
 * 412, a 409, a 5xx after the write), reads the key back and adopts the write
 * when the stored body is exactly ours. Otherwise throws the original error.
 */
export async function putObjectText(
  client: S3Client,
  bucket: string,
  key: string,
  body: string,
  options: PutTextOptions = {},
): Promise<PutTextResult> {
  const send = () =>
    client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentType: 'application/json',
        ...options.condition,
      }),
      { abortSignal: options.abortSignal },
    );
  try {
    const out = await (options.retryConflicts ? withRetry(send, { isRetryable: retryConditional }) : send());
    return { etag: out.ETag ?? '', ...(out.VersionId ? { versionId: out.VersionId } : {}), confirmed: false };
  } catch (err) {
    const own = await readBackOwnWrite(client, bucket, key, body);
    if (own)
      return { etag: own.etag, ...(own.versionId ? { versionId: own.versionId } : {}), confirmed: true };
    throw err;
  }
}

/**
 * After a write whose outcome is unknown — a 412 or 409 on a request the SDK
 * retried, a 5xx, a dropped connection — reads the key back: the stored object
 * when its body is exactly what this process sent (the write landed and only its
 * reply was lost), undefined otherwise. A failed read counts as "not ours".
 */
export async function readBackOwnWrite(
  client: S3Client,
  bucket: string,
  key: string,
  body: string,
): Promise<ObjectBody | undefined> {
  try {
    const stored = await getObjectText(client, bucket, key);
    return stored && stored.body === body ? stored : undefined;
  } catch {
    return undefined;
  }
}

/** Every key under `prefix` (ListObjectsV2, all pages). */
export async function listKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/** Conditional writes also retry S3's 409 ConditionalRequestConflict, as AWS advises. */
const retryConditional = (err: unknown): boolean =>
  isTransientAwsError(err) || (isConditionalConflict(err) && !isPreconditionFailed(err));

export class S3StateBackend {
  /** ETags of legacy records read by this process, by stack and region: a save with one migrates. */
  private readonly legacyReads = new Map<string, string>();

  constructor(
    readonly bucket: StateBucket,
    private readonly logger: Logger,
  ) {}

  /** The state of a stack in a region, or undefined when it has none. */
  async getState(stackName: string, region: string): Promise<StateRecord | undefined> {
    const keys = this.bucket.keys;
    const client = await this.bucket.client();
    const key = keys.stateKey(stackName, region);
    const current = await getObjectText(client, this.bucket.name, key);
    if (current) {
      const parsed = parseStackState(current.body, { bucket: this.bucket.name, key });
      return { ...parsed, etag: current.etag, key, legacy: false };
    }
    const legacyKey = keys.legacyStateKey(stackName);
    const legacy = await getObjectText(client, this.bucket.name, legacyKey);
    if (!legacy) return undefined;
    const parsed = parseStackState(legacy.body, { bucket: this.bucket.name, key: legacyKey });
    // A legacy record is a stack's state only in the region it records.
    if (parsed.state.region !== region) return undefined;
    this.legacyReads.set(refId(stackName, region), legacy.etag);
    return { ...parsed, etag: legacy.etag, key: legacyKey, legacy: true };
  }

  /**
   * Writes a stack's state (as the current schema version). `expectedEtag` is the
   * ETag of the record this state was derived from; omit it for a stack that has
   * no state yet. Throws {@link StateConflictError} when the stored record is not
   * that one any more (or, for a new stack, when one appeared meanwhile).
   */
  async saveState(
    stackName: string,
    region: string,
    state: StackState,
    expectedEtag?: string,
  ): Promise<SaveStateResult> {
    if (state.stackName !== stackName) {
      throw new ValidationError(
        `Cannot save the state of stack '${state.stackName}' as stack '${stackName}'.`,
      );
    }
    const key = this.bucket.keys.stateKey(stackName, region);
    const body = serializeStackState({ ...state, region });
    const client = await this.bucket.client();
    const id = refId(stackName, region);
    const legacyEtag = this.legacyReads.get(id);
    const migrating = expectedEtag !== undefined && expectedEtag === legacyEtag;
    // A migrating save creates the region-scoped key: nothing may be there yet.
    const condition: WriteCondition =
      expectedEtag === undefined || migrating ? { IfNoneMatch: '*' } : { IfMatch: expectedEtag };

    let etag: string;
    let versionId: string | undefined;
    try {
      const out = await putObjectText(client, this.bucket.name, key, body, {
        condition,
        retryConflicts: true,
      });
      if (out.confirmed)
        this.logger.debug(`Saved ${this.bucket.uri(key)} (the reply was lost; read back and confirmed).`);
      etag = out.etag;
      versionId = out.versionId;
    } catch (err) {
      if (isPreconditionFailed(err) || isNoSuchKey(err) || isConditionalConflict(err))
        throw this.conflict(stackName, region, key, expectedEtag === undefined || migrating, err);
      throw err;
    }

    if (migrating) {
      this.legacyReads.delete(id);
      await this.deleteLegacyKey(client, stackName, legacyEtag, key);
    }
    return { etag, bytes: Buffer.byteLength(body), key, ...(versionId ? { versionId } : {}) };
  }

  /**
   * Deletes a stack's state record (its history stays in the bucket's versions).
   * With `expectedEtag`, only if the record is still that one.
   */
  async deleteState(stackName: string, region: string, expectedEtag?: string): Promise<void> {
    const client = await this.bucket.client();
    const key = this.bucket.keys.stateKey(stackName, region);
    const legacyEtag = this.legacyReads.get(refId(stackName, region));
    if (expectedEtag !== undefined && expectedEtag === legacyEtag) {
      this.legacyReads.delete(refId(stackName, region));
      await this.deleteLegacyKey(client, stackName, legacyEtag);
      return;
    }
    try {
      await client.send(
        new DeleteObjectCommand({
          Bucket: this.bucket.name,
          Key: key,
          ...(expectedEtag ? { IfMatch: expectedEtag } : {}),
        }),
      );
    } catch (err) {
      if (isNoSuchKey(err)) return;
      if (isPreconditionFailed(err) || isConditionalConflict(err))
        throw this.conflict(stackName, region, key, false, err);
      throw err;
    }
    // A legacy record for this region is the same stack's state: remove it too.
    const legacyKey = this.bucket.keys.legacyStateKey(stackName);
    const legacy = await getObjectText(client, this.bucket.name, legacyKey);
    if (legacy && legacyRegion(legacy.body) === region) {
      await client.send(
        new DeleteObjectCommand({ Bucket: this.bucket.name, Key: legacyKey, IfMatch: legacy.etag }),
      );
    }
  }

  /**
   * Every (stack, region) with a state record, sorted. Nested-stack children appear
   * as `parent~child`. Legacy v1 records are listed under the region they record.
   */
  async listStacks(): Promise<StackRef[]> {
    const client = await this.bucket.client();
    const keys = this.bucket.keys;
    const refs = new Map<string, StackRef>();
    const legacyKeys: { stackName: string; key: string }[] = [];
    for (const key of await listKeys(client, this.bucket.name, keys.root())) {
      const parsed = keys.parse(key);
      if (parsed?.kind === 'state')
        refs.set(refId(parsed.stackName, parsed.region), {
          stackName: parsed.stackName,
          region: parsed.region,
        });
      else if (parsed?.kind === 'legacy-state') legacyKeys.push({ stackName: parsed.stackName, key });
    }
    for (const { stackName, key } of legacyKeys) {
      const obj = await getObjectText(client, this.bucket.name, key);
      const region = obj ? legacyRegion(obj.body) : undefined;
      if (!region) {
        this.logger.warn(`Legacy state file ${this.bucket.uri(key)} records no region; it is not listed.`);
        continue;
      }
      if (!refs.has(refId(stackName, region)))
        refs.set(refId(stackName, region), { stackName, region, legacy: true });
    }
    return [...refs.values()].sort(
      (a, b) => a.stackName.localeCompare(b.stackName) || a.region.localeCompare(b.region),
    );
  }

  /** The regions a stack has state in. */
  async regionsOf(stackName: string): Promise<string[]> {
    return (await this.listStacks()).filter((r) => r.stackName === stackName).map((r) => r.region);
  }

  private async deleteLegacyKey(
    client: S3Client,
    stackName: string,
    etag: string | undefined,
    newKey?: string,
  ): Promise<void> {
    const legacyKey = this.bucket.keys.legacyStateKey(stackName);
    try {
      await client.send(
        new DeleteObjectCommand({
          Bucket: this.bucket.name,
          Key: legacyKey,
          ...(etag ? { IfMatch: etag } : {}),
        }),
      );
      if (newKey)
        this.logger.info(
          `Migrated the state of ${stackName} from ${this.bucket.uri(legacyKey)} to ${this.bucket.uri(newKey)}.`,
        );
    } catch (err) {
      if (isNoSuchKey(err)) return;
      this.logger.warn(
        `Could not delete the legacy state file ${this.bucket.uri(legacyKey)} (${describeAwsError(err)}). ` +
          `It is superseded${newKey ? ` by ${this.bucket.uri(newKey)}` : ''}; delete it by hand.`,
      );
    }
  }

  private conflict(
    stackName: string,
    region: string,
    key: string,
    creating: boolean,
    cause: unknown,
  ): StateConflictError {
    const where = this.bucket.uri(key);
    return creating
      ? new StateConflictError(
          `State of stack ${stackName} (${region}) already exists at ${where}: another process created it. Nothing was written.`,
          { cause, remedy: 'Re-run the command: cdkd reads the current state before writing.' },
        )
      : new StateConflictError(
          `State of stack ${stackName} (${region}) at ${where} was changed by another process since it was read (ETag mismatch). Nothing was written.`,
          {
            cause,
            remedy:
              'Another cdkd run (or a manual edit) updated this stack. Re-run the command once it has finished; ' +
              'cdkd reads the current state before writing.',
          },
        );
  }
}

function refId(stackName: string, region: string): string {
  return `${stackName}\u0000${region}`;
}

function legacyRegion(body: string): string | undefined {
  try {
    const region = (JSON.parse(body) as { region?: unknown }).region;
    return typeof region === 'string' && region ? region : undefined;
  } catch {
    return undefined;
  }
}
