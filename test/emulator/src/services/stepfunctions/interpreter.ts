/**
 * Runs executions of a parsed definition, state by state, as Step Functions
 * does: input and output processing (paths.ts), Task states that invoke the
 * emulator's Lambda synchronously, `Retry` (each retrier counts its own
 * attempts; the wait is IntervalSeconds x BackoffRate^attempt, capped by
 * MaxDelaySeconds), `Catch` (the error output `{Error, Cause}` put at the
 * catcher's ResultPath), Pass, Wait, Succeed and Fail. Waits go through the
 * {@link StatesTimer}, whose scale the control API sets, so tests never wait
 * real seconds for a retry.
 */
import { randomUUID } from 'node:crypto';
import type { TaskInvocation } from '../lambda/invoke';
import {
  LAMBDA_INVOKE,
  type Catcher,
  type Definition,
  type Retrier,
  type StateDefinition,
} from './definition';
import { applyPath, applyResultPath, fillTemplate, select, StatesError } from './paths';
import type { Execution, StateMachine } from './store';

/**
 * Time as executions see it: a wait of N seconds lasts N x `scale` real
 * seconds (1: as AWS; 0: no wait at all). Every wait ends when the execution
 * is stopped.
 */
export class StatesTimer {
  scale = 1;

  sleep(seconds: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, seconds * 1000 * this.scale));
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** Invokes a function synchronously for a Task (undefined: the emulator has no Lambda service). */
export type TaskInvoker = ((functionArn: string, payload: string) => Promise<TaskInvocation>) | undefined;

const ALWAYS_FATAL = ['States.Runtime', 'States.DataLimitExceeded'];

