/**
 * AWS Step Functions (awsJson1_0, `AWSStepFunctions`): state machines, tags
 * and executions, shared with Cloud Control's `AWS::StepFunctions::StateMachine`.
 * Executions run their Amazon States Language definition in the emulator
 * (interpreter.ts); Task states invoke the emulator's Lambda. Retry and Wait
 * times are scaled by the setting `stepFunctionsTimeScale` (1: real seconds).
 */
import { badRequest } from '../../control/routes';
import { jsonResponse } from '../../core/http';
import { AwsJsonCodec } from '../../core/protocols/aws-json';
import type { ServiceModule } from '../../core/service';
import type { LambdaApi } from '../lambda';
import { ExecutionRunner, StatesTimer } from './interpreter';
import { sfnLatency } from './latency';
import { StateMachineProvider } from './resource';
import { SfnOperations } from './service';
import { SfnStore } from './store';

/** What other services and tests may use (`platform.api('stepfunctions')`). */
export interface StepFunctionsApi {
  /** Resolves when no execution is running. */
  idle(): Promise<void>;
}

export const stepFunctions: ServiceModule = {
  name: 'stepfunctions',
  signingNames: ['states'],
  create(platform) {
    const store = new SfnStore();
    const timer = new StatesTimer();
    const invoker = () => {
      let api: Partial<LambdaApi> | undefined;
      try {
        api = platform.api<Partial<LambdaApi>>('lambda');
      } catch {
        return undefined;
      }
      const invokeAsTask = api?.invokeAsTask;
      return invokeAsTask ? (arn: string, payload: string) => invokeAsTask(arn, payload) : undefined;
    };
    const runner = new ExecutionRunner(timer, invoker, (execution) => {
      // A state machine deleted while this execution ran goes once its last execution ends.
      const machine = store.machines.get(execution.stateMachineArn);
      if (machine?.status === 'DELETING' && !store.running(machine.arn).length) store.remove(machine);
      platform.changed();
    });
    const operations = new SfnOperations(store, runner);
    return {
      protocol: new AwsJsonCodec({
        version: '1.0',
        targetPrefix: 'AWSStepFunctions',
        namespace: 'com.amazonaws.sfn',
        model: () => require('@aws-sdk/client-sfn') as Record<string, unknown>,
      }),
      operations: operations.operations,
      store: {
        clear: () => {
          runner.abortAll();
          store.clear();
        },
        snapshot: () => store.snapshot(),
        restore: (saved) => store.restore(saved),
      },
      resources: [new StateMachineProvider(store, operations)],
      latency: sfnLatency,
      api: { idle: () => runner.idle() } satisfies StepFunctionsApi,
      settings: {
        read: () => ({ stepFunctionsTimeScale: timer.scale }),
        update: ({ stepFunctionsTimeScale }) => {
          if (stepFunctionsTimeScale === undefined) return;
          if (typeof stepFunctionsTimeScale !== 'number' || !(stepFunctionsTimeScale >= 0))
            throw badRequest('"stepFunctionsTimeScale" is a number >= 0 (1: real seconds, 0: no waiting)');
          timer.scale = stepFunctionsTimeScale;
        },
        reset: () => {
          timer.scale = 1;
        },
      },
      control(router) {
        // Waits until no execution is running.
        router.add('POST', /^\/_emulator\/stepfunctions\/executions\/wait$/, async () => {
          await runner.idle();
          return jsonResponse(200, { idle: true });
        });
      },
      stop: () => {
        runner.abortAll();
        return runner.idle();
      },
    };
  },
};
