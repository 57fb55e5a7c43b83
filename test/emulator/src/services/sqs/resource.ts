/** An SQS queue seen as the CloudFormation resource `AWS::SQS::Queue`. */
import { queueArn, queueUrl, type Queue } from './store';

const INTEGER_PROPERTIES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'KmsDataKeyReusePeriodSeconds',
];
const BOOLEAN_PROPERTIES = ['SqsManagedSseEnabled', 'FifoQueue', 'ContentBasedDeduplication'];
const JSON_PROPERTIES = ['RedrivePolicy', 'RedriveAllowPolicy'];
const STRING_PROPERTIES = ['KmsMasterKeyId', 'DeduplicationScope', 'FifoThroughputLimit'];

/** The queue's CloudFormation properties (read-only ones included). */
export function queueProperties(queue: Queue, baseUrl: string): Record<string, unknown> {
  const props: Record<string, unknown> = {
    QueueName: queue.name,
    QueueUrl: queueUrl(baseUrl, queue),
    Arn: queueArn(queue),
  };
  for (const name of INTEGER_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = Number(queue.attributes[name]);
  for (const name of BOOLEAN_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = queue.attributes[name] === 'true';
  for (const name of JSON_PROPERTIES)
    if (queue.attributes[name]) props[name] = JSON.parse(queue.attributes[name]!) as unknown;
  for (const name of STRING_PROPERTIES)
    if (queue.attributes[name] !== undefined) props[name] = queue.attributes[name];
  const tags = Object.entries(queue.tags);
  if (tags.length) props.Tags = tags.map(([Key, Value]) => ({ Key, Value }));
  return props;
}

/** SQS attributes from CloudFormation properties (QueueName, Tags and read-only ones left out). */
export function attributesFromProperties(props: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(props)) {
    if (
      name === 'QueueName' ||
      name === 'Tags' ||
      name === 'QueueUrl' ||
      name === 'Arn' ||
      value === undefined ||
      value === null
    )
      continue;
    attributes[name] =
      JSON_PROPERTIES.includes(name) && typeof value !== 'string' ? JSON.stringify(value) : String(value);
  }
  return attributes;
}

export function tagsFromProperties(props: Record<string, unknown>): Record<string, string> {
  const tags: Record<string, string> = {};
  if (Array.isArray(props.Tags))
    for (const t of props.Tags as Array<{ Key: string; Value: string }>) tags[t.Key] = t.Value;
  return tags;
}
