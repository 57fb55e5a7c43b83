/**
 * Runs one resource operation against the right provider: routes the resource
 * (SDK provider from a pack, or Cloud Control), retries the outcomes a provider
 * marks retryable (handler-level: the AWS SDK has already retried transport
 * errors, throttling and 5xx answers of each call, so they are not retried a
 * second time here), and turns failures into errors that name the resource, its
 * type, the AWS error and what to do. Before a stack changes, it checks that
 * every planned operation has a provider (see
 * {@link ResourceProvisioner.assertProvisionable}).
 *
 * Each call takes its context per attempt: a retry is a new attempt, which the
 * caller makes durable first (`beforeRetry`) because Cloud Control needs a fresh
 * request token for it.
 *
 * One provisioner serves a whole run, so it also owns what the run's resource
 * operations share: the Cloud Control poll schedule (requests learn from each
 * other) and the adaptive concurrency of both pools, fed by every AWS call's
 * outcome (`slots` hands the graph executor its view).
 */
import type { AwsClientFactory, CallOutcome } from '../config/aws-clients';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceSnapshotResult,
  ResourceUpdateResult,
  UpdateContext,
} from '../plugin-api';
import { CloudControlProvider } from '../provisioning/cloud-control-provider';
import { CustomResourceProvider } from '../provisioning/custom-resource-provider';
import type { CustomResourceProviderOptions } from '../provisioning/custom-resource-provider';
import type { CloudControlProviderOptions } from '../provisioning/cloud-control-provider';
import { PollSchedule } from '../provisioning/poll-schedule';
import type { PollStats } from '../provisioning/poll-schedule';
import { createProviderContext } from '../provisioning/provider-context';
import { NestedStackProvider } from './nested-stack';
import type { TimeoutScheduler } from './nested-stack';
import { canProvisionType, NESTED_STACK_TYPE, unprovisionableReason } from './provisionable';
import { RouteTally } from './route-tally';
import type { ProvisioningRoutes } from './route-tally';
import type { ProviderRegistry, RecordedProvenance, RouteDecision } from '../provisioning/provider-registry';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StackPlan } from '../plan/types';
import { nestedResourceName, planLevels } from '../plan/nested-plans';
import { describeViolation, propertyViolations } from '../plan/property-validation';
import type {
  DeposedResource,
  IntentRecord,
  PolicyAttribute,
  ProvisionedBy,
  ResourceState,
} from '../state/types';
import { decideRemoval, deposedRemovalCause, removalSubject } from '../plan/removal-policy';
import { AdaptiveConcurrency } from '../util/adaptive-concurrency';
import type { AdaptiveConcurrencyOptions, OperationPool, PoolStats } from '../util/adaptive-concurrency';
import type { ConcurrencyGate } from '../util/concurrency';
import { CdkdError, ProvisioningError } from '../util/errors';
import type { Logger } from '../util/io-host';
import { registerSecret } from '../template/redaction';
import { isTransientAwsError, withRetry } from '../util/retry';
import { identityOf, isInDoubt } from './operation-outcome';
import type { RetryOptions } from '../util/retry';

export interface ProvisionerOptions {
  registry: ProviderRegistry;
  /** The registry's schemas (the catalogue plus the org-internal types its packs bring). */
  schemas: SchemaStore;
  factory: AwsClientFactory;
  logger: Logger;
  /** Retry of whole provider operations on outcomes the provider marks retryable. */
  retry?: Pick<RetryOptions, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'sleep'>;
  /** Cloud Control settings (tests, benchmarks); by default one poll schedule per provisioner. */
  cloudControl?: Omit<CloudControlProviderOptions, 'schemas'>;
  /** Custom resources: where their responses land (the state bucket), their timeout, the clock. */
  customResources?: CustomResourceProviderOptions;
  /** Pool limits of the adaptive concurrency (tests, benchmarks). */
  concurrency?: AdaptiveConcurrencyOptions;
  /** Called before each retry of an operation. */
  onRetry?: (logicalId: string, err: unknown, attempt: number) => void;
  /** What a nested stack's `TimeoutInMinutes` is measured on (tests inject a clock); the wall clock by default. */
  nestedStackTimeouts?: TimeoutScheduler;
}

