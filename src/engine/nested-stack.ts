/**
 * `AWS::CloudFormation::Stack`, provisioned by cdkd itself (Cloud Control cannot
 * provision it): each nested stack is a child stack with its own state record,
 * `{parent}~{logicalId}` in the parent's region, carrying the schema v6 parent
 * link. Its template is read from its `TemplateURL` (the asset cdkd published)
 * with the parent's storage-name rewrite applied, its `Parameters` become the
 * child's parameter values, and its outputs the `Outputs.<Key>` attributes.
 *
 * The child runs under the parent's lock (its session borrows it) and through
 * the same resource operations as any stack: every child resource is announced
 * in the child's write-ahead log before its call. The parent's intent for the
 * nested stack is durable before the child starts, so a process that dies
 * mid-child leaves it pending in the parent; the next run re-sends it (settle),
 * which deploys the child again, and the child settles its own pending intents.
 *
 * The parent's deploy or destroy lends each child what it needs by attaching a
 * {@link NestedStackHost} for its stack and region while its session is open.
 */
import type { AwsClientFactory } from '../config/aws-clients';
import { partitionOfRegion } from '../config/aws-clients';
import type { NameReplacement } from '../assets/template-rewrite';
import type {
  CreateContext,
  DeleteContext,
  ResourceCreateResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '../plugin-api';
import type { SchemaStore } from '../provisioning/schema-store';
import { nestedStackName, NESTED_STACK_SEPARATOR } from '../state/keys';
import type { StackLock } from '../state/lock-manager';
import type { StateStore } from '../state/state-store';
import type { ResourceState } from '../state/types';
import { CdkdError, formatError, ProvisioningError } from '../util/errors';
import type { IoHost } from '../util/io-host';
import { createLogger } from '../util/io-host';
import { createHash } from 'node:crypto';
import { deployStack } from './deploy-stack';
import type { DeployStackResult, NestedStackWarning } from './deploy-stack';
import { destroyStack } from './destroy-stack';
import { isInDoubt } from './operation-outcome';
import { childStackTags, nestedTemplateSource, parameterValues } from './nested-template';
import { NESTED_STACK_TYPE } from './provisionable';
import type { ResourceProvisioner } from './provisioner';

/** What a parent's open session lends its nested stacks. */
export interface NestedStackHost {
  store: StateStore;
  ioHost: IoHost;
  /** The parent's lock: children take none of their own. */
  lock: StackLock;
  /** The parent's live record under a logical id (a deposed nested stack never deletes the live one's child). */
  liveRecord: (logicalId: string) => ResourceState | undefined;
  /** The parent's storage-name rewrite, applied to every template below it (their assets share its manifest). */
  replacements: readonly NameReplacement[];
  /** The parent's stack tags: they propagate to its children's resources, as in CloudFormation. */
  stackTags?: Readonly<Record<string, string>>;
  concurrency?: number;
  /** False (`--no-rollback`): a child that fails keeps its partial state and journal, as the parent does. */
  rollback?: boolean;
  signal?: AbortSignal;
  cancelSignal?: AbortSignal;
  force?: boolean;
  erroredStateDir?: string;
  /**
   * Takes the warnings a child's deploy (its automatic rollback's too) or destroy ended with, and those
   * of the stacks below it, for the parent's result: the top-level command exits 2 for them.
   */
  onChildWarnings?: (warnings: NestedStackWarning[]) => void;
}

/**
 * Starts a timer that calls `fire` after `ms` milliseconds; returns what cancels
 * it. `TimeoutInMinutes` runs on it: the wall clock by default, a test's own
 * clock when one is injected (so no test waits minutes).
 */
export type TimeoutScheduler = (ms: number, fire: () => void) => () => void;

/** The wall clock; the timer never keeps the process alive on its own. */
export const wallClockScheduler: TimeoutScheduler = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface NestedStackProviderOptions {
  provisioner: ResourceProvisioner;
  schemas: SchemaStore;
  factory: AwsClientFactory;
  /** What `TimeoutInMinutes` is measured on. Default {@link wallClockScheduler}. */
  timeouts?: TimeoutScheduler;
}

const hostKey = (stackName: string, region: string) => `${stackName}\u0000${region}`;

/** `arn:<partition>:cloudformation:<region>:<account>:stack/<child>/<id>`: minted by cdkd, stable for one create intent. */
export function nestedStackId(region: string, account: string, childName: string, token: string): string {
  const h = createHash('sha256').update(`${childName}\u0000${token}`).digest('hex');
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  return `arn:${partitionOfRegion(region)}:cloudformation:${region}:${account}:stack/${childName}/${id}`;
}

/** The child's name and region in a nested stack id; undefined for anything else. */
export function parseNestedStackId(physicalId: string): { childName: string; region: string } | undefined {
  const m = /^arn:[^:]+:cloudformation:([^:]+):[^:]*:stack\/([^/]+)\/[^/]+$/.exec(physicalId);
  return m && m[2].includes(NESTED_STACK_SEPARATOR) ? { region: m[1], childName: m[2] } : undefined;
}

/** A child's outputs as the parent's `Fn::GetAtt [Child, 'Outputs.<Key>']` reads them. */
function outputAttributes(outputs: Record<string, unknown>): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(outputs)) attributes[`Outputs.${key}`] = value;
  return attributes;
}

