/** Amazon SQS (awsJson1_0, awsQueryCompatible): queues, shared with Cloud Control's `AWS::SQS::Queue`. */
import { AwsError } from '../../core/errors';
import { badRequest } from '../../control/routes';
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { QueueProvider } from './resource';
import { LIST_AFTER_CREATE, SqsOperations } from './service';
import { SqsStore } from './store';
import { sqsLatency } from './latency';

const DELETE_COOLDOWN_MS = 60_000;

export const sqs: ServiceModule = {
  name: 'sqs',
  signingNames: ['sqs'],
  create(platform) {
    const store = new SqsStore();
    platform.consistency.register({
      name: LIST_AFTER_CREATE,
      description:
        'ListQueues is eventually consistent: a new queue may not be listed at once (SQS API reference, ListQueues; CreateQueue: "wait at least one second after the queue is created to be able to use the queue").',
      defaultDelayMs: 1000,
    });
    return {
      protocol: new AwsJsonCodec({
        version: '1.0',
        targetPrefix: 'AmazonSQS',
        namespace: 'com.amazonaws.sqs',
        model: () => require('@aws-sdk/client-sqs') as Record<string, unknown>,
        awsQueryCompatible: true,
        faults: { 429: { code: 'RequestThrottled', status: 403 } },
        unknownOperation: (operation) =>
          new AwsError('InvalidAction', `The action ${operation} is not valid for this endpoint.`, 400),
      }),
      operations: new SqsOperations(store, platform.consistency).operations,
      latency: sqsLatency,
      store,
      resources: [new QueueProvider(store)],
      settings: {
        read: () => ({ sqsDeleteCooldownMs: store.deleteCooldownMs }),
        update: ({ sqsDeleteCooldownMs }) => {
          if (sqsDeleteCooldownMs === undefined) return;
          if (typeof sqsDeleteCooldownMs !== 'number' || sqsDeleteCooldownMs < 0)
            throw badRequest('"sqsDeleteCooldownMs" is a number >= 0');
          store.deleteCooldownMs = sqsDeleteCooldownMs;
        },
        reset: () => {
          store.deleteCooldownMs = DELETE_COOLDOWN_MS;
        },
      },
    };
  },
};
