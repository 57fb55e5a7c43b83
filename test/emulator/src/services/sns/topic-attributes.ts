/**
 * Topic attributes: which CreateTopic and SetTopicAttributes accept, their
 * values (SNS API reference, CreateTopic "Attributes"), FIFO-only ones, and
 * the view GetTopicAttributes returns.
 */
import { AwsError } from '../../core/errors';
import { topicPolicyProblem } from './policy';

/** What SNS reports as the effective delivery policy of a topic without its own (system defaults). */
export const DEFAULT_EFFECTIVE_DELIVERY_POLICY = JSON.stringify({
  http: {
    defaultHealthyRetryPolicy: {
      minDelayTarget: 20,
      maxDelayTarget: 20,
      numRetries: 3,
      numMaxDelayRetries: 0,
      numNoDelayRetries: 0,
      numMinDelayRetries: 0,
      backoffFunction: 'linear',
    },
    disableSubscriptionOverrides: false,
    defaultRequestPolicy: { headerContentType: 'text/plain; charset=UTF-8' },
  },
});

const FEEDBACK =
  /^(HTTP|Firehose|Lambda|Application|SQS)(SuccessFeedbackRoleArn|SuccessFeedbackSampleRate|FailureFeedbackRoleArn)$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;
const FIFO_ONLY = new Set(['ContentBasedDeduplication', 'ArchivePolicy', 'FifoThroughputScope']);
/** Attributes an empty value removes (DisplayName keeps the empty string, as SNS shows it). */
const REMOVABLE = new Set([
  'DeliveryPolicy',
  'KmsMasterKeyId',
  'ArchivePolicy',
  'MaximumMessageSize',
  'FifoThroughputScope',
]);

const invalid = (message: string) => new AwsError('InvalidParameter', message);

function jsonObject(value: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function checkValue(name: string, value: string, fifo: boolean, mode: 'create' | 'update'): string {
  if (FIFO_ONLY.has(name) && !fifo)
    throw invalid(`Invalid parameter: Attributes Reason: ${name} can only be set for FIFO topics`);
  if (value === '' && (REMOVABLE.has(name) || FEEDBACK.test(name) || name === 'DisplayName')) return '';
  switch (name) {
    case 'DisplayName':
      if (value.length > 100) throw invalid('Invalid parameter: DisplayName');
      return value;
    case 'Policy': {
      const problem = topicPolicyProblem(value);
      if (problem) throw invalid(problem);
      return value;
    }
    case 'DeliveryPolicy':
      if (!jsonObject(value)) throw invalid('Invalid parameter: DeliveryPolicy: Invalid JSON');
      return value;
    case 'KmsMasterKeyId':
      return value;
    case 'TracingConfig':
      if (value !== 'PassThrough' && value !== 'Active')
        throw invalid(
          `Invalid parameter: Attributes Reason: TracingConfig: Invalid value [${value}] for TracingConfig`,
        );
      if (value === 'Active' && fifo)
        throw invalid(
          'Invalid parameter: Attributes Reason: TracingConfig: Active tracing is not supported for FIFO topics',
        );
      return value;
    case 'SignatureVersion':
      if (value !== '1' && value !== '2') throw invalid('Invalid parameter: SignatureVersion');
      return value;
    case 'FifoTopic':
      if (mode === 'update') throw invalid('Invalid parameter: AttributeName');
      if (!/^(true|false)$/i.test(value)) throw invalid('Invalid parameter: FifoTopic');
      return value.toLowerCase();
    case 'ContentBasedDeduplication':
      if (!/^(true|false)$/i.test(value)) throw invalid('Invalid parameter: ContentBasedDeduplication');
      return value.toLowerCase();
    case 'ArchivePolicy': {
      const doc = jsonObject(value);
      if (!doc) throw invalid('Invalid parameter: ArchivePolicy: Invalid JSON');
      if (!Object.keys(doc).length) return '';
      const days = Number(doc.MessageRetentionPeriod);
      if (!Number.isInteger(days) || days < 1 || days > 365)
        throw invalid(
          'Invalid parameter: ArchivePolicy: MessageRetentionPeriod must be an integer from 1 to 365',
        );
      return value;
    }
    case 'FifoThroughputScope':
      if (value !== 'Topic' && value !== 'MessageGroup')
        throw invalid('Invalid parameter: FifoThroughputScope');
      return value;
    case 'MaximumMessageSize': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 1024 || n > 1_048_576)
        throw invalid('Invalid parameter: MaximumMessageSize');
      return value;
    }
    default:
      if (FEEDBACK.test(name)) {
        if (name.endsWith('SampleRate')) {
          const n = Number(value);
          if (!/^\d+$/.test(value) || n > 100) throw invalid(`Invalid parameter: ${name}`);
        } else if (!ROLE_ARN.test(value)) {
          throw invalid(`Invalid parameter: ${name}`);
        }
        return value;
      }
      throw invalid(
        mode === 'update'
          ? 'Invalid parameter: AttributeName'
          : `Invalid parameter: Attributes Reason: Unknown attribute ${name}`,
      );
  }
}

/**
 * The attributes of a CreateTopic or SetTopicAttributes, checked and normalized
 * (booleans lower-case). An empty value stands for "remove".
 */
export function normalizeTopicAttributes(
  attributes: Record<string, string>,
  fifo: boolean,
  mode: 'create' | 'update',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes))
    out[name] = checkValue(name, String(value), fifo, mode);
  return out;
}

/** Applies checked attributes to a topic's stored ones (an empty value removes a removable attribute). */
export function applyTopicAttributes(stored: Record<string, string>, changes: Record<string, string>): void {
  for (const [name, value] of Object.entries(changes)) {
    if (value === '' && name !== 'DisplayName') delete stored[name];
    else stored[name] = value;
  }
}
