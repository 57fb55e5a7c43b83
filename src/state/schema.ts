/**
 * Reading and writing the `state.json` format. Every schema version 1..9 is
 * read and upgraded in memory; writers always emit the current version. A file
 * from a newer cdkd is refused (its unknown fields would be silently dropped on
 * the next write), and a file that is not a state record is refused with its
 * key and how to restore an earlier version: cdkd never overwrites it.
 *
 * The upgrade is additive by design: every field a version added is optional,
 * and an absent field keeps its pre-version meaning (no `provisionedBy` = not
 * pinned, no `exportNames` = every output importable). So upgrading never
 * invents a value; it validates the shape and stamps the current version.
 */
import { StateCorruptError, UnsupportedStateVersionError } from '../util/errors';
import { redactStackState } from './redact-state';
import { STATE_SCHEMA_VERSION } from './types';
import type { ResourceState, StackState } from './types';
import { isRecord as isObject } from '../util/objects';

/** The oldest schema version cdkd reads. */
export const OLDEST_STATE_SCHEMA_VERSION = 1;

/** A state file as read: the record upgraded to the current version, and the version it was stored as. */
export interface ParsedState {
  state: StackState;
  /** The `version` the file carried. */
  sourceVersion: number;
}

/** Where a state file lives, for messages. */
export interface StateLocation {
  bucket: string;
  key: string;
}

/** The remedy for a corrupt state file: how to restore a previous version of it. */
export function restoreHint({ bucket, key }: StateLocation): string {
  return (
    `cdkd will not overwrite it. The state bucket is versioned: list the earlier versions with ` +
    `\`aws s3api list-object-versions --bucket ${bucket} --prefix ${key}\`, download a good one with ` +
    `\`aws s3api get-object --bucket ${bucket} --key ${key} --version-id <VersionId> state-backup.json\`, ` +
    `check it, and put it back with \`aws s3 cp state-backup.json s3://${bucket}/${key}\`.`
  );
}

/**
 * Parses a state file body. Throws {@link UnsupportedStateVersionError} for a newer
 * schema and {@link StateCorruptError} for anything that is not a state record.
 */
