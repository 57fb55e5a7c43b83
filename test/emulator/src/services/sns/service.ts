/**
 * Amazon SNS operations (awsQuery 2010-03-31): topics, their attributes,
 * policies (AddPermission / RemovePermission), tags and data protection
 * policies; subscriptions and their attributes; ListTopics /
 * ListSubscriptions(ByTopic) paginated. Publishing is in `publish.ts`.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { CallContext, Operations } from '../../core/service';
import { addPermission, removePermission, topicAllows } from './policy';
import { parseTopicArn, snsErrors, topicArn, type SnsStore, type Subscription, type Topic } from './store';
import {
  applySubscriptionAttributes,
  normalizeSubscriptionAttributes,
  PROTOCOLS,
  subscriptionAttributesView,
} from './subscription-attributes';
import {
  applyTopicAttributes,
  DEFAULT_EFFECTIVE_DELIVERY_POLICY,
  normalizeTopicAttributes,
} from './topic-attributes';

type Input = Record<string, unknown>;

const PAGE_SIZE = 100;
const MAX_TAGS = 50;
const invalid = snsErrors.invalidParameter;

function requireString(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw invalid(`Invalid parameter: ${name}`);
  return value;
}

function stringMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = String(v);
  return out;
}

/** A page of `items` after the opaque `token` (base64 of the last key served). */
export function page<T>(items: T[], key: (item: T) => string, token: unknown): { items: T[]; next?: string } {
  let start = 0;
  if (typeof token === 'string' && token !== '') {
    const after = Buffer.from(token, 'base64').toString('utf8');
    start = items.findIndex((i) => key(i) === after) + 1;
    if (start === 0) throw invalid('Invalid parameter: NextToken');
  }
  const slice = items.slice(start, start + PAGE_SIZE);
  const next =
    start + PAGE_SIZE < items.length
      ? Buffer.from(key(slice[slice.length - 1]!)).toString('base64')
      : undefined;
  return { items: slice, ...(next ? { next } : {}) };
}

function tagList(value: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of Array.isArray(value) ? (value as Array<{ Key?: unknown; Value?: unknown }>) : []) {
    const key = typeof t.Key === 'string' ? t.Key : '';
    const val = typeof t.Value === 'string' ? t.Value : '';
    if (!key || key.length > 128)
      throw invalid('Invalid parameter: Tags Reason: Tag key must be 1 to 128 characters');
    if (key.toLowerCase().startsWith('aws:'))
      throw invalid('Invalid parameter: Tags Reason: Tag keys must not start with aws:');
    if (val.length > 256)
      throw invalid('Invalid parameter: Tags Reason: Tag value must be 0 to 256 characters');
    tags[key] = val;
  }
  return tags;
}

/** The subscriptions of a topic by state, for GetTopicAttributes. */
function subscriptionCounts(store: SnsStore, arn: string): { confirmed: number; pending: number } {
  let confirmed = 0;
  let pending = 0;
  for (const s of store.subscriptionsOf(arn))
    if (s.pendingConfirmation) pending++;
    else confirmed++;
  return { confirmed, pending };
}

/** Every attribute GetTopicAttributes reports. */
export function topicAttributesView(store: SnsStore, topic: Topic): Record<string, string> {
  const arn = topicArn(topic);
  const counts = subscriptionCounts(store, arn);
  return {
    TopicArn: arn,
    Owner: topic.account,
    DisplayName: '',
    SubscriptionsConfirmed: String(counts.confirmed),
    SubscriptionsPending: String(counts.pending),
    SubscriptionsDeleted: String(topic.subscriptionsDeleted),
    EffectiveDeliveryPolicy: topic.attributes.DeliveryPolicy ?? DEFAULT_EFFECTIVE_DELIVERY_POLICY,
    ...topic.attributes,
    ...(topic.attributes.ArchivePolicy
      ? { BeginningArchiveTime: new Date(topic.created).toISOString() }
      : {}),
  };
}

