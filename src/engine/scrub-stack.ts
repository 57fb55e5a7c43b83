/**
 * `cdkd scrub` for one stack and the nested-stack children below it: rewrites
 * what an earlier binary stored in clear — each record's state.json, its
 * noncurrent versions, the stack's entries in the exports index and its
 * rollback journal — with the secrets the templates reveal
 * (src/state/scrub-source.ts) redacted, as a deploy of today would have stored
 * them.
 *
 * Under the top-level stack's lock, which is every child's (a dry run takes
 * none: it only reads). Two phases: every record of the tree is read and its
 * secrets learned first; then each is rewritten with the secrets of the whole
 * tree, as a deploy of today masks a secret of any level in every level (the
 * registry is the run's). A record is written through the normal state writer,
 * conditional on the ETag read, so a concurrent writer is never overwritten;
 * nothing is written until every level has been read. The noncurrent versions
 * of each key that held a secret are purged after its rewrite (failing soft,
 * with the two grants named). Keys are never rewritten: an output key holding
 * plaintext is reported separately, and stays until the template changes it.
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
import { SECRET_MASK, registerSecret } from '../template/redaction';
import type { CfnTemplate } from '../template/types';
import type { StackLock } from '../state/lock-manager';
import type { ExportsIndex } from '../state/exports-index';
import type { RollbackJournal } from '../state/rollback-journal';
import { lockingStackName, nestedStackName } from '../state/keys';
import { NESTED_STACK_TYPE } from './provisionable';
import { formatError } from '../util/errors';

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
  /** Attribute names a resource type always holds a secret in (plugin API `secretAttributes`). */
  secretAttributes?: (resourceType: string) => readonly string[];
  /**
   * The template of a nested stack's child, read from the `TemplateURL` its parent's record
   * holds (the template the child was deployed from). Absent, or failing: the child's record
   * is scrubbed by value match only, with a warning.
   */
  nestedTemplate?: (templateUrl: unknown, childName: string) => Promise<CfnTemplate>;
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

/**
 * Scrubs a stack and every nested-stack child below it (the deepest included):
 * one report per record, the stack's first, then its children depth first.
 */
export async function scrubStackTree(
  input: ScrubStackInput,
  options: ScrubStackOptions,
): Promise<StackScrubReport[]> {
  const { stackName, region } = input;
  let lock: StackLock | undefined;
  if (!options.dryRun) lock = await options.store.locks.acquire(stackName, region, { operation: 'scrub' });
  try {
    const levels = await readTree(input, options, new Map());
    // A secret of any level is one in every level: a deploy of today masks it wherever it lands.
    const secrets: ScrubSecrets = new Map();
    for (const level of levels) {
      for (const [value, secret] of level.secrets) {
        if (secrets.has(value)) continue;
        secrets.set(value, secret);
        registerSecret(value);
      }
    }
    const reports: StackScrubReport[] = [];
    for (const level of levels) reports.push(await level.apply(secrets, lock));
    return reports;
  } finally {
    await lock?.release();
  }
}

/** Reads a record and, through the nested stacks it records, its children's; learns every level's secrets. */
async function readTree(
  input: ScrubStackInput,
  options: ScrubStackOptions,
  seed: ScrubSecrets,
): Promise<StackScrub[]> {
  const level = new StackScrub(input, options);
  await level.read(seed);
  const levels = [level];
  const record = level.record;
  if (!record) return levels;
  // The record, not the template: a nested stack the template dropped may still have its child's record.
  for (const [logicalId, resource] of Object.entries(record.resources)) {
    if (resource.resourceType !== NESTED_STACK_TYPE) continue;
    const childName = nestedStackName(input.stackName, logicalId);
    const template = await level.childTemplate(resource.properties.TemplateURL, childName);
    levels.push(
      ...(await readTree(
        { stackName: childName, region: input.region, template },
        options,
        passedSecrets(template, resource.properties.Parameters),
      )),
    );
  }
  return levels;
}

/** The values a parent's record passed to its child's NoEcho parameters: secrets of the child (and the parent). */
function passedSecrets(child: CfnTemplate, parameters: unknown): ScrubSecrets {
  const secrets: ScrubSecrets = new Map();
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) return secrets;
  const { noEcho } = templateSecrets(child);
  for (const [name, value] of Object.entries(parameters as Record<string, unknown>)) {
    if (!noEcho.has(name) || typeof value !== 'string' || value === '' || value === SECRET_MASK) continue;
    secrets.set(value, { replacement: SECRET_MASK, origin: 'noecho' });
  }
  return secrets;
}

