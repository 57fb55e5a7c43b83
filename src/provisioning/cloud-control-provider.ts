/**
 * The fallback provider: any resource type no provider pack handles is
 * provisioned through the AWS Cloud Control API.
 *
 * - create: CreateResource with a ClientToken derived from the intent's token and
 *   its durable attempt number (so a re-run re-sends the very request a killed
 *   process had in flight and Cloud Control answers with that request), then
 *   poll GetResourceRequestStatus until it settles, then GetResource for the
 *   attributes. A create that ends FAILED after the handler made the resource
 *   (the event carries an Identifier that GetResource finds) is reported with
 *   that id, never retried.
 * - update: UpdateResource with a minimal RFC 6902 patch from the recorded to
 *   the desired properties, and a ClientToken of its own intent.
 * - delete: DeleteResource with a ClientToken; NotFound counts as deleted only
 *   when the client's region is the region the resource was recorded in.
 * - Transport errors are retried by the SDK alone; a FAILED request with a
 *   handler error that says "try again" is marked retryable for the engine's
 *   one outer retry (a new attempt, with a new request token). NotStabilized is
 *   not retried for a create: the resource exists.
 * - The call's AbortSignal reaches every request and wait; when it aborts during
 *   a wait the request is cancelled (CancelResourceRequest) and the outcome is in
 *   doubt: the next run settles it from the request token.
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
import { ProvisioningError, ResourceExistsError } from '../util/errors';
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

/** A create that did not stabilize made its resource: retrying it would make another. */
const NOT_RETRYABLE_FOR_CREATE = new Set(['NotStabilized']);

/**
 * What cdkd's engine adds to a call's context for this provider: where to note
 * the request token of each attempt, so a later run can find the request again.
 */
export interface RequestTokenSink {
  onRequestToken?(requestToken: string, attempt: number): void;
}

type OperationContext = (CreateContext | UpdateContext | DeleteContext | undefined) & RequestTokenSink;

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

