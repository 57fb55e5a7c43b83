/**
 * Which types' physical ids never name a later resource, so that what a failed
 * create left behind needs no identity proof before a later command deletes it
 * (rollback-internals, "Failed CREATEs that made their resource"). Everything
 * else is treated as a name another resource may take once the first is gone.
 */
import type { CfnResourceSchema } from './schema-store';

/**
 * Types that need no proof whoever provisions them: ids AWS generates whose
 * schema still lists a name among their create-only properties (so the schema
 * rule below cannot tell), and the queue and topic policies, whose delete
 * compares the policy it finds before it removes anything.
 */
const NEVER_REUSED = new Set([
  'AWS::EC2::SecurityGroup',
  'AWS::EFS::FileSystem',
  'AWS::ElasticLoadBalancingV2::LoadBalancer',
  'AWS::ElasticLoadBalancingV2::TargetGroup',
  'AWS::SecretsManager::Secret',
  'AWS::SQS::QueuePolicy',
  'AWS::SNS::TopicPolicy',
]);

/** A type listed above. */
export function isKnownNeverReused(resourceType: string): boolean {
  return NEVER_REUSED.has(resourceType);
}

/**
 * The default for a type Cloud Control provisions, from its schema: its
 * identifier is AWS's to generate when every part of it is read-only (a
 * template cannot choose it) and no writable create-only `...Name` property
 * exists for it to be derived from (an SQS queue URL is read-only, yet made
 * from `QueueName`). Conservative: a type without a schema or identifier is a name.
 */
export function schemaSaysNeverReused(schema: CfnResourceSchema | undefined): boolean {
  if (!schema) return false;
  const identifier = schema.primaryIdentifier ?? [];
  const readOnly = new Set(schema.readOnlyProperties ?? []);
  if (identifier.length === 0 || !identifier.every((p) => readOnly.has(p))) return false;
  return !(schema.createOnlyProperties ?? []).some(
    (p) => /^\/properties\/[A-Za-z0-9]*Name$/.test(p) && !readOnly.has(p),
  );
}