/** Who made a resource, as its state record says; every key present so a spread replaces the old values. */
export interface Provenance {
  provisionedBy: ProvisionedBy;
  providerPack: string | undefined;
  providerPackVersion: string | undefined;
}

/** A type cdkd provisions itself, in the engine (nested stacks): no pack, never Cloud Control. */
export interface EngineRoute {
  route: 'engine';
  reason: string;
}

/** A routed provider, with the provenance state records for it. */
export interface RoutedProvider {
  decision: Exclude<RouteDecision, { route: 'refused' }> | EngineRoute;
  provider: ResourceProvider;
  provisionedBy: ProvisionedBy;
  /** Spread into the resource's state record. */
  provenance: Provenance;
}

export type Operation = 'create' | 'update' | 'delete' | 'read' | 'snapshot';

/** What a run's resource operations cost, for reports and benchmarks. */
export interface ProvisioningStats {
  pools: Record<OperationPool, PoolStats>;
  /** Cloud Control requests and status checks per type and operation. */
  cloudControl: PollStats[];
  /** Which provider created or updated each resource. */
  routes: ProvisioningRoutes;
}

/** The pool a client's calls count in; state and identity calls count in none. */
function poolOfClient(client: string): OperationPool | undefined {
  if (client === 'CloudControlClient') return 'cloud-control';
  if (client === 'S3Client' || client === 'STSClient') return undefined;
  return 'sdk';
}

/** How one provider call is made: its context per attempt, what to do before a retry. */
export interface CallOptions<C> {
  /** The context of attempt `n` (0 = the first). */
  context: (attempt: number) => C;
  /** Runs before attempt `n` >= 1 is sent (e.g. to make the attempt durable). */
  beforeRetry?: (attempt: number) => Promise<void>;
  /** Stops retrying (and waiting between retries) when aborted. */
  signal?: AbortSignal;
}

/** A provider error the engine may retry: the provider said so (handler-level outcome). */
export function isRetryableOutcome(err: unknown): boolean {
  return CdkdError.isCdkdError(err) && (err as unknown as { retryable?: unknown }).retryable === true;
}

export class ResourceProvisioner {
  private readonly contexts = new Map<string, ProviderContext>();
  /** Route warnings already given: each is said once per run. */
  private readonly warned = new Set<string>();
  private readonly tally = new RouteTally();
  private readonly schedule: PollSchedule;
  private readonly concurrency: AdaptiveConcurrency;
  /** Nested stacks (`AWS::CloudFormation::Stack`): child stacks cdkd deploys itself. */
  readonly nestedStacks: NestedStackProvider;

  constructor(private readonly options: ProvisionerOptions) {
    const { schemas } = options;
    this.nestedStacks = new NestedStackProvider({
      provisioner: this,
      schemas,
      factory: options.factory,
      timeouts: options.nestedStackTimeouts,
    });
    this.schedule = options.cloudControl?.schedule ?? new PollSchedule();
    this.concurrency = new AdaptiveConcurrency(options.concurrency);
    options.factory.observeCalls((call) => this.observe(call));
    options.registry.setCloudControlProvider(
      (ctx) =>
        new CloudControlProvider(ctx, {
          ...options.cloudControl,
          schedule: this.schedule,
          schemas: { get: (t) => schemas.tryGet(t) },
        }),
    );
    const customResources = options.customResources;
    if (customResources)
      options.registry.setCustomResourceProvider((ctx) => new CustomResourceProvider(ctx, customResources));
  }

