/**
 * SNS topics, subscriptions and topic policies as the CloudFormation types
 * `AWS::SNS::Topic` (identifier: the topic ARN), `AWS::SNS::Subscription`
 * (the subscription ARN) and `AWS::SNS::TopicPolicy`, over SNS's own store.
 * A topic policy made through Cloud Control is a record with a generated
 * `Id`; a topic whose policy was set through the SNS API to something other
 * than SNS's default is listed as a topic policy identified by the topic ARN.
 */
import { lowerAlnum, upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import { defaultTopicPolicy, topicPolicyProblem } from './policy';
import { createSubscription } from './service';
import { topicArn, type SnsStore, type Subscription, type Topic, type TopicPolicyRecord } from './store';
import { applySubscriptionAttributes, normalizeSubscriptionAttributes } from './subscription-attributes';
import { applyTopicAttributes, normalizeTopicAttributes } from './topic-attributes';

type Model = Record<string, unknown>;

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const parsed = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** CloudFormation's `DeliveryStatusLogging[].Protocol` → the prefix of SNS's feedback attributes. */
const LOGGING_PREFIX: Record<string, string> = {
  'http/s': 'HTTP',
  sqs: 'SQS',
  lambda: 'Lambda',
  firehose: 'Firehose',
  application: 'Application',
};
const LOGGING_MEMBERS = ['SuccessFeedbackRoleArn', 'SuccessFeedbackSampleRate', 'FailureFeedbackRoleArn'];
const TOPIC_STRINGS = [
  'DisplayName',
  'KmsMasterKeyId',
  'SignatureVersion',
  'TracingConfig',
  'FifoThroughputScope',
];

function tagsOf(model: Model): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of Array.isArray(model.Tags) ? (model.Tags as Array<{ Key: string; Value: string }>) : [])
    tags[t.Key] = t.Value;
  return tags;
}

/** SNS attributes for a topic's CloudFormation properties (absent ones left out). */
function topicAttributesFromModel(model: Model): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of TOPIC_STRINGS) if (typeof model[name] === 'string') out[name] = model[name] as string;
  if (model.FifoTopic !== undefined) out.FifoTopic = String(model.FifoTopic);
  if (model.ContentBasedDeduplication !== undefined)
    out.ContentBasedDeduplication = String(model.ContentBasedDeduplication);
  if (model.ArchivePolicy !== undefined) out.ArchivePolicy = json(model.ArchivePolicy);
  if (model.MaximumMessageSize !== undefined) out.MaximumMessageSize = String(model.MaximumMessageSize);
  for (const entry of Array.isArray(model.DeliveryStatusLogging)
    ? (model.DeliveryStatusLogging as Model[])
    : []) {
    const prefix = LOGGING_PREFIX[String(entry.Protocol)];
    if (!prefix)
      throw new HandlerError(
        'InvalidRequest',
        `Invalid DeliveryStatusLogging protocol ${String(entry.Protocol)}`,
      );
    for (const member of LOGGING_MEMBERS)
      if (entry[member] !== undefined) out[`${prefix}${member}`] = String(entry[member]);
  }
  return out;
}

function topicModel(store: SnsStore, topic: Topic): Model {
  const a = topic.attributes;
  const model: Model = { TopicName: topic.name, TopicArn: topicArn(topic) };
  for (const name of TOPIC_STRINGS) if (a[name] !== undefined && a[name] !== '') model[name] = a[name];
  if (a.FifoTopic === 'true') {
    model.FifoTopic = true;
    model.ContentBasedDeduplication = a.ContentBasedDeduplication === 'true';
  }
  if (a.ArchivePolicy) model.ArchivePolicy = parsed(a.ArchivePolicy);
  if (a.MaximumMessageSize) model.MaximumMessageSize = Number(a.MaximumMessageSize);
  if (topic.dataProtectionPolicy) model.DataProtectionPolicy = parsed(topic.dataProtectionPolicy);
  const logging: Model[] = [];
  for (const [protocol, prefix] of Object.entries(LOGGING_PREFIX)) {
    const entry: Model = { Protocol: protocol };
    for (const member of LOGGING_MEMBERS)
      if (a[`${prefix}${member}`]) entry[member] = a[`${prefix}${member}`];
    if (Object.keys(entry).length > 1) logging.push(entry);
  }
  if (logging.length) model.DeliveryStatusLogging = logging;
  const subscriptions = store
    .subscriptionsOf(topicArn(topic))
    .map((s) => ({ Endpoint: s.endpoint, Protocol: s.protocol }));
  if (subscriptions.length) model.Subscription = subscriptions;
  const tags = Object.entries(topic.tags);
  if (tags.length) model.Tags = tags.map(([Key, Value]) => ({ Key, Value }));
  return model;
}

