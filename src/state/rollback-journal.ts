/**
 * The rollback journal (`{prefix}/{stack}/{region}/rollback-journal.json`): what
 * a deploy that ended without a completed rollback did, so `cdkd rollback` can
 * revert it later without synthesizing. A contract shared with the reference
 * tool (same keys and shapes): its own `journalVersion`, not part of the state
 * schema; one segment per failed attempt, oldest first, replayed newest first.
 *
 * Transient by design: deleted (with its noncurrent versions, since
 * `failedOperations[].attemptedProperties` holds a failed write verbatim) by a
 * successful deploy, a clean `cdkd rollback` and destroy. Every writer holds the
 * stack lock, so writes are unconditional.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { CdkdError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { hasSecrets, redactSecrets } from '../template/redaction';
import { purgeAndReport } from './purge';
import { redactResourceState } from './redact-state';
import { getObjectText, putObjectText } from './state-backend';
import type { StateBucket } from './state-bucket';
import type { ProvisionedBy, ResourceState } from './types';

/** The journal format version cdkd reads and writes (independent of the state schema). */
export const ROLLBACK_JOURNAL_VERSION = 1;

/** Why a segment was recorded (informational: nothing branches on it when reading). */
export type RollbackSegmentReason =
  'no-rollback-failure' | 'interrupted' | 'auto-rollback-started' | 'auto-rollback-clean';

export type JournalChangeType = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * An operation the deploy completed. An UPDATE was a replacement when its
 * `replacement` says so, or (a journal without that field) when its
 * `physicalId` differs from `previousState.physicalId`.
 */
export interface CompletedOperation {
  logicalId: string;
  changeType: JournalChangeType;
  resourceType: string;
  provisionedBy?: ProvisionedBy;
  /** The record before the operation (UPDATE, DELETE). */
  previousState?: ResourceState;
  /** The resource the operation left (CREATE, UPDATE). */
  physicalId?: string;
  /** The properties it was created or updated with. */
  properties?: Record<string, unknown>;
  /**
   * cdkd addition, optional (the reference tool ignores it): for a replacement,
   * what the deploy did with the original. `deposed`: kept in state to delete
   * after the deploy (still in AWS when the deploy failed); `retained`: kept by
   * UpdateReplacePolicy; `deleted`: deleted before the new copy was made.
   */
  replacedOriginal?: 'deposed' | 'retained' | 'deleted';
  /**
   * cdkd addition, optional (the reference tool ignores it): for an UPDATE,
   * whether it replaced the resource, as its provider answered (or the core
   * decided, for a create-only change). `false`: applied in place, and reverted
   * in place even when the physical id changed (an SQS QueuePolicy whose first
   * queue changed). Absent: a journal an older cdkd wrote; the physical id decides.
   */
  replacement?: boolean;
}

/** An operation that failed mid-deploy: its resource's remote state is unknown. */
export interface FailedOperation {
  logicalId: string;
  changeType: JournalChangeType;
  resourceType: string;
  provisionedBy?: ProvisionedBy;
  /** The record before the operation (UPDATE, DELETE). */
  previousState?: ResourceState;
  /** The resource addressed, or the one a failed create proved it made. */
  physicalId?: string;
  /** The resolved properties the failed write attempted. */
  attemptedProperties?: Record<string, unknown>;
  /**
   * cdkd addition, optional: a failed UPDATE that was a replacement (its new
   * copy's create failed). It applied nothing to the resource it replaced, so
   * it is never force-reverted; what the create made is journaled beside it as
   * a failed CREATE.
   */
  replacement?: true;
}

export interface RollbackJournalSegment {
  runId?: string;
  /** Unix ms. */
  timestamp: number;
  reason: RollbackSegmentReason;
  /** The failed deploy was the stack's first: a clean rollback deletes the state record. */
  initialDeploy: boolean;
  roleArn?: string;
  cdkdVersion?: string;
  /** In completion order. */
  operations: CompletedOperation[];
  failedOperations?: FailedOperation[];
  /**
   * cdkd addition, optional: the last write-ahead-log segment folded into
   * state.json when this segment was written. Operations in later log segments
   * are the deploy's too (a process killed before it could journal them).
   */
  walSeq?: number;
  /**
   * cdkd addition, optional (the reference tool ignores it): the asset
   * storage-name rewrite the deploy applied to its templates (cdkd asset mode:
   * CDK bootstrap bucket / repository -> cdkd's), so that reverting a nested
   * stack's operation, which redeploys its child from the previous TemplateURL,
   * reads every template below with it, as the deploy did. Empty: no rewrite
   * (CDK bootstrap asset mode). Absent: a segment an earlier cdkd wrote.
   */
  assetNameRewrite?: Array<{ from: string; to: string }>;
}

export interface RollbackJournal {
  journalVersion: number;
  stackName: string;
  region: string;
  segments: RollbackJournalSegment[];
}

