/**
 * The object key layout of the state bucket, in one place:
 *
 * ```
 * {prefix}/{stack}/{region}/state.json             region-scoped state (schema v2+)
 * {prefix}/{stack}/{region}/lock.json              the stack lock
 * {prefix}/{stack}/{region}/rollback-journal.json  transient rollback journal
 * {prefix}/{stack}/{region}/wal/{seq}.json         write-ahead log segments (transient)
 * {prefix}/{stack}/state.json                      legacy v1 state (read path only)
 * {prefix}/{stack}/lock.json                       legacy v1 lock
 * {prefix}/_index/{region}/exports.json            exports index (derived view)
 * cdkd-bootstrap/{region}.json                     bootstrap marker (outside the prefix)
 * custom-resource-responses/{requestId}.json       custom-resource response placeholders
 * ```
 *
 * Nested-stack children are ordinary stacks named `{parent}~{childLogicalId}`.
 */
import { ValidationError } from '../util/errors';

export const STATE_FILE = 'state.json';
export const LOCK_FILE = 'lock.json';
export const JOURNAL_FILE = 'rollback-journal.json';
/** The folder of a stack's write-ahead log segments. */
export const WAL_DIR = 'wal';
/** Digits of a segment number in its key, so keys sort in segment order. */
const WAL_SEQ_DIGITS = 10;
export const INDEX_DIR = '_index';
export const BOOTSTRAP_MARKER_PREFIX = 'cdkd-bootstrap/';
export const CUSTOM_RESOURCE_RESPONSE_PREFIX = 'custom-resource-responses/';
/** Separates a nested-stack child's logical id from its parent's name. */
export const NESTED_STACK_SEPARATOR = '~';

/** What a key under the state prefix refers to. */
export type ParsedStateKey =
  | { kind: 'state' | 'lock' | 'journal'; stackName: string; region: string }
  | { kind: 'legacy-state' | 'legacy-lock'; stackName: string };

export class StateKeys {
  /** The prefix without leading or trailing slashes (may be empty). */
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix.replace(/^\/+|\/+$/g, '');
  }

  private join(...parts: string[]): string {
    return (this.prefix ? [this.prefix, ...parts] : parts).join('/');
  }

  /** Everything under the state prefix, with a trailing slash (empty when there is no prefix). */
  root(): string {
    return this.prefix ? `${this.prefix}/` : '';
  }

  stackPrefix(stackName: string): string {
    return this.join(checkStackName(stackName)) + '/';
  }

  stateKey(stackName: string, region: string): string {
    return this.join(checkStackName(stackName), checkRegion(region), STATE_FILE);
  }

  /** A nested-stack child has no lock of its own: this is its top-level stack's ({@link lockingStackName}). */
  lockKey(stackName: string, region: string): string {
    return this.join(checkStackName(lockingStackName(stackName)), checkRegion(region), LOCK_FILE);
  }

  journalKey(stackName: string, region: string): string {
    return this.join(checkStackName(stackName), checkRegion(region), JOURNAL_FILE);
  }

  /** The folder of a stack's write-ahead log, with a trailing slash. */
  walPrefix(stackName: string, region: string): string {
    return this.join(checkStackName(stackName), checkRegion(region), WAL_DIR) + '/';
  }

  /** The key of write-ahead log segment `seq`. */
  walSegmentKey(stackName: string, region: string, seq: number): string {
    return `${this.walPrefix(stackName, region)}${String(seq).padStart(WAL_SEQ_DIGITS, '0')}.json`;
  }

  /** The segment number of a key under {@link walPrefix}, or undefined for any other key. */
  walSegmentSeq(key: string): number | undefined {
    const m = /\/wal\/(\d+)\.json$/.exec(key);
    return m ? Number(m[1]) : undefined;
  }

  legacyStateKey(stackName: string): string {
    return this.join(checkStackName(stackName), STATE_FILE);
  }

  legacyLockKey(stackName: string): string {
    return this.join(checkStackName(stackName), LOCK_FILE);
  }

  exportsIndexKey(region: string): string {
    return this.join(INDEX_DIR, checkRegion(region), 'exports.json');
  }

  /** Interprets a key found under {@link root}; undefined for anything that is not a stack's state, lock or journal. */
  parse(key: string): ParsedStateKey | undefined {
    const root = this.root();
    if (!key.startsWith(root)) return undefined;
    const parts = key.slice(root.length).split('/');
    const [stackName] = parts;
    if (!stackName || stackName === INDEX_DIR) return undefined;
    if (parts.length === 2) {
      if (parts[1] === STATE_FILE) return { kind: 'legacy-state', stackName };
      if (parts[1] === LOCK_FILE) return { kind: 'legacy-lock', stackName };
      return undefined;
    }
    if (parts.length === 3 && parts[1]) {
      const region = parts[1];
      if (parts[2] === STATE_FILE) return { kind: 'state', stackName, region };
      if (parts[2] === LOCK_FILE) return { kind: 'lock', stackName, region };
      if (parts[2] === JOURNAL_FILE) return { kind: 'journal', stackName, region };
    }
    return undefined;
  }
}

/** The key of a region's bootstrap marker in the state bucket. */
export function bootstrapMarkerKey(region: string): string {
  return `${BOOTSTRAP_MARKER_PREFIX}${checkRegion(region)}.json`;
}

/** The key of a custom-resource response placeholder in the state bucket. */
export function customResourceResponseKey(requestId: string): string {
  return `${CUSTOM_RESOURCE_RESPONSE_PREFIX}${requestId}.json`;
}

/** The state record name of a nested-stack child. */
export function nestedStackName(parentStack: string, childLogicalId: string): string {
  return `${parentStack}${NESTED_STACK_SEPARATOR}${childLogicalId}`;
}

/** A stack's name for messages: a nested-stack child `Parent~Child` reads `Parent > Child`. */
export function displayStackName(stackName: string): string {
  return stackName.split(NESTED_STACK_SEPARATOR).join(' > ');
}

/**
 * The stack whose lock covers `stackName`: itself, or for a nested-stack child
 * (`Parent~Child~Grandchild`) its top-level stack, whose deploy or destroy
 * changes the whole tree under that one lock.
 */
export function lockingStackName(stackName: string): string {
  const at = stackName.indexOf(NESTED_STACK_SEPARATOR);
  return at < 0 ? stackName : stackName.slice(0, at);
}

/** `s3://bucket/key`, for messages. */
export function s3Uri(bucket: string, key = ''): string {
  return `s3://${bucket}/${key}`;
}

function checkStackName(stackName: string): string {
  if (!stackName || stackName.includes('/') || stackName === INDEX_DIR) {
    throw new ValidationError(
      `Invalid stack name '${stackName}': a stack name is not empty and contains no '/'.`,
    );
  }
  return stackName;
}

function checkRegion(region: string): string {
  if (!region || region.includes('/')) {
    throw new ValidationError(`Invalid region '${region}': expected a region name such as us-east-1.`);
  }
  return region;
}