function matches(errorEquals: readonly string[], error: string): boolean {
  if (errorEquals.includes(error)) return true;
  if (ALWAYS_FATAL.includes(error)) return false;
  if (errorEquals.includes('States.ALL')) return true;
  return errorEquals.includes('States.TaskFailed') && error !== 'States.Timeout';
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export class ExecutionRunner {
  private readonly active = new Map<string, Running>();

  constructor(
    readonly timer: StatesTimer,
    private readonly invoker: () => TaskInvoker,
    /** The execution ended (its record is already updated). */
    private readonly onEnd: (execution: Execution) => void,
  ) {}

  start(machine: StateMachine, execution: Execution, definition: Definition): void {
    const controller = new AbortController();
    const done = this.run(machine, execution, definition, controller.signal)
      .catch((err: unknown) => {
        if (execution.status === 'RUNNING')
          this.finish(
            execution,
            'FAILED',
            undefined,
            'States.Runtime',
            `emulator internal error: ${String(err)}`,
          );
      })
      .finally(() => {
        this.active.delete(execution.arn);
        this.onEnd(execution);
      });
    this.active.set(execution.arn, { controller, done });
  }

  /** Stops a running execution (StopExecution): ABORTED at once; its current wait ends. */
  abort(execution: Execution, error?: string, cause?: string): void {
    if (execution.status !== 'RUNNING') return;
    this.finish(execution, 'ABORTED', undefined, error, cause);
    this.active.get(execution.arn)?.controller.abort();
  }

  /** Resolves when no execution runs. */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()].map((r) => r.done));
  }

  /** Aborts every execution (reset, stop). */
  abortAll(): void {
    for (const running of this.active.values()) running.controller.abort();
  }

  private finish(
    execution: Execution,
    status: Execution['status'],
    output: unknown,
    error?: string,
    cause?: string,
  ): void {
    execution.status = status;
    execution.stopDate = Date.now();
    if (status === 'SUCCEEDED') execution.output = JSON.stringify(output ?? null);
    if (error !== undefined) execution.error = error;
    if (cause !== undefined) execution.cause = cause;
  }

  private async run(
    machine: StateMachine,
    execution: Execution,
    definition: Definition,
    signal: AbortSignal,
  ): Promise<void> {
    const context = {
      Execution: {
        Id: execution.arn,
        Name: execution.name,
        Input: JSON.parse(execution.input) as unknown,
        StartTime: new Date(execution.startDate).toISOString(),
        RoleArn: machine.roleArn,
      },
      StateMachine: { Id: machine.arn, Name: machine.name },
      State: { Name: '', EnteredTime: '', RetryCount: 0 },
    };
    let name = definition.StartAt;
    let input: unknown = context.Execution.Input;
    for (;;) {
      if (signal.aborted || execution.status !== 'RUNNING') return;
      const state = definition.States[name]!;
      context.State = { Name: name, EnteredTime: new Date().toISOString(), RetryCount: 0 };
      let outcome: { output: unknown; next?: string } | { error: string; cause: string };
      try {
        outcome = await this.runState(state, input, context, signal);
      } catch (err) {
        if (!(err instanceof StatesError)) throw err;
        outcome = { error: err.error, cause: err.cause };
      }
      if (signal.aborted || execution.status !== 'RUNNING') return;
      if ('error' in outcome) {
        this.finish(execution, 'FAILED', undefined, outcome.error, outcome.cause);
        return;
      }
      if (!outcome.next) {
        this.finish(execution, 'SUCCEEDED', outcome.output);
        return;
      }
      // A state machine being deleted terminates its executions at their next state transition.
      if (machine.status === 'DELETING') {
        this.finish(execution, 'ABORTED', undefined);
        return;
      }
      name = outcome.next;
      input = outcome.output;
    }
  }

  /** One state: its output and the next state's name (none: the execution ends), or the error it failed with. */
  private async runState(
    state: StateDefinition,
    rawInput: unknown,
    context: { State: { RetryCount: number } },
    signal: AbortSignal,
  ): Promise<{ output: unknown; next?: string } | { error: string; cause: string }> {
    const next = state.End ? undefined : state.Next;
    switch (state.Type) {
      case 'Succeed':
        return {
          output: applyPath(state.OutputPath, applyPath(state.InputPath, rawInput, context), context),
        };
      case 'Fail':
        return { error: state.Error ?? 'States.Fail', cause: state.Cause ?? '' };
      case 'Pass': {
        const input = applyPath(state.InputPath, rawInput, context);
        const result =
          state.Result !== undefined
            ? state.Result
            : state.Parameters !== undefined
              ? fillTemplate(state.Parameters, input, context)
              : input;
        return {
          output: applyPath(state.OutputPath, applyResultPath(state.ResultPath, rawInput, result), context),
          next,
        };
      }
      case 'Wait': {
        const input = applyPath(state.InputPath, rawInput, context);
        await this.timer.sleep(waitSeconds(state, input, context), signal);
        return { output: applyPath(state.OutputPath, input, context), next };
      }
      case 'Task':
        return this.runTask(state, rawInput, context, signal, next);
    }
  }

  private async runTask(
    state: StateDefinition,
    rawInput: unknown,
    context: { State: { RetryCount: number } },
    signal: AbortSignal,
    next: string | undefined,
  ): Promise<{ output: unknown; next?: string } | { error: string; cause: string }> {
    const input = applyPath(state.InputPath, rawInput, context);
    const parameters =
      state.Parameters !== undefined ? fillTemplate(state.Parameters, input, context) : input;
    const attempts = new Map<Retrier, number>();
    for (;;) {
      let failure: StatesError;
      try {
        let result = await this.invokeTask(state.Resource!, parameters, context);
        if (state.ResultSelector !== undefined) result = fillTemplate(state.ResultSelector, result, context);
        return {
          output: applyPath(state.OutputPath, applyResultPath(state.ResultPath, rawInput, result), context),
          next,
        };
      } catch (err) {
        if (!(err instanceof StatesError)) throw err;
        failure = err;
      }
      if (signal.aborted) return { error: 'States.Runtime', cause: 'The execution was stopped.' };
      const retrier = (state.Retry ?? []).find((r) => matches(r.ErrorEquals, failure.error));
      const made = retrier ? (attempts.get(retrier) ?? 0) : 0;
      if (retrier && made < retrier.MaxAttempts) {
        attempts.set(retrier, made + 1);
        const wait = retrier.IntervalSeconds * retrier.BackoffRate ** made;
        await this.timer.sleep(Math.min(wait, retrier.MaxDelaySeconds ?? Infinity), signal);
        if (signal.aborted) return { error: 'States.Runtime', cause: 'The execution was stopped.' };
        context.State.RetryCount = made + 1;
        continue;
      }
      const catcher: Catcher | undefined = (state.Catch ?? []).find((c) =>
        matches(c.ErrorEquals, failure.error),
      );
      if (!catcher) return { error: failure.error, cause: failure.cause };
      const errorOutput = { Error: failure.error, Cause: failure.cause };
      return { output: applyResultPath(catcher.ResultPath, rawInput, errorOutput), next: catcher.Next };
    }
  }

  /** Invokes the Task's Lambda function: its result, or a StatesError named as Step Functions names it. */
  private async invokeTask(resource: string, parameters: unknown, context: unknown): Promise<unknown> {
    const invoke = this.invoker();
    if (!invoke) throw new StatesError('Lambda.ServiceException', 'The emulator has no Lambda service.');
    const integration = LAMBDA_INVOKE.test(resource);
    let functionArn = resource;
    let payload: string;
    if (integration) {
      const p = (parameters ?? {}) as { FunctionName?: unknown; Payload?: unknown };
      if (typeof p.FunctionName !== 'string')
        throw new StatesError(
          'States.Runtime',
          "The field 'FunctionName' is required in the Parameters of a lambda:invoke Task.",
        );
      functionArn = p.FunctionName.startsWith('arn:')
        ? p.FunctionName
        : this.nameToArn(p.FunctionName, context);
      payload =
        p.Payload === undefined
          ? '{}'
          : typeof p.Payload === 'string'
            ? p.Payload
            : JSON.stringify(p.Payload);
    } else payload = JSON.stringify(parameters ?? null);
    const result = await invoke(functionArn, payload);
    if ('notFound' in result)
      throw new StatesError(
        'Lambda.ResourceNotFoundException',
        `${result.notFound} (Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: ${randomUUID()}; Proxy: null)`,
      );
    if (result.functionError) {
      let errorType = 'Lambda.Unknown';
      try {
        const parsed = JSON.parse(result.payload) as { errorType?: unknown };
        if (typeof parsed.errorType === 'string' && parsed.errorType) errorType = parsed.errorType;
      } catch {
        // not JSON: the name stays Lambda.Unknown
      }
      throw new StatesError(errorType, result.payload);
    }
    const value = result.payload.length ? (JSON.parse(result.payload) as unknown) : null;
    if (!integration) return value;
    return {
      ExecutedVersion: result.executedVersion,
      Payload: value,
      SdkHttpMetadata: { httpStatusCode: 200 },
      SdkResponseMetadata: { requestId: randomUUID() },
      StatusCode: 200,
    };
  }

  /** A function name in the execution's own account and region. */
  private nameToArn(name: string, context: unknown): string {
    const machineArn = (context as { StateMachine: { Id: string } }).StateMachine.Id;
    const [, partition, , region, account] = machineArn.split(':');
    return `arn:${partition}:lambda:${region}:${account}:function:${name}`;
  }
}

function waitSeconds(state: StateDefinition, input: unknown, context: unknown): number {
  if (state.Seconds !== undefined) return state.Seconds;
  if (state.SecondsPath !== undefined) {
    const seconds = select(state.SecondsPath, input, context);
    if (typeof seconds !== 'number' || seconds < 0)
      throw new StatesError(
        'States.Runtime',
        `The SecondsPath '${state.SecondsPath}' does not give a non-negative number.`,
      );
    return seconds;
  }
  const stamp = state.Timestamp ?? select(state.TimestampPath!, input, context);
  const at = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
  if (Number.isNaN(at))
    throw new StatesError('States.Runtime', `The timestamp '${String(stamp)}' is not an ISO 8601 date.`);
  return Math.max(0, (at - Date.now()) / 1000);
}