export function parseStackState(body: string, location: StateLocation): ParsedState {
  const where = `s3://${location.bucket}/${location.key}`;
  const corrupt = (reason: string): StateCorruptError =>
    new StateCorruptError(`State file ${where} is corrupt: ${reason}.`, { remedy: restoreHint(location) });

  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    throw corrupt(`it is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(raw)) throw corrupt('it is not a JSON object');

  const version = raw.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < OLDEST_STATE_SCHEMA_VERSION) {
    throw corrupt(
      `'version' must be an integer from ${OLDEST_STATE_SCHEMA_VERSION}, got ${JSON.stringify(version)}`,
    );
  }
  if (version > STATE_SCHEMA_VERSION) {
    throw new UnsupportedStateVersionError(
      `Unsupported state schema version ${version} in ${where}: this cdkd reads versions ` +
        `${OLDEST_STATE_SCHEMA_VERSION} to ${STATE_SCHEMA_VERSION}. Upgrade cdkd.`,
      {
        remedy:
          'The file was written by a newer cdkd. Install that version (or newer) to read and update this stack.',
      },
    );
  }
  if (typeof raw.stackName !== 'string' || raw.stackName === '') throw corrupt("'stackName' is missing");
  if (raw.region !== undefined && typeof raw.region !== 'string') throw corrupt("'region' is not a string");
  if (version >= 2 && !raw.region)
    throw corrupt(`'region' is required from schema version 2 (file has version ${version})`);
  if (!isObject(raw.resources)) throw corrupt("'resources' is not an object");
  if (raw.outputs !== undefined && !isObject(raw.outputs)) throw corrupt("'outputs' is not an object");
  if (raw.lastModified !== undefined && typeof raw.lastModified !== 'number')
    throw corrupt("'lastModified' is not a number");
  for (const field of ['imports', 'outputReads', 'exportNames'] as const) {
    if (raw[field] !== undefined && !Array.isArray(raw[field])) throw corrupt(`'${field}' is not an array`);
  }
  if (Array.isArray(raw.exportNames) && raw.exportNames.some((n) => typeof n !== 'string')) {
    throw corrupt("'exportNames' holds a value that is not a string");
  }

  checkCdkdFields(raw, corrupt);

  const resources: Record<string, ResourceState> = {};
  for (const [logicalId, value] of Object.entries(raw.resources)) {
    if (!isObject(value)) throw corrupt(`resource '${logicalId}' is not an object`);
    if (typeof value.physicalId !== 'string')
      throw corrupt(`resource '${logicalId}' has no 'physicalId' string`);
    if (typeof value.resourceType !== 'string')
      throw corrupt(`resource '${logicalId}' has no 'resourceType' string`);
    if (value.properties !== undefined && !isObject(value.properties)) {
      throw corrupt(`resource '${logicalId}' has 'properties' that is not an object`);
    }
    resources[logicalId] = {
      ...value,
      properties: (value.properties as Record<string, unknown>) ?? {},
    } as ResourceState;
  }

  const state = {
    ...raw,
    version: STATE_SCHEMA_VERSION,
    stackName: raw.stackName,
    resources,
    outputs: (raw.outputs as Record<string, unknown> | undefined) ?? {},
    lastModified: (raw.lastModified as number | undefined) ?? 0,
  } as StackState;
  return { state, sourceVersion: version };
}

/**
 * The bytes cdkd writes for a state record, secrets masked: the current schema version, `version`
 * first, pretty-printed. `exportNames` is written exactly as given (`[]` included,
 * absent stays absent); an empty `outputReads` is omitted, as the format specifies.
 */
export function serializeStackState(state: StackState): string {
  // Secrets never reach the bytes: every value a registered secret appears in is masked.
  const { version: _ignored, ...rest } = redactStackState(state);
  const out: Record<string, unknown> = { version: STATE_SCHEMA_VERSION, ...rest };
  if (Array.isArray(out.outputReads) && out.outputReads.length === 0) delete out.outputReads;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return JSON.stringify(out, null, 2);
}

/**
 * The optional fields cdkd adds to the format (lineage, serial, the write-ahead
 * log watermark, pending intents, deposed records): absent in files of the
 * reference tool, validated when present.
 */
function checkCdkdFields(raw: Record<string, unknown>, corrupt: (reason: string) => Error): void {
  if (raw.lineage !== undefined && (typeof raw.lineage !== 'string' || raw.lineage === ''))
    throw corrupt("'lineage' is not a non-empty string");
  for (const field of ['serial', 'walSeq'] as const) {
    const v = raw[field];
    if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= 0))
      throw corrupt(`'${field}' is not a whole number`);
  }
  const strings = (entry: unknown, fields: string[], what: string): void => {
    if (!isObject(entry)) throw corrupt(`${what} is not an object`);
    for (const f of fields) {
      if (typeof entry[f] !== 'string' || entry[f] === '') throw corrupt(`${what} has no '${f}' string`);
    }
  };
  if (raw.pendingIntents !== undefined) {
    if (!Array.isArray(raw.pendingIntents)) throw corrupt("'pendingIntents' is not an array");
    raw.pendingIntents.forEach((i, n) =>
      strings(i, ['id', 'operation', 'logicalId', 'resourceType', 'token'], `pending intent ${n}`),
    );
  }
  if (raw.deposed !== undefined) {
    if (!Array.isArray(raw.deposed)) throw corrupt("'deposed' is not an array");
    raw.deposed.forEach((d, n) =>
      strings(d, ['logicalId', 'key', 'physicalId', 'resourceType'], `deposed ${n}`),
    );
  }
}
