/**
 * What the Cloud Control mappings of the Lambda types share: they run the
 * native handlers (so validation and errors are Lambda's own) under a call
 * context made from the Cloud Control scope, turn Lambda's errors into
 * handler errors, and keep the CloudFormation properties the API does not.
 */
import { AwsError } from '../../../core/errors';
import { uuid } from '../../../core/ids';
import { HandlerError, notFound, serviceFailure, type ResourceScope } from '../../../core/resources';
import type { CallContext, Operations } from '../../../core/service';
import type { LambdaContext } from '../context';
import type { EventSourceHandlers } from '../event-sources';
import type { FunctionHandlers } from '../functions';

/** The pieces of the service the mappings call. */
export interface LambdaParts {
  context: LambdaContext;
  functions: FunctionHandlers;
  eventSources: EventSourceHandlers;
}

/** A call context for running native handlers on behalf of Cloud Control. */
export function callContext(scope: ResourceScope): CallContext {
  return {
    account: scope.account,
    region: scope.region,
    accessKeyId: 'cloudcontrol',
    callerArn: `arn:aws:iam::${scope.account}:root`,
    callerUserId: scope.account,
    requestId: uuid(),
    baseUrl: scope.baseUrl,
    presigned: false,
    request: {
      method: 'POST',
      rawPath: '/',
      query: new URLSearchParams(),
      headers: {},
      body: Buffer.alloc(0),
      host: '',
      baseUrl: scope.baseUrl,
      arrivedAt: 0,
    },
  };
}

/** Runs a native operation; Lambda's errors become the handler errors Cloud Control reports. */
export function run<T>(operations: Operations, name: string, ctx: CallContext, input: unknown): T {
  try {
    return operations[name]!(ctx, input) as T;
  } catch (err) {
    if (
      err instanceof AwsError &&
      err.code === 'ResourceConflictException' &&
      /already exist/.test(err.message)
    )
      throw new HandlerError('AlreadyExists', err.message);
    throw serviceFailure(err, 'Lambda');
  }
}

/** A read: undefined when Lambda answers not-found. */
export function tryRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof HandlerError && /not found|does not exist|doesn't have/i.test(err.message))
      return undefined;
    if (err instanceof AwsError && err.code === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

/** Runs `fn`; a not-found becomes Cloud Control's NotFound for the identifier. */
export function orNotFound<T>(typeName: string, identifier: string, fn: () => T): T {
  const result = tryRead(fn);
  if (result === undefined) throw notFound(typeName, identifier);
  return result;
}

/** `[{ Key, Value }]` → a map. */
export function tagMap(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(tags))
    for (const t of tags as Array<{ Key: string; Value: string }>) out[t.Key] = t.Value;
  return out;
}

/** A map → `[{ Key, Value }]` sorted by key, or undefined when empty. */
export function tagList(tags: Record<string, string>): Array<{ Key: string; Value: string }> | undefined {
  const entries = Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length ? entries.map(([Key, Value]) => ({ Key, Value })) : undefined;
}

/** Drops undefined members (so a model lists only what is set). */
export function defined(model: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(model)) if (v !== undefined) out[k] = v;
  return out;
}

/** The CloudFormation-only properties kept for one resource. */
export class Extras {
  constructor(
    private readonly context: LambdaContext,
    private readonly typeName: string,
  ) {}

  private key(scope: { account: string; region: string }, identifier: string): string {
    return `${this.typeName}|${scope.account}|${scope.region}|${identifier}`;
  }

  get(scope: { account: string; region: string }, identifier: string): Record<string, unknown> {
    return this.context.store.cloudFormationExtras.get(this.key(scope, identifier)) ?? {};
  }

  set(scope: { account: string; region: string }, identifier: string, extras: Record<string, unknown>): void {
    const kept = defined(extras);
    if (Object.keys(kept).length)
      this.context.store.cloudFormationExtras.set(this.key(scope, identifier), kept);
    else this.delete(scope, identifier);
  }

  delete(scope: { account: string; region: string }, identifier: string): void {
    this.context.store.cloudFormationExtras.delete(this.key(scope, identifier));
  }
}
