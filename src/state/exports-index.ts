/**
 * The exports index, `{prefix}/_index/{region}/exports.json`: a derived view of
 * every stack's exported outputs in a region, so `Fn::ImportValue` resolves with
 * one GET instead of reading every state file. It is never load-bearing for
 * correctness: the state files are the source of truth, the index is rebuilt
 * from them when it is absent or corrupt, and a failed index write is a warning.
 *
 * Writes are optimistic: `If-Match` the ETag read (`If-None-Match: *` when
 * creating), re-read and re-apply on a conflict, up to 5 retries with backoff.
 */
import type { Logger } from '../util/io-host';
import { redactSecrets } from '../template/redaction';
import { backoffDelay, sleep as defaultSleep } from '../util/retry';
import { describeAwsError, isConditionalConflict, isNoSuchKey, isPreconditionFailed } from './s3-errors';
import { getObjectText, putObjectText } from './state-backend';
import type { S3StateBackend } from './state-backend';
import type { StateBucket } from './state-bucket';
import { importableOutputKeys } from './types';
import type { StackState } from './types';

export const EXPORTS_INDEX_VERSION = 1;

/** One export: its value and the stack that produces it. */
export interface ExportEntry {
  value: unknown;
  producerStack: string;
  producerRegion: string;
}

export interface ExportsIndex {
  indexVersion: number;
  region: string;
  /** Export name -> entry. */
  exports: Record<string, ExportEntry>;
  lastModified: number;
}

export interface ExportsIndexStoreOptions {
  logger: Logger;
  /** Retries after a write conflict. Default 5. */
  maxRetries?: number;
  /** First backoff delay in ms. Default 200. */
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** The index entries a stack's state publishes: its importable outputs (see {@link importableOutputKeys}). */
export function exportsOfState(
  state: Pick<StackState, 'stackName' | 'region' | 'outputs' | 'exportNames'>,
  region: string,
): Record<string, ExportEntry> {
  const out: Record<string, ExportEntry> = {};
  for (const name of importableOutputKeys(state)) {
    out[name] = { value: state.outputs[name], producerStack: state.stackName, producerRegion: region };
  }
  return out;
}

type Mutation = (index: ExportsIndex) => void;

export class ExportsIndexStore {
  private readonly logger: Logger;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  /** The index last read or written per region: one GET per region per invocation for lookups. */
  private readonly cache = new Map<string, ExportsIndex>();

  constructor(
    private readonly bucket: StateBucket,
    private readonly backend: S3StateBackend,
    options: ExportsIndexStoreOptions,
  ) {
    this.logger = options.logger;
    this.maxRetries = options.maxRetries ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.sleep = options.sleep ?? ((ms) => defaultSleep(ms));
    this.now = options.now ?? Date.now;
  }

  key(region: string): string {
    return this.bucket.keys.exportsIndexKey(region);
  }

  /** The region's index, rebuilt from the state files (and written) when absent or corrupt. Always reads S3. */
  async read(region: string): Promise<ExportsIndex> {
    const stored = await this.readStored(region);
    let index = stored.index;
    if (!index) {
      index = await this.buildFromState(region);
      await this.write(region, index, stored.etag).catch((err) => this.warnWriteFailed(region, err));
    }
    this.cache.set(region, index);
    return index;
  }

  /**
   * The entry of one export, if the index has it. Served from the index this
   * store last read or wrote for the region; the first lookup reads it.
   */
  async lookup(region: string, exportName: string): Promise<ExportEntry | undefined> {
    const index = this.cache.get(region) ?? (await this.read(region));
    return index.exports[exportName];
  }

  /** Adds or replaces one export (write-through after a state-file scan found it). Never throws. */
  async patchEntry(region: string, exportName: string, entry: ExportEntry): Promise<void> {
    await this.update(region, (index) => {
      index.exports[exportName] = entry;
    });
  }

  /**
   * Replaces a stack's entries with the exports its state publishes now. Warns
   * when another stack already exports one of the names (the latest writer wins;
   * CloudFormation would refuse the second producer). Never throws.
   */
  async updateStack(
    region: string,
    state: Pick<StackState, 'stackName' | 'region' | 'outputs' | 'exportNames'>,
  ): Promise<void> {
    const entries = exportsOfState(state, region);
    await this.update(region, (index) => {
      removeProducer(index, state.stackName, region);
      for (const [name, entry] of Object.entries(entries)) {
        const other = index.exports[name];
        if (other && (other.producerStack !== state.stackName || other.producerRegion !== region)) {
          this.logger.warn(duplicateExportWarning(name, state.stackName, other.producerStack, region));
        }
        index.exports[name] = entry;
      }
    });
  }

  /** Removes every entry a stack produces (after it is destroyed). Never throws. */
  async removeStack(region: string, stackName: string): Promise<void> {
    await this.update(region, (index) => removeProducer(index, stackName, region));
  }

