/**
 * AWS::SNS::Topic properties ↔ SNS topic attributes (strings), with the value
 * SetTopicAttributes needs to put each back to SNS's default when the
 * template drops it (CloudFormation resets removed properties;
 * SetTopicAttributes changes only what it is given). No SDK here: the hook
 * reads the property list without loading the client.
 */

/** Every AWS::SNS::Topic property this pack wires. */
export const TOPIC_HANDLED_PROPERTIES = [
  'ArchivePolicy',
  'ContentBasedDeduplication',
  'DataProtectionPolicy',
  'DeliveryStatusLogging',
  'DisplayName',
  'FifoThroughputScope',
  'FifoTopic',
  'KmsMasterKeyId',
  'MaximumMessageSize',
  'SignatureVersion',
  'Subscription',
  'Tags',
  'TopicName',
  'TracingConfig',
];

/**
 * Properties that are one topic attribute of the same name, with the value that
 * restores SNS's default (SNS API reference, CreateTopic / GetTopicAttributes).
 */
const ATTRIBUTE_DEFAULTS: Record<string, string> = {
  DisplayName: '',
  // No key: SSE off.
  KmsMasterKeyId: '',
  SignatureVersion: '1',
  TracingConfig: 'PassThrough',
  MaximumMessageSize: '262144',
  ContentBasedDeduplication: 'false',
  // An empty archive policy turns archiving off.
  ArchivePolicy: '{}',
  FifoThroughputScope: 'Topic',
};

/** Attributes only a FIFO topic has (a reset on a standard topic would be refused). */
const FIFO_ONLY = new Set(['ContentBasedDeduplication', 'ArchivePolicy', 'FifoThroughputScope']);

/** `DeliveryStatusLogging[].Protocol` → the prefix of SNS's delivery-status attributes. */
const LOGGING_PREFIX: Record<string, string> = {
  'http/s': 'HTTP',
  sqs: 'SQS',
  lambda: 'Lambda',
  firehose: 'Firehose',
  application: 'Application',
};
const LOGGING_MEMBERS = ['SuccessFeedbackRoleArn', 'SuccessFeedbackSampleRate', 'FailureFeedbackRoleArn'];

/** True for `true` and `"true"` (templates may carry booleans as strings). */
export function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
}

/** A property value as the string SNS takes. */
export function attributeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The topic attributes a template's properties set (`FifoTopic` only when true). */
export function topicAttributes(properties: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const name of Object.keys(ATTRIBUTE_DEFAULTS)) {
    const value = properties[name];
    if (value !== undefined && value !== null) attributes[name] = attributeValue(value);
  }
  if (isTrue(properties.FifoTopic)) attributes.FifoTopic = 'true';
  const logging = Array.isArray(properties.DeliveryStatusLogging) ? properties.DeliveryStatusLogging : [];
  for (const entry of logging as Array<Record<string, unknown>>) {
    const prefix = LOGGING_PREFIX[String(entry?.Protocol)];
    if (!prefix) continue;
    for (const member of LOGGING_MEMBERS)
      if (entry[member] !== undefined && entry[member] !== null)
        attributes[`${prefix}${member}`] = attributeValue(entry[member]);
  }
  return attributes;
}

/** Protocols of `DeliveryStatusLogging` entries SNS does not know (reported instead of dropped). */
export function unknownLoggingProtocols(properties: Record<string, unknown>): string[] {
  const logging = Array.isArray(properties.DeliveryStatusLogging) ? properties.DeliveryStatusLogging : [];
  return (logging as Array<Record<string, unknown>>)
    .map((e) => String(e?.Protocol))
    .filter((p) => !(p in LOGGING_PREFIX));
}

/**
 * The SetTopicAttributes calls of an update: each attribute whose value changed,
 * and a reset for each the previous template set and the new one does not.
 */
export function attributeChanges(
  properties: Record<string, unknown>,
  previous: Record<string, unknown>,
  fifo: boolean,
): Record<string, string> {
  const desired = topicAttributes(properties);
  const before = topicAttributes(previous);
  delete desired.FifoTopic;
  delete before.FifoTopic;
  const changes: Record<string, string> = {};
  for (const [name, value] of Object.entries(desired)) if (before[name] !== value) changes[name] = value;
  for (const name of Object.keys(before)) {
    if (name in desired) continue;
    if (FIFO_ONLY.has(name) && !fifo) continue;
    // A delivery-status attribute is cleared with an empty value.
    changes[name] = ATTRIBUTE_DEFAULTS[name] ?? '';
  }
  return changes;
}

/**
 * CloudFormation properties from GetTopicAttributes, every user-controllable one
 * present (drift detection compares them), FIFO-only ones on FIFO topics only.
 */
export function propertiesFromAttributes(attributes: Record<string, string>): Record<string, unknown> {
  const fifo = attributes.FifoTopic === 'true';
  const properties: Record<string, unknown> = {
    DisplayName: attributes.DisplayName ?? '',
    KmsMasterKeyId: attributes.KmsMasterKeyId ?? '',
    SignatureVersion: attributes.SignatureVersion ?? '1',
    TracingConfig: attributes.TracingConfig ?? 'PassThrough',
    MaximumMessageSize: Number(attributes.MaximumMessageSize ?? 262144),
    FifoTopic: fifo,
  };
  if (fifo) {
    properties.ContentBasedDeduplication = attributes.ContentBasedDeduplication === 'true';
    properties.FifoThroughputScope = attributes.FifoThroughputScope ?? 'Topic';
    properties.ArchivePolicy = attributes.ArchivePolicy
      ? (JSON.parse(attributes.ArchivePolicy) as unknown)
      : {};
  }
  const logging: Array<Record<string, unknown>> = [];
  for (const [protocol, prefix] of Object.entries(LOGGING_PREFIX)) {
    const entry: Record<string, unknown> = { Protocol: protocol };
    for (const member of LOGGING_MEMBERS) {
      const value = attributes[`${prefix}${member}`];
      if (value) entry[member] = value;
    }
    if (Object.keys(entry).length > 1) logging.push(entry);
  }
  properties.DeliveryStatusLogging = logging;
  return properties;
}

/** The `Subscription` entries (`[{ Endpoint, Protocol }]`) as `protocol endpoint` keys. */
export function inlineSubscriptions(
  properties: Record<string, unknown>,
): Map<string, { Protocol: string; Endpoint: string }> {
  const out = new Map<string, { Protocol: string; Endpoint: string }>();
  const list = Array.isArray(properties.Subscription) ? properties.Subscription : [];
  for (const s of list as Array<Record<string, unknown>>) {
    if (typeof s?.Protocol !== 'string' || typeof s.Endpoint !== 'string') continue;
    out.set(`${s.Protocol.toLowerCase()} ${s.Endpoint}`, { Protocol: s.Protocol, Endpoint: s.Endpoint });
  }
  return out;
}

/** The topic name at the end of its ARN. */
export function topicNameOf(arn: string): string {
  return arn.split(':').pop() ?? '';
}

/** The region in an ARN. */
export function regionOf(arn: string): string {
  return arn.split(':')[3] ?? '';
}