export class NestedStackProvider implements ResourceProvider {
  private readonly hosts = new Map<string, NestedStackHost>();

  constructor(private readonly options: NestedStackProviderOptions) {}

  /** Lends `host` to the nested stacks of `stackName` while its session is open; call the result to stop. */
  attach(stackName: string, region: string, host: NestedStackHost): () => void {
    const key = hostKey(stackName, region);
    this.hosts.set(key, host);
    return () => {
      if (this.hosts.get(key) === host) this.hosts.delete(key);
    };
  }

  private hostOf(stackName: string | undefined, region: string | undefined): NestedStackHost {
    const host = stackName && region ? this.hosts.get(hostKey(stackName, region)) : undefined;
    if (!host) {
      // Only a parent's open session operates on its nested stacks; anything else is a cdkd bug.
      throw new CdkdError(
        `The nested stacks of ${stackName ?? '(unknown stack)'} can be changed only while its deploy or destroy holds its lock.`,
        { code: 'NESTED_STACK_NO_PARENT', remedy: 'Deploy or destroy the parent stack.' },
      );
    }
    return host;
  }

  async create(
    logicalId: string,
    _resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { stackName, region } = context;
    const host = this.hostOf(stackName, region);
    const childName = nestedStackName(stackName, logicalId);
    const { account } = await this.options.factory.callerIdentity();
    const physicalId = nestedStackId(region, account, childName, context.idempotencyToken);
    const outputs = await this.deployChild(host, stackName, region, logicalId, properties, physicalId, true);
    return { physicalId, attributes: outputAttributes(outputs) };
  }