  /**
   * The executor's slots for one graph run: each node counts in the pool of the
   * route its record took, else the route its type takes (Cloud Control unless a
   * pack registers it); `cap` (`--concurrency`) bounds the run when given.
   */
  slots(
    resourceOf: (id: string) => { resourceType: string; provisionedBy?: ProvisionedBy },
    cap?: number,
  ): ConcurrencyGate {
    const gate = this.concurrency.gate((id) => {
      const { resourceType, provisionedBy } = resourceOf(id);
      const { registry } = this.options;
      if (provisionedBy === 'cc-api' || registry.cloudControlOnly) return 'cloud-control';
      return registry.registrationFor(resourceType) ? 'sdk' : 'cloud-control';
    }, cap);
    // A nested stack holds no slot while its child runs (the child's operations take theirs), so
    // children waiting for slots their parents hold cannot deadlock.
    const nested = 'nested-stack';
    return {
      classOf: (id) => (resourceOf(id).resourceType === NESTED_STACK_TYPE ? nested : gate.classOf(id)),
      tryAcquire: (cls) => cls === nested || gate.tryAcquire(cls),
      release: (cls) => {
        if (cls !== nested) gate.release(cls);
      },
      onCapacity: (listener) => gate.onCapacity(listener),
    };
  }

  /** What this run learnt of Cloud Control request durations, for the next run. */
  pollHistory(): ReturnType<PollSchedule['history']> {
    return this.schedule.history();
  }

  /** Pools and Cloud Control checks of this run so far. */
  stats(): ProvisioningStats {
    return {
      pools: this.concurrency.stats(),
      cloudControl: this.schedule.stats(),
      routes: this.tally.routes(),
    };
  }

  private observe(call: CallOutcome): void {
    const pool = poolOfClient(call.client);
    if (!pool) return;
    if (call.outcome === 'throttled') this.concurrency.throttled(pool);
    else this.concurrency.succeeded(pool);
  }

  /** The provider context for a region (one per region per run). */
  context(region: string): ProviderContext {
    let ctx = this.contexts.get(region);
    if (!ctx) {
      ctx = createProviderContext({ clients: this.options.factory, logger: this.options.logger, region });
      this.contexts.set(region, ctx);
    }
    return ctx;
  }

  /**
   * Registers the secrets among a resource's attributes: every string value when the result
   * marks `noEchoAttributes`, the names it marks in `noEchoAttributeNames`, and the names the
   * type's registrations declare always secret (plugin API `secretAttributes`), whichever layer
   * returned them. The one rule for attributes a create, an update or a live read brings.
   */
  registerSecretAttributes(
    resourceType: string,
    attributes: Record<string, unknown> | undefined,
    marks: { noEchoAttributes?: boolean; noEchoAttributeNames?: readonly string[] } = {},
  ): void {
    if (!attributes) return;
    if (marks.noEchoAttributes) registerSecret(attributes, 'minted');
    const names = [
      ...(marks.noEchoAttributeNames ?? []),
      ...this.options.registry.secretAttributesOf(resourceType),
    ];
    for (const name of names)
      if (Object.prototype.hasOwnProperty.call(attributes, name)) registerSecret(attributes[name], 'minted');
  }

  /** True when an installed pack registers the type, or Cloud Control can be asked to (a catalogued type). */
  canProvision(resourceType: string): boolean {
    return canProvisionType(resourceType, this.options.registry);
  }

  /** The route of a type the engine provisions itself, or undefined. */
  private engineRoute(resourceType: string): RoutedProvider | undefined {
    if (resourceType !== NESTED_STACK_TYPE) return undefined;
    return {
      decision: { route: 'engine', reason: 'a nested stack: cdkd deploys it as a child stack' },
      provider: this.nestedStacks,
      provisionedBy: 'sdk',
      provenance: { provisionedBy: 'sdk', providerPack: undefined, providerPackVersion: undefined },
    };
  }

