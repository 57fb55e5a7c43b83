/**
 * Every AWS operation on a resource goes through here, for deploy, destroy and
 * the settle step alike: announce the intent (durable in the write-ahead log
 * before the call), call the provider with the intent's token (and a durable
 * attempt number per retry), then record the outcome as state mutations:
 *
 * - success: the new record (a replacement deposes the original in the same
 *   outcome), the removed record, or the deposed record gone;
 * - a definitive failure: `failed`, and a resource the create proved it made is
 *   deposed (to be deleted), never left untracked;
 * - an outcome in doubt (aborted, timed out, transport errors): nothing; the
 *   intent stays pending and the next run re-sends it with the same token.
 *
 * It also emits the resource progress events, so each operation reports the
 * same way wherever it runs.
 */
import type { CreateContext, DeleteContext, ResourceCreateResult, UpdateContext } from '../plugin-api';
import { holdsSecret, secretDigestOf } from '../plan/secret-digest';
import { buildCreateContext } from '../provisioning/create-context';
import { CloudControlProvider } from '../provisioning/cloud-control-provider';
import type { RequestTokenSink } from '../provisioning/cloud-control-provider';
import type { DeposedResource, IntentRecord, PolicyAttribute, ResourceState } from '../state/types';
import { restoreMaskedLeaves } from '../state/intent-secrets';
import { maskSecretReferencesIn } from '../template/dynamic-references';
import { SECRET_MASK, maskedPaths, redactSecrets } from '../template/redaction';
import { decideRemoval, deposedRemovalCause, removalSubject } from '../plan/removal-policy';
import type { RemovalCause, RemovalDecision } from '../plan/removal-policy';
import { CdkdError, formatError } from '../util/errors';
import type { IoHost, Logger } from '../util/io-host';
import { emitResourceEvent } from './events';
import type { ResourceAction, ResourceEvent } from './events';
import { judgeLeftover } from './leftover-identity';
import { createdResourceOf, isInDoubt } from './operation-outcome';
import type { ResourceProvisioner, RoutedProvider } from './provisioner';
import type { StackSession } from './stack-session';

/**
 * The "previous" side of an update as providers get it: secrets masked, never
 * resolved. Resolved, a changed secret would read its NEW value on both sides
 * and the provider (or Cloud Control's patch) would see nothing to change.
 */
async function previousAsSent(previous: Record<string, unknown>): Promise<Record<string, unknown>> {
  const masked = await maskSecretReferencesIn(previous, SECRET_MASK);
  return redactSecrets(masked as Record<string, unknown>);
}

/**
 * Refuses to send the mask as a value: it stands for a secret whose clear value
 * this run does not have (an attribute a provider marked noEcho, read back from
 * state while its resource is unchanged). Sending it would store `***` in AWS.
 * Checked before the intent is announced, so nothing is left to settle.
 */
function refuseMaskedValues(
  logicalId: string,
  resourceType: string,
  properties: Record<string, unknown>,
): void {
  const paths = maskedPaths(properties);
  if (paths.length === 0) return;
  throw new CdkdError(
    `${logicalId} (${resourceType}) would be sent the secret mask ${SECRET_MASK} as ${paths.join(', ')}: the secret behind it is stored only masked, and nothing in this deploy produced it again.`,
    {
      code: 'MASKED_SECRET_VALUE',
      remedy:
        'Make the resource that produces the secret run again in the same deploy (change one of its properties), or stop reading a sensitive attribute into this resource.',
    },
  );
}

/**
 * A logged intent with the secret values its log masked filled back in from
 * this run's secrets (src/state/intent-secrets.ts). One this run cannot restore
 * is refused, never re-sent with the mask; it stays pending for a run that can.
 */
function withSecretsRestored(intent: IntentRecord): IntentRecord {
  if (!intent.properties) return intent;
  const restored = restoreMaskedLeaves(intent.properties, intent.maskedDigests);
  if (restored.ok)
    return restored.properties === intent.properties
      ? intent
      : { ...intent, properties: restored.properties };
  throw new CdkdError(
    `${intent.logicalId} (${intent.resourceType}): the ${intent.operation} an interrupted run left in flight sent a secret value (a NoEcho parameter's) at ${restored.unrestored.map((p) => `Properties${p}`).join(', ')}, which the log keeps only masked, and no secret this run holds matches it; it is not re-sent with ${SECRET_MASK} in its place and stays pending.`,
    {
      code: 'SECRET_NOT_RESTORED',
      remedy:
        'Re-run with the NoEcho parameter values the interrupted run was given (--parameters Name=value): cdkd then restores the value, checks it against the digest the log keeps, and settles the operation.',
    },
  );
}

