/** Lambda figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

const seconds = (create: number, update = create, del = create) => ({
  create: create * 1000,
  update: update * 1000,
  delete: del * 1000,
});

export const lambdaLatency: LatencyFigures = {
  operations: {
    '*': 50,
    CreateFunction: 400,
    UpdateFunctionCode: 300,
    UpdateFunctionConfiguration: 200,
    PublishVersion: 200,
    PublishLayerVersion: 400,
    CreateEventSourceMapping: 150,
    UpdateEventSourceMapping: 150,
    DeleteFunction: 100,
    // The service's own overhead; the handler's run time (and a cold start) comes on top, for real.
    Invoke: 20,
  },
  resourceTypes: {
    'AWS::Lambda::Function': seconds(8, 5, 5),
    'AWS::Lambda::Permission': seconds(2),
    'AWS::Lambda::Version': seconds(3, 3, 2),
    'AWS::Lambda::Alias': seconds(2),
    'AWS::Lambda::Url': seconds(2),
    'AWS::Lambda::EventSourceMapping': seconds(30, 30, 30),
    'AWS::Lambda::LayerVersion': seconds(5, 5, 2),
    'AWS::Lambda::EventInvokeConfig': seconds(2),
  },
  sources: [
    'Lambda control-plane calls: tens of milliseconds; CreateFunction and code updates a few hundred (the package is copied and checked), commonly measured in-region',
    'Invoke: a few tens of milliseconds of service overhead on a warm function (commonly measured); the emulator adds the real time of running the handler',
    'Lambda resource types through Cloud Control: typical CloudFormation stack-event durations (a function about 8 s, an event source mapping tens of seconds while it is enabled)',
  ],
};