  /**
   * Routes a resource by its template properties; an update passes the state
   * record, whose provenance keeps it with the provider that made it.
   */
  route(
    resourceType: string,
    properties: Record<string, unknown>,
    region: string,
    recorded?: RecordedProvenance,
  ): RoutedProvider {
    const engine = this.engineRoute(resourceType);
    if (engine) return engine;
    return this.instantiate(this.options.registry.providerFor(resourceType, properties, recorded), region);
  }

  /** Routes a recorded resource for deletion: the provider that made it, when it is still installed. */
  routeRecord(record: ResourceState, region: string): RoutedProvider {
    // A nested stack an older cdkd sent to Cloud Control is deleted there.
    const engine = record.provisionedBy === 'cc-api' ? undefined : this.engineRoute(record.resourceType);
    if (engine) return engine;
    return this.instantiate(this.options.registry.providerForDelete(record.resourceType, record), region);
  }

  /**
   * Refuses, before anything is locked or changed, a plan with an operation no
   * provider may take: a type nothing can provision (custom resources, nested
   * stacks, a misspelt or org-internal type without its pack), a route that
   * would lose track of a resource, or a removal its policy forbids (`Snapshot`
   * nobody can take). Names every one, with the remedy. Properties are checked
   * by {@link assertPropertiesValid}.
   */
  assertProvisionable(plan: StackPlan, recorded: Readonly<Record<string, ResourceState>>): void {
    const { registry } = this.options;
    const problems: string[] = [];
    const remedies = new Set<string>();
    const refuse = (logicalId: string, type: string, why: string, remedy: string) => {
      problems.push(`${logicalId} (${type}): ${why}`);
      remedies.add(remedy);
    };
    for (const level of planLevels(plan, undefined)) {
      const records = level.nestedPath.length === 0 ? recorded : (level.state?.resources ?? {});
      const name = (logicalId: string) => nestedResourceName(plan.stackName, level, logicalId);
      for (const r of level.plan.resources) {
        const record = Object.prototype.hasOwnProperty.call(records, r.logicalId)
          ? records[r.logicalId]
          : undefined;
        if (r.action === 'NO_CHANGE' || r.policyOnly) continue;
        if (r.resourceType === NESTED_STACK_TYPE && (!record || record.resourceType === NESTED_STACK_TYPE))
          continue;
        if (r.action === 'DELETE' || r.action === 'REPLACE') {
          // The record leaving (removed, or the original of the replacement), by the removal rule.
          const removal = record
            ? decideRemoval(
                r.action === 'DELETE'
                  ? removalSubject(r.logicalId, record)
                  : {
                      logicalId: r.logicalId,
                      resourceType: record.resourceType,
                      ...(r.desired?.updateReplacePolicy
                        ? { updateReplacePolicy: r.desired.updateReplacePolicy }
                        : {}),
                    },
                r.action === 'DELETE' ? 'removed' : 'replaced',
                { canSnapshot: this.canSnapshot(record) },
              )
            : undefined;
          if (removal?.action === 'refuse') {
            problems.push(removal.reason);
            remedies.add(removal.remedy!);
          }
          const old =
            record &&
            (removal?.action === 'delete' || removal?.action === 'snapshot') &&
            record.resourceType !== NESTED_STACK_TYPE
              ? registry.providerForDelete(record.resourceType, record)
              : undefined;
          if (old?.route === 'refused')
            refuse(name(r.logicalId), record!.resourceType, `cannot be deleted: ${old.reason}`, old.remedy);
          if (r.action === 'DELETE') continue;
        }
        if (!this.canProvision(r.resourceType)) {
          const [why, remedy] = unprovisionableReason(r.resourceType);
          refuse(name(r.logicalId), r.resourceType, why, remedy);
          continue;
        }
        const properties = r.desired?.properties ?? {};
        const decision = registry.providerFor(
          r.resourceType,
          properties,
          r.action === 'UPDATE' ? record : undefined,
        );
        if (decision.route === 'refused')
          refuse(name(r.logicalId), r.resourceType, decision.reason, decision.remedy);
      }
    }
    if (problems.length === 0) return;
    throw new CdkdError(
      `${plan.stackName} cannot be deployed: ${problems.join('; ')}. Nothing was changed.`,
      {
        code: 'UNSUPPORTED_RESOURCE_TYPE',
        remedy: [...remedies].join(' '),
      },
    );
  }

