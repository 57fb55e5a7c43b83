/**
 * Where resources of every type no service owns live: a schema-validated
 * record per resource, with what AWS would generate filled in (names, ARNs,
 * ids, read-only attributes).
 */
import {
  alreadyExists,
  HandlerError,
  notFound,
  writable,
  type ResourceHandlers,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import { completeModel, identifierOf } from './generate';
import type { ResourceSchema } from './schemas';
import { CloudControlStore } from './store';

export class GenericProvider implements ResourceHandlers {
  constructor(private readonly store: CloudControlStore) {}

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const model = completeModel(schema, desired, scope);
    const identifier = identifierOf(schema, model);
    if (!identifier)
      throw new HandlerError(
        'InvalidRequest',
        `Model validation failed (#: primary identifier ${schema.primaryIdentifier.join(', ')} could not be determined)`,
      );
    const key = CloudControlStore.recordKey(scope.account, scope.region, schema.typeName, identifier);
    if (this.store.records.has(key)) throw alreadyExists(schema.typeName, identifier);
    this.store.records.set(key, {
      account: scope.account,
      region: scope.region,
      type: schema.typeName,
      identifier,
      model,
    });
    return { identifier, model };
  }

  read(scope: ResourceScope, schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const record = this.store.records.get(
      CloudControlStore.recordKey(scope.account, scope.region, schema.typeName, identifier),
    );
    return record ? { identifier, model: record.model } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const record = this.store.records.get(
      CloudControlStore.recordKey(scope.account, scope.region, schema.typeName, identifier),
    );
    if (!record) throw notFound(schema.typeName, identifier);
    // Read-only attributes keep the values generated at creation.
    const writableNow = writable(schema, record.model);
    const generated = Object.fromEntries(Object.entries(record.model).filter(([k]) => !(k in writableNow)));
    record.model = completeModel(schema, { ...desired, ...generated }, scope);
    return { identifier, model: record.model };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    if (
      !this.store.records.delete(
        CloudControlStore.recordKey(scope.account, scope.region, schema.typeName, identifier),
      )
    )
      throw notFound(schema.typeName, identifier);
  }

  list(scope: ResourceScope, schema: ResourceSchema): StoredResource[] {
    return [...this.store.records.values()]
      .filter((r) => r.account === scope.account && r.region === scope.region && r.type === schema.typeName)
      .map((r) => ({ identifier: r.identifier, model: r.model }));
  }
}