/** A subscription ARN is its topic's ARN and a UUID. */
function topicArnOfSubscription(arn: string): string | undefined {
  const m = /^(arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+):[0-9a-f-]{36}$/.exec(arn);
  return m?.[1];
}

export class SnsOperations {
  readonly operations: Operations = {
    CreateTopic: (ctx, input) => this.createTopic(ctx, input),
    DeleteTopic: (ctx, input) => this.deleteTopic(ctx, input),
    GetTopicAttributes: (ctx, input) => ({
      Attributes: topicAttributesView(this.store, this.topic(ctx, input, 'GetTopicAttributes')),
    }),
    SetTopicAttributes: (ctx, input) => this.setTopicAttributes(ctx, input),
    ListTopics: (ctx, input) => this.listTopics(ctx, input),
    AddPermission: (ctx, input) => this.addPermission(ctx, input),
    RemovePermission: (ctx, input) => this.removePermission(ctx, input),
    TagResource: (ctx, input) => this.tagResource(ctx, input),
    UntagResource: (ctx, input) => this.untagResource(ctx, input),
    ListTagsForResource: (ctx, input) => ({
      Tags: Object.entries(this.tagged(ctx, input).tags).map(([Key, Value]) => ({ Key, Value })),
    }),
    GetDataProtectionPolicy: (ctx, input) => ({
      DataProtectionPolicy: this.tagged(ctx, input).dataProtectionPolicy,
    }),
    PutDataProtectionPolicy: (ctx, input) => this.putDataProtectionPolicy(ctx, input),
    Subscribe: (ctx, input) => this.subscribe(ctx, input),
    ConfirmSubscription: (ctx, input) => this.confirmSubscription(ctx, input),
    Unsubscribe: (ctx, input) => this.unsubscribe(ctx, input),
    GetSubscriptionAttributes: (ctx, input) => ({
      Attributes: subscriptionAttributesView(this.subscription(ctx, input)),
    }),
    SetSubscriptionAttributes: (ctx, input) => this.setSubscriptionAttributes(ctx, input),
    ListSubscriptions: (ctx, input) => this.listSubscriptions(ctx, input),
    ListSubscriptionsByTopic: (ctx, input) => this.listSubscriptionsByTopic(ctx, input),
  };

  constructor(private readonly store: SnsStore) {}

  /** The topic a request's ARN names, in the caller's region, if the caller may call `action` on it. */
  topic(ctx: CallContext, input: Input, action: string, member = 'TopicArn'): Topic {
    const arn = requireString(input, member);
    const parsed = parseTopicArn(arn);
    if (!parsed || parsed.region !== ctx.region) throw invalid(`Invalid parameter: ${member}`);
    const topic = this.store.topic(arn);
    if (!topic) throw snsErrors.topicNotFound();
    this.authorize(ctx, topic, action);
    return topic;
  }

  private authorize(ctx: CallContext, topic: Topic, action: string): void {
    const arn = topicArn(topic);
    const principal = { aws: { account: ctx.account, arn: ctx.callerArn } };
    if (!topicAllows(topic.attributes.Policy, arn, topic.account, principal, `sns:${action}`))
      throw new AwsError(
        'AuthorizationError',
        `User: ${ctx.callerArn} is not authorized to perform: SNS:${action} on resource: ${arn}`,
      );
  }

  private createTopic(ctx: CallContext, input: Input): unknown {
    const name = typeof input.Name === 'string' ? input.Name : '';
    const attributes = stringMap(input.Attributes);
    const tags = tagList(input.Tags);
    if (Object.keys(tags).length > MAX_TAGS)
      throw new AwsError(
        'TagLimitExceeded',
        'Could not complete request: tag quota of per resource exceeded',
      );
    const { topic } = this.store.createTopic(ctx.account, ctx.region, name, attributes, tags);
    if (typeof input.DataProtectionPolicy === 'string' && input.DataProtectionPolicy !== '')
      topic.dataProtectionPolicy = checkDataProtectionPolicy(input.DataProtectionPolicy);
    return { TopicArn: topicArn(topic) };
  }