  async update(
    logicalId: string,
    physicalId: string,
    _resourceType: string,
    properties: Record<string, unknown>,
    _previous: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const region = context?.expectedRegion;
    const host = this.hostOf(context?.stackName, region);
    const outputs = await this.deployChild(
      host,
      context!.stackName!,
      region!,
      logicalId,
      properties,
      physicalId,
      false,
    );
    return { physicalId, wasReplaced: false, attributes: outputAttributes(outputs) };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    _resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const parentName = context?.stackName;
    const region = context?.expectedRegion;
    const host = this.hostOf(parentName, region);
    // A child is named by its logical id: while the parent holds a live record there, the child is that record's.
    const live = host.liveRecord(logicalId);
    if (live && live.resourceType === NESTED_STACK_TYPE && live.physicalId !== physicalId) return;
    const childName = nestedStackName(parentName!, logicalId);
    let result;
    try {
      result = await destroyStack({
        stackName: childName,
        region: region!,
        store: host.store,
        provisioner: this.options.provisioner,
        ioHost: host.ioHost,
        concurrency: host.concurrency,
        signal: host.signal,
        cancelSignal: host.cancelSignal,
        erroredStateDir: host.erroredStateDir,
        factory: this.options.factory,
        borrowedLock: host.lock,
        replacements: host.replacements,
      });
    } catch (err) {
      throw childFailure(`destroy nested stack ${childName}`, err);
    }
    passUpWarnings(host, childName, result.warnings, result.nestedWarnings);
    if (!result.found || result.complete) return;
    const failed = result.failed.map((f) => `${f.logicalId}: ${formatError(f.error)}`);
    throw new ProvisioningError(
      `Nested stack ${childName} was not destroyed completely${failed.length ? ` (${failed.join('; ')})` : ''}; what is left stays in its state record.`,
      {
        code: 'NESTED_STACK_FAILED',
        inDoubt: result.interrupted,
        remedy: "Fix the cause and re-run; the destroy continues from the child's state record.",
      },
    );
  }

  /** The child's output, by reading its state record. */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    const id = parseNestedStackId(physicalId);
    if (!id || !attributeName.startsWith('Outputs.')) return undefined;
    const parentName = id.childName.slice(0, id.childName.lastIndexOf(NESTED_STACK_SEPARATOR));
    const host = this.hosts.get(hostKey(parentName, id.region));
    if (!host) return undefined;
    const record = await host.store.backend.getState(id.childName, id.region);
    return record?.state.outputs[attributeName.slice('Outputs.'.length)];
  }

  /** Deploys the child stack; returns its outputs. */
  private async deployChild(
    host: NestedStackHost,
    parentName: string,
    region: string,
    logicalId: string,
    properties: Record<string, unknown>,
    physicalId: string,
    creating: boolean,
  ): Promise<Record<string, unknown>> {
    const childName = nestedStackName(parentName, logicalId);
    const logger = createLogger(host.ioHost);
    if (Array.isArray(properties.NotificationARNs) && properties.NotificationARNs.length > 0)
      logger.warn(
        `${childName}: NotificationARNs is ignored: cdkd deploys without CloudFormation, which is what sends stack events to those topics.`,
      );
    const timeout = timeoutOf(childName, properties.TimeoutInMinutes);
    const tags = childStackTags(host.stackTags ?? {}, properties.Tags);
    let result: DeployStackResult;
    const timer = timeout
      ? new ChildTimeout(timeout, host.signal, this.options.timeouts ?? wallClockScheduler)
      : undefined;
    try {
      const read = nestedTemplateSource({
        factory: this.options.factory,
        region,
        replacements: host.replacements,
        taggingOf: (type) => this.options.schemas.tryGet(type)?.tagging,
      });
      const template = await read(properties.TemplateURL, childName, tags);
      result = await deployStack(
        {
          stackName: childName,
          region,
          template,
          parameterValues: parameterValues(properties.Parameters),
          replacements: host.replacements,
          stackTags: tags,
          parent: { parentStack: parentName, parentLogicalId: logicalId, parentRegion: region },
        },
        {
          store: host.store,
          provisioner: this.options.provisioner,
          schemas: this.options.schemas,
          factory: this.options.factory,
          ioHost: host.ioHost,
          concurrency: host.concurrency,
          signal: timer?.signal ?? host.signal,
          cancelSignal: host.cancelSignal,
          force: host.force,
          rollback: host.rollback,
          erroredStateDir: host.erroredStateDir,
          borrowedLock: host.lock,
        },
      );
    } catch (err) {
      const made = creating && !isInDoubt(err) && (await this.childExists(host, childName, region));
      throw childFailure(`deploy nested stack ${childName}`, err, made ? physicalId : undefined);
    } finally {
      timer?.clear();
    }
    passUpWarnings(
      host,
      childName,
      [...result.warnings, ...(result.rollback?.warnings ?? [])],
      result.nestedWarnings,
    );
    // Stopped by its TimeoutInMinutes (not by the user): nothing is in flight, so the failure is definitive.
    if (!result.ok && timer?.expired && !host.signal?.aborted) {
      throw new ProvisioningError(
        `Nested stack ${childName} did not finish within its TimeoutInMinutes (${timeout}).`,
        {
          code: 'NESTED_STACK_TIMEOUT',
          ...(creating ? { createdPhysicalId: physicalId } : {}),
          remedy:
            "Raise the nested stack's timeout (NestedStack `timeout`), or find what is slow, and re-run.",
        },
      );
    }
    if (result.ok) return result.outputs;
    const first = result.failed[0];
    throw new ProvisioningError(
      `Nested stack ${childName} did not deploy completely${first ? `: ${first.logicalId}: ${formatError(first.error)}` : ''}.`,
      {
        code: 'NESTED_STACK_FAILED',
        inDoubt: result.interrupted,
        // The child's record holds what it made: the parent keeps it (deposed) so a destroy reaches it.
        ...(creating && !result.interrupted ? { createdPhysicalId: physicalId } : {}),
        remedy: 'Fix the cause and re-run the deploy; the child continues from its state record.',
      },
    );
  }

  /** True when the child has a state record (a failed create made something, or may have). */
  private async childExists(host: NestedStackHost, childName: string, region: string): Promise<boolean> {
    try {
      return (await host.store.backend.getState(childName, region)) !== undefined;
    } catch {
      return true;
    }
  }
}

