/** CloudWatch Logs figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const logsLatency: LatencyFigures = {
  operations: { '*': 40, CreateLogGroup: 80, DeleteLogGroup: 80, PutLogEvents: 30 },
  resourceTypes: { 'AWS::Logs::LogGroup': { create: 2000, update: 2000, delete: 2000 } },
  sources: [
    'CloudWatch Logs API calls: tens of milliseconds (commonly measured in-region)',
    'AWS::Logs::LogGroup: typical CloudFormation stack-event durations (about 2 s)',
  ],
};
