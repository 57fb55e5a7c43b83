/** CloudFormation figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const cloudFormationLatency: LatencyFigures = {
  operations: { '*': 150 },
  sources: ['CloudFormation describe/list calls: about a hundred milliseconds or more (commonly measured)'],
};