/** The record's secret digest, when what was sent held a secret (see src/plan/secret-digest.ts). */
function secretDigestField(
  properties: Record<string, unknown>,
  sent: Record<string, unknown> | undefined,
): { secretDigest?: string } {
  return sent && holdsSecret(properties, sent) ? { secretDigest: secretDigestOf(sent) } : {};
}

/** Cloud Control keeps a ClientToken for 36 hours; an older intent is resumed from its request token. */
export const CLIENT_TOKEN_LIFETIME_MS = 35 * 60 * 60 * 1000;

export interface ResourceOperationsOptions {
  session: StackSession;
  provisioner: ResourceProvisioner;
  ioHost: IoHost;
  logger: Logger;
  /** The region state recorded the stack in (for the NotFound region check). */
  expectedRegion: string;
  /** Resolves secret references in properties just before a call. */
  withSecrets: (properties: Record<string, unknown>) => Promise<Record<string, unknown>>;
  now?: () => number;
}

/** What a record created or updated here carries besides ids, properties and attributes. */
export type RecordBase = NonNullable<IntentRecord['recordBase']>;

export interface CreateInput {
  logicalId: string;
  resourceType: string;
  routed: RoutedProvider;
  /** Desired properties, secrets as references. */
  properties: Record<string, unknown>;
  recordBase: RecordBase;
  /** REPLACE: the record being replaced; deposed when the new one exists (unless kept by UpdateReplacePolicy). */
  replaces?: { record: ResourceState; retain: boolean };
  action?: ResourceAction;
}

export interface UpdateInput {
  logicalId: string;
  record: ResourceState;
  routed: RoutedProvider;
  properties: Record<string, unknown>;
  recordBase: RecordBase;
  /** The "previous" side of the update, when not the recorded properties (`--force` re-applies). */
  previousProperties?: Record<string, unknown>;
}

export interface DeleteInput {
  logicalId: string;
  record: ResourceState;
  /** Deleting a deposed record: its key. */
  deposedKey?: string;
  action?: ResourceAction;
  reason?: string;
  /** The removal rule said `snapshot`: the provider takes the final snapshot before the delete. */
  snapshot?: boolean;
}

export interface RemoveInput {
  logicalId: string;
  /** The state record (or deposed record) leaving the stack. */
  record: ResourceState | DeposedResource;
  /** A deposed record: its key (its cause comes from its `reason`). */
  deposedKey?: string;
  /** Why it leaves: decides which policy applies and how (see `decideRemoval`). */
  cause: RemovalCause;
  /** The DeletionPolicy to use when the record carries none (a pre-v5 record, from the template). */
  fallbackDeletionPolicy?: PolicyAttribute;
  reason?: string;
}

/**
 * A failed create's leftover that {@link ResourceOperations.remove} did not delete
 * because this command could not prove it is still the resource that create made
 * (`unproven`: a warning, exit 2) or found it gone (`gone`). Its record is dropped.
 */
export interface LeftoverNotDeleted {
  action: 'gone' | 'unproven';
  /** Names the physical id and why; `unproven` is a warning for the user. */
  reason: string;
}

export class ResourceOperations {
  /** Keys of the failed-create records this instance deposed: this process saw their create return. */
  private readonly madeHere = new Set<string>();

  constructor(private readonly options: ResourceOperationsOptions) {}

