/**
 * `cdkd scrub` for one stack: rewrites what an earlier binary stored in clear —
 * state.json, its noncurrent versions, the stack's entries in the exports index
 * and its rollback journal — with the secrets the template reveals
 * (src/state/scrub-source.ts) redacted, as a deploy of today would have stored
 * them.
 *
 * Under the stack's lock (a dry run takes none: it only reads). The record is
 * written through the normal state writer, conditional on the ETag read, so a
 * concurrent writer is never overwritten; nothing is written until every site
 * has been read and rewritten in memory. The noncurrent versions of each key
 * that held a secret are purged after the rewrite (failing soft, with the two
 * grants named). Keys are never rewritten: an output key holding plaintext is
 * reported separately, and stays until the template changes it.
 */
import { CdkdError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { listNoncurrentVersions, purgeAndReport } from '../state/purge';
import type { PurgeObjectKind } from '../state/purge';
import { parseStackState } from '../state/schema';
import { getObjectText } from '../state/state-backend';
import type { StateStore } from '../state/state-store';
import {
  SecretMatcher,
  learnSecrets,
  maskKey,
  rewriteValue,
  scrubStackState,
  templateSecrets,
} from '../state/scrub-source';
import type { ScrubSecrets } from '../state/scrub-source';
import type { StackState } from '../state/types';
import { hasUnsettledWork, readStackStateView } from '../state/wal-replay';
import { registerSecret } from '../template/redaction';
import type { CfnTemplate } from '../template/types';
import type { StackLock } from '../state/lock-manager';
import type { ExportsIndex } from '../state/exports-index';
import type { RollbackJournal } from '../state/rollback-journal';

export interface ScrubStackInput {
  stackName: string;
  region: string;
  template: CfnTemplate;
}

export interface ScrubStackOptions {
  store: StateStore;
  /** Report only: nothing is locked, written or purged. */
  dryRun: boolean;
  /** Reads a secret reference's current value (`{{resolve:...}}` as written); failures are warnings. */
  readReference?: (reference: string) => Promise<string>;
  /** Top-level write-only property names of a resource type. */
  writeOnly?: (resourceType: string) => readonly string[];
  logger: Logger;
}

/** Where a value to scrub is. */
export interface ScrubSite {
  object: 'state.json' | 'exports index' | 'rollback journal';
  /** The value's path in the object (never its value). */
  path: string;
}

export interface StackScrubReport {
  stackName: string;
  region: string;
  /** The stack has a state record. */
  found: boolean;
  /** Current values that held a secret (rewritten unless a dry run). */
  sites: ScrubSite[];
  /** Earlier versions holding a secret in clear, per key (purged unless a dry run). */
  noncurrentVersions: Array<{ key: string; versions: number }>;
  /** Output keys / export names holding a secret: never rewritten, reported apart. Masked. */
  plaintextKeys: ScrubSite[];
  /** Something was rewritten or purged (false on a dry run). */
  scrubbed: boolean;
  /** Keys whose earlier versions could not be purged. */
  purgeFailures: string[];
  warnings: string[];
}

/** True when a report lists anything scrub would rewrite or purge. */
export function needsScrub(report: StackScrubReport): boolean {
  return report.sites.length > 0 || report.noncurrentVersions.length > 0;
}

export async function scrubStack(
  input: ScrubStackInput,
  options: ScrubStackOptions,
): Promise<StackScrubReport> {
  const { stackName, region } = input;
  const { store } = options;
  let lock: StackLock | undefined;
  if (!options.dryRun) lock = await store.locks.acquire(stackName, region, { operation: 'scrub' });
  try {
    return await new StackScrub(input, options).run(lock);
  } finally {
    await lock?.release();
  }
}

class StackScrub {
  private readonly report: StackScrubReport;
  private readonly secrets: ScrubSecrets = new Map();

  constructor(
    private readonly input: ScrubStackInput,
    private readonly options: ScrubStackOptions,
  ) {
    this.report = {
      stackName: input.stackName,
      region: input.region,
      found: false,
      sites: [],
      noncurrentVersions: [],
      plaintextKeys: [],
      scrubbed: false,
      purgeFailures: [],
      warnings: [],
    };
  }

  private warn(message: string): void {
    this.report.warnings.push(message);
    this.options.logger.warn(`${this.input.stackName}: ${message}`);
  }

  async run(lock: StackLock | undefined): Promise<StackScrubReport> {
    const { stackName, region, template } = this.input;
    const { store } = this.options;
    const view = await readStackStateView(store.backend, store.wal, stackName, region);
    const record = view.record;
    if (!record) {
      this.warn(
        `no state record in ${store.bucket.uri(store.bucket.keys.stateKey(stackName, region))}; nothing to scrub.`,
      );
      return this.report;
    }
    this.report.found = true;
    if (hasUnsettledWork(view)) {
      throw new CdkdError(
        `${stackName} (${region}): an earlier run left work unsettled (write-ahead log segments, pending intents or resources to delete); scrub rewrites only a settled record.`,
        {
          code: 'SCRUB_UNSETTLED',
          remedy: `Run cdkd deploy ${stackName} (it settles the work and stores secrets masked), or cdkd rollback ${stackName}, then scrub again.`,
        },
      );
    }
    await this.readReferences();
    const stateKey = store.bucket.keys.stateKey(stackName, region);
    const client = await store.bucket.client();
    // Earlier versions are learned from first: a value the current record lost may still be in them.
    const earlier = await this.earlierBodies(stateKey);
    for (const body of earlier) {
      try {
        const old = parseStackState(body, { bucket: store.bucket.name, key: stateKey }).state;
        learnSecrets(template, old, region, this.secrets);
      } catch {
        // An unreadable old version is still text: the value match below covers it.
      }
    }
    const result = scrubStackState({
      template,
      state: record.state,
      region,
      known: this.secrets,
      writeOnly: this.options.writeOnly,
    });
    for (const [value, secret] of result.secrets) {
      this.secrets.set(value, secret);
      registerSecret(value);
    }
    for (const w of result.warnings) this.warn(w);
    const matcher = new SecretMatcher(this.secrets);
    this.report.sites.push(...result.sites.map((path) => ({ object: 'state.json' as const, path })));
    this.report.plaintextKeys.push(
      ...result.plaintextKeys.map((path) => ({ object: 'state.json' as const, path })),
    );
    this.countEarlier(stateKey, earlier, matcher);

    const journal = await this.scrubJournal(matcher);
    const index = await this.scrubIndex(matcher, result.state);

    if (this.options.dryRun || !needsScrub(this.report)) return this.report;
    if (lock?.lost) throw lockLost(stackName, region);
    const touched: Array<{ key: string; kind: PurgeObjectKind }> = [];
    if (result.state !== record.state || earlier.some((b) => matcher.rewrite(b, false) !== undefined)) {
      if (result.state !== record.state) {
        await store.backend
          .saveState(stackName, region, this.nextRecord(result.state), record.etag)
          .catch((err) => {
            throw new CdkdError(
              `${stackName} (${region}): could not save the scrubbed state record ${store.bucket.uri(stateKey)}: ${(err as Error).message}`,
              {
                code: 'SCRUB_NOT_SAVED',
                cause: err,
                remedy:
                  'Nothing was changed. Re-run cdkd scrub once the record is not being written by another command.',
              },
            );
          });
      }
      touched.push({ key: stateKey, kind: 'state-with-secrets' });
    }
    if (index) {
      // The normal index writer: this stack's entries replaced by what its (scrubbed) record publishes.
      await store.exportsIndex.updateStack(region, { ...result.state, region });
      touched.push({ key: store.exportsIndex.key(region), kind: 'exports-index-with-secrets' });
    }
    if (journal) {
      if (journal.rewritten) await store.journals.write(journal.rewritten);
      touched.push({ key: store.journals.key(stackName, region), kind: 'rollback-journal' });
    }
    for (const { key, kind } of touched) {
      const purge = await purgeAndReport({
        client,
        bucket: store.bucket.name,
        keys: [key],
        kind,
        logger: this.options.logger,
      });
      this.report.purgeFailures.push(...purge.failures.map((f) => f.key));
    }
    this.report.scrubbed = true;
    return this.report;
  }

  private nextRecord(state: StackState): StackState {
    return { ...state, serial: (state.serial ?? 0) + 1, lastModified: Date.now() };
  }

  /** The current values of the template's secret references, as secrets positioned by their reference. */
  private async readReferences(): Promise<void> {
    const read = this.options.readReference;
    if (!read) return;
    for (const reference of templateSecrets(this.input.template).references) {
      try {
        const value = await read(reference);
        registerSecret(value);
        if (value !== '' && !this.secrets.has(value))
          this.secrets.set(value, { replacement: reference, origin: 'reference' });
      } catch (err) {
        this.warn(
          `could not read ${reference} (${(err as Error).message}); values it once resolved to are found only where the template places them.`,
        );
      }
    }
  }

  /** The bodies of a key's noncurrent versions (none, with a warning, when they cannot be listed or read). */
  private async earlierBodies(key: string): Promise<string[]> {
    const { store } = this.options;
    const client = await store.bucket.client();
    try {
      const versions = await listNoncurrentVersions(client, store.bucket.name, key, false);
      const bodies: string[] = [];
      for (const v of versions) {
        const obj = await getObjectText(client, store.bucket.name, key, { versionId: v.VersionId });
        if (obj) bodies.push(obj.body);
      }
      return bodies;
    } catch (err) {
      this.warn(
        `could not read the earlier versions of ${store.bucket.uri(key)} (${(err as Error).message}); they are not checked. Grant s3:ListBucketVersions and s3:GetObjectVersion on the state bucket.`,
      );
      return [];
    }
  }

  private countEarlier(key: string, bodies: string[], matcher: SecretMatcher): void {
    const holding = bodies.filter((b) => matcher.rewrite(b, false) !== undefined).length;
    if (holding > 0)
      this.report.noncurrentVersions.push({ key: this.options.store.bucket.uri(key), versions: holding });
  }

  private async scrubJournal(matcher: SecretMatcher): Promise<{ rewritten?: RollbackJournal } | undefined> {
    const { store } = this.options;
    const { stackName, region } = this.input;
    const key = store.journals.key(stackName, region);
    const journal = await store.journals.read(stackName, region);
    const earlier = await this.earlierBodies(key);
    this.countEarlier(key, earlier, matcher);
    const stale = earlier.some((b) => matcher.rewrite(b, false) !== undefined);
    if (!journal) return stale ? {} : undefined;
    const sites: string[] = [];
    // Journal records hold properties: a reference's value goes back to the reference, as in state.
    const segments = rewriteValue(
      journal.segments,
      matcher,
      true,
      'segments',
      sites,
    ) as typeof journal.segments;
    this.report.sites.push(...sites.map((path) => ({ object: 'rollback journal' as const, path })));
    if (sites.length === 0) return stale ? {} : undefined;
    return { rewritten: { ...journal, segments } };
  }

  /** True when the region's exports index (or an earlier version of it) holds one of this stack's secrets. */
  private async scrubIndex(matcher: SecretMatcher, scrubbed: StackState): Promise<boolean> {
    const { store } = this.options;
    const { stackName, region } = this.input;
    const key = store.exportsIndex.key(region);
    const client = await store.bucket.client();
    const stored = await getObjectText(client, store.bucket.name, key);
    let dirty = false;
    if (stored) {
      let index: ExportsIndex | undefined;
      try {
        index = JSON.parse(stored.body) as ExportsIndex;
      } catch {
        index = undefined;
      }
      for (const [name, entry] of Object.entries(index?.exports ?? {})) {
        if (entry.producerStack !== stackName || entry.producerRegion !== region) continue;
        const sites: string[] = [];
        rewriteValue(entry.value, matcher, true, JSON.stringify(maskKey(name, matcher)), sites);
        if (sites.length > 0) {
          dirty = true;
          this.report.sites.push({
            object: 'exports index',
            path: `exports[${JSON.stringify(maskKey(name, matcher))}]`,
          });
        }
        if (matcher.keyHoldsSecret(name) && !(name in scrubbed.outputs))
          this.report.plaintextKeys.push({
            object: 'exports index',
            path: `exports[${JSON.stringify(maskKey(name, matcher))}]`,
          });
      }
    }
    const earlier = await this.earlierBodies(key);
    // The index is shared by the region's stacks: an earlier version counts only if it holds one of ours.
    this.countEarlier(key, earlier, matcher);
    return dirty || earlier.some((b) => matcher.rewrite(b, false) !== undefined);
  }
}

function lockLost(stackName: string, region: string): CdkdError {
  return new CdkdError(`${stackName} (${region}): the stack lock was lost before scrub wrote anything.`, {
    code: 'LOCK_LOST',
    remedy: 'Nothing was changed. Re-run cdkd scrub.',
  });
}
