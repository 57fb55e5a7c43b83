/** EC2 figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const ec2Latency: LatencyFigures = {
  operations: { '*': 150 },
  sources: ['EC2 Describe* calls: about a hundred milliseconds or more (commonly measured)'],
};