  private deleteTopic(ctx: CallContext, input: Input): unknown {
    const arn = requireString(input, 'TopicArn');
    const parsed = parseTopicArn(arn);
    if (!parsed || parsed.region !== ctx.region) throw invalid('Invalid parameter: TopicArn');
    const topic = this.store.topic(arn);
    // DeleteTopic: "Deleting a topic that doesn't exist doesn't result in an error."
    if (!topic) return {};
    this.authorize(ctx, topic, 'DeleteTopic');
    this.store.deleteTopic(topic);
    return {};
  }

  private setTopicAttributes(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'SetTopicAttributes');
    const name = requireString(input, 'AttributeName');
    const value = typeof input.AttributeValue === 'string' ? input.AttributeValue : '';
    const changes = normalizeTopicAttributes(
      { [name]: value },
      topic.attributes.FifoTopic === 'true',
      'update',
    );
    applyTopicAttributes(topic.attributes, changes);
    return {};
  }

  private listTopics(ctx: CallContext, input: Input): unknown {
    const topics = [...this.store.topics.values()]
      .filter((t) => t.account === ctx.account && t.region === ctx.region)
      .map(topicArn)
      .sort();
    const { items, next } = page(topics, (a) => a, input.NextToken);
    return { Topics: items.map((TopicArn) => ({ TopicArn })), NextToken: next };
  }

  private addPermission(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'AddPermission');
    const accounts = Array.isArray(input.AWSAccountId) ? (input.AWSAccountId as string[]) : [];
    const actions = Array.isArray(input.ActionName) ? (input.ActionName as string[]) : [];
    topic.attributes.Policy = addPermission(
      topic.attributes.Policy!,
      topicArn(topic),
      String(input.Label ?? ''),
      accounts,
      actions,
    );
    return {};
  }

  private removePermission(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'RemovePermission');
    topic.attributes.Policy = removePermission(topic.attributes.Policy!, requireString(input, 'Label'));
    return {};
  }

  /** The topic a tagging call's `ResourceArn` names (`ResourceNotFound` when there is none). */
  private tagged(ctx: CallContext, input: Input): Topic {
    const arn = requireString(input, 'ResourceArn');
    const parsed = parseTopicArn(arn);
    const topic = parsed && parsed.region === ctx.region ? this.store.topic(arn) : undefined;
    if (!topic) throw snsErrors.resourceNotFound();
    this.authorize(ctx, topic, 'ListTagsForResource');
    return topic;
  }

  private tagResource(ctx: CallContext, input: Input): unknown {
    const topic = this.tagged(ctx, input);
    const tags = tagList(input.Tags);
    const merged = { ...topic.tags, ...tags };
    if (Object.keys(merged).length > MAX_TAGS)
      throw new AwsError(
        'TagLimitExceeded',
        'Could not complete request: tag quota of per resource exceeded',
      );
    topic.tags = merged;
    return {};
  }

  private untagResource(ctx: CallContext, input: Input): unknown {
    const topic = this.tagged(ctx, input);
    for (const key of Array.isArray(input.TagKeys) ? (input.TagKeys as string[]) : []) delete topic.tags[key];
    return {};
  }

  private putDataProtectionPolicy(ctx: CallContext, input: Input): unknown {
    const topic = this.tagged(ctx, input);
    const policy = typeof input.DataProtectionPolicy === 'string' ? input.DataProtectionPolicy : '';
    if (policy === '') delete topic.dataProtectionPolicy;
    else topic.dataProtectionPolicy = checkDataProtectionPolicy(policy);
    return {};
  }

  private subscribe(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'Subscribe');
    const { subscription } = createSubscription(
      this.store,
      topic,
      ctx.account,
      requireString(input, 'Protocol'),
      typeof input.Endpoint === 'string' ? input.Endpoint : '',
      stringMap(input.Attributes),
    );
    const returnArn = input.ReturnSubscriptionArn === true;
    return {
      SubscriptionArn:
        subscription.pendingConfirmation && !returnArn ? 'pending confirmation' : subscription.arn,
    };
  }

  private confirmSubscription(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'ConfirmSubscription');
    const token = requireString(input, 'Token');
    const subscription = this.store
      .subscriptionsOf(topicArn(topic))
      .find((s) => s.pendingConfirmation && s.confirmationToken === token);
    if (!subscription) throw invalid('Invalid parameter: Token');
    subscription.pendingConfirmation = false;
    delete subscription.confirmationToken;
    return { SubscriptionArn: subscription.arn };
  }

  private subscription(ctx: CallContext, input: Input): Subscription {
    const arn = requireString(input, 'SubscriptionArn');
    const topic = topicArnOfSubscription(arn);
    if (!topic || parseTopicArn(topic)?.region !== ctx.region)
      throw invalid('Invalid parameter: SubscriptionArn');
    const subscription = this.store.subscriptions.get(arn);
    if (!subscription) throw snsErrors.subscriptionNotFound();
    return subscription;
  }

  private unsubscribe(ctx: CallContext, input: Input): unknown {
    const arn = requireString(input, 'SubscriptionArn');
    const topic = topicArnOfSubscription(arn);
    if (!topic || parseTopicArn(topic)?.region !== ctx.region)
      throw invalid('Invalid parameter: SubscriptionArn');
    const subscription = this.store.subscriptions.get(arn);
    if (subscription) this.store.unsubscribe(subscription);
    return {};
  }

  private setSubscriptionAttributes(ctx: CallContext, input: Input): unknown {
    const subscription = this.subscription(ctx, input);
    const name = requireString(input, 'AttributeName');
    const value = typeof input.AttributeValue === 'string' ? input.AttributeValue : '';
    const fifo = this.store.topic(subscription.topicArn)?.attributes.FifoTopic === 'true';
    const changes = normalizeSubscriptionAttributes(
      { [name]: value },
      subscription.protocol,
      fifo,
      subscription.attributes.FilterPolicyScope,
      'set',
    );
    // A new scope must still fit the filter policy in place.
    if (name === 'FilterPolicyScope' && subscription.attributes.FilterPolicy)
      normalizeSubscriptionAttributes(
        { FilterPolicy: subscription.attributes.FilterPolicy },
        subscription.protocol,
        fifo,
        value,
        'set',
      );
    applySubscriptionAttributes(subscription.attributes, changes);
    return {};
  }

  private listSubscriptions(ctx: CallContext, input: Input): unknown {
    const subscriptions = [...this.store.subscriptions.values()]
      .filter((s) => s.account === ctx.account && s.region === ctx.region)
      .sort((a, b) => (a.arn < b.arn ? -1 : 1));
    const { items, next } = page(subscriptions, (s) => s.arn, input.NextToken);
    return { Subscriptions: items.map(listed), NextToken: next };
  }

  private listSubscriptionsByTopic(ctx: CallContext, input: Input): unknown {
    const topic = this.topic(ctx, input, 'ListSubscriptionsByTopic');
    const subscriptions = this.store
      .subscriptionsOf(topicArn(topic))
      .sort((a, b) => (a.arn < b.arn ? -1 : 1));
    const { items, next } = page(subscriptions, (s) => s.arn, input.NextToken);
    return { Subscriptions: items.map(listed), NextToken: next };
  }
}

