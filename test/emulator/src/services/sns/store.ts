/**
 * SNS topics and subscriptions per account and region, with the rules of
 * CreateTopic (idempotent by name, conflicting attributes or tags refused),
 * and the topic policies Cloud Control's `AWS::SNS::TopicPolicy` records.
 * Shared with Cloud Control (`AWS::SNS::Topic`, `::Subscription`, `::TopicPolicy`).
 */
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';
import { defaultTopicPolicy } from './policy';
import { applyTopicAttributes, normalizeTopicAttributes } from './topic-attributes';

export interface Topic {
  account: string;
  region: string;
  name: string;
  /** Epoch ms. */
  created: number;
  /** Settable attributes as SNS strings (`Policy` always present: SNS's default until replaced). */
  attributes: Record<string, string>;
  tags: Record<string, string>;
  dataProtectionPolicy?: string;
  subscriptionsDeleted: number;
}

export interface Subscription {
  arn: string;
  topicArn: string;
  /** The subscriber's account (the caller of Subscribe): the subscription's owner. */
  account: string;
  region: string;
  protocol: string;
  endpoint: string;
  /** Settable attributes as SNS strings. */
  attributes: Record<string, string>;
  pendingConfirmation: boolean;
  /** The token ConfirmSubscription takes, while pending. */
  confirmationToken?: string;
}

/** A topic policy made through Cloud Control (`AWS::SNS::TopicPolicy`): one document on some topics. */
export interface TopicPolicyRecord {
  id: string;
  account: string;
  region: string;
  topics: string[];
  document: string;
}

export const snsErrors = {
  topicNotFound: () => new AwsError('NotFound', 'Topic does not exist'),
  subscriptionNotFound: () => new AwsError('NotFound', 'Subscription does not exist'),
  resourceNotFound: () => new AwsError('ResourceNotFound', 'Resource does not exist'),
  invalidParameter: (message: string) => new AwsError('InvalidParameter', message),
};

const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const FIFO_TOPIC_NAME = /^[A-Za-z0-9_-]{1,251}\.fifo$/;

export function topicArn(topic: Pick<Topic, 'account' | 'region' | 'name'>): string {
  return `arn:aws:sns:${topic.region}:${topic.account}:${topic.name}`;
}

/** `arn:aws:sns:<region>:<account>:<name>` → its parts. */
export function parseTopicArn(arn: string): { region: string; account: string; name: string } | undefined {
  const m = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]+)$/.exec(arn);
  return m ? { region: m[1]!, account: m[2]!, name: m[3]! } : undefined;
}

function sameTags(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

export class SnsStore implements ServiceStore {
  /** By topic ARN. */
  readonly topics = new Map<string, Topic>();
  /** By subscription ARN. */
  readonly subscriptions = new Map<string, Subscription>();
  /** By id. */
  readonly topicPolicies = new Map<string, TopicPolicyRecord>();

  topic(arn: string): Topic | undefined {
    return this.topics.get(arn);
  }

  /**
   * CreateTopic: a new topic, or the existing one of that name when every given attribute
   * and the given tags match it (SNS API reference: "This action is idempotent").
   */
  createTopic(
    account: string,
    region: string,
    name: string,
    attributes: Record<string, string>,
    tags: Record<string, string>,
  ): { topic: Topic; created: boolean } {
    const fifoRequested = attributes.FifoTopic?.toLowerCase() === 'true';
    if (fifoRequested && !FIFO_TOPIC_NAME.test(name))
      throw new AwsError(
        'InvalidParameterValue',
        'Fifo Topic names must end with .fifo and must be made up of only uppercase and lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 and 256 characters long.',
      );
    if (!fifoRequested && !TOPIC_NAME.test(name))
      throw new AwsError(
        'InvalidParameterValue',
        'Topic names must be made up of only uppercase and lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 and 256 characters long.',
      );
    const normalized = normalizeTopicAttributes(attributes, fifoRequested, 'create');
    const arn = topicArn({ account, region, name });
    const existing = this.topics.get(arn);
    if (existing) {
      for (const [key, value] of Object.entries(normalized))
        if ((existing.attributes[key] ?? '') !== value)
          throw snsErrors.invalidParameter(
            'Invalid parameter: Attributes Reason: Topic already exists with different attributes',
          );
      if (Object.keys(tags).length && !sameTags(existing.tags, tags))
        throw snsErrors.invalidParameter(
          'Invalid parameter: Tags Reason: Topic already exists with different tags',
        );
      return { topic: existing, created: false };
    }
    const stored: Record<string, string> = {
      Policy: defaultTopicPolicy(arn, account),
      ...(fifoRequested ? { FifoTopic: 'true', ContentBasedDeduplication: 'false' } : {}),
    };
    applyTopicAttributes(stored, normalized);
    if (!fifoRequested) delete stored.FifoTopic;
    const topic: Topic = {
      account,
      region,
      name,
      created: Date.now(),
      attributes: stored,
      tags: { ...tags },
      subscriptionsDeleted: 0,
    };
    this.topics.set(arn, topic);
    return { topic, created: true };
  }

  /** DeleteTopic: the topic and its subscriptions. */
  deleteTopic(topic: Topic): void {
    const arn = topicArn(topic);
    for (const s of this.subscriptionsOf(arn)) this.subscriptions.delete(s.arn);
    this.topics.delete(arn);
  }

  subscriptionsOf(topicArnValue: string): Subscription[] {
    return [...this.subscriptions.values()].filter((s) => s.topicArn === topicArnValue);
  }

  unsubscribe(subscription: Subscription): void {
    this.subscriptions.delete(subscription.arn);
    const topic = this.topics.get(subscription.topicArn);
    if (topic) topic.subscriptionsDeleted++;
  }

  clear(): void {
    this.topics.clear();
    this.subscriptions.clear();
    this.topicPolicies.clear();
  }

  snapshot(): unknown {
    return {
      topics: [...this.topics.values()],
      subscriptions: [...this.subscriptions.values()],
      topicPolicies: [...this.topicPolicies.values()],
    };
  }

  restore(saved: unknown): void {
    const data = saved as {
      topics?: Topic[];
      subscriptions?: Subscription[];
      topicPolicies?: TopicPolicyRecord[];
    };
    for (const t of data.topics ?? []) this.topics.set(topicArn(t), t);
    for (const s of data.subscriptions ?? []) this.subscriptions.set(s.arn, s);
    for (const p of data.topicPolicies ?? []) this.topicPolicies.set(p.id, p);
  }
}