/** The topic `identifier` names in this account and region. */
function scopedTopic(store: SnsStore, scope: ResourceScope, identifier: string): Topic | undefined {
  const topic = store.topic(identifier);
  return topic && topic.account === scope.account && topic.region === scope.region ? topic : undefined;
}

export class TopicProvider implements ResourceProvider {
  readonly typeName = 'AWS::SNS::Topic';

  constructor(private readonly store: SnsStore) {}

  private resource(topic: Topic): StoredResource {
    return { identifier: topicArn(topic), model: topicModel(this.store, topic) };
  }

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.store.topics.values(), (t) => this.resource(t));
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const fifo = desired.FifoTopic === true;
    const name =
      typeof desired.TopicName === 'string'
        ? desired.TopicName
        : `Topic-${upperAlnum(12)}${fifo ? '.fifo' : ''}`;
    const arn = topicArn({ account: scope.account, region: scope.region, name });
    // The handler refuses a name that exists instead of adopting the topic.
    if (this.store.topic(arn)) throw alreadyExists(schema.typeName, arn);
    try {
      const { topic } = this.store.createTopic(
        scope.account,
        scope.region,
        name,
        topicAttributesFromModel(desired),
        tagsOf(desired),
      );
      if (desired.DataProtectionPolicy !== undefined)
        topic.dataProtectionPolicy = json(desired.DataProtectionPolicy);
      for (const s of Array.isArray(desired.Subscription) ? (desired.Subscription as Model[]) : [])
        createSubscription(this.store, topic, scope.account, String(s.Protocol), String(s.Endpoint), {});
      return this.resource(topic);
    } catch (err) {
      throw serviceFailure(err, 'Sns');
    }
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const topic = scopedTopic(this.store, scope, identifier);
    return topic ? this.resource(topic) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const topic = scopedTopic(this.store, scope, identifier);
    if (!topic) throw notFound(schema.typeName, identifier);
    const fifo = topic.attributes.FifoTopic === 'true';
    const wanted = topicAttributesFromModel(desired);
    delete wanted.FifoTopic;
    // Whatever the new model leaves out goes back to SNS's default (removing the attribute).
    const changes: Record<string, string> = { ...wanted };
    for (const name of Object.keys(topic.attributes))
      if (!(name in wanted) && name !== 'Policy' && name !== 'FifoTopic' && name !== 'DeliveryPolicy')
        changes[name] = name === 'ContentBasedDeduplication' ? 'false' : '';
    try {
      for (const name of ['TracingConfig', 'SignatureVersion'])
        if (changes[name] === '') {
          delete changes[name];
          delete topic.attributes[name];
        }
      applyTopicAttributes(topic.attributes, normalizeTopicAttributes(changes, fifo, 'update'));
      if (desired.DataProtectionPolicy !== undefined)
        topic.dataProtectionPolicy = json(desired.DataProtectionPolicy);
      else delete topic.dataProtectionPolicy;
      this.reconcileSubscriptions(topic, desired, scope.account);
    } catch (err) {
      throw serviceFailure(err, 'Sns');
    }
    topic.tags = tagsOf(desired);
    return this.resource(topic);
  }

  /** The `Subscription` list: endpoints added are subscribed, those removed unsubscribed. */
  private reconcileSubscriptions(topic: Topic, desired: Model, owner: string): void {
    const key = (protocol: string, endpoint: string) => `${protocol} ${endpoint}`;
    const wanted = new Map<string, Model>();
    for (const s of Array.isArray(desired.Subscription) ? (desired.Subscription as Model[]) : [])
      wanted.set(key(String(s.Protocol), String(s.Endpoint)), s);
    const current = this.store.subscriptionsOf(topicArn(topic));
    for (const s of current) if (!wanted.has(key(s.protocol, s.endpoint))) this.store.unsubscribe(s);
    for (const [k, s] of wanted)
      if (!current.some((c) => key(c.protocol, c.endpoint) === k))
        createSubscription(this.store, topic, owner, String(s.Protocol), String(s.Endpoint), {});
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const topic = scopedTopic(this.store, scope, identifier);
    if (!topic) throw notFound(schema.typeName, identifier);
    this.store.deleteTopic(topic);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.store.topics.values()]
      .filter((t) => t.account === scope.account && t.region === scope.region)
      .map((t) => this.resource(t));
  }
}