  /**
   * Refuses, before anything is locked or changed, a plan whose resources break
   * their schema where their properties are known before the deploy (see
   * `src/plan/property-validation.ts`), naming every violation.
   */
  assertPropertiesValid(plan: StackPlan): void {
    const violations = [...planLevels(plan, undefined)].flatMap((level) =>
      propertyViolations(level.plan, this.options.schemas).map((v) => ({
        ...v,
        logicalId: nestedResourceName(plan.stackName, level, v.logicalId),
      })),
    );
    if (violations.length === 0) return;
    const packs = new Set<string>();
    for (const v of violations) {
      if (this.options.schemas.isPackType(v.resourceType))
        packs.add(
          `the ${v.resourceType} schema of ${this.options.registry.registrationFor(v.resourceType)?.packName ?? 'its pack'}`,
        );
    }
    throw new CdkdError(
      `${plan.stackName} cannot be deployed: ${violations.length} resource propert${violations.length === 1 ? 'y breaks' : 'ies break'} ${violations.length === 1 ? 'its' : 'their'} schema. Nothing was changed.\n${violations.map((v) => `  - ${describeViolation(v)}`).join('\n')}`,
      {
        code: 'TEMPLATE_PROPERTIES_INVALID',
        remedy: `Fix the properties in the app${packs.size > 0 ? ` (against ${[...packs].join(', ')})` : ''}, then re-run.`,
        details: violations,
      },
    );
  }

  /**
   * The same check before a destroy: every recorded resource the removal rule
   * deletes has a provider that may delete it, and one under `Snapshot` has a
   * provider that can take the snapshot. `fallbackPolicies`: the template's
   * DeletionPolicy for records that carry none (pre-v5).
   */
  assertDeletable(
    stackName: string,
    recorded: Readonly<Record<string, ResourceState | DeposedResource>>,
    fallbackPolicies: Readonly<Record<string, PolicyAttribute | undefined>> = {},
  ): void {
    const problems: string[] = [];
    const remedies = new Set<string>();
    for (const [logicalId, record] of Object.entries(recorded)) {
      if (record.resourceType === NESTED_STACK_TYPE) continue;
      const deposed = 'reason' in record && record.reason !== undefined;
      const subject = removalSubject(logicalId, record);
      if (!deposed && !subject.deletionPolicy && fallbackPolicies[logicalId])
        subject.deletionPolicy = fallbackPolicies[logicalId];
      const removal = decideRemoval(subject, deposed ? deposedRemovalCause(record.reason) : 'destroyed', {
        canSnapshot: this.canSnapshot(record),
      });
      if (removal.action === 'retain') continue;
      if (removal.action === 'refuse') {
        problems.push(removal.reason);
        remedies.add(removal.remedy!);
        continue;
      }
      const decision = this.options.registry.providerForDelete(record.resourceType, record);
      if (decision.route !== 'refused') continue;
      problems.push(`${logicalId} (${record.resourceType}): ${decision.reason}`);
      remedies.add(decision.remedy);
    }
    if (problems.length === 0) return;
    throw new CdkdError(`${stackName} cannot be destroyed: ${problems.join('; ')}. Nothing was deleted.`, {
      code: 'PROVIDER_MISSING',
      remedy: [...remedies].join(' '),
    });
  }