/**
 * Subscribe: a new subscription of the endpoint to the topic, or the existing one for the
 * same protocol and endpoint when the given attributes match it (Subscribe is idempotent).
 */
export function createSubscription(
  store: SnsStore,
  topic: Topic,
  owner: string,
  protocolName: string,
  endpoint: string,
  requested: Record<string, string>,
): { subscription: Subscription; created: boolean } {
  const arn = topicArn(topic);
  const protocol = protocolName.toLowerCase();
  if (!PROTOCOLS.has(protocol))
    throw invalid(`Invalid parameter: Amazon SNS does not support this protocol string: ${protocol}`);
  const fifo = topic.attributes.FifoTopic === 'true';
  checkEndpoint(protocol, endpoint, fifo);
  const attributes = normalizeSubscriptionAttributes(requested, protocol, fifo, undefined, 'subscribe');
  const existing = store.subscriptionsOf(arn).find((s) => s.protocol === protocol && s.endpoint === endpoint);
  if (existing) {
    for (const [name, value] of Object.entries(attributes))
      if ((existing.attributes[name] ?? '') !== value)
        throw invalid(
          'Invalid parameter: Attributes Reason: Subscription already exists with different attributes',
        );
    return { subscription: existing, created: false };
  }
  const pending = needsConfirmation(protocol, endpoint, owner);
  const subscription: Subscription = {
    arn: `${arn}:${uuid()}`,
    topicArn: arn,
    account: owner,
    region: topic.region,
    protocol,
    endpoint,
    attributes: {},
    pendingConfirmation: pending,
    ...(pending ? { confirmationToken: uuid().replace(/-/g, '') + uuid().replace(/-/g, '') } : {}),
  };
  applySubscriptionAttributes(subscription.attributes, attributes);
  store.subscriptions.set(subscription.arn, subscription);
  return { subscription, created: true };
}

