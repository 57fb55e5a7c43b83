/** EventBridge figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const eventsLatency: LatencyFigures = {
  operations: { '*': 40, PutRule: 80, PutTargets: 80, CreateEventBus: 100, PutEvents: 30 },
  resourceTypes: {
    'AWS::Events::Rule': { create: 3000, update: 3000, delete: 3000 },
    'AWS::Events::EventBus': { create: 2000, update: 2000, delete: 2000 },
  },
  sources: [
    'EventBridge API calls: tens of milliseconds (commonly measured in-region)',
    'AWS::Events::*: typical CloudFormation stack-event durations (seconds)',
  ],
};