  /**
   * Routes a pending intent to the layer it was sent to: re-sending it anywhere
   * else could make a second resource, so a missing pack is an error.
   */
  routeIntent(
    intent: Pick<IntentRecord, 'resourceType' | 'provisionedBy' | 'providerPack' | 'providerPackVersion'>,
    region: string,
  ): RoutedProvider {
    const engine = intent.provisionedBy === 'sdk' ? this.engineRoute(intent.resourceType) : undefined;
    if (engine) return engine;
    if (intent.provisionedBy === 'cc-api')
      return this.instantiate(
        { route: 'cc-api', reason: 'the pending operation was sent through Cloud Control' },
        region,
      );
    const { registry } = this.options;
    // Intents written before they named their pack go to the pack registered for the type now.
    const registration = intent.providerPack
      ? registry.registrationOf(intent.providerPack, intent.resourceType)
      : registry.registrationFor(intent.resourceType);
    if (!registration) {
      const pack = intent.providerPack
        ? `${intent.providerPack}${intent.providerPackVersion ? ` ${intent.providerPackVersion}` : ''}`
        : undefined;
      throw new CdkdError(
        pack
          ? `An interrupted run sent an operation on a ${intent.resourceType} through the provider pack ${pack}, which is not installed now (or no longer registers the type), so cdkd cannot settle it.`
          : `An interrupted run sent an operation on a ${intent.resourceType} through a provider pack that is not installed now, so cdkd cannot settle it.`,
        {
          code: 'PACK_MISSING',
          remedy: pack
            ? `Install ${intent.providerPack} again (cdkd plugins install ${intent.providerPack}), then re-run: only the pack that received the call can settle it without making a second resource.`
            : `Install the provider pack that handles ${intent.resourceType} (cdkd plugins install), then re-run.`,
        },
      );
    }
    return this.instantiate(
      {
        route: 'sdk',
        registration,
        packName: registration.packName,
        reason: `the pending operation was sent through ${registration.packName}`,
      },
      region,
    );
  }

  private instantiate(decision: RouteDecision, region: string): RoutedProvider {
    if (decision.route === 'refused') {
      throw new ProvisioningError(`No provider may take this resource: ${decision.reason}.`, {
        code: 'PROVIDER_ROUTE_REFUSED',
        remedy: decision.remedy,
      });
    }
    if (decision.route === 'cc-api' && decision.warning && !this.warned.has(decision.warning.message)) {
      this.warned.add(decision.warning.message);
      this.options.logger.warn(`${decision.warning.message}\n${decision.warning.remedy}`);
    }
    const provider = this.options.registry.providerInstance(decision, this.context(region));
    const provenance: Provenance =
      decision.route === 'sdk'
        ? {
            provisionedBy: 'sdk',
            // cdkd's own provider (custom resources) is no pack.
            providerPack: decision.registration.builtIn ? undefined : decision.registration.packName,
            providerPackVersion: decision.registration.builtIn
              ? undefined
              : decision.registration.packVersion,
          }
        : { provisionedBy: 'cc-api', providerPack: undefined, providerPackVersion: undefined };
    return { decision, provider, provisionedBy: provenance.provisionedBy, provenance };
  }

  create(
    routed: RoutedProvider,
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    call: CallOptions<CreateContext>,
  ): Promise<ResourceCreateResult> {
    return this.run('create', logicalId, resourceType, undefined, call, (context) =>
      routed.provider.create(logicalId, resourceType, properties, context),
    ).then((result) => {
      this.tally.record(call.context(0).stackName ?? '', logicalId, resourceType, routed);
      return result;
    });
  }

  update(
    routed: RoutedProvider,
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    call: CallOptions<UpdateContext>,
  ): Promise<ResourceUpdateResult> {
    return this.run('update', logicalId, resourceType, physicalId, call, (context) =>
      routed.provider.update(logicalId, physicalId, resourceType, properties, previous, context),
    ).then((result) => {
      this.tally.record(call.context(0).stackName ?? '', logicalId, resourceType, routed);
      return result;
    });
  }

