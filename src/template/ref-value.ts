/**
 * What `Ref` and `Fn::GetAtt` return for a deployed resource. cdkd records the
 * id its provider needs (a Cloud Control identifier, or a `a|b` composite for
 * some SDK providers), which is not always what CloudFormation's `Ref` returns
 * (spec: "The composite id is NOT what Ref returns"); this module translates.
 */
import type { ResourceReferenceTarget, ResourceSchemaInfo } from './environment';

/** Segment chosen from an SDK provider's composite id, where the schema cannot tell (spec table). */
interface CompositeRule {
  /** Number of `|`-separated segments of the SDK provider's id. */
  segments: number;
  /** Index of the segment `Ref` returns. */
  index: number;
}

const SDK_COMPOSITE_REF: Record<string, CompositeRule> = {
  // `<databaseName>|<tableName>`: Ref is the table name.
  'AWS::Glue::Table': { segments: 2, index: 1 },
  // `<hostedZoneId>|<name>|<type>`: Ref is the record name, the middle segment.
  'AWS::Route53::RecordSet': { segments: 3, index: 1 },
  // `<tableBucketARN>|<namespaceName>` and `<tableBucketARN>|<namespace>|<name>`: the last segment.
  'AWS::S3Tables::Namespace': { segments: 2, index: 1 },
  'AWS::S3Tables::Table': { segments: 3, index: 2 },
};

/**
 * Types whose recorded id is an ARN (Cloud Control's identifier, and what their
 * SDK provider records) while `Ref` returns a name derived from it.
 */
const ARN_REF: Record<string, (arn: string) => string | undefined> = {
  // `rule/<name>` on the default bus, `rule/<bus>/<name>` on another: Ref is the name, or `<bus>|<name>`.
  'AWS::Events::Rule': (arn) => {
    const m = /^arn:[^:]+:events:[^:]*:\d*:rule\/(?:([^/]+)\/)?([^/]+)$/.exec(arn);
    return m ? (m[1] ? `${m[1]}|${m[2]}` : m[2]) : undefined;
  },
};

/** `/properties/QueueUrl` -> `QueueUrl` (top-level pointers only; undefined otherwise). */
function topLevelName(pointer: string): string | undefined {
  const m = /^\/properties\/([^/]+)$/.exec(pointer);
  return m ? m[1].replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/**
 * The value CloudFormation's `Ref` returns for a resource, from its recorded
 * physical id (and attributes / properties where the `Ref` value is one of them):
 *
 * 1. an SDK provider's composite id listed in the spec's table -> that segment; an ARN
 *    whose type's `Ref` is a name within it (an EventBridge rule) -> that name;
 * 2. no schema -> the physical id;
 * 3. an id shaped like the Cloud Control identifier (as many `|` segments as
 *    `primaryIdentifier` has parts) whose `refIdentifier` is part of it -> those
 *    segments (the whole id when `refIdentifier` equals `primaryIdentifier`);
 * 4. a `refIdentifier` naming attributes or properties (an ARN) -> their recorded values;
 * 5. otherwise the physical id unchanged (a record lacking the attribute degrades to it).
 */
export function refValueOf(target: ResourceReferenceTarget, schema: ResourceSchemaInfo | undefined): string {
  const { physicalId } = target;
  const segments = physicalId.split('|');
  const rule = SDK_COMPOSITE_REF[target.resourceType];
  if (rule && segments.length === rule.segments) return segments[rule.index];
  const fromArn = ARN_REF[target.resourceType]?.(physicalId);
  if (fromArn !== undefined) return fromArn;
  if (!schema) return physicalId;
  const primary = schema.primaryIdentifier ?? [];
  const ref = schema.refIdentifier ?? primary;
  if (ref.length === 0) return physicalId;
  if (segments.length === primary.length) {
    // The id has the Cloud Control shape: pick the segments Ref names.
    const indexes = ref.map((p) => primary.indexOf(p));
    if (indexes.every((i) => i >= 0)) return indexes.map((i) => segments[i]).join('|');
  }
  const values = ref.map((pointer) => {
    const name = topLevelName(pointer);
    if (name === undefined) return undefined;
    const v = target.attributes?.[name] ?? target.properties?.[name];
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  });
  if (values.every((v) => v !== undefined)) return values.join('|');
  return physicalId;
}

/** Reads `a.b.c` from an object, or undefined. */
function readPath(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * A recorded `Fn::GetAtt` value: the attribute under its (possibly dotted) name,
 * or nested (`Endpoint.Address` as `{Endpoint: {Address}}`); when the record lacks
 * it but the attribute is part of the resource's identifier, the matching
 * segment of the physical id. `found: false` when there is none: the caller
 * fails rather than invent a value.
 */
export function attributeOf(
  target: ResourceReferenceTarget,
  attribute: string,
  schema: ResourceSchemaInfo | undefined,
): { found: true; value: unknown } | { found: false } {
  const attrs = target.attributes ?? {};
  if (attrs[attribute] !== undefined) return { found: true, value: attrs[attribute] };
  if (attribute.includes('.')) {
    const nested = readPath(attrs, attribute.split('.'));
    if (nested !== undefined) return { found: true, value: nested };
  }
  const primary = schema?.primaryIdentifier ?? [];
  const index = primary.findIndex((p) => topLevelName(p) === attribute);
  if (index >= 0) {
    const segments = target.physicalId.split('|');
    if (segments.length === primary.length) return { found: true, value: segments[index] };
  }
  return { found: false };
}
