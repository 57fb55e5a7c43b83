/**
 * The fallback provider: any resource type no provider pack handles is
 * provisioned through the AWS Cloud Control API.
 *
 * - create: CreateResource with a ClientToken that is stable across retries of
 *   the same create, then poll GetResourceRequestStatus until it settles, then
 *   GetResource for the attributes.
 * - update: UpdateResource with a minimal RFC 6902 patch from the recorded to
 *   the desired properties.
 * - delete: DeleteResource; NotFound counts as deleted only when the client's
 *   region is the region the resource was recorded in.
 *
 * When to check a request's status is the poll schedule's decision
 * (`poll-schedule.ts`): shared by every request of the run, it checks each one
 * when requests of the same type and operation finished before (or at once and
 * then densely for the first one of a type), honours the progress event's
 * RetryAfter, and keeps a throttled check from failing the wait.
 * docs/benchmarks.md has the measurements behind it.
 */
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '../plugin-api';
import type * as CloudControl from '@aws-sdk/client-cloudcontrol';
import type { ProgressEvent } from '@aws-sdk/client-cloudcontrol';
import { createHash } from 'node:crypto';
import { ProvisioningError } from '../util/errors';
import { createJsonPatch } from '../util/json-patch';
import { isTransientAwsError } from '../util/retry';
import { coerceProperties } from './coerce-properties';
import type { SchemaDocument } from './coerce-properties';
import { PollSchedule } from './poll-schedule';
import type { RequestOperation } from './poll-schedule';

/** What the provider reads from a type's schema (see docs/schemas.md). */
export interface CloudControlSchema extends SchemaDocument {
  attributes?: string[];
  readOnlyProperties?: string[];
  writeOnlyProperties?: string[];
  /** Registry-schema handlers; `timeoutInMinutes` bounds a request of that operation. */
  handlers?: Partial<Record<'create' | 'update' | 'delete', { timeoutInMinutes?: number }>>;
}

export interface CloudControlSchemaSource {
  get(type: string): CloudControlSchema | undefined;
}

export interface CloudControlProviderOptions {
  schemas: CloudControlSchemaSource;
  /** When to check a request's status; one per run, shared by every provider instance. Default: a fresh one. */
  schedule?: PollSchedule;
}

/** Status checks in a row that may go unanswered (each after the SDK's own retries) before the wait gives up. */
const MAX_UNANSWERED_CHECKS = 8;

/** Progress-event error codes that say "try again" rather than "this request is wrong". */
const RETRYABLE_HANDLER_ERRORS = new Set([
  'Throttling',
  'ServiceInternalError',
  'InternalFailure',
  'NetworkFailure',
  'ServiceTimeout',
  'NotStabilized',
  'ResourceConflict',
]);

/** Error names of the Cloud Control API that mean the type cannot be provisioned through it. */
const UNSUPPORTED_TYPE_ERRORS = new Set([
  'UnsupportedActionException',
  'TypeNotFoundException',
  'PrivateTypeException',
]);

type CloudControlModule = typeof CloudControl;

function cc(): CloudControlModule {
  // Loaded on first use so commands that never provision do not pay for it.
  return require('@aws-sdk/client-cloudcontrol') as CloudControlModule;
}

/** Cloud Control ClientToken: [-A-Za-z0-9+/=]+, at most 128 characters. */
export function toClientToken(seed: string): string {
  return createHash('sha256').update(seed).digest('base64').replace(/=+$/, '');
}

