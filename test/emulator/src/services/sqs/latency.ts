/** SQS figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const sqsLatency: LatencyFigures = {
  operations: { '*': 30, CreateQueue: 100, DeleteQueue: 80 },
  resourceTypes: { 'AWS::SQS::Queue': { create: 3000, update: 2000, delete: 2000 } },
  sources: [
    'SQS API calls: tens of milliseconds (commonly measured in-region)',
    'AWS::SQS::Queue: typical CloudFormation stack-event durations (seconds); CreateQueue documents a one-second wait before use',
  ],
};
