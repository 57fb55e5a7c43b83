/**
 * The pre-create check: every resource a plan creates, updates or replaces is
 * checked against its committed schema (required properties, types, enums,
 * patterns, unknown and read-only properties), so a bad template is refused
 * before anything changes, with every violation named.
 *
 * Only what is known before the deploy is judged: a value that is (or, for a
 * rule about the value itself, contains) an `Unknown` — a `Ref` / `Fn::GetAtt`
 * to a resource not made yet — or a dynamic reference (`{{resolve:...}}`) is
 * skipped. A required property that is missing is missing whatever its
 * siblings hold. CloudFormation's loose scalars (`"30"` for an integer) are
 * converted first, as CloudFormation (and the Cloud Control path) does.
 * Create-only properties changed on an update are not an error: the plan
 * already makes them a replacement.
 */
import { isCustomResourceType } from '../template/custom-resource-type';
import type { SchemaDocument } from '../provisioning/coerce-properties';
import { coerceProperties } from '../provisioning/coerce-properties';
import type { SchemaViolation } from '../provisioning/schema-store';
import { hasDynamicReference } from '../template/dynamic-references';
import { isUnknown } from '../template/unknown';
import type { StackPlan } from './types';

/** The schema store's part this check reads. */
export interface PropertySchemas {
  has(type: string): boolean;
  tryGet(type: string): SchemaDocument | undefined;
  validate(type: string, properties: Record<string, unknown>): SchemaViolation[];
}

export interface PropertyViolation {
  logicalId: string;
  resourceType: string;
  /** `Properties.Tags.0.Key`; `Properties` for the object itself. */
  path: string;
  /** The rule broken: `required`, `type`, `enum`, `pattern`, `additionalProperties`, `readOnly`, ... */
  rule: string;
  message: string;
}

/** Rules about which keys an object has: an unknown value elsewhere in it does not excuse them. */
const KEY_RULES = new Set(['required', 'additionalProperties', 'readOnly']);

/** Every violation in the plan's resources that are fully known where the rule applies. */
export function propertyViolations(plan: StackPlan, schemas: PropertySchemas): PropertyViolation[] {
  const out: PropertyViolation[] = [];
  for (const r of plan.resources) {
    if (r.action === 'NO_CHANGE' || r.action === 'DELETE' || r.policyOnly || !r.desired) continue;
    if (!schemas.has(r.resourceType)) continue;
    // A custom resource takes whatever properties its handler reads; its schema lists only ServiceToken.
    if (isCustomResourceType(r.resourceType)) continue;
    const properties = r.desired.properties;
    const checked = coerceProperties(properties, schemas.tryGet(r.resourceType));
    for (const v of schemas.validate(r.resourceType, checked)) {
      const rule = v.keyword ?? 'schema';
      const segments = pointerSegments(v.path);
      // required / additionalProperties / readOnly name a key of the object at the parent path.
      const subject = KEY_RULES.has(rule) ? segments.slice(0, -1) : segments;
      if (!isKnownAt(properties, subject, !KEY_RULES.has(rule))) continue;
      out.push({
        logicalId: r.logicalId,
        resourceType: r.resourceType,
        path: ['Properties', ...segments].join('.'),
        rule,
        message: v.message,
      });
    }
  }
  return out;
}

/** One line per violation: `Queue (AWS::SQS::Queue) Properties.VisibilityTimeout: ... [type]`. */
export function describeViolation(v: PropertyViolation): string {
  return `${v.logicalId} (${v.resourceType}) ${v.path}: ${v.message} [${v.rule}]`;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * True when nothing on the way to `segments` is unknowable, and (when `whole`)
 * the value there holds nothing unknowable either.
 */
function isKnownAt(root: unknown, segments: string[], whole: boolean): boolean {
  let value: unknown = root;
  for (const segment of segments) {
    if (unknowable(value)) return false;
    if (value === null || typeof value !== 'object') return true;
    value = (value as Record<string, unknown>)[segment];
  }
  if (unknowable(value)) return false;
  return whole ? !containsUnknowable(value) : true;
}

function unknowable(value: unknown): boolean {
  return isUnknown(value) || (typeof value === 'string' && hasDynamicReference(value));
}

function containsUnknowable(value: unknown): boolean {
  if (unknowable(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknowable);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknowable);
  return false;
}
