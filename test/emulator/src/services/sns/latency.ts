/** SNS figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const snsLatency: LatencyFigures = {
  operations: { '*': 40, CreateTopic: 100, DeleteTopic: 80, Subscribe: 80, Publish: 30 },
  resourceTypes: {
    'AWS::SNS::Topic': { create: 2000, update: 2000, delete: 2000 },
    'AWS::SNS::Subscription': { create: 2000, update: 2000, delete: 2000 },
    'AWS::SNS::TopicPolicy': { create: 2000, update: 2000, delete: 2000 },
  },
  sources: [
    'SNS API calls: tens of milliseconds (commonly measured in-region)',
    'AWS::SNS::*: typical CloudFormation stack-event durations (seconds)',
  ],
};