  delete(
    routed: RoutedProvider,
    logicalId: string,
    record: ResourceState,
    call: CallOptions<DeleteContext>,
  ): Promise<void | ResourceDeleteResult> {
    return this.run('delete', logicalId, record.resourceType, record.physicalId, call, (context) =>
      routed.provider.delete(logicalId, record.physicalId, record.resourceType, record.properties, context),
    );
  }

  /**
   * True when the provider that would delete this recorded resource can take
   * its final snapshot first: an installed pack registering `canSnapshot` for the
   * type (Cloud Control cannot).
   */
  canSnapshot(record: RecordedProvenance & { resourceType: string }): boolean {
    return this.options.registry.canSnapshot(record.resourceType, record);
  }

  /** The final snapshot before a delete (`DeletionPolicy: Snapshot`), through the provider that will delete it. */
  snapshot(
    routed: RoutedProvider,
    logicalId: string,
    record: ResourceState,
    call: CallOptions<DeleteContext>,
  ): Promise<ResourceSnapshotResult> {
    const take = routed.provider.snapshot;
    if (routed.decision.route !== 'sdk' || !routed.decision.registration.canSnapshot || !take) {
      return Promise.reject(
        new ProvisioningError(
          `${logicalId} (${record.resourceType}) needs a final snapshot, and its provider cannot take one; it is not deleted.`,
          {
            code: 'SNAPSHOT_UNSUPPORTED',
            remedy: `Set its removal policy to RETAIN or DESTROY in the app and deploy, or install a provider pack that can snapshot ${record.resourceType}, then re-run.`,
          },
        ),
      );
    }
    return this.run('snapshot', logicalId, record.resourceType, record.physicalId, call, (context) =>
      take.call(
        routed.provider,
        logicalId,
        record.physicalId,
        record.resourceType,
        record.properties ?? {},
        context,
      ),
    );
  }

  /**
   * One `Fn::GetAtt` attribute read from the resource now, through the layer
   * that made it (the provider's `getAttribute`, Cloud Control's GetResource);
   * undefined when the provider cannot read it. A read is not an operation to
   * announce: it changes nothing, and the SDK's retries are its only ones.
   */
  async readAttribute(
    record: ResourceState,
    logicalId: string,
    attribute: string,
    region: string,
  ): Promise<unknown> {
    const routed = this.routeRecord(record, region);
    const read = routed.provider.getAttribute;
    if (!read) return undefined;
    try {
      return await read.call(routed.provider, record.physicalId, record.resourceType, attribute);
    } catch (err) {
      throw describeFailure(err, 'read', logicalId, record.resourceType, record.physicalId);
    }
  }

  /**
   * True when the recorded resource's physical id never names a later resource
   * (a nested stack, whose child only cdkd names; see the registry's rule).
   */
  physicalIdNeverReused(record: ResourceState): boolean {
    if (record.provisionedBy !== 'cc-api' && this.engineRoute(record.resourceType)) return true;
    return this.options.registry.physicalIdNeverReused(record.resourceType, record);
  }

  /**
   * The identity of whatever answers to the record's physical id now, through the
   * provider that would delete it (plugin API `readIdentity`): `gone` when
   * nothing does, `unsupported` when the provider cannot read one. A failed read
   * throws. A read is not an operation to announce; the SDK's retries are its only ones.
   */
  async readIdentity(
    record: ResourceState,
    logicalId: string,
    region: string,
    context: { expectedRegion?: string; signal?: AbortSignal },
  ): Promise<{ identity: Record<string, string> } | 'gone' | 'unsupported'> {
    const routed = this.routeRecord(record, region);
    const read = routed.decision.route === 'sdk' ? routed.provider.readIdentity : undefined;
    if (!read) return 'unsupported';
    let found;
    try {
      found = await read.call(routed.provider, record.physicalId, record.resourceType, context);
    } catch (err) {
      throw describeFailure(err, 'read', logicalId, record.resourceType, record.physicalId);
    }
    if (found === undefined) return 'gone';
    const identity = identityOf(found);
    return identity ? { identity } : 'unsupported';
  }

