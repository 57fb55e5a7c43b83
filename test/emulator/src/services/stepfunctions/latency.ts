/** Step Functions figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const sfnLatency: LatencyFigures = {
  operations: { '*': 40, CreateStateMachine: 100, DeleteStateMachine: 80, StartExecution: 50 },
  resourceTypes: { 'AWS::StepFunctions::StateMachine': { create: 3000, update: 3000, delete: 3000 } },
  sources: [
    'Step Functions API calls: tens of milliseconds (commonly measured in-region)',
    'AWS::StepFunctions::StateMachine: typical CloudFormation stack-event durations (seconds)',
  ],
};
