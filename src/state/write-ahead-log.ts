/**
 * The write-ahead log of a stack: `{prefix}/{stack}/{region}/wal/{seq}.json`,
 * append-only segments next to `state.json`. A command that holds the stack
 * lock announces every AWS operation here before it sends it (an intent), and
 * records what came of it; `state.json` is rewritten only when the log is
 * folded into it. So a process killed at any instant leaves in S3 everything it
 * might have made, and a deploy writes each record about once instead of
 * rewriting the whole state for every finished resource.
 *
 * Each segment is written once, with `If-None-Match: *`: a segment number is
 * claimed exclusively, so a second writer is detected (412 on a body that is not
 * ours) instead of interleaved, and a write whose reply was lost is recognised by
 * reading it back. See docs/state.md ("Write-ahead log").
 */
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import type { ObjectIdentifier } from '@aws-sdk/client-s3';
import { CdkdError, StateCorruptError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { redactWalRecord } from './redact-state';
import { describeAwsError, isPreconditionFailed } from './s3-errors';
import { getObjectText, listKeys, putObjectText } from './state-backend';
import type { StateBucket } from './state-bucket';
import type { IntentRecord, StateMutation } from './types';

/** Version of the segment format. */
export const WAL_FORMAT_VERSION = 1;

/** One entry of a segment. */
export type WalRecord =
  /** An operation about to be sent: durable before its AWS call. */
  | { t: 'intent'; intent: IntentRecord }
  /** A new attempt of a pending intent (durable before it is sent), or its Cloud Control request token. */
  | { t: 'amend'; id: string; attempt?: number; requestTokens?: Record<string, string> }
  /**
   * State changes: the outcome of intent `id` (`failed` when it failed and made
   * nothing, or only what `effects` deposes), or, without `id`, changes that
   * need no AWS call (a policy-only update, a retained resource dropped).
   */
  | {
      t: 'outcome';
      id?: string;
      failed?: { code?: string; message: string };
      /**
       * Optional: an update's answer from its provider, true when it replaced the
       * resource rather than updating it in place (`wasReplaced`). Absent in a log
       * an older cdkd wrote, and on every other outcome.
       */
      replaced?: boolean;
      effects: StateMutation[];
    };

/** A segment as stored. */
export interface WalSegment {
  walVersion: number;
  stackName: string;
  region: string;
  /** The lineage of the state record the segment belongs to. */
  lineage: string;
  seq: number;
  /** The lock owner that wrote it. */
  writer: string;
  writtenAt: number;
  records: WalRecord[];
}

/** A segment found in the bucket. */
export interface WalSegmentRef {
  seq: number;
  key: string;
  /** Known for segments this process wrote: they are deleted by version (no delete marker left). */
  versionId?: string;
}

/** Another process wrote a segment number this one meant to claim. */
export class WalConflictError extends CdkdError {
  constructor(message: string, options: { cause?: unknown; remedy?: string } = {}) {
    super(message, { code: 'WAL_CONFLICT', ...options });
  }
}

export class WriteAheadLogStore {
  constructor(
    readonly bucket: StateBucket,
    private readonly logger: Logger,
  ) {}

  /** The stack's segments, in segment order. */
  async list(stackName: string, region: string): Promise<WalSegmentRef[]> {
    const keys = this.bucket.keys;
    const client = await this.bucket.client();
    const found = await listKeys(client, this.bucket.name, keys.walPrefix(stackName, region));
    const refs: WalSegmentRef[] = [];
    for (const key of found) {
      const seq = keys.walSegmentSeq(key);
      if (seq !== undefined) refs.push({ seq, key });
    }
    return refs.sort((a, b) => a.seq - b.seq);
  }

  /** Reads and checks one segment. */
  async read(ref: WalSegmentRef): Promise<WalSegment | undefined> {
    const client = await this.bucket.client();
    const obj = await getObjectText(client, this.bucket.name, ref.key);
    if (!obj) return undefined;
    return parseSegment(obj.body, this.bucket.uri(ref.key));
  }

  /**
   * Writes a segment under its number. Returns the bytes written and the version
   * id. Throws {@link WalConflictError} when another process holds the number.
   */
  async write(segment: WalSegment): Promise<{ bytes: number; versionId?: string; key: string }> {
    const key = this.bucket.keys.walSegmentKey(segment.stackName, segment.region, segment.seq);
    const body = JSON.stringify({ ...segment, records: segment.records.map(redactWalRecord) });
    const client = await this.bucket.client();
    const bytes = Buffer.byteLength(body);
    try {
      const out = await putObjectText(client, this.bucket.name, key, body, {
        condition: { IfNoneMatch: '*' },
        retryConflicts: true,
      });
      if (out.confirmed)
        this.logger.debug(`Wrote ${this.bucket.uri(key)} (the reply was lost; read back and confirmed).`);
      return { bytes, key, ...(out.versionId ? { versionId: out.versionId } : {}) };
    } catch (err) {
      if (isPreconditionFailed(err)) {
        throw new WalConflictError(
          `Another process wrote ${this.bucket.uri(key)}, the write-ahead log segment this run was about to write: two processes are working on ${segment.stackName} (${segment.region}).`,
          {
            cause: err,
            remedy:
              'Stop the other process (see the stack lock), then re-run: cdkd settles what both runs left half-done.',
          },
        );
      }
      throw err;
    }
  }

  /** Deletes segments (by version when known). Never throws; returns the keys it could not delete. */
  async remove(refs: WalSegmentRef[]): Promise<string[]> {
    if (refs.length === 0) return [];
    const client = await this.bucket.client();
    const failed: string[] = [];
    for (let i = 0; i < refs.length; i += 1000) {
      const batch = refs.slice(i, i + 1000);
      const objects: ObjectIdentifier[] = batch.map((r) => ({
        Key: r.key,
        ...(r.versionId ? { VersionId: r.versionId } : {}),
      }));
      try {
        const out = await client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket.name, Delete: { Objects: objects, Quiet: true } }),
        );
        const refused = (out.Errors ?? []).filter((e) => e.Key);
        // Without s3:DeleteObjectVersion a delete by version is refused: delete the key instead.
        const retry = refused.filter((e) => e.Code !== 'NoSuchVersion' && e.Code !== 'NoSuchKey');
        if (retry.length > 0) {
          const again = await client.send(
            new DeleteObjectsCommand({
              Bucket: this.bucket.name,
              Delete: { Objects: retry.map((e) => ({ Key: e.Key! })), Quiet: true },
            }),
          );
          for (const e of again.Errors ?? []) if (e.Key) failed.push(e.Key);
        }
      } catch (err) {
        this.logger.debug(`Could not delete write-ahead log segments: ${describeAwsError(err)}`);
        failed.push(...batch.map((r) => r.key));
      }
    }
    return failed;
  }
}

