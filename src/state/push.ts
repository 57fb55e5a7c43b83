/**
 * `cdkd state push`: writes a state record from a local file back to the state
 * bucket — the file a command writes when the final save of state.json failed
 * (`cdkd-errored-state.<stack>.<region>.json`). Like Terraform's `state push`
 * it refuses, unless forced, a file of another lineage or one older than the
 * record in the bucket, so it cannot overwrite newer work. Under the stack lock;
 * the write-ahead log segments the file already holds are deleted.
 */
import * as fs from 'node:fs';
import { CdkdError, LockError } from '../util/errors';
import { parseStackState } from './schema';
import type { StateStore } from './state-store';

export interface PushResult {
  stackName: string;
  region: string;
  key: string;
  /** The serial written. */
  serial: number;
  /** A record was replaced (false: the stack had none). */
  replaced: boolean;
}

export async function pushState(
  store: StateStore,
  file: string,
  options: { force?: boolean } = {},
): Promise<PushResult> {
  let body: string;
  try {
    body = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CdkdError(`Cannot read ${file}: ${(err as Error).message}`, {
      code: 'FILE_NOT_READABLE',
      remedy: 'Pass the path of the state file cdkd wrote (cdkd-errored-state.<stack>.<region>.json).',
    });
  }
  const { state } = parseStackState(body, { bucket: 'local file', key: file });
  const { stackName } = state;
  const region = state.region;
  if (!region) {
    throw new CdkdError(`${file} records no region, so cdkd cannot tell which record it is.`, {
      code: 'STATE_CORRUPT',
      remedy: 'Add the stack\'s region ("region": "us-east-1") to the file, then push it again.',
    });
  }
  const lock = await store.locks
    .acquire(stackName, region, { operation: 'state-push', retries: 0 })
    .catch((err) => {
      if (CdkdError.isCdkdError(err) && err.code === 'LOCK_HELD')
        throw new LockError(`Refusing to push the state of ${stackName} (${region}): ${err.message}`, {
          remedy: err.remedy,
          cause: err,
        });
      throw err;
    });
  try {
    const current = await store.backend.getState(stackName, region);
    const where = store.bucket.uri(store.bucket.keys.stateKey(stackName, region));
    if (current && !options.force) {
      const stored = current.state;
      if (stored.lineage && state.lineage && stored.lineage !== state.lineage) {
        throw new CdkdError(
          `Refusing to push ${file}: it is a record of another lineage (${state.lineage}) than ${where} (${stored.lineage}), i.e. of another life of the stack.`,
          {
            code: 'STATE_LINEAGE_MISMATCH',
            remedy: 'Check which record is right; pass --force to overwrite anyway.',
          },
        );
      }
      if ((stored.serial ?? 0) > (state.serial ?? 0)) {
        throw new CdkdError(
          `Refusing to push ${file}: ${where} is newer (serial ${stored.serial}) than the file (serial ${state.serial ?? 0}); a later run already saved the stack.`,
          { code: 'STATE_NEWER', remedy: 'Check which record is right; pass --force to overwrite anyway.' },
        );
      }
    }
    const serial = Math.max(current?.state.serial ?? 0, state.serial ?? 0) + 1;
    const out = await store.backend.saveState(
      stackName,
      region,
      { ...state, serial, lastModified: Date.now() },
      current?.etag,
    );
    const folded = (await store.wal.list(stackName, region)).filter((r) => r.seq <= (state.walSeq ?? 0));
    await store.wal.remove(folded);
    return { stackName, region, key: out.key, serial, replaced: current !== undefined };
  } finally {
    await lock.release();
  }
}