const SUBSCRIPTION_POLICIES = ['FilterPolicy', 'RedrivePolicy', 'DeliveryPolicy', 'ReplayPolicy'];

function subscriptionAttributesFromModel(model: Model): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SUBSCRIPTION_POLICIES) if (model[name] !== undefined) out[name] = json(model[name]);
  if (model.RawMessageDelivery !== undefined) out.RawMessageDelivery = String(model.RawMessageDelivery);
  if (typeof model.FilterPolicyScope === 'string') out.FilterPolicyScope = model.FilterPolicyScope;
  if (typeof model.SubscriptionRoleArn === 'string') out.SubscriptionRoleArn = model.SubscriptionRoleArn;
  return out;
}

function subscriptionModel(s: Subscription): Model {
  const a = s.attributes;
  const model: Model = {
    Arn: s.arn,
    TopicArn: s.topicArn,
    Protocol: s.protocol,
    Endpoint: s.endpoint,
    Region: s.region,
    RawMessageDelivery: a.RawMessageDelivery === 'true',
  };
  for (const name of SUBSCRIPTION_POLICIES) if (a[name]) model[name] = parsed(a[name]);
  if (a.FilterPolicy) model.FilterPolicyScope = a.FilterPolicyScope ?? 'MessageAttributes';
  if (a.SubscriptionRoleArn) model.SubscriptionRoleArn = a.SubscriptionRoleArn;
  return model;
}

export class SubscriptionProvider implements ResourceProvider {
  readonly typeName = 'AWS::SNS::Subscription';

  constructor(private readonly store: SnsStore) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.store.subscriptions.values(), (s) => ({
      identifier: s.arn,
      model: subscriptionModel(s),
    }));
  }

  private subscription(scope: ResourceScope, identifier: string): Subscription | undefined {
    const s = this.store.subscriptions.get(identifier);
    return s && s.account === scope.account ? s : undefined;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const arn = String(desired.TopicArn);
    const topic = this.store.topic(arn);
    if (!topic)
      throw new HandlerError('NotFound', `Topic ${arn} does not exist (Service: Sns, Status Code: 404)`);
    try {
      const { subscription } = createSubscription(
        this.store,
        topic,
        scope.account,
        String(desired.Protocol),
        typeof desired.Endpoint === 'string' ? desired.Endpoint : '',
        subscriptionAttributesFromModel(desired),
      );
      return { identifier: subscription.arn, model: subscriptionModel(subscription) };
    } catch (err) {
      throw serviceFailure(err, 'Sns');
    }
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const s = this.subscription(scope, identifier);
    return s ? { identifier, model: subscriptionModel(s) } : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const s = this.subscription(scope, identifier);
    if (!s) throw notFound(schema.typeName, identifier);
    const wanted = subscriptionAttributesFromModel(desired);
    const changes: Record<string, string> = { ...wanted };
    for (const name of Object.keys(s.attributes))
      if (!(name in wanted)) changes[name] = name === 'RawMessageDelivery' ? 'false' : '';
    if (changes.FilterPolicyScope === '') changes.FilterPolicyScope = 'MessageAttributes';
    try {
      const fifo = this.store.topic(s.topicArn)?.attributes.FifoTopic === 'true';
      applySubscriptionAttributes(
        s.attributes,
        normalizeSubscriptionAttributes(changes, s.protocol, fifo, undefined, 'set'),
      );
      if (s.attributes.RawMessageDelivery === 'false') delete s.attributes.RawMessageDelivery;
    } catch (err) {
      throw serviceFailure(err, 'Sns');
    }
    return { identifier, model: subscriptionModel(s) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const s = this.subscription(scope, identifier);
    if (!s) throw notFound(schema.typeName, identifier);
    this.store.unsubscribe(s);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.store.subscriptions.values()]
      .filter((s) => s.account === scope.account && s.region === scope.region)
      .map((s) => ({ identifier: s.arn, model: subscriptionModel(s) }));
  }
}

/** True when a topic's policy is SNS's default one (compared as JSON). */
export function hasDefaultPolicy(topic: Topic): boolean {
  const policy = topic.attributes.Policy;
  if (!policy) return true;
  try {
    return JSON.stringify(JSON.parse(policy)) === defaultTopicPolicy(topicArn(topic), topic.account);
  } catch {
    return false;
  }
}

export class TopicPolicyProvider implements ResourceProvider {
  readonly typeName = 'AWS::SNS::TopicPolicy';

  constructor(private readonly store: SnsStore) {}