function readPath(model: Record<string, unknown>, dotted: string): unknown {
  let current: unknown = model;
  for (const part of dotted.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export class CloudControlProvider implements ResourceProvider {
  private readonly options: Required<CloudControlProviderOptions>;
  /** Creates whose earlier request ended FAILED: the next attempt needs a fresh token. */
  private readonly failedAttempts = new Map<string, number>();
  /** Errors that report a request Cloud Control settled as FAILED (not a lost or refused call). */
  private readonly settledFailures = new WeakSet<object>();

  constructor(
    private readonly ctx: ProviderContext,
    options: CloudControlProviderOptions,
  ) {
    this.options = { ...options, schedule: options.schedule ?? new PollSchedule() };
  }

  private client() {
    return this.ctx.clients.get(cc().CloudControlClient, { region: this.ctx.region });
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { CreateResourceCommand } = cc();
    const desired = coerceProperties(properties, this.options.schemas.get(resourceType));
    const attempt = this.failedAttempts.get(context.idempotencyToken) ?? 0;
    const token = toClientToken(`${context.idempotencyToken}#${attempt}`);
    const event = await this.call(logicalId, resourceType, undefined, () =>
      this.client().send(
        new CreateResourceCommand({
          TypeName: resourceType,
          DesiredState: JSON.stringify(desired),
          ClientToken: token,
        }),
      ),
    );
    let final: ProgressEvent;
    try {
      final = await this.waitFor(event, logicalId, resourceType, undefined);
    } catch (err) {
      // Cloud Control answers a reused token with the same settled request, so a retry
      // after a FAILED request needs a new one; after a lost reply it must keep the old one.
      if (typeof err === 'object' && err !== null && this.settledFailures.has(err)) {
        this.failedAttempts.set(context.idempotencyToken, attempt + 1);
      }
      throw err;
    }
    const identifier = final.Identifier;
    if (!identifier) {
      throw new ProvisioningError(
        `Cloud Control created ${logicalId} (${resourceType}) but returned no identifier.`,
        {
          resource: { logicalId, resourceType },
        },
      );
    }
    this.failedAttempts.delete(context.idempotencyToken);
    const model = await this.readModel(logicalId, resourceType, identifier);
    return { physicalId: identifier, attributes: this.attributesOf(resourceType, model ?? {}) };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    this.ctx.assertRegionMatch(
      this.ctx.region,
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const { UpdateResourceCommand } = cc();
    const schema = this.options.schemas.get(resourceType);
    const patch = createJsonPatch(
      coerceProperties(previousProperties, schema),
      coerceProperties(properties, schema),
    );
    if (patch.length > 0) {
      const event = await this.call(logicalId, resourceType, physicalId, () =>
        this.client().send(
          new UpdateResourceCommand({
            TypeName: resourceType,
            Identifier: physicalId,
            PatchDocument: JSON.stringify(patch),
          }),
        ),
      );
      await this.waitFor(event, logicalId, resourceType, physicalId);
    }
    const model = await this.readModel(logicalId, resourceType, physicalId);
    return { physicalId, wasReplaced: false, attributes: this.attributesOf(resourceType, model ?? {}) };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    this.ctx.assertRegionMatch(
      this.ctx.region,
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    const { DeleteResourceCommand } = cc();
    try {
      const event = await this.call(logicalId, resourceType, physicalId, () =>
        this.client().send(new DeleteResourceCommand({ TypeName: resourceType, Identifier: physicalId })),
      );
      await this.waitFor(event, logicalId, resourceType, physicalId);
    } catch (err) {
      if (isNotFound(err)) {
        this.ctx.assertRegionMatch(
          this.ctx.region,
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
          'not-found',
        );
        this.ctx.logger.debug(`${logicalId} (${resourceType}) ${physicalId} was already gone`);
        return;
      }
      throw err;
    }
  }

  async getAttribute(physicalId: string, resourceType: string, attributeName: string): Promise<unknown> {
    const model = await this.readModel(physicalId, resourceType, physicalId).catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    return model ? readPath(model, attributeName) : undefined;
  }

  async readCurrentState(
    physicalId: string,
    logicalId: string,
    resourceType: string,
  ): Promise<Record<string, unknown> | undefined> {
    return this.readModel(logicalId, resourceType, physicalId).catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  }

  /** The resource model from GetResource (read-only properties included). */
  private async readModel(
    logicalId: string,
    resourceType: string,
    identifier: string,
  ): Promise<Record<string, unknown> | undefined> {
    const { GetResourceCommand } = cc();
    const out = await this.call(logicalId, resourceType, identifier, () =>
      this.client().send(new GetResourceCommand({ TypeName: resourceType, Identifier: identifier })),
    );
    const text = out.ResourceDescription?.Properties;
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  }

  /** Fn::GetAtt values: the schema's attribute names read from the model. */
  private attributesOf(resourceType: string, model: Record<string, unknown>): Record<string, unknown> {
    const names = this.options.schemas.get(resourceType)?.attributes;
    if (!names) return { ...model };
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const value = readPath(model, name);
      if (value !== undefined && value !== '') out[name] = value;
    }
    return out;
  }

  /** Sends one Cloud Control call, translating its errors into cdkd errors. */
  private async call<T>(
    logicalId: string,
    resourceType: string,
    physicalId: string | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    try {
      return await send();
    } catch (err) {
      throw this.translate(err, logicalId, resourceType, physicalId);
    }
  }

  private translate(err: unknown, logicalId: string, resourceType: string, physicalId?: string): unknown {
    const name = (err as Error)?.name;
    const resource = { logicalId, resourceType, physicalId };
    if (UNSUPPORTED_TYPE_ERRORS.has(name)) {
      return new ProvisioningError(
        `${logicalId}: Cloud Control cannot provision ${resourceType} (${name}: ${(err as Error).message}).`,
        {
          code: 'TYPE_NOT_PROVISIONABLE',
          cause: err,
          resource,
          remedy: `Install a provider pack that handles ${resourceType} (see \`cdkd providers\` and \`cdkd plugins install\`), or remove the resource from the stack.`,
        },
      );
    }
    if (name === 'ResourceNotFoundException') {
      return new ProvisioningError(
        `${logicalId} (${resourceType}) ${physicalId ?? ''} not found: ${(err as Error).message}`,
        {
          code: 'RESOURCE_NOT_FOUND',
          cause: err,
          resource,
        },
      );
    }
    if (name === 'AlreadyExistsException') {
      return new ProvisioningError(
        `${logicalId} (${resourceType}) already exists: ${(err as Error).message}`,
        {
          code: 'RESOURCE_ALREADY_EXISTS',
          cause: err,
          resource,
        },
      );
    }
    return err;
  }

  /** Polls the request until it settles; returns the SUCCESS event or throws. */
  private async waitFor(
    initial: { ProgressEvent?: ProgressEvent },
    logicalId: string,
    resourceType: string,
    physicalId: string | undefined,
    /** Not passed yet: abandoning a wait must first record the request (crash-safe deploys). */
    signal?: AbortSignal,
  ): Promise<ProgressEvent> {
    const { GetResourceRequestStatusCommand } = cc();
    let event = initial.ProgressEvent ?? {};
    const operation = (event.Operation ?? 'CREATE') as RequestOperation;
    const ticket = this.options.schedule.begin(
      resourceType,
      operation,
      this.options.schemas.get(resourceType)?.handlers?.[lowerCase(operation)]?.timeoutInMinutes,
    );
    try {
      while (event.OperationStatus !== 'SUCCESS') {
        if (event.OperationStatus === 'FAILED' || event.OperationStatus === 'CANCEL_COMPLETE') {
          throw this.failure(event, logicalId, resourceType, physicalId);
        }
        if (!event.RequestToken) {
          throw new ProvisioningError(
            `Cloud Control returned no request token for ${logicalId} (${resourceType}).`,
            {
              resource: { logicalId, resourceType, physicalId },
            },
          );
        }
        if (ticket.timedOut()) {
          throw new ProvisioningError(
            `${logicalId} (${resourceType}): Cloud Control request ${event.RequestToken} did not finish within ${Math.round(ticket.timeoutMs / 60_000)} minutes, the handler timeout.`,
            {
              resource: { logicalId, resourceType, physicalId },
              remedy: 'Check the resource in the AWS console, then re-run.',
            },
          );
        }
        await ticket.next(event.RetryAfter, signal);
        const token = event.RequestToken;
        try {
          const out = await this.client().send(new GetResourceRequestStatusCommand({ RequestToken: token }));
          event = out.ProgressEvent ?? {};
          ticket.answered(event.OperationStatus);
        } catch (err) {
          // A check that went unanswered (throttled past the SDK's retries, say) is not the request failing.
          if (!isTransientAwsError(err) || ticket.consecutiveUnanswered + 1 >= MAX_UNANSWERED_CHECKS) {
            throw this.translate(err, logicalId, resourceType, physicalId);
          }
          ticket.unanswered();
        }
      }
      return event;
    } finally {
      ticket.end();
    }
  }

  private failure(
    event: ProgressEvent,
    logicalId: string,
    resourceType: string,
    physicalId?: string,
  ): ProvisioningError {
    const code = event.ErrorCode ?? 'GeneralServiceException';
    const verb = event.Operation?.toLowerCase() ?? 'provision';
    const error = new ProvisioningError(
      `Failed to ${verb} ${logicalId} (${resourceType}) through Cloud Control: ${code}: ${event.StatusMessage ?? 'no message'}`,
      {
        code:
          code === 'NotFound'
            ? 'RESOURCE_NOT_FOUND'
            : code === 'AlreadyExists'
              ? 'RESOURCE_ALREADY_EXISTS'
              : 'PROVISIONING_ERROR',
        resource: { logicalId, resourceType, physicalId },
        retryable: RETRYABLE_HANDLER_ERRORS.has(code),
        remedy:
          code === 'AlreadyExists'
            ? 'A resource with the same name already exists: rename it in the app, or delete the existing one.'
            : undefined,
      },
    );
    this.settledFailures.add(error);
    return error;
  }
}

function lowerCase(operation: RequestOperation): 'create' | 'update' | 'delete' {
  return operation.toLowerCase() as 'create' | 'update' | 'delete';
}

function isNotFound(err: unknown): boolean {
  return (
    (err as { code?: string })?.code === 'RESOURCE_NOT_FOUND' ||
    (err as Error)?.name === 'ResourceNotFoundException'
  );
}
