/**
 * Subscription attributes: which Subscribe and SetSubscriptionAttributes
 * accept for which protocol, filter policies checked against their scope,
 * and the view GetSubscriptionAttributes returns.
 */
import { AwsError } from '../../core/errors';
import { patternProblem } from '../../core/event-patterns';
import type { Subscription } from './store';
import { DEFAULT_EFFECTIVE_DELIVERY_POLICY } from './topic-attributes';

export const PROTOCOLS = new Set([
  'http',
  'https',
  'email',
  'email-json',
  'sms',
  'sqs',
  'application',
  'lambda',
  'firehose',
]);
const RAW_DELIVERY_PROTOCOLS = new Set(['sqs', 'http', 'https', 'firehose']);
/** Policies an empty value removes (as CloudFormation's handler sends on a removed property). */
const REMOVABLE = new Set([
  'DeliveryPolicy',
  'FilterPolicy',
  'RedrivePolicy',
  'ReplayPolicy',
  'SubscriptionRoleArn',
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

/**
 * Checks subscription attributes for the protocol (and the filter policy against the
 * scope given with it or already set); returns them normalized. An empty value stands
 * for "remove".
 */
export function normalizeSubscriptionAttributes(
  attributes: Record<string, string>,
  protocol: string,
  fifoTopic: boolean,
  currentScope: string | undefined,
  mode: 'subscribe' | 'set',
): Record<string, string> {
  const out: Record<string, string> = {};
  const scope = attributes.FilterPolicyScope ?? currentScope ?? 'MessageAttributes';
  for (const [name, raw] of Object.entries(attributes)) {
    const value = String(raw);
    if (value === '' && REMOVABLE.has(name)) {
      out[name] = '';
      continue;
    }
    switch (name) {
      case 'RawMessageDelivery':
        if (!/^(true|false)$/i.test(value))
          throw invalid('Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value');
        if (value.toLowerCase() === 'true' && !RAW_DELIVERY_PROTOCOLS.has(protocol))
          throw invalid(
            `Invalid parameter: Attributes Reason: Delivery protocol [${protocol}] does not support raw message delivery.`,
          );
        out[name] = value.toLowerCase();
        break;
      case 'FilterPolicyScope':
        if (value !== 'MessageAttributes' && value !== 'MessageBody')
          throw invalid(
            `Invalid parameter: Attributes Reason: FilterPolicyScope: Invalid value [${value}]. Please use either MessageBody or MessageAttributes`,
          );
        out[name] = value;
        break;
      case 'FilterPolicy': {
        const doc = jsonObject(value);
        if (!doc) throw invalid('Invalid parameter: FilterPolicy: failed to parse JSON.');
        if (!Object.keys(doc).length) {
          out[name] = '';
          break;
        }
        const problem = patternProblem(doc, scope === 'MessageBody' ? 'sns-body' : 'sns-attributes');
        if (problem) throw invalid(`Invalid parameter: FilterPolicy: ${problem}`);
        out[name] = value;
        break;
      }
      case 'DeliveryPolicy':
        if (protocol !== 'http' && protocol !== 'https')
          throw invalid(
            `Invalid parameter: DeliveryPolicy: Delivery protocol [${protocol}] does not support delivery policies`,
          );
        if (!jsonObject(value)) throw invalid('Invalid parameter: DeliveryPolicy: failed to parse JSON.');
        out[name] = value;
        break;
      case 'RedrivePolicy': {
        const doc = jsonObject(value);
        const target = doc?.deadLetterTargetArn;
        if (
          typeof target !== 'string' ||
          !/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/.test(target)
        )
          throw invalid('Invalid parameter: RedrivePolicy: deadLetterTargetArn is not a valid SQS queue ARN');
        out[name] = value;
        break;
      }
      case 'SubscriptionRoleArn':
        if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(value))
          throw invalid('Invalid parameter: Attributes Reason: SubscriptionRoleArn: invalid role ARN');
        out[name] = value;
        break;
      case 'ReplayPolicy':
        if (!fifoTopic)
          throw invalid('Invalid parameter: ReplayPolicy: replay is only supported for FIFO topics');
        if (!jsonObject(value)) throw invalid('Invalid parameter: ReplayPolicy: failed to parse JSON.');
        out[name] = value;
        break;
      default:
        throw invalid(
          mode === 'set'
            ? 'Invalid parameter: AttributeName'
            : `Invalid parameter: Attributes Reason: Unknown attribute ${name}`,
        );
    }
  }
  if (protocol === 'firehose' && mode === 'subscribe' && !out.SubscriptionRoleArn)
    throw invalid(
      'Invalid parameter: Attributes Reason: SubscriptionRoleArn is required for firehose subscriptions',
    );
  return out;
}

/** Applies checked attributes (an empty value removes the attribute). */
export function applySubscriptionAttributes(
  stored: Record<string, string>,
  changes: Record<string, string>,
): void {
  for (const [name, value] of Object.entries(changes)) {
    if (value === '') delete stored[name];
    else stored[name] = value;
  }
  if (!stored.FilterPolicy) delete stored.FilterPolicyScope;
}

/** Every attribute GetSubscriptionAttributes reports. */
export function subscriptionAttributesView(s: Subscription): Record<string, string> {
  const view: Record<string, string> = {
    SubscriptionArn: s.arn,
    TopicArn: s.topicArn,
    Owner: s.account,
    Protocol: s.protocol,
    Endpoint: s.endpoint,
    PendingConfirmation: String(s.pendingConfirmation),
    ConfirmationWasAuthenticated: String(!s.pendingConfirmation),
    RawMessageDelivery: 'false',
    SubscriptionPrincipal: `arn:aws:iam::${s.account}:root`,
    ...s.attributes,
  };
  // SNS reports the scope only beside a filter policy, defaulting it (GetSubscriptionAttributes).
  if (s.attributes.FilterPolicy)
    view.FilterPolicyScope = s.attributes.FilterPolicyScope ?? 'MessageAttributes';
  if (s.protocol === 'http' || s.protocol === 'https')
    view.EffectiveDeliveryPolicy = s.attributes.DeliveryPolicy ?? DEFAULT_EFFECTIVE_DELIVERY_POLICY;
  return view;
}
