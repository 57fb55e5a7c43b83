/**
 * AWS Cloud Control API operations, generic over the resource schemas.
 * Create/Update/Delete are asynchronous requests: PENDING when accepted,
 * IN_PROGRESS while the type's latency runs, then SUCCESS or FAILED. Reads
 * leave out the type's write-only properties, as Cloud Control does.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import {
  HandlerError,
  pointerPath,
  topLevel,
  type ResourceHandlers,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { CallContext, Operations } from '../../core/service';
import { applyPatch, PatchError, type PatchOperation } from './patch';
import { getAt, withoutWriteOnly, type ResourceSchema, type SchemaSource } from './schemas';
import type { CloudControlStore, ResourceRequest } from './store';
import { validateModel, validationMessage } from './validate';

/**
 * Registry types whose provisioning type is NON_PROVISIONABLE: CloudFormation
 * runs them itself (a custom resource's handler, a nested stack), so Cloud
 * Control refuses every request on them although their schemas exist.
 */
const NON_PROVISIONABLE_TYPES: ReadonlySet<string> = new Set([
  'AWS::CloudFormation::CustomResource',
  'AWS::CloudFormation::Stack',
]);

type Input = Record<string, unknown>;
export type OperationName = 'CREATE' | 'UPDATE' | 'DELETE';

export class CloudControlOperations {
  readonly operations: Operations = {
    CreateResource: (ctx, input) => this.createResource(ctx, input),
    UpdateResource: (ctx, input) => this.updateResource(ctx, input),
    DeleteResource: (ctx, input) => this.deleteResource(ctx, input),
    GetResource: (ctx, input) => this.getResource(ctx, input),
    ListResources: (ctx, input) => this.listResources(ctx, input),
    GetResourceRequestStatus: (ctx, input) => this.getResourceRequestStatus(ctx, input),
    ListResourceRequests: (ctx, input) => this.listResourceRequests(ctx, input),
    CancelResourceRequest: (ctx, input) => this.cancelResourceRequest(ctx, input),
  };

  constructor(
    private readonly schemas: SchemaSource,
    private readonly store: CloudControlStore,
    private readonly adapterFor: (typeName: string) => ResourceHandlers,
    private readonly onChange: () => void,
  ) {}

  // ------------------------------------------------------------ helpers

  private scope(ctx: CallContext): ResourceScope {
    return { account: ctx.account, region: ctx.region, baseUrl: ctx.baseUrl };
  }

  private schema(input: Input): ResourceSchema {
    const typeName = input.TypeName;
    if (typeof typeName !== 'string' || !typeName) {
      throw new AwsError(
        'ValidationException',
        "1 validation error detected: Value null at 'typeName' failed to satisfy constraint: Member must not be null",
      );
    }
    if (!/^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$/.test(typeName)) {
      throw new AwsError(
        'ValidationException',
        `1 validation error detected: Value '${typeName}' at 'typeName' failed to satisfy constraint: Member must satisfy regular expression pattern: [A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}`,
      );
    }
    const schema = this.schemas.get(typeName);
    if (!schema) throw new AwsError('TypeNotFoundException', `The type '${typeName}' cannot be found.`, 400);
    return schema;
  }

  private checkProvisionable(schema: ResourceSchema): void {
    const provisionable =
      this.store.settingsFor(schema.typeName).provisionable ?? !NON_PROVISIONABLE_TYPES.has(schema.typeName);
    if (!provisionable) {
      throw new AwsError(
        'UnsupportedActionException',
        `Resource type ${schema.typeName} does not support this action.`,
        400,
      );
    }
  }

  private identifierInput(input: Input): string {
    const identifier = input.Identifier;
    if (typeof identifier !== 'string' || !identifier) {
      throw new AwsError(
        'ValidationException',
        "1 validation error detected: Value null at 'identifier' failed to satisfy constraint: Member must not be null",
      );
    }
    return identifier;
  }

  /**
   * The ProgressEvent of a request. The answer to the mutating call itself
   * (`accepted`) reports PENDING; later reads report IN_PROGRESS until the
   * type's latency has passed, then the outcome.
   */
  progressEvent(r: ResourceRequest, accepted = false): Record<string, unknown> {
    return {
      TypeName: r.typeName,
      Identifier: r.identifier,
      RequestToken: r.token,
      Operation: r.operation,
      OperationStatus: accepted ? 'PENDING' : r.status,
      EventTime: r.eventTime,
      ResourceModel: accepted ? undefined : r.resourceModel,
      StatusMessage: accepted ? undefined : r.statusMessage,
      ErrorCode: accepted ? undefined : r.errorCode,
    };
  }