/** A copy of `model` without the values at the given `/properties/...` pointers. */
function withoutPaths(model: Record<string, unknown>, pointers: string[]): Record<string, unknown> {
  const out = structuredClone(model);
  for (const pointer of pointers) {
    const parts = pointer.replace(/^\/properties\//, '').split('/');
    let parent: unknown = out;
    for (const part of parts.slice(0, -1)) {
      parent =
        typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[part] : undefined;
    }
    if (typeof parent === 'object' && parent !== null)
      delete (parent as Record<string, unknown>)[parts[parts.length - 1]];
  }
  return out;
}

export class CloudControlProvider implements ResourceProvider {
  private readonly options: Required<CloudControlProviderOptions>;

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
    const ctx = context as OperationContext;
    const attempt = context.attempt ?? 0;
    const token = toClientToken(`${context.idempotencyToken}#${attempt}`);
    const event = await this.call(logicalId, resourceType, undefined, () =>
      this.client().send(
        new CreateResourceCommand({
          TypeName: resourceType,
          DesiredState: JSON.stringify(desired),
          ClientToken: token,
        }),
        { abortSignal: context.signal },
      ),
    );
    if (event.ProgressEvent?.RequestToken) ctx.onRequestToken?.(event.ProgressEvent.RequestToken, attempt);
    const final = await this.waitFor(event, logicalId, resourceType, undefined, context.signal);
    return this.created(logicalId, resourceType, final, context.signal);
  }

  /**
   * Resumes waiting for a create request a killed process started (its request
   * token, readable for 7 days), for a create too old to re-send under its
   * ClientToken (Cloud Control keeps those for 36 hours).
   */
  async resumeCreate(
    logicalId: string,
    resourceType: string,
    requestToken: string,
    signal?: AbortSignal,
  ): Promise<ResourceCreateResult> {
    const final = await this.waitFor(
      { ProgressEvent: { RequestToken: requestToken, Operation: 'CREATE', OperationStatus: 'IN_PROGRESS' } },
      logicalId,
      resourceType,
      undefined,
      signal,
    );
    return this.created(logicalId, resourceType, final, signal);
  }

  private async created(
    logicalId: string,
    resourceType: string,
    final: ProgressEvent,
    signal: AbortSignal | undefined,
  ): Promise<ResourceCreateResult> {
    const identifier = final.Identifier;
    if (!identifier) {
      throw new ProvisioningError(
        `Cloud Control created ${logicalId} (${resourceType}) but returned no identifier.`,
        { resource: { logicalId, resourceType }, inDoubt: true },
      );
    }
    const model = await this.readModel(logicalId, resourceType, identifier, signal);
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
      await this.request(logicalId, resourceType, physicalId, context, (ClientToken) =>
        this.client().send(
          new UpdateResourceCommand({
            TypeName: resourceType,
            Identifier: physicalId,
            PatchDocument: JSON.stringify(patch),
            ...ClientToken,
          }),
          { abortSignal: context?.signal },
        ),
      );
    }
    const model = await this.readModel(logicalId, resourceType, physicalId, context?.signal);
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
      await this.request(logicalId, resourceType, physicalId, context, (ClientToken) =>
        this.client().send(
          new DeleteResourceCommand({ TypeName: resourceType, Identifier: physicalId, ...ClientToken }),
          { abortSignal: context?.signal },
        ),
      );
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

  /**
   * Sends an update or delete request with the ClientToken of the intent's attempt,
   * notes its request token, and waits for it to settle.
   */
  private async request(
    logicalId: string,
    resourceType: string,
    physicalId: string,
    context: UpdateContext | DeleteContext | undefined,
    send: (clientToken: { ClientToken?: string }) => Promise<{ ProgressEvent?: ProgressEvent }>,
  ): Promise<ProgressEvent> {
    const attempt = context?.attempt ?? 0;
    const clientToken = context?.idempotencyToken
      ? { ClientToken: toClientToken(`${context.idempotencyToken}#${attempt}`) }
      : {};
    const event = await this.call(logicalId, resourceType, physicalId, () => send(clientToken));
    if (event.ProgressEvent?.RequestToken)
      (context as OperationContext)?.onRequestToken?.(event.ProgressEvent.RequestToken, attempt);
    return this.waitFor(event, logicalId, resourceType, physicalId, context?.signal);
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
    signal?: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const { GetResourceCommand } = cc();
    const out = await this.call(logicalId, resourceType, identifier, () =>
      this.client().send(new GetResourceCommand({ TypeName: resourceType, Identifier: identifier }), {
        abortSignal: signal,
      }),
    );
    const text = out.ResourceDescription?.Properties;
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  }

  /**
   * Fn::GetAtt values: the schema's attribute names read from the model; without
   * them the whole model, less the schema's write-only properties (a password, a
   * secret string) — AWS should never return those, and state must not keep one
   * that came back anyway.
   */
  private attributesOf(resourceType: string, model: Record<string, unknown>): Record<string, unknown> {
    const schema = this.options.schemas.get(resourceType);
    const names = schema?.attributes;
    if (!names) return withoutPaths(model, schema?.writeOnlyProperties ?? []);
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
    if (name === 'ClientTokenConflictException') {
      return new ProvisioningError(
        `${logicalId} (${resourceType}): Cloud Control refused the request because its ClientToken was already used for a different request (${(err as Error).message}).`,
        {
          code: 'CLIENT_TOKEN_CONFLICT',
          cause: err,
          resource,
          remedy:
            'The operation an interrupted run announced differs from the one sent now (a secret it references may have changed). Check the resource in AWS, then re-run.',
        },
      );
    }
    if (name === 'ConcurrentOperationException') {
      return new ProvisioningError(
        `${logicalId} (${resourceType}): another Cloud Control operation is in progress on ${physicalId ?? 'the resource'} (${(err as Error).message}).`,
        { code: 'CONCURRENT_OPERATION', cause: err, resource, retryable: true },
      );
    }
    if (name === 'AlreadyExistsException') {
      return new ResourceExistsError(
        `${logicalId} (${resourceType}) already exists: ${(err as Error).message}`,
        {
          cause: err,
          resource,
        },
      );
    }
    return err;
  }

  /**
   * Polls the request until it settles; returns the SUCCESS event or throws. When
   * `signal` aborts, the request is cancelled (best effort) and the abort is thrown:
   * the outcome is in doubt until a later run reads the request again.
   */
  private async waitFor(
    initial: { ProgressEvent?: ProgressEvent },
    logicalId: string,
    resourceType: string,
    physicalId: string | undefined,
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
          const made = await this.madeBeforeFailing(event, logicalId, resourceType, signal);
          throw this.failure(event, logicalId, resourceType, physicalId, made);
        }
        if (!event.RequestToken) {
          throw new ProvisioningError(
            `Cloud Control returned no request token for ${logicalId} (${resourceType}).`,
            {
              resource: { logicalId, resourceType, physicalId },
              inDoubt: true,
            },
          );
        }
        if (ticket.timedOut()) {
          throw new ProvisioningError(
            `${logicalId} (${resourceType}): Cloud Control request ${event.RequestToken} did not finish within ${Math.round(ticket.timeoutMs / 60_000)} minutes, the handler timeout.`,
            {
              resource: { logicalId, resourceType, physicalId },
              inDoubt: true,
              remedy: 'Check the resource in the AWS console, then re-run: cdkd reads the request again.',
            },
          );
        }
        const token = event.RequestToken;
        try {
          await ticket.next(event.RetryAfter, signal);
          if (signal?.aborted) throw signal.reason ?? abortError();
          const out = await this.client().send(new GetResourceRequestStatusCommand({ RequestToken: token }), {
            abortSignal: signal,
          });
          event = out.ProgressEvent ?? {};
          ticket.answered(event.OperationStatus);
        } catch (err) {
          if (signal?.aborted) {
            await this.cancel(token, logicalId);
            throw new ProvisioningError(
              `${logicalId} (${resourceType}): stopped waiting for Cloud Control request ${token} (cancelled).`,
              {
                resource: { logicalId, resourceType, physicalId },
                inDoubt: true,
                cause: signal.reason ?? err,
              },
            );
          }
          // A check that went unanswered (throttled past the SDK's retries, say) is not the request
          // failing; after too many the outcome is in doubt (transient), and the next run reads it again.
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

  /** Asks Cloud Control to cancel a request; a request that finished meanwhile cannot be, which is fine. */
  private async cancel(requestToken: string, logicalId: string): Promise<void> {
    const { CancelResourceRequestCommand } = cc();
    try {
      await this.client().send(new CancelResourceRequestCommand({ RequestToken: requestToken }), {
        abortSignal: AbortSignal.timeout(5000),
      });
      this.ctx.logger.debug(`${logicalId}: cancelled Cloud Control request ${requestToken}.`);
    } catch (err) {
      this.ctx.logger.debug(
        `${logicalId}: could not cancel Cloud Control request ${requestToken}: ${(err as Error)?.name ?? err}`,
      );
    }
  }

  /**
   * The identifier a FAILED create carries, when it names a resource that exists.
   * Cloud Control may report an identifier before the handler made anything
   * ("may be available before SUCCESS"), so it is read: a resource that is not
   * found was not made (the create may be retried); one found, or a read that
   * fails (throttled, cut off), is kept as made, so a made resource is never
   * forgotten. Not for AlreadyExists, whose identifier names the resource the
   * create collided with.
   */
  private async madeBeforeFailing(
    event: ProgressEvent,
    logicalId: string,
    resourceType: string,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const identifier = event.Identifier;
    if (event.Operation !== 'CREATE' || !identifier || event.ErrorCode === 'AlreadyExists') return undefined;
    try {
      await this.readModel(logicalId, resourceType, identifier, signal);
      return identifier;
    } catch (err) {
      if (isNotFound(err)) {
        this.ctx.logger.debug(
          `${logicalId}: the failed create's identifier ${identifier} names no resource; nothing was made.`,
        );
        return undefined;
      }
      return identifier;
    }
  }

  private failure(
    event: ProgressEvent,
    logicalId: string,
    resourceType: string,
    physicalId: string | undefined,
    createdPhysicalId: string | undefined,
  ): ProvisioningError {
    const code =
      event.ErrorCode ??
      (event.OperationStatus === 'CANCEL_COMPLETE' ? 'Cancelled' : 'GeneralServiceException');
    const verb = event.Operation?.toLowerCase() ?? 'provision';
    const isCreate = event.Operation === 'CREATE';
    const message = `Failed to ${verb} ${logicalId} (${resourceType}) through Cloud Control: ${code}: ${event.StatusMessage ?? 'no message'}`;
    const options = {
      cause: undefined,
      resource: { logicalId, resourceType, physicalId: physicalId ?? createdPhysicalId },
      retryable:
        !createdPhysicalId &&
        RETRYABLE_HANDLER_ERRORS.has(code) &&
        !(isCreate && NOT_RETRYABLE_FOR_CREATE.has(code)),
      ...(createdPhysicalId ? { createdPhysicalId } : {}),
      remedy: createdPhysicalId
        ? `The create made ${createdPhysicalId} before it failed; cdkd keeps it in state and deletes it in the cleanup of the next successful deploy (or on destroy).`
        : undefined,
    };
    if (code === 'AlreadyExists') {
      return new ResourceExistsError(message, {
        ...options,
        remedy:
          'A resource with the same name already exists: rename it in the app, or delete the existing one.',
      });
    }
    return new ProvisioningError(message, {
      ...options,
      code: code === 'NotFound' ? 'RESOURCE_NOT_FOUND' : 'PROVISIONING_ERROR',
    });
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

function abortError(): Error {
  const err = new Error('The operation was aborted');
  err.name = 'AbortError';
  return err;
}
