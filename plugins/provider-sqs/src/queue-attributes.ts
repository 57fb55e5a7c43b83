/**
 * AWS::SQS::Queue properties ↔ SQS queue attributes. SQS takes every
 * attribute as a string; CloudFormation properties are typed (and templates may
 * still carry scalars as strings, which pass through).
 */

/** Properties that map one-to-one onto a queue attribute of the same name. */
export const ATTRIBUTE_PROPERTIES = [
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'DelaySeconds',
  'FifoThroughputLimit',
  'KmsDataKeyReusePeriodSeconds',
  'KmsMasterKeyId',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'RedriveAllowPolicy',
  'RedrivePolicy',
  'SqsManagedSseEnabled',
  'VisibilityTimeout',
] as const;

export type AttributeProperty = (typeof ATTRIBUTE_PROPERTIES)[number];

/** Every AWS::SQS::Queue property this pack wires. */
export const QUEUE_HANDLED_PROPERTIES = [...ATTRIBUTE_PROPERTIES, 'FifoQueue', 'QueueName', 'Tags'].sort();

/** Attributes that only a FIFO queue accepts. */
export const FIFO_ONLY_ATTRIBUTES: ReadonlySet<string> = new Set([
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
]);

/** Attributes holding JSON documents. */
const JSON_ATTRIBUTES: ReadonlySet<string> = new Set(['RedrivePolicy', 'RedriveAllowPolicy']);
const INTEGER_ATTRIBUTES: ReadonlySet<string> = new Set([
  'DelaySeconds',
  'KmsDataKeyReusePeriodSeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
]);
const BOOLEAN_ATTRIBUTES: ReadonlySet<string> = new Set([
  'ContentBasedDeduplication',
  'SqsManagedSseEnabled',
  'FifoQueue',
]);

/**
 * What SetQueueAttributes needs to put an attribute back to SQS's default when
 * its property is removed from the template (CloudFormation resets removed
 * properties; SetQueueAttributes leaves absent attributes as they are).
 * Defaults from the SQS API reference.
 */
export const ATTRIBUTE_RESET_VALUES: Readonly<Record<AttributeProperty, string>> = {
  ContentBasedDeduplication: 'false',
  DeduplicationScope: 'queue',
  DelaySeconds: '0',
  FifoThroughputLimit: 'perQueue',
  KmsDataKeyReusePeriodSeconds: '300',
  // An empty key id turns SSE-KMS off.
  KmsMasterKeyId: '',
  MaximumMessageSize: '1048576',
  MessageRetentionPeriod: '345600',
  ReceiveMessageWaitTimeSeconds: '0',
  RedriveAllowPolicy: '{"redrivePermission":"allowAll"}',
  // An empty redrive policy removes the dead-letter queue.
  RedrivePolicy: '',
  // SQS-managed encryption is the default for a queue that declares no encryption.
  SqsManagedSseEnabled: 'true',
  VisibilityTimeout: '30',
};

/** A property value as the string SQS expects. */
export function toAttributeValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (JSON_ATTRIBUTES.has(name)) return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The queue attributes a template's properties set (FifoQueue only when true: SQS refuses it on a standard queue). */
export function attributesFromProperties(properties: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const name of ATTRIBUTE_PROPERTIES) {
    const value = properties[name];
    if (value !== undefined && value !== null) attributes[name] = toAttributeValue(name, value);
  }
  if (isTrue(properties.FifoQueue)) attributes.FifoQueue = 'true';
  return attributes;
}

/** True for `true` and `"true"` (templates may carry booleans as strings). */
export function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
}

/**
 * The SetQueueAttributes map of an update: every attribute the new template
 * sets, plus a reset for each attribute it no longer sets but the previous one did.
 */
export function attributesForUpdate(
  properties: Record<string, unknown>,
  previous: Record<string, unknown>,
  isFifo: boolean,
): Record<string, string> {
  const attributes = attributesFromProperties(properties);
  delete attributes.FifoQueue; // create-only
  for (const name of ATTRIBUTE_PROPERTIES) {
    const removed =
      (properties[name] === undefined || properties[name] === null) &&
      previous[name] !== undefined &&
      previous[name] !== null;
    if (!removed) continue;
    if (FIFO_ONLY_ATTRIBUTES.has(name) && !isFifo) continue;
    // Turning SSE-KMS off goes back to SQS-managed encryption unless the template says otherwise.
    if (name === 'SqsManagedSseEnabled' && properties.KmsMasterKeyId !== undefined) continue;
    attributes[name] = ATTRIBUTE_RESET_VALUES[name];
    if (name === 'KmsMasterKeyId' && properties.SqsManagedSseEnabled === undefined)
      attributes.SqsManagedSseEnabled = 'true';
  }
  return attributes;
}

/**
 * CloudFormation properties from GetQueueAttributes output, with every
 * user-controllable attribute present (drift detection compares them).
 */
export function propertiesFromAttributes(attributes: Record<string, string>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const isFifo = attributes.FifoQueue === 'true';
  for (const name of [...ATTRIBUTE_PROPERTIES, 'FifoQueue']) {
    const raw = attributes[name];
    if (raw === undefined) continue;
    if (FIFO_ONLY_ATTRIBUTES.has(name) && !isFifo) continue;
    properties[name] = fromAttributeValue(name, raw);
  }
  return properties;
}

function fromAttributeValue(name: string, raw: string): unknown {
  if (INTEGER_ATTRIBUTES.has(name)) {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (BOOLEAN_ATTRIBUTES.has(name)) return raw === 'true';
  if (JSON_ATTRIBUTES.has(name)) {
    if (raw === '') return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

/** CloudFormation `Tags` (`[{Key, Value}]`) as the SQS tag map. */
export function tagMap(tags: unknown): Record<string, string> {
  const map: Record<string, string> = {};
  if (!Array.isArray(tags)) return map;
  for (const tag of tags) {
    if (tag && typeof tag === 'object' && typeof (tag as { Key?: unknown }).Key === 'string') {
      const { Key, Value } = tag as { Key: string; Value?: unknown };
      map[Key] = Value === undefined || Value === null ? '' : String(Value);
    }
  }
  return map;
}

/** What TagQueue and UntagQueue must do to go from `previous` to `desired`. */
export function tagChanges(
  desired: Record<string, string>,
  previous: Record<string, string>,
): { toSet: Record<string, string>; toRemove: string[] } {
  const toSet: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired)) if (previous[k] !== v) toSet[k] = v;
  const toRemove = Object.keys(previous).filter((k) => !(k in desired));
  return { toSet, toRemove };
}
