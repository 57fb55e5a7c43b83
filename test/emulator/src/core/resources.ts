/**
 * How a service maps a Cloud Control resource type onto its own store, so a
 * resource made by the native API and one made through Cloud Control are the
 * same object, visible to both and to the inventory. Cloud Control validates
 * requests against the type's schema, runs them asynchronously and calls the
 * provider when the type's latency has passed; a provider throws a
 * {@link HandlerError} for a failure as the type's handler reports it.
 */
import { AwsError } from './errors';
import { uuid } from './ids';
import type { InventoryItem, InventoryView } from './service';
import { pointerPath, type ResourceSchema } from './resource-schema';

/** Where a Cloud Control request runs. */
export interface ResourceScope {
  account: string;
  region: string;
  /** `http://<Host>` the client used (for URLs the emulator itself serves, e.g. queue URLs). */
  baseUrl: string;
}

export interface StoredResource {
  /** The primary identifier (multi-part joined with `|`). */
  identifier: string;
  /** Every property, read-only and write-only ones included (Cloud Control drops write-only ones when it reads). */
  model: Record<string, unknown>;
}

export interface ResourceProvider {
  /** `AWS::SQS::Queue`. */
  readonly typeName: string;
  /** `desired` is the validated desired state. */
  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource;
  read(scope: ResourceScope, schema: ResourceSchema, identifier: string): StoredResource | undefined;
  /** `desired` is the full new model (the current writable properties with the patch applied). */
  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource;
  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void;
  list(scope: ResourceScope, schema: ResourceSchema): StoredResource[];
  /** Every resource of the type in every account and region. */
  inventory(view: InventoryView): InventoryItem[];
}

/** The provider operations Cloud Control calls (the generic store implements these for every type). */
export type ResourceHandlers = Omit<ResourceProvider, 'typeName' | 'inventory'>;

/** A failure as a resource handler reports it: a handler error code and a message. */
export class HandlerError extends Error {
  constructor(
    /** `AlreadyExists`, `NotFound`, `InvalidRequest`, `NotUpdatable`, `GeneralServiceException`, ... */
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export function alreadyExists(typeName: string, identifier: string): HandlerError {
  return new HandlerError(
    'AlreadyExists',
    `Resource of type '${typeName}' with identifier '${identifier}' already exists.`,
  );
}

export function notFound(typeName: string, identifier: string): HandlerError {
  return new HandlerError(
    'NotFound',
    `Resource of type '${typeName}' with identifier '${identifier}' was not found.`,
  );
}

/**
 * A service error as a handler surfaces it: "<message> (Service: Sqs, Status
 * Code: 400, Request ID: ...)", InvalidRequest for validation errors.
 */
export function serviceFailure(err: unknown, service: string): HandlerError {
  if (err instanceof HandlerError) return err;
  if (!(err instanceof AwsError)) throw err;
  const code = /InvalidAttribute|InvalidParameter|Validation|MalformedPolicy|InvalidBucketName/.test(err.code)
    ? 'InvalidRequest'
    : 'GeneralServiceException';
  return new HandlerError(
    code,
    `${err.message} (Service: ${service}, Status Code: ${err.status}, Request ID: ${uuid()})`,
  );
}

/** The top-level property names of a list of pointers. */
export function topLevel(pointers: readonly string[] | undefined): Set<string> {
  return new Set(
    (pointers ?? [])
      .map((p) => pointerPath(p))
      .filter((s) => s.length === 1)
      .map((s) => s[0]!),
  );
}

/** Top-level writable properties of a model (read-only ones removed). */
export function writable(schema: ResourceSchema, model: Record<string, unknown>): Record<string, unknown> {
  const readOnly = topLevel(schema.readOnlyProperties);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(model)) if (!readOnly.has(k)) out[k] = v;
  return out;
}

/** Inventory items of a provider's resources (helper for `ResourceProvider.inventory`). */
export function inventoryItems<T extends { account: string; region: string }>(
  typeName: string,
  resources: Iterable<T>,
  describe: (resource: T) => StoredResource | undefined,
): InventoryItem[] {
  const items: InventoryItem[] = [];
  for (const r of resources) {
    const stored = describe(r);
    if (stored)
      items.push({
        account: r.account,
        region: r.region,
        type: typeName,
        identifier: stored.identifier,
        properties: stored.model,
      });
  }
  return items;
}

export { pointerPath };
