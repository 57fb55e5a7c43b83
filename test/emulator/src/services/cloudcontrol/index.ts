/**
 * AWS Cloud Control API (awsJson1_0), generic over the resource schemas.
 * A type a service owns is kept in that service's store through its
 * ResourceProvider; every other type is a generic record here. Request-rate
 * limits (off by default) are modelled in `rate-limits.ts`.
 */
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import type { CloudControlLatencyApi } from '../../state';
import type { CloudControlResourcesApi } from './resources-api';
import { cloudControlRoutes } from './control';
import { GenericProvider } from './generic';
import { cloudControlLatency } from './latency';
import { CloudControlRateLimits, rateLimitRoutes, rateLimited } from './rate-limits';
import { defaultSchemaSource, SchemaDirectory } from './schema-source';
import { CloudControlOperations } from './service';
import { CloudControlStore } from './store';

export const cloudControl: ServiceModule = {
  name: 'cloudcontrol',
  signingNames: ['cloudcontrolapi'],
  create(platform) {
    const store = new CloudControlStore();
    const schemas = platform.options.schemasDir
      ? new SchemaDirectory(platform.options.schemasDir)
      : defaultSchemaSource();
    const generic = new GenericProvider(store);
    const rateLimits = new CloudControlRateLimits();
    const service = new CloudControlOperations(
      schemas,
      store,
      (typeName) => platform.resourceProvider(typeName) ?? generic,
      () => platform.changed(),
    );
    const api: CloudControlLatencyApi & CloudControlResourcesApi = {
      models(account, region, typeName) {
        const owner = platform.resourceProvider(typeName);
        const schema = owner && schemas.get(typeName);
        if (owner && schema) return owner.list({ account, region, baseUrl: '' }, schema).map((r) => r.model);
        return [...store.records.values()]
          .filter((r) => r.account === account && r.region === region && r.type === typeName)
          .map((r) => r.model);
      },
      create(account, region, typeName, desired) {
        const schema = schemas.get(typeName);
        if (!schema) throw new Error(`No schema for ${typeName}`);
        const owner = platform.resourceProvider(typeName) ?? generic;
        const created = owner.create({ account, region, baseUrl: '' }, schema, desired);
        platform.changed();
        return created;
      },
      remove(account, region, typeName, identifier) {
        const schema = schemas.get(typeName);
        const owner = platform.resourceProvider(typeName) ?? generic;
        if (!schema || !owner.read({ account, region, baseUrl: '' }, schema, identifier)) return false;
        owner.delete({ account, region, baseUrl: '' }, schema, identifier);
        platform.changed();
        return true;
      },
      setTypeLatencies(typeName, { create, update, delete: del }) {
        const current = store.typeSettings.get(typeName) ?? {};
        store.typeSettings.set(typeName, {
          ...current,
          latencyMsByOperation: { CREATE: create, UPDATE: update, DELETE: del },
        });
      },
      clearTypeLatencies() {
        for (const [name, settings] of store.typeSettings) {
          const { latencyMs: _latency, latencyMsByOperation: _byOperation, ...rest } = settings;
          if (Object.keys(rest).length) store.typeSettings.set(name, rest);
          else store.typeSettings.delete(name);
        }
      },
    };
    return {
      protocol: new AwsJsonCodec({
        version: '1.0',
        targetPrefix: 'CloudApiService',
        namespace: 'com.amazonaws.cloudcontrolapi',
        model: () => require('@aws-sdk/client-cloudcontrol') as Record<string, unknown>,
        faults: { 500: { code: 'ServiceInternalErrorException', status: 500 } },
      }),
      operations: rateLimited(service.operations, rateLimits),
      store,
      latency: cloudControlLatency,
      api,
      settings: {
        read: () => ({ schemas: schemas.description }),
        update: () => undefined,
        reset: () => rateLimits.reset(),
      },
      control: (router) => {
        cloudControlRoutes(router, store, schemas);
        rateLimitRoutes(router, rateLimits);
      },
      stop: () => store.stopTimers(),
    };
  },
};