  private get session(): StackSession {
    return this.options.session;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private emit(e: Omit<ResourceEvent, 'stackName'>): void {
    emitResourceEvent(this.options.ioHost, { stackName: this.session.stackName, ...e });
  }

  /** Creates a resource; returns its new record. */
  async create(input: CreateInput): Promise<ResourceState> {
    const { logicalId, resourceType, routed } = input;
    const action = input.action ?? 'CREATE';
    this.emit({
      logicalId,
      resourceType,
      action,
      status: 'started',
      route: routed.provisionedBy,
      routeReason: routed.decision.reason,
      physicalId: input.replaces?.record.physicalId,
    });
    const t0 = this.now();
    try {
      refuseMaskedValues(logicalId, resourceType, input.properties);
      const intent = await this.session.announce({
        operation: 'create',
        logicalId,
        resourceType,
        provisionedBy: routed.provisionedBy,
        ...packOf(routed),
        properties: input.properties,
        recordBase: input.recordBase,
        ...(input.replaces && !input.replaces.retain ? { replaces: input.replaces.record.physicalId } : {}),
      });
      const record = await this.runCreate(intent, routed);
      this.emit({
        logicalId,
        resourceType,
        action,
        status: 'succeeded',
        elapsedMs: this.now() - t0,
        physicalId: record.physicalId,
        route: routed.provisionedBy,
      });
      return record;
    } catch (err) {
      this.emitFailed(logicalId, resourceType, action, t0, err, routed);
      throw err;
    }
  }

  /** Updates a resource in place; returns its new record. */
  async update(input: UpdateInput): Promise<{ record: ResourceState; wasReplaced: boolean }> {
    const { logicalId, record, routed } = input;
    this.emit({
      logicalId,
      resourceType: record.resourceType,
      action: 'UPDATE',
      status: 'started',
      route: routed.provisionedBy,
      routeReason: routed.decision.reason,
      physicalId: record.physicalId,
    });
    const t0 = this.now();
    try {
      refuseMaskedValues(logicalId, record.resourceType, input.properties);
      const intent = await this.session.announce({
        operation: 'update',
        logicalId,
        resourceType: input.recordBase.resourceType,
        provisionedBy: routed.provisionedBy,
        ...packOf(routed),
        properties: input.properties,
        physicalId: record.physicalId,
        previousProperties: input.previousProperties ?? record.properties ?? {},
        recordBase: input.recordBase,
      });
      const out = await this.runUpdate(intent, routed, record);
      this.emit({
        logicalId,
        resourceType: record.resourceType,
        action: 'UPDATE',
        status: 'succeeded',
        elapsedMs: this.now() - t0,
        physicalId: out.record.physicalId,
        route: routed.provisionedBy,
      });
      return out;
    } catch (err) {
      this.emitFailed(logicalId, record.resourceType, 'UPDATE', t0, err, routed);
      throw err;
    }
  }

  /**
   * A resource leaves the stack by the one removal-policy rule: kept (dropped
   * from state, the `RETAIN` event), snapshotted then deleted, deleted, or
   * refused (a `skipped` event, then `REMOVAL_REFUSED` thrown; nothing changes).
   * What a failed create of an earlier run left behind is first proven to be
   * that create's resource ({@link settleLeftover}). Returns what it applied.
   */
  async remove(input: RemoveInput): Promise<RemovalDecision | LeftoverNotDeleted> {
    const { logicalId, record, deposedKey } = input;
    if (deposedKey && 'reason' in record) {
      const settled = await this.settleLeftover(record);
      if (settled) return settled;
    }
    const cause =
      deposedKey && 'reason' in record && record.reason ? deposedRemovalCause(record.reason) : input.cause;
    const subject = removalSubject(logicalId, record);
    if (!subject.deletionPolicy && input.fallbackDeletionPolicy)
      subject.deletionPolicy = input.fallbackDeletionPolicy;
    const decision = decideRemoval(subject, cause, {
      canSnapshot: this.options.provisioner.canSnapshot(record),
    });
    const event = { logicalId, resourceType: record.resourceType, physicalId: record.physicalId };
    if (decision.action === 'retain') {
      this.session.outcome(undefined, [
        deposedKey ? { op: 'undepose', key: deposedKey } : { op: 'remove', logicalId },
      ]);
      this.emit({ ...event, action: 'RETAIN', status: 'succeeded', reason: decision.reason });
      return decision;
    }
    if (decision.action === 'refuse') {
      this.emit({ ...event, action: 'DELETE', status: 'skipped', reason: decision.reason });
      throw new CdkdError(`${decision.reason}.`, { code: 'REMOVAL_REFUSED', remedy: decision.remedy });
    }
    await this.delete({
      logicalId,
      record,
      ...(deposedKey ? { deposedKey } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
      snapshot: decision.action === 'snapshot',
    });
    return decision;
  }

  /**
   * Whether this command may delete a deposed record (leftover-identity.ts): undefined
   * when it may; otherwise its record is dropped (a `DELETE` event, `skipped` when
   * unproven, with the reason) and what happened is returned. A failed identity read throws.
   */
  async settleLeftover(record: DeposedResource): Promise<LeftoverNotDeleted | undefined> {
    const verdict = await judgeLeftover({
      provisioner: this.options.provisioner,
      record,
      region: this.session.region,
      expectedRegion: this.options.expectedRegion,
      madeHere: this.madeHere.has(record.key),
      signal: this.session.cancelSignal,
    });
    if (verdict.verdict === 'delete') return undefined;
    this.session.outcome(undefined, [{ op: 'undepose', key: record.key }]);
    const gone = verdict.verdict === 'gone';
    this.emit({
      logicalId: record.logicalId,
      resourceType: record.resourceType,
      physicalId: record.physicalId,
      action: 'DELETE',
      status: gone ? 'succeeded' : 'skipped',
      reason: verdict.message,
    });
    if (gone) this.options.logger.info(verdict.message);
    return { action: gone ? 'gone' : 'unproven', reason: verdict.message };
  }

  /** Whether a recorded resource still exists in the stack's region (see `ResourceProvisioner.readExistence`). */
  exists(logicalId: string, record: ResourceState): Promise<'found' | 'gone' | 'unknown'> {
    return this.options.provisioner.readExistence(record, logicalId, this.session.region, {
      expectedRegion: this.options.expectedRegion,
      signal: this.session.cancelSignal,
    });
  }

  /** Deletes a resource (or a deposed one). Throws `DELETE_SKIPPED` when the provider could not. */
  async delete(input: DeleteInput): Promise<void> {
    const { logicalId, record } = input;
    const action = input.action ?? 'DELETE';
    this.emit({
      logicalId,
      resourceType: record.resourceType,
      action,
      status: 'started',
      physicalId: record.physicalId,
      ...(input.reason ? { reason: input.reason } : {}),
    });
    const t0 = this.now();
    try {
      const routed = this.options.provisioner.routeRecord(record, this.session.region);
      const intent = await this.session.announce({
        operation: 'delete',
        logicalId,
        resourceType: record.resourceType,
        provisionedBy: routed.provisionedBy,
        ...packOf(routed),
        physicalId: record.physicalId,
        ...(input.deposedKey ? { deposedKey: input.deposedKey } : {}),
      });
      await this.runDelete(intent, routed, record, input.snapshot === true);
    } catch (err) {
      this.emitFailed(logicalId, record.resourceType, action, t0, err);
      throw err;
    }
    this.emit({
      logicalId,
      resourceType: record.resourceType,
      action,
      status: 'succeeded',
      elapsedMs: this.now() - t0,
      physicalId: record.physicalId,
    });
  }

  /**
   * Settles an intent an earlier run left pending: re-sends it with its token
   * (and its last durable attempt) and records what came of it. Throws when the
   * outcome is still in doubt.
   */
  async reissue(intent: IntentRecord): Promise<void> {
    const { logicalId, resourceType } = intent;
    const reason = `settling the ${intent.operation} an interrupted run left in flight (${new Date(intent.at).toISOString()}) ${intentRoute(intent)}`;
    const action: ResourceAction =
      intent.operation === 'create'
        ? intent.replaces
          ? 'REPLACE'
          : 'CREATE'
        : intent.operation === 'update'
          ? 'UPDATE'
          : 'DELETE';
    const t0 = this.now();
    this.emit({ logicalId, resourceType, action, status: 'started', reason });
    try {
      if (intent.operation === 'create') {
        const sendable = withSecretsRestored(intent);
        const routed = this.options.provisioner.routeIntent(sendable, this.session.region);
        const old = this.now() - intent.at > CLIENT_TOKEN_LIFETIME_MS && routed.provisionedBy === 'cc-api';
        if (old) await this.resumeOldCreate(sendable, routed);
        else await this.runCreate(sendable, routed, { inDoubt: true });
      } else if (intent.operation === 'update') {
        const record = this.session.builder.get(logicalId);
        if (!record || record.physicalId !== intent.physicalId)
          return this.dropStale(intent, 'its record changed since');
        await this.runUpdate(
          withSecretsRestored(intent),
          this.options.provisioner.routeIntent(intent, this.session.region),
          record,
        );
      } else {
        const record = intent.deposedKey
          ? this.session.builder.deposedEntry(intent.deposedKey)
          : this.session.builder.get(logicalId);
        if (!record || record.physicalId !== intent.physicalId)
          return this.dropStale(intent, 'its record is gone');
        await this.runDelete(
          intent,
          this.options.provisioner.routeRecord(record, this.session.region),
          record,
          this.snapshotsOnReissue(intent, record),
        );
      }
    } catch (err) {
      this.emitFailed(logicalId, resourceType, action, t0, err);
      throw err;
    }
    this.emit({ logicalId, resourceType, action, status: 'succeeded', elapsedMs: this.now() - t0, reason });
  }

  private dropStale(intent: IntentRecord, why: string): void {
    this.options.logger.debug(`${intent.logicalId}: the pending ${intent.operation} needs nothing: ${why}.`);
    this.session.outcome(intent.id, []);
  }

  // ---------------------------------------------------------------------------

  /** `inDoubt`: the intent was sent before, by a run that never heard how it went (settling). */
  private async runCreate(
    intent: IntentRecord,
    routed: RoutedProvider,
    options: { inDoubt?: boolean } = {},
  ): Promise<ResourceState> {
    const { logicalId, resourceType } = intent;
    const properties = intent.properties ?? {};
    const sent = await this.options.withSecrets(properties);
    const base = intent.attempt ?? 0;
    let result: ResourceCreateResult;
    try {
      result = await this.options.provisioner.create(routed, logicalId, resourceType, sent, {
        context: (attempt) => this.createContext(intent, base + attempt, options.inDoubt),
        beforeRetry: (attempt) => this.session.recordAttempt(intent.id, base + attempt),
        signal: this.session.cancelSignal,
      });
    } catch (err) {
      this.failed(intent, err);
      throw err;
    }
    return this.recordCreated(intent, routed, result, sent);
  }

  private recordCreated(
    intent: IntentRecord,
    routed: RoutedProvider,
    result: ResourceCreateResult,
    sent?: Record<string, unknown>,
  ): ResourceState {
    const { logicalId, resourceType } = intent;
    this.options.provisioner.registerSecretAttributes(resourceType, result.attributes, result);
    const properties = result.effectiveProperties ?? intent.properties ?? {};
    const record: ResourceState = {
      ...intent.recordBase,
      resourceType,
      properties,
      physicalId: result.physicalId,
      attributes: result.attributes ?? {},
      ...routed.provenance,
      ...secretDigestField(properties, sent),
    };
    const current = this.session.builder.get(logicalId);
    const effects: Parameters<StackSession['outcome']>[1] = [];
    if (current && current.physicalId !== record.physicalId && intent.replaces === current.physicalId) {
      // Its removal follows the UpdateReplacePolicy the template declares now (CloudFormation's rule).
      const original: ResourceState = { ...current };
      if (intent.recordBase?.updateReplacePolicy)
        original.updateReplacePolicy = intent.recordBase.updateReplacePolicy;
      else delete original.updateReplacePolicy;
      effects.push({ op: 'depose', entry: this.deposed(logicalId, original, 'replaced') });
    }
    effects.push({ op: 'set', logicalId, record, prev: current?.physicalId ?? null });
    this.session.outcome(intent.id, effects);
    return record;
  }

  /** A Cloud Control create older than its ClientToken's lifetime: read its request instead of re-sending it. */
  private async resumeOldCreate(intent: IntentRecord, routed: RoutedProvider): Promise<void> {
    const requestToken = intent.requestTokens?.[String(intent.attempt ?? 0)];
    const provider = routed.provider;
    if (!requestToken || !(provider instanceof CloudControlProvider)) {
      this.options.logger.warn(
        `${intent.logicalId} (${intent.resourceType}): a create announced at ${new Date(intent.at).toISOString()} was never confirmed, and it is too old to re-send safely (Cloud Control keeps a request token for 36 hours). ` +
          `If AWS has a ${intent.resourceType} made for it, delete it or import it by hand; cdkd forgets the operation.`,
      );
      this.session.outcome(intent.id, [], { code: 'INTENT_EXPIRED', message: 'too old to settle' });
      return;
    }
    let result: ResourceCreateResult;
    try {
      result = await provider.resumeCreate(
        intent.logicalId,
        intent.resourceType,
        requestToken,
        this.session.cancelSignal,
      );
    } catch (err) {
      this.failed(intent, err);
      throw err;
    }
    this.recordCreated(intent, routed, result);
  }

  private async runUpdate(
    intent: IntentRecord,
    routed: RoutedProvider,
    record: ResourceState,
  ): Promise<{ record: ResourceState; wasReplaced: boolean }> {
    const { logicalId } = intent;
    const properties = intent.properties ?? {};
    const [sent, previous] = await Promise.all([
      this.options.withSecrets(properties),
      previousAsSent(intent.previousProperties ?? record.properties ?? {}),
    ]);
    const base = intent.attempt ?? 0;
    let updated;
    try {
      updated = await this.options.provisioner.update(
        routed,
        logicalId,
        record.physicalId,
        intent.resourceType,
        sent,
        previous,
        {
          context: (attempt) => this.operationContext(intent, base + attempt),
          beforeRetry: (attempt) => this.session.recordAttempt(intent.id, base + attempt),
          signal: this.session.cancelSignal,
        },
      );
    } catch (err) {
      this.failed(intent, err);
      throw err;
    }
    this.options.provisioner.registerSecretAttributes(intent.resourceType, updated.attributes, updated);
    const { secretDigest: _old, ...kept } = record;
    const nextProperties = updated.effectiveProperties ?? properties;
    const next: ResourceState = {
      ...kept,
      ...intent.recordBase,
      resourceType: intent.resourceType,
      properties: nextProperties,
      physicalId: updated.physicalId,
      attributes: updated.attributes ?? record.attributes ?? {},
      ...routed.provenance,
      ...secretDigestField(nextProperties, sent),
    };
    if (!intent.recordBase?.deletionPolicy) delete next.deletionPolicy;
    if (!intent.recordBase?.updateReplacePolicy) delete next.updateReplacePolicy;
    const effects: Parameters<StackSession['outcome']>[1] = [];
    // The provider made a new resource and the old one is left: deposed, it is deleted after the deploy.
    if (updated.deletePrevious && updated.physicalId !== record.physicalId)
      effects.push({ op: 'depose', entry: this.deposed(logicalId, record, 'replaced') });
    effects.push({ op: 'set', logicalId, record: next, prev: record.physicalId });
    // The provider's answer travels with the outcome: the rollback journal reverts what it did.
    const replaced = updated.wasReplaced === true;
    this.session.outcome(intent.id, effects, undefined, replaced);
    return { record: next, wasReplaced: replaced };
  }

  /**
   * A delete an interrupted run left in flight may have died before its final
   * snapshot was taken: the rule decides again from the record (the snapshot
   * call is idempotent by the intent's token), and refuses rather than delete
   * without one.
   */
  private snapshotsOnReissue(intent: IntentRecord, record: ResourceState | DeposedResource): boolean {
    const cause =
      intent.deposedKey && 'reason' in record && record.reason
        ? deposedRemovalCause(record.reason)
        : 'removed';
    const decision = decideRemoval(removalSubject(intent.logicalId, record), cause, {
      canSnapshot: this.options.provisioner.canSnapshot(record),
    });
    if (decision.action === 'refuse')
      throw new CdkdError(decision.reason, { code: 'SNAPSHOT_UNSUPPORTED', remedy: decision.remedy });
    return decision.action === 'snapshot';
  }

  private async runDelete(
    intent: IntentRecord,
    routed: RoutedProvider,
    record: ResourceState,
    snapshot: boolean,
  ): Promise<void> {
    const { logicalId } = intent;
    const base = intent.attempt ?? 0;
    let outcome;
    try {
      const call = {
        context: (attempt: number) => this.operationContext(intent, base + attempt),
        beforeRetry: (attempt: number) => this.session.recordAttempt(intent.id, base + attempt),
        signal: this.session.cancelSignal,
      };
      if (snapshot) {
        const taken = await this.options.provisioner.snapshot(routed, logicalId, record, call);
        this.options.logger.info(`${logicalId}: final snapshot ${taken.snapshotId} taken before the delete.`);
      }
      outcome = await this.options.provisioner.delete(routed, logicalId, record, call);
    } catch (err) {
      this.failed(intent, err);
      throw err;
    }
    if (outcome && outcome.outcome === 'skipped') {
      this.session.outcome(intent.id, [], { code: 'DELETE_SKIPPED', message: outcome.reason });
      throw new CdkdError(`${logicalId} (${record.resourceType}) was not deleted: ${outcome.reason}`, {
        code: 'DELETE_SKIPPED',
      });
    }
    const effects: Parameters<StackSession['outcome']>[1] = [];
    if (intent.deposedKey) effects.push({ op: 'undepose', key: intent.deposedKey });
    else if (this.session.builder.get(logicalId)?.physicalId === record.physicalId)
      effects.push({ op: 'remove', logicalId });
    this.session.outcome(intent.id, effects);
  }

  /** The context of an update or delete attempt: the intent's token, the region check, the signal. */
  private operationContext(
    intent: IntentRecord,
    attempt: number,
  ): UpdateContext & DeleteContext & RequestTokenSink {
    return {
      stackName: this.session.stackName,
      expectedRegion: this.options.expectedRegion,
      signal: this.session.cancelSignal,
      idempotencyToken: intent.token,
      attempt,
      onRequestToken: (t, a) => this.session.noteRequestToken(intent.id, a, t),
    };
  }

  private createContext(
    intent: IntentRecord,
    attempt: number,
    inDoubt = false,
  ): CreateContext & RequestTokenSink {
    return {
      ...buildCreateContext({
        stackName: this.session.stackName,
        region: this.session.region,
        logicalId: intent.logicalId,
        idempotencyToken: intent.token,
        attempt,
        inDoubt,
        signal: this.session.cancelSignal,
      }),
      onRequestToken: (t, a) => this.session.noteRequestToken(intent.id, a, t),
    };
  }

  /** Records a definitive failure (and deposes what the create proved it made); leaves an in-doubt one pending. */
  private failed(intent: IntentRecord, err: unknown): void {
    if (isInDoubt(err)) return;
    const created = intent.operation === 'create' ? createdResourceOf(err) : undefined;
    const entry = created
      ? this.deposed(
          intent.logicalId,
          {
            ...intent.recordBase,
            resourceType: intent.resourceType,
            properties: intent.properties ?? {},
            physicalId: created.physicalId,
            provisionedBy: intent.provisionedBy,
            ...(intent.providerPack ? { providerPack: intent.providerPack } : {}),
            ...(intent.providerPackVersion ? { providerPackVersion: intent.providerPackVersion } : {}),
          },
          'failed-create',
        )
      : undefined;
    if (entry && created?.identity) entry.identity = created.identity;
    // This process saw the create return: its own rollback needs no identity proof (see leftover-identity.ts).
    if (entry) this.madeHere.add(entry.key);
    const effects = entry ? [{ op: 'depose' as const, entry }] : [];
    this.session.outcome(intent.id, effects, {
      code: (err as { code?: string })?.code,
      message: formatError(err),
    });
  }

  private deposed(
    logicalId: string,
    record: ResourceState,
    reason: DeposedResource['reason'],
  ): DeposedResource {
    return {
      ...record,
      logicalId,
      key: this.session.builder.nextDeposedKey(logicalId),
      reason,
      deposedAt: this.now(),
    };
  }

  private emitFailed(
    logicalId: string,
    resourceType: string,
    action: ResourceAction,
    t0: number,
    err: unknown,
    routed?: RoutedProvider,
  ): void {
    const skipped = (err as { code?: string })?.code === 'DELETE_SKIPPED';
    this.emit({
      logicalId,
      resourceType,
      action,
      status: skipped ? 'skipped' : 'failed',
      elapsedMs: this.now() - t0,
      reason: (err as Error)?.message ?? String(err),
      ...(routed ? { route: routed.provisionedBy } : {}),
    });
  }
}

/** The pack an intent goes to, as its record will name it (nothing for Cloud Control and cdkd's own providers). */
function packOf(routed: RoutedProvider): Pick<IntentRecord, 'providerPack' | 'providerPackVersion'> {
  const { providerPack, providerPackVersion } = routed.provenance;
  return {
    ...(providerPack ? { providerPack } : {}),
    ...(providerPackVersion ? { providerPackVersion } : {}),
  };
}

/** Where a pending intent is re-sent, for messages: `through @cdkd/provider-sqs`, `through Cloud Control`. */
export function intentRoute(intent: Pick<IntentRecord, 'provisionedBy' | 'providerPack'>): string {
  if (intent.providerPack) return `through ${intent.providerPack}`;
  return intent.provisionedBy === 'cc-api' ? 'through Cloud Control' : "through cdkd's own provider";
}