/** An empty template: a child whose own cannot be read is matched by value only. */
const NO_TEMPLATE: CfnTemplate = { Parameters: {}, Mappings: {}, Conditions: {}, Resources: {}, Outputs: {} };

class StackScrub {
  private readonly report: StackScrubReport;
  /** The secrets this level revealed (its template's positions, its versions, its references). */
  readonly secrets: ScrubSecrets = new Map();
  /** The settled record read, with its ETag; undefined when the stack has none. */
  private stored?: { state: StackState; etag: string };
  private stateKey = '';
  private earlier: string[] = [];

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

  get record(): StackState | undefined {
    return this.stored?.state;
  }

  private warn(message: string): void {
    this.report.warnings.push(message);
    this.options.logger.warn(`${this.input.stackName}: ${message}`);
  }

  /** Phase one: reads the record and its earlier versions and learns their secrets; writes nothing. */
  async read(seed: ScrubSecrets): Promise<void> {
    const { stackName, region, template } = this.input;
    const { store } = this.options;
    for (const [value, secret] of seed) this.secrets.set(value, secret);
    this.stateKey = store.bucket.keys.stateKey(stackName, region);
    const view = await readStackStateView(store.backend, store.wal, stackName, region);
    const record = view.record;
    if (!record) {
      this.warn(`no state record in ${store.bucket.uri(this.stateKey)}; nothing to scrub.`);
      return;
    }
    this.report.found = true;
    if (hasUnsettledWork(view)) {
      throw new CdkdError(
        `${stackName} (${region}): an earlier run left work unsettled (write-ahead log segments, pending intents or resources to delete); scrub rewrites only a settled record.`,
        {
          code: 'SCRUB_UNSETTLED',
          remedy: `Run cdkd deploy ${lockingStackName(stackName)} (it settles the work and stores secrets masked), or cdkd rollback ${lockingStackName(stackName)}, then scrub again.`,
        },
      );
    }
    this.stored = { state: record.state, etag: record.etag };
    await this.readReferences();
    // Earlier versions are learned from first: a value the current record lost may still be in them.
    this.earlier = await this.earlierBodies(this.stateKey);
    for (const body of this.earlier) {
      try {
        const old = parseStackState(body, { bucket: store.bucket.name, key: this.stateKey }).state;
        learnSecrets(template, old, region, this.secrets, this.options.secretAttributes);
      } catch {
        // An unreadable old version is still text: the value match below covers it.
      }
    }
    const { warnings } = learnSecrets(
      template,
      record.state,
      region,
      this.secrets,
      this.options.secretAttributes,
    );
    for (const w of warnings) this.warn(w);
  }

  /** The template of the child of nested stack `childName`; an empty one (value match only) when it cannot be read. */
  async childTemplate(templateUrl: unknown, childName: string): Promise<CfnTemplate> {
    const read = this.options.nestedTemplate;
    if (!read) return NO_TEMPLATE;
    try {
      return await read(templateUrl, childName);
    } catch (err) {
      this.warn(
        `could not read the template of nested stack ${childName} (${formatError(err)}); its record is scrubbed by value match only.`,
      );
      return NO_TEMPLATE;
    }
  }

  /** Phase two: rewrites every site holding one of `secrets` (the whole tree's) and purges what held them. */
  async apply(secrets: ScrubSecrets, lock: StackLock | undefined): Promise<StackScrubReport> {
    const { stackName, region, template } = this.input;
    const { store } = this.options;
    const record = this.stored;
    if (!record) return this.report;
    const stateKey = this.stateKey;
    const earlier = this.earlier;
    const client = await store.bucket.client();
    const result = scrubStackState({
      template,
      state: record.state,
      region,
      known: secrets,
      writeOnly: this.options.writeOnly,
      secretAttributes: this.options.secretAttributes,
    });
    const matcher = new SecretMatcher(secrets);
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
                  'Nothing was changed in this record. Re-run cdkd scrub once the record is not being written by another command.',
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
