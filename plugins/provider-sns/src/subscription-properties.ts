/**
 * AWS::SNS::Subscription properties ↔ SNS subscription attributes (strings),
 * and what SetSubscriptionAttributes needs to put a dropped one back to SNS's
 * default. No SDK here: the hook reads the property list without loading the client.
 */
import { attributeValue } from './topic-properties';

/** Every AWS::SNS::Subscription property this pack wires. */
export const SUBSCRIPTION_HANDLED_PROPERTIES = [
  'DeliveryPolicy',
  'Endpoint',
  'FilterPolicy',
  'FilterPolicyScope',
  'Protocol',
  'RawMessageDelivery',
  'Region',
  'RedrivePolicy',
  'ReplayPolicy',
  'SubscriptionRoleArn',
  'TopicArn',
];

/**
 * Properties that are one subscription attribute, with the value that removes it
 * (an empty policy, as CloudFormation's handler sends, or the default).
 */
const ATTRIBUTE_DEFAULTS: Record<string, string> = {
  DeliveryPolicy: '',
  FilterPolicy: '',
  FilterPolicyScope: 'MessageAttributes',
  RawMessageDelivery: 'false',
  RedrivePolicy: '',
  ReplayPolicy: '',
  SubscriptionRoleArn: '',
};

/** An empty object stands for "no policy" (what a drift read-back holds): sent as the empty string SNS takes. */
function value(name: string, v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)
    return ATTRIBUTE_DEFAULTS[name] ?? '';
  return attributeValue(v);
}

/** The attributes a template's properties set, for Subscribe. */
export function subscriptionAttributes(properties: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(ATTRIBUTE_DEFAULTS)) {
    const v = properties[name];
    if (v === undefined || v === null) continue;
    const text = value(name, v);
    if (text !== '') out[name] = text;
  }
  return out;
}

/**
 * The SetSubscriptionAttributes calls of an update, in an order SNS accepts: a filter
 * policy must fit its scope, so the scope moves first when it widens to the message
 * body and last when it narrows to the message attributes.
 */
export function subscriptionAttributeChanges(
  properties: Record<string, unknown>,
  previous: Record<string, unknown>,
): Array<[string, string]> {
  const changes: Array<[string, string]> = [];
  for (const name of Object.keys(ATTRIBUTE_DEFAULTS)) {
    const now = properties[name];
    const before = previous[name];
    const has = now !== undefined && now !== null;
    const had = before !== undefined && before !== null;
    if (has && (!had || value(name, now) !== value(name, before))) changes.push([name, value(name, now)]);
    else if (!has && had) changes.push([name, ATTRIBUTE_DEFAULTS[name]!]);
  }
  const scope = changes.findIndex(([n]) => n === 'FilterPolicyScope');
  if (scope >= 0) {
    const [entry] = changes.splice(scope, 1);
    if (entry![1] === 'MessageBody') changes.unshift(entry!);
    else changes.push(entry!);
  }
  return changes;
}

function parsed(text: string | undefined): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** CloudFormation properties from GetSubscriptionAttributes, every user-controllable one present. */
export function propertiesFromSubscriptionAttributes(
  attributes: Record<string, string>,
  region: string,
): Record<string, unknown> {
  return {
    TopicArn: attributes.TopicArn,
    Protocol: attributes.Protocol,
    Endpoint: attributes.Endpoint,
    Region: region,
    RawMessageDelivery: attributes.RawMessageDelivery === 'true',
    FilterPolicy: parsed(attributes.FilterPolicy),
    FilterPolicyScope: attributes.FilterPolicyScope ?? 'MessageAttributes',
    DeliveryPolicy: parsed(attributes.DeliveryPolicy),
    RedrivePolicy: parsed(attributes.RedrivePolicy),
    ...(attributes.ReplayPolicy !== undefined ? { ReplayPolicy: parsed(attributes.ReplayPolicy) } : {}),
    SubscriptionRoleArn: attributes.SubscriptionRoleArn ?? '',
  };
}