/** A subscription as the List operations show it (a pending one without its ARN). */
function listed(s: Subscription) {
  return {
    SubscriptionArn: s.pendingConfirmation ? 'PendingConfirmation' : s.arn,
    Owner: s.account,
    Protocol: s.protocol,
    Endpoint: s.endpoint,
    TopicArn: s.topicArn,
  };
}

/** Endpoints by protocol (SNS API reference, Subscribe "Endpoint"). */
function checkEndpoint(protocol: string, endpoint: string, fifoTopic: boolean): void {
  const arnOf = (service: string) => new RegExp(`^arn:aws[a-z-]*:${service}:[a-z0-9-]+:\\d{12}:.+$`);
  const ok: Record<string, boolean> = {
    http: /^http:\/\/.+/.test(endpoint),
    https: /^https:\/\/.+/.test(endpoint),
    email: /^[^@\s]+@[^@\s]+$/.test(endpoint),
    'email-json': /^[^@\s]+@[^@\s]+$/.test(endpoint),
    sms: /^\+?[0-9 ().-]{7,}$/.test(endpoint),
    sqs: arnOf('sqs').test(endpoint),
    lambda: arnOf('lambda').test(endpoint),
    firehose: arnOf('firehose').test(endpoint),
    application: arnOf('sns').test(endpoint),
  };
  if (!ok[protocol]) {
    const label = {
      sqs: 'SQS endpoint ARN',
      lambda: 'Lambda endpoint ARN',
      firehose: 'Firehose endpoint ARN',
    }[protocol as 'sqs'];
    throw invalid(`Invalid parameter: ${label ?? 'Endpoint'}`);
  }
  if (fifoTopic && protocol !== 'sqs')
    throw invalid(
      `Invalid parameter: Invalid protocol type: ${protocol} Reason: FIFO topics only support the sqs protocol`,
    );
  if (!fifoTopic && protocol === 'sqs' && endpoint.endsWith('.fifo'))
    throw invalid(
      'Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics',
    );
}

/**
 * HTTP(S) and email endpoints confirm by a link SNS sends; an SQS queue or Lambda function of
 * another account than the subscriber's confirms too. The rest are confirmed at once.
 */
function needsConfirmation(protocol: string, endpoint: string, caller: string): boolean {
  if (['http', 'https', 'email', 'email-json'].includes(protocol)) return true;
  if (protocol === 'sqs' || protocol === 'lambda') return endpoint.split(':')[4] !== caller;
  return false;
}

/** A data protection policy: a JSON document with `Name`, `Version` and `Statement` (SNS Developer Guide). */
function checkDataProtectionPolicy(text: string): string {
  let doc: Record<string, unknown> | undefined;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    doc = undefined;
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.Statement) || typeof doc.Name !== 'string')
    throw invalid(
      'Invalid parameter: DataProtectionPolicy Reason: The policy must be valid JSON with Name, Version and Statement',
    );
  return text;
}