  private covered(): Set<string> {
    return new Set([...this.store.topicPolicies.values()].flatMap((p) => p.topics));
  }

  private recordModel(p: TopicPolicyRecord): Model {
    return { Id: p.id, Topics: [...p.topics], PolicyDocument: parsed(p.document) };
  }

  /** A topic whose policy was set through the SNS API, as a topic policy identified by its ARN. */
  private attached(topic: Topic): StoredResource {
    const arn = topicArn(topic);
    return {
      identifier: arn,
      model: { Id: arn, Topics: [arn], PolicyDocument: parsed(topic.attributes.Policy) },
    };
  }

  private nativeAttachments(filter: (t: Topic) => boolean): Topic[] {
    const covered = this.covered();
    return [...this.store.topics.values()].filter(
      (t) => filter(t) && !covered.has(topicArn(t)) && !hasDefaultPolicy(t),
    );
  }

  inventory(): InventoryItem[] {
    return [
      ...inventoryItems(this.typeName, this.store.topicPolicies.values(), (p) => ({
        identifier: p.id,
        model: this.recordModel(p),
      })),
      ...inventoryItems(
        this.typeName,
        this.nativeAttachments(() => true),
        (t) => this.attached(t),
      ),
    ];
  }

  private topics(scope: ResourceScope, desired: Model): Topic[] {
    const arns = Array.isArray(desired.Topics) ? (desired.Topics as unknown[]).map(String) : [];
    if (!arns.length)
      throw new HandlerError('InvalidRequest', 'Value of property Topics must be of type List of String');
    return arns.map((arn) => {
      const topic = scopedTopic(this.store, scope, arn);
      if (!topic)
        throw new HandlerError('NotFound', `Topic does not exist (Service: Sns, Status Code: 404): ${arn}`);
      return topic;
    });
  }

  private write(topics: Topic[], document: string): void {
    const problem = topicPolicyProblem(document);
    if (problem) throw new HandlerError('InvalidRequest', `${problem} (Service: Sns, Status Code: 400)`);
    for (const t of topics) t.attributes.Policy = document;
  }

  private reset(arns: string[]): void {
    for (const arn of arns) {
      const topic = this.store.topic(arn);
      if (topic) topic.attributes.Policy = defaultTopicPolicy(arn, topic.account);
    }
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const topics = this.topics(scope, desired);
    const document = json(desired.PolicyDocument);
    this.write(topics, document);
    const record: TopicPolicyRecord = {
      id: `snstopicpolicy-${lowerAlnum(12)}`,
      account: scope.account,
      region: scope.region,
      topics: topics.map(topicArn),
      document,
    };
    this.store.topicPolicies.set(record.id, record);
    return { identifier: record.id, model: this.recordModel(record) };
  }

  private record(scope: ResourceScope, identifier: string): TopicPolicyRecord | undefined {
    const p = this.store.topicPolicies.get(identifier);
    return p && p.account === scope.account && p.region === scope.region ? p : undefined;
  }

  private nativeAttachment(scope: ResourceScope, identifier: string): Topic | undefined {
    const topic = scopedTopic(this.store, scope, identifier);
    return topic && !this.covered().has(identifier) && !hasDefaultPolicy(topic) ? topic : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const p = this.record(scope, identifier);
    if (p) return { identifier, model: this.recordModel(p) };
    const topic = this.nativeAttachment(scope, identifier);
    return topic ? this.attached(topic) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const p = this.record(scope, identifier);
    if (!p) throw notFound(schema.typeName, identifier);
    const topics = this.topics(scope, desired);
    const document = json(desired.PolicyDocument);
    this.write(topics, document);
    const arns = topics.map(topicArn);
    this.reset(p.topics.filter((t) => !arns.includes(t)));
    p.topics = arns;
    p.document = document;
    return { identifier, model: this.recordModel(p) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const p = this.record(scope, identifier);
    if (p) {
      // The handler puts SNS's default policy back on every topic.
      this.reset(p.topics);
      this.store.topicPolicies.delete(identifier);
      return;
    }
    const topic = this.nativeAttachment(scope, identifier);
    if (!topic) throw notFound(schema.typeName, identifier);
    this.reset([identifier]);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [
      ...[...this.store.topicPolicies.values()]
        .filter((p) => p.account === scope.account && p.region === scope.region)
        .map((p) => ({ identifier: p.id, model: this.recordModel(p) })),
      ...this.nativeAttachments((t) => t.account === scope.account && t.region === scope.region).map((t) =>
        this.attached(t),
      ),
    ];
  }
}
