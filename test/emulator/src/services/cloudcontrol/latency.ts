/** Cloud Control figures for the `realistic` latency profile (see the README for their sources). */
import type { LatencyFigures } from '../../core/service';

export const cloudControlLatency: LatencyFigures = {
  operations: {},
  resourceTypes: {},
  sources: [],
};
