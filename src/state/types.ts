/**
 * The state file format (schema version 9). These shapes are a contract shared
 * with the reference tool: a state file written by either is readable by the other.
 */

/** The schema version cdkd writes. */
export const STATE_SCHEMA_VERSION = 9;

export type PolicyAttribute = 'Delete' | 'Retain' | 'Snapshot' | 'RetainExceptOnCreate';

/** Which provisioning layer owns a resource. Absent (pre-v7) means "not pinned". */
export type ProvisionedBy = 'sdk' | 'cc-api';

export interface ResourceState {
  /** AWS physical id as returned by the provider that created it (may be a `a|b` composite). */
  physicalId: string;
  /** CloudFormation resource type. */
  resourceType: string;
  /** Resolved template properties cdkd asked AWS to apply. */
  properties: Record<string, unknown>;
  /** v3+: AWS-current snapshot captured after create/update (drift baseline). */
  observedProperties?: Record<string, unknown>;
  /** Values for Fn::GetAtt. */
  attributes?: Record<string, unknown>;
  /** Logical ids this resource depends on (deletion order). */
  dependencies?: string[];
  metadata?: Record<string, unknown>;
  /** v5+: template DeletionPolicy at the last create/update. */
  deletionPolicy?: PolicyAttribute;
  /** v5+: template UpdateReplacePolicy at the last create/update. */
  updateReplacePolicy?: PolicyAttribute;
  /** v7+: provisioning layer. */
  provisionedBy?: ProvisionedBy;
  /**
   * The provider pack (npm package name) that provisioned the resource, when an
   * SDK provider did. A cdkd addition, optional: the reference tool ignores it,
   * and a record without it routes as before pack provenance existed.
   */
  providerPack?: string;
  /** The version of {@link providerPack} that last created or updated the resource. */
  providerPackVersion?: string;
  /**
   * cdkd addition, optional: a salted scrypt digest of the properties last sent,
   * kept when they held a secret (stored as its reference or the mask), so a
   * later deploy detects a changed secret without the value being stored. See
   * src/plan/secret-digest.ts. The reference tool ignores it.
   */
  secretDigest?: string;
}

/** v4+: an Fn::ImportValue this stack resolved (strong reference). */
export interface StateImportEntry {
  sourceStack: string;
  sourceRegion: string;
  exportName: string;
}

/** v8+: an Fn::GetStackOutput served from a cdkd state record (weak reference). */
export interface StateOutputReadEntry {
  sourceStack: string;
  sourceRegion: string;
  outputName: string;
}

/**
 * cdkd addition (optional, ignored by the reference tool): a resource no longer
 * under its logical id that still exists in AWS and must be deleted — the
 * original of a replacement (Terraform's "deposed" object), or what a create
 * made before it failed. Kept in state until its delete succeeds; every deploy
 * and destroy retries it.
 */
export interface DeposedResource extends ResourceState {
  /** The logical id it was deployed under. */
  logicalId: string;
  /** Unique among the stack's deposed records: `<logicalId>~<n>`. */
  key: string;
  /** `replaced`: the original of a replacement. `failed-create`: made by a create that then failed. */
  reason: 'replaced' | 'failed-create';
  /** When it was deposed, Unix ms. */
  deposedAt: number;
  /**
   * `failed-create` only, optional: the provider's identity of what the create
   * made (plugin API `ResourceIdentity`), so a later command deletes it only
   * while the resource under its physical id still has it. Absent when the
   * provider reports none (or a record an older cdkd wrote).
   */
  identity?: Record<string, string>;
}

/** The operation an intent announces. */
export type IntentOperation = 'create' | 'update' | 'delete';

/**
 * cdkd addition: an operation announced in the write-ahead log before its AWS
 * call. While it has no outcome it is "in doubt": the next run settles it
 * before planning (re-issues it with the same token and adopts the result).
 */