  /**
   * The same ClientToken with the same input returns the first request;
   * with a different input it is a conflict.
   */
  private replayed(ctx: CallContext, input: Input, operation: OperationName): ResourceRequest | undefined {
    const clientToken = input.ClientToken;
    if (typeof clientToken !== 'string' || !clientToken) return undefined;
    const r = this.store.byClientToken.get(`${ctx.account}|${ctx.region}|${clientToken}`);
    if (!r) return undefined;
    if (r.fingerprint !== JSON.stringify({ operation, input })) {
      throw new AwsError(
        'ClientTokenConflictException',
        "The specified client token has already been used in another resource request. It's best practice for client tokens to be unique for each resource operation request. However, client token expire after 36 hours.",
        400,
      );
    }
    return r;
  }

  private checkConcurrent(ctx: CallContext, typeName: string, identifier: string | undefined): void {
    if (!identifier) return;
    const r = this.store.inProgress.get(`${ctx.account}|${ctx.region}|${typeName}|${identifier}`);
    if (r && r.status === 'IN_PROGRESS') {
      throw new AwsError(
        'ConcurrentOperationException',
        `Another resource operation is currently being performed on this resource (request ${r.token}).`,
        400,
      );
    }
  }

  /**
   * Starts a request: `work` runs when the type's latency has passed (at once
   * when it is zero) and decides SUCCESS or FAILED.
   */
  private start(
    ctx: CallContext,
    input: Input,
    schema: ResourceSchema,
    operation: OperationName,
    identifier: string | undefined,
    work: () => StoredResource | undefined,
  ): ResourceRequest {
    const latency = Math.max(0, this.store.latencyFor(schema.typeName, operation));
    const request: ResourceRequest = {
      token: uuid(),
      account: ctx.account,
      region: ctx.region,
      typeName: schema.typeName,
      identifier,
      operation,
      status: 'IN_PROGRESS',
      eventTime: new Date(),
      clientToken: typeof input.ClientToken === 'string' ? input.ClientToken : undefined,
      fingerprint: JSON.stringify({ operation, input }),
    };
    this.store.requests.set(request.token, request);
    if (request.clientToken)
      this.store.byClientToken.set(`${request.account}|${request.region}|${request.clientToken}`, request);
    const progressKey = identifier
      ? `${request.account}|${request.region}|${request.typeName}|${identifier}`
      : undefined;
    if (progressKey) this.store.inProgress.set(progressKey, request);
    const finish = () => {
      request.timer = undefined;
      if (progressKey && this.store.inProgress.get(progressKey) === request)
        this.store.inProgress.delete(progressKey);
      if (request.status !== 'IN_PROGRESS') return;
      const fail = this.injectedFailure(schema.typeName, operation);
      try {
        if (fail && !fail.afterWork) throw fail.error;
        const result = work();
        if (fail) {
          // The handler made the resource, then failed: the event names it.
          if (result) request.identifier = result.identifier;
          throw fail.error;
        }
        request.status = 'SUCCESS';
        if (result) {
          request.identifier = result.identifier;
          if (operation !== 'DELETE')
            request.resourceModel = JSON.stringify(withoutWriteOnly(schema, result.model));
        }
      } catch (err) {
        if (!(err instanceof HandlerError)) throw err;
        request.status = 'FAILED';
        request.errorCode = err.errorCode;
        request.statusMessage = err.message;
      }
      this.onChange();
    };
    if (latency === 0) finish();
    else {
      request.timer = setTimeout(finish, latency);
      request.timer.unref?.();
    }
    return request;
  }

  private injectedFailure(
    typeName: string,
    operation: OperationName,
  ): { error: HandlerError; afterWork: boolean } | undefined {
    const settings = this.store.typeSettings.get(typeName) ?? this.store.typeSettings.get('*');
    const failWith = settings?.failWith;
    if (!failWith || (failWith.operations && !failWith.operations.includes(operation))) return undefined;
    if (failWith.count !== undefined) {
      if (failWith.count <= 0) return undefined;
      failWith.count--;
    }
    return {
      error: new HandlerError(
        failWith.errorCode,
        failWith.message ?? `Injected ${failWith.errorCode} for ${typeName} (${operation})`,
      ),
      afterWork: failWith.afterCreate === true && operation === 'CREATE',
    };
  }

  private respond(request: ResourceRequest, accepted = false): unknown {
    return { ProgressEvent: this.progressEvent(request, accepted) };
  }

  // -------------------------------------------------------- operations