/** Parses and checks a journal body; a newer `journalVersion` is refused with the remedy. */
export function parseRollbackJournal(body: string, stackName: string, where: string): RollbackJournal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw new CdkdError(`The rollback journal ${where} is not valid JSON: ${(err as Error).message}`, {
      code: 'JOURNAL_INVALID',
      remedy: 'Inspect or delete the object; without it, `cdkd rollback` has nothing to revert.',
    });
  }
  const j = parsed as Partial<RollbackJournal> | null;
  if (typeof j !== 'object' || j === null || Array.isArray(j)) {
    throw new CdkdError(`The rollback journal ${where} is not a JSON object.`, { code: 'JOURNAL_INVALID' });
  }
  if (typeof j.journalVersion !== 'number' || !Number.isInteger(j.journalVersion) || j.journalVersion < 1) {
    throw new CdkdError(
      `The rollback journal ${where} has an invalid journalVersion (${JSON.stringify(j.journalVersion)}).`,
      { code: 'JOURNAL_INVALID' },
    );
  }
  if (j.journalVersion > ROLLBACK_JOURNAL_VERSION) {
    throw new CdkdError(
      `The rollback journal ${where} has journalVersion ${j.journalVersion}; this cdkd reads up to ${ROLLBACK_JOURNAL_VERSION}.`,
      { code: 'JOURNAL_VERSION_UNSUPPORTED', remedy: `Upgrade cdkd to roll ${stackName} back.` },
    );
  }
  if (!Array.isArray(j.segments)) {
    throw new CdkdError(`The rollback journal ${where} has no segments array.`, { code: 'JOURNAL_INVALID' });
  }
  for (const [i, s] of j.segments.entries()) {
    if (typeof s !== 'object' || s === null || !Array.isArray((s as RollbackJournalSegment).operations)) {
      throw new CdkdError(`The rollback journal ${where}: segment ${i} has no operations array.`, {
        code: 'JOURNAL_INVALID',
      });
    }
  }
  return {
    journalVersion: j.journalVersion,
    stackName: j.stackName ?? stackName,
    region: j.region ?? '',
    segments: j.segments,
  };
}

/** The journal as it may be stored: every registered secret masked in its values (src/state/redact-state.ts). */
export function serializeRollbackJournal(journal: RollbackJournal): string {
  return JSON.stringify(redactJournal(journal), null, 2);
}

function redactJournal(journal: RollbackJournal): RollbackJournal {
  if (!hasSecrets()) return journal;
  const previous = <T extends { previousState?: ResourceState }>(op: T): T =>
    op.previousState ? { ...op, previousState: redactResourceState(op.previousState) } : op;
  return {
    ...journal,
    segments: journal.segments.map((segment) => ({
      ...segment,
      operations: segment.operations.map((op) =>
        previous(op.properties ? { ...op, properties: redactSecrets(op.properties) } : op),
      ),
      ...(segment.failedOperations
        ? {
            failedOperations: segment.failedOperations.map((op) =>
              previous(
                op.attemptedProperties
                  ? { ...op, attemptedProperties: redactSecrets(op.attemptedProperties) }
                  : op,
              ),
            ),
          }
        : {}),
    })),
  };
}

/** Reads, writes and removes the stacks' rollback journals. */
export class RollbackJournalStore {
  constructor(
    readonly bucket: StateBucket,
    private readonly logger: Logger,
  ) {}

  key(stackName: string, region: string): string {
    return this.bucket.keys.journalKey(stackName, region);
  }

  /** The journal, or undefined when the stack has none. */
  async read(stackName: string, region: string): Promise<RollbackJournal | undefined> {
    const key = this.key(stackName, region);
    const obj = await getObjectText(await this.bucket.client(), this.bucket.name, key);
    if (!obj) return undefined;
    return parseRollbackJournal(obj.body, stackName, this.bucket.uri(key));
  }

  async write(journal: RollbackJournal): Promise<void> {
    const key = this.key(journal.stackName, journal.region);
    await putObjectText(await this.bucket.client(), this.bucket.name, key, serializeRollbackJournal(journal));
  }

  /**
   * Deletes the journal and purges its noncurrent versions (a purge failure is a
   * warning). Returns false, having written nothing, when there is none: on a
   * versioned bucket a delete of a missing key would still write a delete marker.
   */
  async remove(stackName: string, region: string): Promise<boolean> {
    const key = this.key(stackName, region);
    const client = await this.bucket.client();
    if (!(await getObjectText(client, this.bucket.name, key))) return false;
    await client.send(new DeleteObjectCommand({ Bucket: this.bucket.name, Key: key }));
    await purgeAndReport({
      client,
      bucket: this.bucket.name,
      keys: [key],
      kind: 'rollback-journal',
      logger: this.logger,
    });
    return true;
  }
}

/** A new, empty journal for a stack. */
export function emptyJournal(stackName: string, region: string): RollbackJournal {
  return { journalVersion: ROLLBACK_JOURNAL_VERSION, stackName, region, segments: [] };
}
