/** SSM figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const ssmLatency: LatencyFigures = {
  operations: { '*': 50, PutParameter: 80 },
  resourceTypes: { 'AWS::SSM::Parameter': { create: 2000, update: 2000, delete: 1500 } },
  sources: [
    'Parameter Store calls: tens of milliseconds (commonly measured in-region)',
    'AWS::SSM::Parameter: typical CloudFormation stack-event durations (seconds)',
  ],
};