/** Hands the parent what the child warned of, each named by the stack that warned. */
function passUpWarnings(
  host: NestedStackHost,
  childName: string,
  own: readonly string[],
  below: readonly NestedStackWarning[] = [],
): void {
  const warnings = [...own.map((warning) => ({ stackName: childName, warning })), ...below];
  if (warnings.length > 0) host.onChildWarnings?.(warnings);
}

/** A child's failure as the parent's operation reports it; an interrupted child leaves the operation in doubt. */
function childFailure(what: string, err: unknown, createdPhysicalId?: string): CdkdError {
  if (err instanceof ProvisioningError && !createdPhysicalId) return err;
  return new ProvisioningError(`Failed to ${what}: ${formatError(err)}`, {
    cause: err,
    code: CdkdError.isCdkdError(err) ? (err as CdkdError).code : 'NESTED_STACK_FAILED',
    ...(createdPhysicalId ? { createdPhysicalId } : {}),
    remedy: CdkdError.isCdkdError(err) ? (err as CdkdError).remedy : 'Fix the cause and re-run.',
  });
}

/** `TimeoutInMinutes`: a positive whole number of minutes, or none. */
function timeoutOf(childName: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const minutes = typeof value === 'string' ? Number(value) : value;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1) {
    throw new CdkdError(
      `Nested stack ${childName}: TimeoutInMinutes ${JSON.stringify(value)} is not a whole number of minutes of at least 1.`,
      {
        code: 'INVALID_TEMPLATE',
        remedy: 'Give the nested stack a timeout of at least one minute, or none.',
      },
    );
  }
  return minutes;
}

/**
 * A child's `TimeoutInMinutes`: once it passes, the child starts no new
 * operation (as a first Ctrl-C would), lets those in flight finish, and fails.
 */
class ChildTimeout {
  private readonly controller = new AbortController();
  readonly clear: () => void;
  expired = false;
  readonly signal: AbortSignal;

  constructor(minutes: number, parent: AbortSignal | undefined, schedule: TimeoutScheduler) {
    this.signal = parent ? AbortSignal.any([parent, this.controller.signal]) : this.controller.signal;
    this.clear = schedule(minutes * 60_000, () => {
      this.expired = true;
      this.controller.abort(new Error(`TimeoutInMinutes (${minutes}) passed`));
    });
  }
}