/** Parses a segment body; corrupt segments are refused with their key. */
export function parseSegment(body: string, where: string): WalSegment {
  const corrupt = (reason: string): StateCorruptError =>
    new StateCorruptError(`Write-ahead log segment ${where} is corrupt: ${reason}.`, {
      remedy:
        'It holds operations an interrupted cdkd run sent or was about to send. Inspect it, check the resources it names in AWS, and delete it by hand once state records them.',
    });
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    throw corrupt(`it is not valid JSON (${(err as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw corrupt('it is not a JSON object');
  const seg = raw as Partial<WalSegment>;
  if (seg.walVersion !== WAL_FORMAT_VERSION) {
    throw new StateCorruptError(
      `Write-ahead log segment ${where} has format version ${JSON.stringify(seg.walVersion)}; this cdkd reads version ${WAL_FORMAT_VERSION}. Upgrade cdkd.`,
      { code: 'STATE_VERSION_UNSUPPORTED' },
    );
  }
  if (typeof seg.lineage !== 'string' || typeof seg.seq !== 'number' || !Array.isArray(seg.records))
    throw corrupt("'lineage', 'seq' or 'records' is missing");
  for (const r of seg.records) {
    if (typeof r !== 'object' || r === null || !['intent', 'amend', 'outcome'].includes((r as WalRecord).t))
      throw corrupt('a record has no known type');
  }
  return seg as WalSegment;
}