  private createResource(ctx: CallContext, input: Input): unknown {
    const schema = this.schema(input);
    this.checkProvisionable(schema);
    const replay = this.replayed(ctx, input, 'CREATE');
    if (replay) return this.respond(replay);
    if (typeof input.DesiredState !== 'string') {
      throw new AwsError(
        'ValidationException',
        "1 validation error detected: Value null at 'desiredState' failed to satisfy constraint: Member must not be null",
      );
    }
    let desired: Record<string, unknown>;
    try {
      desired = JSON.parse(input.DesiredState) as Record<string, unknown>;
    } catch {
      throw new AwsError('InvalidRequestException', 'DesiredState is not a valid JSON document', 400);
    }
    if (!desired || typeof desired !== 'object' || Array.isArray(desired))
      throw new AwsError('InvalidRequestException', 'DesiredState must be a JSON object', 400);
    // Cloud Control validates the desired state against the schema before accepting the request.
    checkModel(schema, desired, true);
    const knownIdentifier = identifierFromDesired(schema, desired);
    this.checkConcurrent(ctx, schema.typeName, knownIdentifier);
    const scope = this.scope(ctx);
    const adapter = this.adapterFor(schema.typeName);
    const request = this.start(ctx, input, schema, 'CREATE', knownIdentifier, () =>
      adapter.create(scope, schema, desired),
    );
    return this.respond(request, true);
  }

