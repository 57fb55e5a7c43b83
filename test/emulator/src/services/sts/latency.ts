/** STS figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const stsLatency: LatencyFigures = {
  operations: { '*': 80, AssumeRole: 150 },
  sources: [
    'STS calls: tens to a couple of hundred milliseconds (commonly measured; AssumeRole signs credentials)',
  ],
};
