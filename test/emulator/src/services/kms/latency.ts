/** KMS figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const kmsLatency: LatencyFigures = {
  operations: { '*': 40, CreateKey: 150, ScheduleKeyDeletion: 80 },
  resourceTypes: {
    'AWS::KMS::Key': { create: 5000, update: 3000, delete: 3000 },
    'AWS::KMS::Alias': { create: 2000, update: 2000, delete: 2000 },
  },
  sources: [
    'KMS calls: tens of milliseconds (commonly measured in-region; cryptographic calls are the fastest)',
    'AWS::KMS::Key / AWS::KMS::Alias: typical CloudFormation stack-event durations (seconds)',
  ],
};
