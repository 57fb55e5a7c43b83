/**
 * Amazon SNS (awsQuery 2010-03-31): topics, subscriptions, topic policies,
 * tags, data protection policies and Publish, shared with Cloud Control's
 * `AWS::SNS::Topic`, `AWS::SNS::Subscription` and `AWS::SNS::TopicPolicy`.
 * Publish delivers to SQS subscriptions through SQS's api and to Lambda
 * subscriptions through Lambda's, when the emulator has one.
 */
import { jsonResponse } from '../../core/http';
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { snsLatency } from './latency';
import { SnsPublisher } from './publish';
import { SubscriptionProvider, TopicPolicyProvider, TopicProvider } from './resource';
import { SnsOperations } from './service';
import { SnsStore } from './store';

export type { DeliveryRecord, ServicePublish, SnsPublishApi } from './publish';

export const sns: ServiceModule = {
  name: 'sns',
  signingNames: ['sns'],
  create(platform) {
    const store = new SnsStore();
    const operations = new SnsOperations(store);
    const publisher = new SnsPublisher(store, operations, platform);
    return {
      protocol: new AwsQueryCodec({
        version: '2010-03-31',
        xmlns: 'http://sns.amazonaws.com/doc/2010-03-31/',
        model: () => require('@aws-sdk/client-sns') as Record<string, unknown>,
        faults: { 429: { code: 'Throttled', status: 429 } },
      }),
      operations: { ...operations.operations, ...publisher.operations },
      api: publisher.api,
      latency: snsLatency,
      store: {
        clear: () => {
          store.clear();
          publisher.clear();
        },
        snapshot: () => store.snapshot(),
        restore: (saved) => store.restore(saved),
      },
      resources: [new TopicProvider(store), new SubscriptionProvider(store), new TopicPolicyProvider(store)],
      control(router) {
        // What Publish delivered where (and why not), newest last.
        router.add('GET', /^\/_emulator\/sns\/deliveries$/, () => jsonResponse(200, publisher.log));
        // Subscriptions waiting for ConfirmSubscription, with the token the confirmation message would carry.
        router.add('GET', /^\/_emulator\/sns\/pending-confirmations$/, () =>
          jsonResponse(
            200,
            [...store.subscriptions.values()]
              .filter((s) => s.pendingConfirmation)
              .map((s) => ({
                subscriptionArn: s.arn,
                topicArn: s.topicArn,
                endpoint: s.endpoint,
                token: s.confirmationToken,
              })),
          ),
        );
      },
    };
  },
};
