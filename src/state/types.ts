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
