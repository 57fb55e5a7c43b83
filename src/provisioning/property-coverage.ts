/**
 * How completely a provider registration covers its type's schema: every
 * top-level property is handled, unhandled by design, left to Cloud Control by
 * design, read-only (AWS sets it), or unaccounted — a template setting an
 * unaccounted property goes to Cloud Control instead (one setting a
 * `cloud-control` property does too, and says why).
 */
import type { RegisteredProvider } from './provider-registry';
import type { SchemaStore } from './schema-store';

export type PropertyStatus = 'handled' | 'by-design' | 'cloud-control' | 'read-only' | 'unaccounted';

export interface PropertyCoverageEntry {
  property: string;
  status: PropertyStatus;
  /** The rationale (`by-design`, `cloud-control`). */
  rationale?: string;
}

export interface PropertyCoverage {
  resourceType: string;
  packName: string;
  properties: PropertyCoverageEntry[];
  counts: Record<PropertyStatus, number> & { total: number };
}

/** Classifies every schema property of the registration's type (sorted by name). */
export function propertyCoverage(registered: RegisteredProvider, schemas: SchemaStore): PropertyCoverage {
  const type = registered.resourceType;
  const readOnly = new Set(schemas.readOnlyPropertyNames(type));
  const counts = { handled: 0, 'by-design': 0, 'cloud-control': 0, 'read-only': 0, unaccounted: 0, total: 0 };
  const properties = schemas.propertyNames(type).map((property): PropertyCoverageEntry => {
    let entry: PropertyCoverageEntry;
    if (registered.handledProperties.has(property)) entry = { property, status: 'handled' };
    else if (registered.unhandledByDesign.has(property)) {
      entry = { property, status: 'by-design', rationale: registered.unhandledByDesign.get(property) };
    } else if (registered.cloudControlByDesign.has(property)) {
      entry = {
        property,
        status: 'cloud-control',
        rationale: registered.cloudControlByDesign.get(property),
      };
    } else if (readOnly.has(property)) entry = { property, status: 'read-only' };
    else entry = { property, status: 'unaccounted' };
    counts[entry.status]++;
    counts.total++;
    return entry;
  });
  return { resourceType: type, packName: registered.packName, properties, counts };
}
