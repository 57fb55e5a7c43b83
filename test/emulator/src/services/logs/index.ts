/**
 * Amazon CloudWatch Logs (awsJson1_1): log groups, streams and events, shared
 * with Cloud Control's `AWS::Logs::LogGroup`. Its `api` ({@link LogsApi}) lets
 * other services write events (Lambda's function logs).
 */
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import { logsApi } from './api';
import { logsLatency } from './latency';
import { LogGroupProvider } from './resource';
import { LogsOperations } from './service';
import { LogsStore } from './store';

export type { LogsApi, LogTarget, StoredLogEvent } from './api';

export const logs: ServiceModule = {
  name: 'logs',
  signingNames: ['logs'],
  create(platform) {
    const store = new LogsStore();
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'Logs_20140328',
        namespace: 'com.amazonaws.cloudwatchlogs',
        model: () => require('@aws-sdk/client-cloudwatch-logs') as Record<string, unknown>,
      }),
      operations: new LogsOperations(store).operations,
      store,
      resources: [new LogGroupProvider(store)],
      latency: logsLatency,
      api: logsApi(store, () => platform.changed()),
    };
  },
};