  /** Rebuilds the region's index from every state file and writes it. Never throws on the write. */
  async rebuild(region: string): Promise<ExportsIndex> {
    const index = await this.buildFromState(region);
    const stored = await this.readStored(region).catch(() => ({ index: undefined, etag: undefined }));
    await this.write(region, index, stored.etag).catch((err) => this.warnWriteFailed(region, err));
    this.cache.set(region, index);
    return index;
  }

  /** Reads, mutates and conditionally writes, re-reading on a conflict. Never throws. */
  private async update(region: string, mutate: Mutation): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = await this.readStored(region);
        const index = stored.index ?? (await this.buildFromState(region));
        mutate(index);
        index.lastModified = this.now();
        await this.write(region, index, stored.etag);
        this.cache.set(region, index);
        return;
      } catch (err) {
        const conflict = isPreconditionFailed(err) || isConditionalConflict(err) || isNoSuchKey(err);
        if (!conflict || attempt >= this.maxRetries) {
          this.warnWriteFailed(region, err, attempt + 1);
          return;
        }
        await this.sleep(backoffDelay(attempt + 1, this.baseDelayMs, 5_000));
      }
    }
  }

  /** The stored index and its ETag; `index` undefined when absent or corrupt (ETag set when corrupt). */
  private async readStored(region: string): Promise<{ index?: ExportsIndex; etag?: string }> {
    const key = this.key(region);
    const obj = await getObjectText(await this.bucket.client(), this.bucket.name, key);
    if (!obj) return {};
    const index = parseIndex(obj.body, region);
    if (!index)
      this.logger.warn(
        `The exports index ${this.bucket.uri(key)} is corrupt; rebuilding it from the state files.`,
      );
    return { index, etag: obj.etag };
  }

  private async write(region: string, index: ExportsIndex, etag: string | undefined): Promise<void> {
    const client = await this.bucket.client();
    // A write whose reply was lost is confirmed by reading it back, not redone.
    await putObjectText(
      client,
      this.bucket.name,
      this.key(region),
      JSON.stringify(redactSecrets(index), null, 2),
      {
        condition: etag ? { IfMatch: etag } : { IfNoneMatch: '*' },
      },
    );
  }

  /** The index as the region's state files describe it; a duplicate export warns and the newest record wins. */
  private async buildFromState(region: string): Promise<ExportsIndex> {
    const index: ExportsIndex = {
      indexVersion: EXPORTS_INDEX_VERSION,
      region,
      exports: {},
      lastModified: this.now(),
    };
    const refs = (await this.backend.listStacks()).filter((r) => r.region === region);
    const states: StackState[] = [];
    for (const ref of refs) {
      try {
        const record = await this.backend.getState(ref.stackName, ref.region);
        if (record) states.push(record.state);
      } catch (err) {
        this.logger.warn(
          `Skipping ${ref.stackName} (${region}) while rebuilding the exports index: ${describeAwsError(err)}`,
        );
      }
    }
    states.sort((a, b) => a.lastModified - b.lastModified);
    for (const state of states) {
      for (const [name, entry] of Object.entries(exportsOfState(state, region))) {
        const other = index.exports[name];
        if (other)
          this.logger.warn(duplicateExportWarning(name, state.stackName, other.producerStack, region));
        index.exports[name] = entry;
      }
    }
    return index;
  }

  private warnWriteFailed(region: string, err: unknown, attempts?: number): void {
    this.logger.warn(
      `Could not update the exports index ${this.bucket.uri(this.key(region))}${attempts ? ` after ${attempts} attempt(s)` : ''} ` +
        `(${describeAwsError(err)}). The state files are unaffected; the index is rebuilt or corrected on a later run.`,
    );
  }
}

function removeProducer(index: ExportsIndex, stackName: string, region: string): void {
  for (const [name, entry] of Object.entries(index.exports)) {
    if (entry.producerStack === stackName && entry.producerRegion === region) delete index.exports[name];
  }
}

function duplicateExportWarning(name: string, stack: string, other: string, region: string): string {
  return (
    `Export '${name}' in ${region} is produced by both ${other} and ${stack}; the index keeps ${stack} (latest writer). ` +
    `CloudFormation refuses a second producer of one export name: rename one of them.`
  );
}

function parseIndex(body: string, region: string): ExportsIndex | undefined {
  try {
    const raw = JSON.parse(body) as Partial<ExportsIndex>;
    if (typeof raw !== 'object' || raw === null || typeof raw.exports !== 'object' || raw.exports === null)
      return undefined;
    if (raw.indexVersion !== EXPORTS_INDEX_VERSION) return undefined;
    for (const entry of Object.values(raw.exports)) {
      if (typeof entry !== 'object' || entry === null || typeof entry.producerStack !== 'string')
        return undefined;
    }
    return {
      indexVersion: EXPORTS_INDEX_VERSION,
      region,
      exports: raw.exports,
      lastModified: raw.lastModified ?? 0,
    };
  } catch {
    return undefined;
  }
}