  /**
   * Whether the recorded resource still exists, read through its provider:
   * its identity read (`readIdentity`) where it has one, else its live state
   * (`readCurrentState`; Cloud Control's GetResource). `unknown` when the
   * provider can read neither. A failed read throws. Not an operation to announce.
   */
  async readExistence(
    record: ResourceState,
    logicalId: string,
    region: string,
    context: { expectedRegion?: string; signal?: AbortSignal },
  ): Promise<'found' | 'gone' | 'unknown'> {
    const identity = await this.readIdentity(record, logicalId, region, context);
    if (identity === 'gone') return 'gone';
    if (identity !== 'unsupported') return 'found';
    const routed = this.routeRecord(record, region);
    const read = routed.provider.readCurrentState;
    if (!read) return 'unknown';
    let found;
    try {
      found = await read.call(
        routed.provider,
        record.physicalId,
        logicalId,
        record.resourceType,
        record.properties,
      );
    } catch (err) {
      throw describeFailure(err, 'read', logicalId, record.resourceType, record.physicalId);
    }
    return found === undefined ? 'gone' : 'found';
  }

  private async run<C, T>(
    operation: Operation,
    logicalId: string,
    resourceType: string,
    physicalId: string | undefined,
    call: CallOptions<C>,
    send: (context: C) => Promise<T>,
  ): Promise<T> {
    try {
      return await withRetry(
        async (n) => {
          const attempt = n - 1;
          if (attempt > 0) await call.beforeRetry?.(attempt);
          return send(call.context(attempt));
        },
        {
          ...this.options.retry,
          isRetryable: isRetryableOutcome,
          signal: call.signal,
          onRetry: (err, attempt) => this.options.onRetry?.(logicalId, err, attempt),
        },
      );
    } catch (err) {
      throw describeFailure(err, operation, logicalId, resourceType, physicalId);
    }
  }
}

const ACCESS_DENIED = /AccessDenied|UnauthorizedOperation|AuthorizationError|NotAuthorized|Forbidden/i;
const INVALID_INPUT = /Validation|InvalidParameter|InvalidRequest|InvalidInput|MalformedPolicy|BadRequest/i;

/** A failure as the user sees it: what failed, the AWS error, and what to do. */
export function describeFailure(
  err: unknown,
  operation: Operation,
  logicalId: string,
  resourceType: string,
  physicalId?: string,
): CdkdError {
  const resource = { logicalId, resourceType, physicalId };
  if (CdkdError.isCdkdError(err)) {
    if (err instanceof ProvisioningError && !err.resource.logicalId) Object.assign(err.resource, resource);
    return err;
  }
  const e = err as Error & { name?: string; $metadata?: { httpStatusCode?: number } };
  const awsError = `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
  let remedy: string;
  if (ACCESS_DENIED.test(awsError)) {
    remedy = `Grant the deploying principal permission for this ${resourceType} operation, then re-run.`;
  } else if (INVALID_INPUT.test(awsError)) {
    remedy = `Check ${logicalId}'s properties in the CDK app against the ${resourceType} documentation, then re-run.`;
  } else if (isInDoubt(err)) {
    remedy = isTransientAwsError(err)
      ? 'AWS kept failing transiently after retries, so cdkd cannot tell whether the operation took effect. Re-run the command: it re-sends the operation with the same idempotency token and adopts what it made.'
      : 'cdkd cannot tell whether the operation took effect. Re-run the command: it re-sends the operation with the same idempotency token and adopts what it made.';
  } else {
    remedy = 'Fix the cause and re-run; resources that finished are kept in state.';
  }
  return new ProvisioningError(`Failed to ${operation} ${logicalId} (${resourceType}): ${awsError}`, {
    cause: err,
    resource,
    remedy,
  });
}
