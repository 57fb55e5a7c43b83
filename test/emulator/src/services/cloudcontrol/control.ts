/** Cloud Control's control routes: per-type behaviour (`/_emulator/cloudcontrol/types/...`). */
import { badRequest, body, notFound } from '../../control/routes';
import { jsonResponse } from '../../core/http';
import type { ControlRouter } from '../../core/service';
import type { SchemaSource } from './schemas';
import type { CloudControlStore, TypeSettings } from './store';

export function cloudControlRoutes(
  router: ControlRouter,
  store: CloudControlStore,
  schemas: SchemaSource,
): void {
  const types = () => Object.fromEntries(store.typeSettings);
  router.add('GET', /^\/_emulator\/cloudcontrol\/types$/, () => jsonResponse(200, types()));
  router.add('PUT', /^\/_emulator\/cloudcontrol\/types\/([^/]+)$/, (req, [typeName]) => {
    const settings = body(req) as TypeSettings;
    if (typeName !== '*' && !schemas.has(typeName!))
      throw notFound(`no schema for type ${typeName} in ${schemas.description}`);
    if (
      settings.latencyMs !== undefined &&
      !(typeof settings.latencyMs === 'number' && settings.latencyMs >= 0)
    )
      throw badRequest('"latencyMs" is a number >= 0');
    if (settings.provisionable !== undefined && typeof settings.provisionable !== 'boolean')
      throw badRequest('"provisionable" is a boolean');
    if (
      settings.failWith !== undefined &&
      settings.failWith !== null &&
      typeof settings.failWith.errorCode !== 'string'
    )
      throw badRequest('"failWith" needs "errorCode" (e.g. GeneralServiceException)');
    const merged: TypeSettings = { ...store.typeSettings.get(typeName!), ...settings };
    if (settings.failWith === null) delete merged.failWith;
    // An explicit latency replaces what a latency profile set per operation.
    if (settings.latencyMs !== undefined && settings.latencyMsByOperation === undefined)
      delete merged.latencyMsByOperation;
    store.typeSettings.set(typeName!, merged);
    return jsonResponse(200, merged);
  });
  router.add('DELETE', /^\/_emulator\/cloudcontrol\/types\/([^/]+)$/, (_req, [typeName]) => {
    store.typeSettings.delete(typeName!);
    return jsonResponse(200, types());
  });
  router.add('DELETE', /^\/_emulator\/cloudcontrol\/types$/, () => {
    store.typeSettings.clear();
    return jsonResponse(200, {});
  });
}