export interface IntentRecord {
  /** `<lineage>:<segment>.<index>`, unique for the stack's lifetime. */
  id: string;
  operation: IntentOperation;
  logicalId: string;
  resourceType: string;
  /** The layer the call goes to. */
  provisionedBy: ProvisionedBy;
  /**
   * The provider pack the call goes to (`provisionedBy: sdk`; absent for cdkd's
   * own providers): a settle re-sends the intent through this pack, never through
   * another one registered for the type since.
   */
  providerPack?: string;
  /** That pack's version when the intent was announced. */
  providerPackVersion?: string;
  /** The idempotency token every attempt of this operation derives its request tokens from. */
  token: string;
  /** The latest durable attempt (0 = the first); Cloud Control sends a fresh request token per attempt. */
  attempt?: number;
  /** Cloud Control request tokens by attempt, once known (readable for 7 days). */
  requestTokens?: Record<string, string>;
  /** Create / update: the exact desired properties sent (secrets as references, as in state). */
  properties?: Record<string, unknown>;
  /**
   * cdkd addition: for each leaf of `properties` stored masked (a NoEcho
   * parameter value), its JSON pointer -> a salted scrypt digest of the clear
   * value, so a run settling this intent can restore the value from its own
   * secrets and prove it is the one first sent (src/state/intent-secrets.ts).
   */
  maskedDigests?: Record<string, string>;
  /** Update / delete: the resource addressed. */
  physicalId?: string;
  /** Update: the recorded properties the update goes from. */
  previousProperties?: Record<string, unknown>;
  /** Delete of a deposed record: its key. */
  deposedKey?: string;
  /** What the resulting record carries besides properties and ids (create / update). */
  recordBase?: Omit<ResourceState, 'physicalId' | 'properties' | 'attributes'>;
  /** Create that replaces the record under its logical id (REPLACE): the record's physical id. */
  replaces?: string;
  /** When it was announced, Unix ms. */
  at: number;
}

/**
 * One change to a stack's record, as the write-ahead log stores it and the
 * state builder applies it.
 */
export type StateMutation =
  /**
   * The record under a logical id. `prev` is the physical id the writer saw there
   * (`null`: none): on replay, a record another writer changed meanwhile is not
   * overwritten; the incoming resource is deposed instead.
   */
  | { op: 'set'; logicalId: string; record: ResourceState; prev?: string | null }
  | { op: 'remove'; logicalId: string }
  | { op: 'depose'; entry: DeposedResource }
  | { op: 'undepose'; key: string };

export interface StackState {
  version: number;
  stackName: string;
  /** Required on version >= 2. */
  region?: string;
  resources: Record<string, ResourceState>;
  /** Output name (and export alias) -> resolved value. NOT necessarily a string. */
  outputs: Record<string, unknown>;
  /** v4+ */
  imports?: StateImportEntry[];
  /** v8+ */
  outputReads?: StateOutputReadEntry[];
  /**
   * v9+: which `outputs` keys are Export.Name aliases. Absent = unknown (pre-v9:
   * every key importable); `[]` = exports nothing. Always written, even when empty.
   */
  exportNames?: string[];
  /** v6+: set on nested-stack child records only. */
  parentStack?: string;
  parentLogicalId?: string;
  parentRegion?: string;
  /** Unix time in ms. */
  lastModified: number;
  /**
   * cdkd addition: a random id given to the record when it is first written and
   * kept for its lifetime (Terraform's lineage). Intent ids derive from it.
   */
  lineage?: string;
  /** cdkd addition: incremented by every write of state.json. */
  serial?: number;
  /** cdkd addition: the last write-ahead-log segment folded into this record. */
  walSeq?: number;
  /** cdkd addition: intents that had no outcome when this record was written. */
  pendingIntents?: IntentRecord[];
  /** cdkd addition: resources to delete that no logical id holds any more. */
  deposed?: DeposedResource[];
}

export interface LockInfo {
  /** Process identifier, e.g. `user@host:pid`. */
  owner: string;
  /** Acquisition time, Unix ms. */
  timestamp: number;
  /** Deadline by which the holder must renew, Unix ms. */
  expiresAt: number;
  /** e.g. `deploy`, `destroy`. */
  operation?: string;
  /** cdkd addition: the TTL the holder renews with, in ms (lets a reader judge expiry by S3's clock). */
  ttlMs?: number;
}

/**
 * The output keys an `Fn::ImportValue` may bind to. The one predicate every
 * reader of exports uses: with `exportNames` recorded (v9+) only those keys;
 * without it (pre-v9 record) every key, the legacy rule.
 */
export function importableOutputKeys(state: Pick<StackState, 'outputs' | 'exportNames'>): string[] {
  const keys = Object.keys(state.outputs ?? {});
  if (state.exportNames === undefined) return keys;
  const exported = new Set(state.exportNames);
  return keys.filter((k) => exported.has(k));
}
