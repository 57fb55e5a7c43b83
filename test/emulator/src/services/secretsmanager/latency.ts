/** Secrets Manager figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const secretsManagerLatency: LatencyFigures = {
  operations: { '*': 60, CreateSecret: 150 },
  resourceTypes: { 'AWS::SecretsManager::Secret': { create: 3000, update: 2000, delete: 2000 } },
  sources: [
    'Secrets Manager calls: tens of milliseconds (commonly measured in-region)',
    'AWS::SecretsManager::Secret: typical CloudFormation stack-event durations (seconds)',
  ],
};