  private updateResource(ctx: CallContext, input: Input): unknown {
    const schema = this.schema(input);
    this.checkProvisionable(schema);
    const identifier = this.identifierInput(input);
    const replay = this.replayed(ctx, input, 'UPDATE');
    if (replay) return this.respond(replay);
    let operations: PatchOperation[];
    try {
      operations = JSON.parse(String(input.PatchDocument)) as PatchOperation[];
      if (!Array.isArray(operations)) throw new Error('not an array');
    } catch {
      throw new AwsError(
        'InvalidRequestException',
        'PatchDocument is not a valid JSON Patch (RFC 6902) document',
        400,
      );
    }
    this.checkConcurrent(ctx, schema.typeName, identifier);
    const scope = this.scope(ctx);
    const adapter = this.adapterFor(schema.typeName);
    // The patch is applied to the current model and checked before the request is accepted.
    const current = adapter.read(scope, schema, identifier);
    if (!current)
      throw new AwsError(
        'ResourceNotFoundException',
        `Resource of type '${schema.typeName}' with identifier '${identifier}' was not found.`,
        400,
      );
    const readOnly = topLevel(schema.readOnlyProperties);
    const before: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current.model)) if (!readOnly.has(k)) before[k] = v;
    const touchedReadOnly = [
      ...new Set(
        operations.map((op) => String(op?.path ?? '').split('/')[1] ?? '').filter((top) => readOnly.has(top)),
      ),
    ];
    if (touchedReadOnly.length) {
      throw new AwsError(
        'NotUpdatableException',
        `Invalid patch update: readOnlyProperties [${touchedReadOnly.map((p) => `/properties/${p}`).join(', ')}] cannot be updated`,
        400,
      );
    }
    let after: Record<string, unknown>;
    try {
      after = applyPatch(before, operations);
    } catch (err) {
      if (err instanceof PatchError)
        throw new AwsError('ValidationException', `Invalid patch update: ${err.message}`, 400);
      throw err;
    }
    const changed = (schema.createOnlyProperties ?? []).filter(
      (p) => JSON.stringify(getAt(before, pointerPath(p))) !== JSON.stringify(getAt(after, pointerPath(p))),
    );
    if (changed.length)
      throw new AwsError(
        'NotUpdatableException',
        `Invalid patch update: createOnlyProperties [${changed.join(', ')}] cannot be updated`,
        400,
      );
    checkModel(schema, after, false);
    const request = this.start(ctx, input, schema, 'UPDATE', identifier, () =>
      adapter.update(scope, schema, identifier, after),
    );
    return this.respond(request, true);
  }

  private deleteResource(ctx: CallContext, input: Input): unknown {
    const schema = this.schema(input);
    this.checkProvisionable(schema);
    const identifier = this.identifierInput(input);
    const replay = this.replayed(ctx, input, 'DELETE');
    if (replay) return this.respond(replay);
    this.checkConcurrent(ctx, schema.typeName, identifier);
    const scope = this.scope(ctx);
    const adapter = this.adapterFor(schema.typeName);
    const request = this.start(ctx, input, schema, 'DELETE', identifier, () => {
      adapter.delete(scope, schema, identifier);
      return { identifier, model: {} };
    });
    return this.respond(request, true);
  }

  private getResource(ctx: CallContext, input: Input): unknown {
    const schema = this.schema(input);
    this.checkProvisionable(schema);
    const identifier = this.identifierInput(input);
    const found = this.adapterFor(schema.typeName).read(this.scope(ctx), schema, identifier);
    if (!found)
      throw new AwsError(
        'ResourceNotFoundException',
        `Resource of type '${schema.typeName}' with identifier '${identifier}' was not found.`,
        400,
      );
    return {
      TypeName: schema.typeName,
      ResourceDescription: {
        Identifier: found.identifier,
        Properties: JSON.stringify(withoutWriteOnly(schema, found.model)),
      },
    };
  }

  private listResources(ctx: CallContext, input: Input): unknown {
    const schema = this.schema(input);
    this.checkProvisionable(schema);
    const max = typeof input.MaxResults === 'number' ? input.MaxResults : 100;
    if (max < 1 || max > 100)
      throw new AwsError(
        'ValidationException',
        "1 validation error detected: Value at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100",
      );
    const all = this.adapterFor(schema.typeName)
      .list(this.scope(ctx), schema)
      .sort((a, b) => (a.identifier < b.identifier ? -1 : 1));
    const start =
      typeof input.NextToken === 'string'
        ? Number(Buffer.from(input.NextToken, 'base64').toString('utf8')) || 0
        : 0;
    const page = all.slice(start, start + max);
    return {
      TypeName: schema.typeName,
      ResourceDescriptions: page.map((r) => ({
        Identifier: r.identifier,
        Properties: JSON.stringify(withoutWriteOnly(schema, r.model)),
      })),
      NextToken: start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined,
    };
  }

  private requestFor(ctx: CallContext, input: Input): ResourceRequest {
    const token = input.RequestToken;
    const request = typeof token === 'string' ? this.store.requests.get(token) : undefined;
    if (!request || request.account !== ctx.account || request.region !== ctx.region) {
      throw new AwsError(
        'RequestTokenNotFoundException',
        `Request with token ${String(token)} was not found.`,
        400,
      );
    }
    return request;
  }

  private getResourceRequestStatus(ctx: CallContext, input: Input): unknown {
    return this.respond(this.requestFor(ctx, input));
  }

  private listResourceRequests(ctx: CallContext, input: Input): unknown {
    const filter = (input.ResourceRequestStatusFilter ?? {}) as {
      Operations?: string[];
      OperationStatuses?: string[];
    };
    const max = typeof input.MaxResults === 'number' ? input.MaxResults : 100;
    const all = [...this.store.requests.values()]
      .filter((r) => r.account === ctx.account && r.region === ctx.region)
      .map((r) => this.progressEvent(r))
      .filter(
        (e) =>
          (!filter.Operations?.length || filter.Operations.includes(e.Operation as string)) &&
          (!filter.OperationStatuses?.length ||
            filter.OperationStatuses.includes(e.OperationStatus as string)),
      )
      .reverse();
    const start =
      typeof input.NextToken === 'string'
        ? Number(Buffer.from(input.NextToken, 'base64').toString('utf8')) || 0
        : 0;
    return {
      ResourceRequestStatusSummaries: all.slice(start, start + max),
      NextToken: start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined,
    };
  }

  private cancelResourceRequest(ctx: CallContext, input: Input): unknown {
    const request = this.requestFor(ctx, input);
    if (request.status !== 'IN_PROGRESS') {
      throw new AwsError(
        'ConcurrentModificationException',
        `The resource request ${request.token} is ${request.status} and can no longer be canceled.`,
        400,
      );
    }
    if (request.timer) clearTimeout(request.timer);
    request.timer = undefined;
    request.status = 'CANCEL_COMPLETE';
    if (request.identifier)
      this.store.inProgress.delete(
        `${request.account}|${request.region}|${request.typeName}|${request.identifier}`,
      );
    // The cancel answer reports the cancellation under way; later reads report it complete.
    return { ProgressEvent: { ...this.progressEvent(request), OperationStatus: 'CANCEL_IN_PROGRESS' } };
  }
}

/** The identifier when the desired state already names it (e.g. a given name). */
function identifierFromDesired(schema: ResourceSchema, desired: Record<string, unknown>): string | undefined {
  const readOnly = new Set(schema.readOnlyProperties ?? []);
  if (schema.primaryIdentifier.some((p) => readOnly.has(p))) return undefined;
  const parts = schema.primaryIdentifier.map((p) => getAt(desired, pointerPath(p)));
  return parts.every((v) => typeof v === 'string' && v) ? parts.join('|') : undefined;
}

/** Schema validation, and no read-only property in a desired state: a 400 ValidationException, as Cloud Control answers. */
function checkModel(schema: ResourceSchema, model: Record<string, unknown>, isCreate: boolean): void {
  const errors = validateModel(schema, model);
  if (errors.length) throw new AwsError('ValidationException', validationMessage(errors), 400);
  if (isCreate) {
    const readOnly = (schema.readOnlyProperties ?? []).filter(
      (p) => !p.includes('*') && getAt(model, pointerPath(p)) !== undefined,
    );
    if (readOnly.length)
      throw new AwsError(
        'ValidationException',
        `Model validation failed (#: read-only properties [${readOnly.join(', ')}] cannot be set)`,
        400,
      );
  }
}
