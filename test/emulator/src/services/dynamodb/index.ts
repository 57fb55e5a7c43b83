/**
 * Amazon DynamoDB (awsJson1.0): tables with their indexes, streams,
 * encryption, time to live, continuous backups, contributor insights,
 * Kinesis destinations, resource policies and tags, the item operations
 * and their batch and transactional forms; shared with Cloud Control's `AWS::DynamoDB::Table`.
 */
import { badRequest } from '../../control/routes';
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import type { S3Store } from '../s3/store';
import { dynamoDbLatency } from './latency';
import { TableProvider } from './resource';
import { DynamoDbOperations } from './service';
import { DynamoDbBatchOperations } from './batch';
import { executeStatement } from './partiql';
import { DynamoDbStore } from './store';

export const dynamodb: ServiceModule = {
  name: 'dynamodb',
  signingNames: ['dynamodb'],
  create(platform) {
    const store = new DynamoDbStore();
    return {
      protocol: new AwsJsonCodec({
        version: '1.0',
        targetPrefix: 'DynamoDB_20120810',
        namespace: 'com.amazonaws.dynamodb.v20120810',
        model: () => require('@aws-sdk/client-dynamodb') as Record<string, unknown>,
      }),
      operations: {
        ...new DynamoDbOperations(store, () => platform.api<S3Store>('s3')).operations,
        ...new DynamoDbBatchOperations(store).operations,
        ExecuteStatement: (ctx, input: Record<string, unknown>) => executeStatement(store, ctx, input),
      },
      store,
      resources: [new TableProvider(store)],
      latency: dynamoDbLatency,
      settings: {
        read: () => ({
          dynamodbStatusDelayMs: store.statusDelayMs,
          dynamodbBatchUnprocessed: store.batchUnprocessed,
        }),
        update: ({ dynamodbStatusDelayMs, dynamodbBatchUnprocessed }) => {
          for (const [name, value] of Object.entries({ dynamodbStatusDelayMs, dynamodbBatchUnprocessed }))
            if (value !== undefined && (typeof value !== 'number' || value < 0))
              throw badRequest(`"${name}" is a number >= 0`);
          if (dynamodbStatusDelayMs !== undefined) store.statusDelayMs = dynamodbStatusDelayMs as number;
          if (dynamodbBatchUnprocessed !== undefined)
            store.batchUnprocessed = dynamodbBatchUnprocessed as number;
        },
        reset: () => {
          store.statusDelayMs = 0;
          store.batchUnprocessed = 0;
        },
      },
    };
  },
};
