/**
 * Who holds the name a rollback's re-create collided on. Reversing a
 * replacement re-creates the original under its pre-deploy properties; when
 * that create finds its name taken, cdkd deletes the replacement first only
 * when it can show the replacement is what holds the name. Anything else (a
 * leftover of an earlier attempt, a resource made outside the stack, or a case
 * cdkd cannot tell) is refused: nothing is deleted and the name is named.
 */
import type { ResourceState } from '../state/types';
import { SECRET_MASK } from '../template/redaction';

/** The name property of types whose name is not `<Type>Name` (the convention most types follow). */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::RDS::DBInstance': 'DBInstanceIdentifier',
  'AWS::RDS::DBCluster': 'DBClusterIdentifier',
  'AWS::Kinesis::Stream': 'Name',
  'AWS::Events::Rule': 'Name',
  'AWS::Events::EventBus': 'Name',
  'AWS::ElasticLoadBalancingV2::LoadBalancer': 'Name',
  'AWS::ElasticLoadBalancingV2::TargetGroup': 'Name',
  'AWS::Route53::RecordSet': 'Name',
  'AWS::SSM::Parameter': 'Name',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::KMS::Alias': 'AliasName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::Lambda::Function': 'FunctionName',
};

/** Names that only mean the same resource under the same parent. */
const PARENT_PROPERTIES: Record<string, readonly string[]> = {
  'AWS::Events::Rule': ['EventBusName'],
  'AWS::Glue::Table': ['DatabaseName', 'CatalogId'],
  'AWS::Route53::RecordSet': ['HostedZoneId', 'HostedZoneName'],
};

/** Services that match these names regardless of case. */
const CASE_INSENSITIVE = /^AWS::(IAM|RDS)::/;

/**
 * Types that turn even an explicit name into another before sending it (a
 * stack-name prefix, a character rewrite): only the physical id shows the name
 * that was sent, a matching recorded name is not enough.
 */
const SENT_NAME_DIFFERS = new Set([
  'AWS::IAM::Role',
  'AWS::IAM::User',
  'AWS::IAM::Group',
  'AWS::IAM::InstanceProfile',
  'AWS::IAM::ManagedPolicy',
  'AWS::ElasticLoadBalancingV2::LoadBalancer',
  'AWS::ElasticLoadBalancingV2::TargetGroup',
]);

/** The property that names a resource of this type, if cdkd knows one. */
export function namePropertyOf(
  resourceType: string,
  properties: Record<string, unknown> = {},
): string | undefined {
  if (NAME_PROPERTY[resourceType]) return NAME_PROPERTY[resourceType];
  const conventional = `${resourceType.split('::').pop()}Name`;
  if (conventional in properties) return conventional;
  return undefined;
}

export type NameHolder = { holds: true; name: string } | { holds: false; name?: string; why: string };

/**
 * Whether the replacement (`copy`, its state record) holds the name the
 * original's re-create (from `original`, its pre-deploy record) asked for.
 */
export function replacementHoldsName(original: ResourceState, copy: ResourceState): NameHolder {
  const type = original.resourceType;
  if (copy.resourceType !== type)
    return {
      holds: false,
      why: `a Type change (${type} to ${copy.resourceType}) pairs types cdkd does not know to share names`,
    };
  const property = namePropertyOf(type, original.properties);
  if (!property)
    return {
      holds: false,
      why: `the re-create asked for no name cdkd can derive (${type} names none it knows)`,
    };
  const name = original.properties?.[property];
  if (name === undefined)
    // A generated name is never re-sent: the re-create asked for a new one.
    return { holds: false, why: `the re-create asked for no name (the template set no ${property})` };
  if (typeof name !== 'string' || name.trim() === '' || name.includes(SECRET_MASK))
    return { holds: false, why: `its ${property} is redacted or empty` };
  const same = (a: unknown): boolean =>
    typeof a === 'string' &&
    (CASE_INSENSITIVE.test(type) ? a.toLowerCase() === name.toLowerCase() : a === name);
  const idNames = idNamesIt(copy.physicalId, same);
  if (SENT_NAME_DIFFERS.has(type))
    return idNames
      ? { holds: true, name }
      : {
          holds: false,
          name,
          why: `the replacement's physical id ${copy.physicalId} does not name ${name} (a ${type} name is rewritten before it is sent, so only the physical id shows it)`,
        };
  const recorded = copy.properties?.[property];
  const readBack = copy.observedProperties?.[property];
  if (recorded !== undefined && readBack !== undefined && recorded !== readBack)
    return {
      holds: false,
      name,
      why: `the replacement's record names it ${String(recorded)} but its last read-back ${String(readBack)}`,
    };
  const sameParent = (PARENT_PROPERTIES[type] ?? []).every(
    (p) => JSON.stringify(original.properties?.[p]) === JSON.stringify(copy.properties?.[p]),
  );
  if ((same(recorded) && sameParent) || idNames) return { holds: true, name };
  return { holds: false, name, why: `the replacement ${copy.physicalId} does not hold ${name}` };
}

/**
 * True when `record` is provably named otherwise than `properties` ask: both
 * set the type's name property, to different names, so it cannot be what holds
 * the asked name. Unknown (no name property, a generated or redacted name) is false.
 */
export function namedOtherwise(
  resourceType: string,
  properties: Record<string, unknown>,
  record: ResourceState,
): boolean {
  const property = namePropertyOf(resourceType, properties);
  if (!property) return false;
  const asked = properties[property];
  const held = record.properties?.[property];
  if (typeof asked !== 'string' || typeof held !== 'string') return false;
  if (asked.includes(SECRET_MASK) || held.includes(SECRET_MASK)) return false;
  return CASE_INSENSITIVE.test(resourceType) ? asked.toLowerCase() !== held.toLowerCase() : asked !== held;
}

/** The physical id is the name, or an ARN / URL ending in it. */
function idNamesIt(physicalId: string, same: (a: unknown) => boolean): boolean {
  if (typeof physicalId !== 'string') return false;
  if (same(physicalId)) return true;
  const last = physicalId.split(/[/:]/).pop();
  return last !== physicalId && same(last);
}

/**
 * The errors services return while a name is taken, or still being released
 * after its holder was deleted: Cloud Control's `AlreadyExists` (cdkd's
 * `RESOURCE_ALREADY_EXISTS`), IAM `EntityAlreadyExists`, SQS
 * `QueueDeletedRecently` (60 s after a delete), S3 `OperationAborted` /
 * `BucketAlreadyOwnedByYou`, DynamoDB `ResourceInUseException`, Lambda
 * `ResourceConflictException`, and the generic `*AlreadyExists*` codes.
 */
const NAME_IN_USE_CODES = new Set([
  'RESOURCE_ALREADY_EXISTS',
  'AlreadyExists',
  'AlreadyExistsException',
  'ResourceAlreadyExistsException',
  'EntityAlreadyExists',
  'EntityAlreadyExistsException',
  'QueueDeletedRecently',
  'AWS.SimpleQueueService.QueueDeletedRecently',
  'QueueAlreadyExists',
  'OperationAborted',
  'BucketAlreadyOwnedByYou',
  'ResourceInUseException',
  'ResourceConflictException',
]);

/** True when an error (or one it wraps) says the name is taken or not yet released. */
export function isNameInUse(err: unknown): boolean {
  for (let e = err as Record<string, unknown> | undefined, depth = 0; e && depth < 5; depth++) {
    for (const key of ['code', 'name', 'Code', 'errorCode'])
      if (typeof e[key] === 'string' && NAME_IN_USE_CODES.has(e[key] as string)) return true;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return false;
}
