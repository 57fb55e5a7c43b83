/**
 * Amazon EventBridge (awsJson1_1, `AWSEvents`): event buses and their
 * policies, rules, targets, tags, PutEvents routing and TestEventPattern,
 * shared with Cloud Control's `AWS::Events::EventBus` and `AWS::Events::Rule`.
 */
import { jsonResponse } from '../../core/http';
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { eventsLatency } from './latency';
import { EventRouter } from './put-events';
import { EventBusProvider, RuleProvider } from './resource';
import { EventsOperations } from './service';
import { EventsStore } from './store';

export type { EventDeliveryRecord } from './put-events';

export const events: ServiceModule = {
  name: 'events',
  signingNames: ['events'],
  create(platform) {
    const store = new EventsStore();
    const operations = new EventsOperations(store);
    const router = new EventRouter(store, operations, platform);
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'AWSEvents',
        namespace: 'com.amazonaws.eventbridge',
        model: () => require('@aws-sdk/client-eventbridge') as Record<string, unknown>,
        faults: { 500: { code: 'InternalException', status: 500 } },
      }),
      operations: { ...operations.operations, ...router.operations },
      latency: eventsLatency,
      store: {
        clear: () => {
          store.clear();
          router.clear();
        },
        snapshot: () => store.snapshot(),
        restore: (saved) => store.restore(saved),
      },
      resources: [new EventBusProvider(store), new RuleProvider(store)],
      control(routes) {
        // What PutEvents delivered to which target (and why not), newest last.
        routes.add('GET', /^\/_emulator\/events\/deliveries$/, () => jsonResponse(200, router.log));
      },
    };
  },
};
