/**
 * Invoke: runs the function's code (see runtime/) and answers as Lambda does.
 * RequestResponse waits for the handler: 200 with its result, or 200 with
 * `X-Amz-Function-Error: Unhandled` and the error payload when it threw,
 * timed out or crashed; `LogType: Tail` returns the last 4 KB of its log.
 * Event answers 202 at once and runs the handler in the background. DryRun
 * checks the call and answers 204. Throttling follows reserved concurrency.
 */
import { randomUUID } from 'node:crypto';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { isPending } from './configuration';
import { resolveIn, type LambdaContext, type Resolved } from './context';
import type { FunctionLogs } from './logs';
import { functionArn, validationError } from './names';
import { allowsServiceInvoke, type ServiceInvoker } from './permissions';
import { UnsupportedRuntimeError, type InvocationResult, type LambdaRuntime } from './runtime/runtime';

export type InvokeOutcome = { accepted: true } | { accepted: false; reason: string };

/** What a synchronous invocation on another service's behalf returned. */
export type TaskInvocation =
  { payload: string; executedVersion: string; functionError?: string } | { notFound: string };

interface InvokeInput {
  FunctionName?: string;
  InvocationType?: string;
  LogType?: string;
  ClientContext?: string;
  Payload?: Uint8Array;
  Qualifier?: string;
}

const MAX_SYNC_PAYLOAD = 6_291_456;
const MAX_ASYNC_PAYLOAD = 1_048_576;
const LOG_TAIL_BYTES = 4096;

export class InvokeHandlers {
  readonly operations: Operations = {
    Invoke: (ctx, input: InvokeInput) => this.invoke(ctx, input),
  };
  /** Invocations running now, per function (for reserved concurrency). */
  private readonly running = new Map<string, number>();
  /** Event invocations in flight (awaited through {@link idle}). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly lambda: LambdaContext,
    private readonly runtime: LambdaRuntime,
    private readonly logs: FunctionLogs,
  ) {}

  /** Resolves when no Event invocation is running. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * An asynchronous invocation by another service (an SNS subscription, an
   * EventBridge target): refused, with the reason, when the function does not
   * exist or its resource policy does not let the service invoke it.
   */
  async invokeAsService(
    functionArnText: string,
    payload: string,
    invoker: ServiceInvoker,
  ): Promise<InvokeOutcome> {
    const target = this.resolveArn(functionArnText);
    if ('reason' in target) return { accepted: false, reason: target.reason };
    const { fn, qualifier } = target.resolved;
    if (!allowsServiceInvoke(fn.policies[qualifier ?? '']?.statements ?? [], invoker))
      return {
        accepted: false,
        reason: `The resource policy of ${functionArnText} does not allow ${invoker.servicePrincipal} to invoke it from ${invoker.sourceArn}`,
      };
    try {
      JSON.parse(payload);
    } catch {
      return { accepted: false, reason: 'the payload is not JSON' };
    }
    this.background(this.route(target.resolved), payload, undefined, this.lambda.endpointUrl);
    return { accepted: true };
  }

  /**
   * A synchronous (RequestResponse) invocation by another service acting with
   * its own role (a Step Functions Task): the handler's result, or its error
   * payload with `functionError`; `notFound` when there is no such function.
   * Roles are not evaluated (the emulator does not enforce IAM).
   */
  async invokeAsTask(functionArnText: string, payload: string): Promise<TaskInvocation> {
    const target = this.resolveArn(functionArnText);
    if ('reason' in target) return { notFound: target.reason };
    const resolved = this.route(target.resolved);
    const result = await this.run(resolved, payload, undefined, this.lambda.endpointUrl);
    return {
      payload: result.payload.toString('utf8'),
      executedVersion: resolved.versionName,
      ...(result.functionError ? { functionError: result.functionError } : {}),
    };
  }

  private resolveArn(functionArnText: string): { resolved: Resolved } | { reason: string } {
    const m =
      /^arn:aws[a-zA-Z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([a-zA-Z0-9-_]+)(?::([a-zA-Z0-9-_$]+))?$/.exec(
        functionArnText,
      );
    if (!m) return { reason: `${functionArnText} is not a function ARN` };
    const [, region, account, name, qualifier] = m;
    const fn = this.lambda.store.getFunction(account!, region!, name!);
    if (!fn) return { reason: `Function not found: ${functionArnText}` };
    try {
      return { resolved: { ...resolveIn(fn, qualifier), qualifier } };
    } catch (err) {
      return { reason: (err as Error).message };
    }
  }

  private async invoke(ctx: CallContext, input: InvokeInput): Promise<unknown> {
    const type = input.InvocationType ?? 'RequestResponse';
    if (!['RequestResponse', 'Event', 'DryRun'].includes(type))
      throw validationError(
        'invocationType',
        type,
        'Member must satisfy enum value set: [Event, RequestResponse, DryRun]',
      );
    if (input.LogType !== undefined && !['None', 'Tail'].includes(input.LogType))
      throw validationError('logType', input.LogType, 'Member must satisfy enum value set: [None, Tail]');
    let resolved = this.lambda.resolve(ctx, input.FunctionName, input.Qualifier);
    resolved = this.route(resolved);
    if (isPending(resolved.version, this.lambda.transitionMs))
      throw new AwsError(
        'ResourceConflictException',
        'The operation cannot be performed at this time. The function is currently in the following state: Pending',
      );
    const payload = Buffer.from(input.Payload ?? new Uint8Array());
    const limit = type === 'Event' ? MAX_ASYNC_PAYLOAD : MAX_SYNC_PAYLOAD;
    if (payload.length > limit)
      throw new AwsError(
        'RequestTooLargeException',
        `Request must be smaller than ${limit} bytes for the ${type === 'Event' ? 'InvokeAsync' : 'InvokeFunction'} operation`,
      );
    const event = payload.length ? payload.toString('utf8') : '{}';
    try {
      JSON.parse(event);
    } catch (err) {
      throw new AwsError(
        'InvalidRequestContentException',
        `Could not parse request body into json: Could not parse payload into json: ${(err as Error).message}`,
      );
    }
    const clientContext = this.clientContext(input.ClientContext);
    const { fn } = resolved;
    if (
      fn.reservedConcurrency !== undefined &&
      (this.running.get(`${fn.account}|${fn.region}|${fn.name}`) ?? 0) >= fn.reservedConcurrency
    )
      throw new AwsError('TooManyRequestsException', 'Rate Exceeded.', 429, {
        Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
      });
    const configuration = resolved.version.configuration;
    if (!configuration.Runtime?.startsWith('nodejs') && !configuration.Runtime?.startsWith('python3'))
      throw new AwsError(
        'InvalidRuntimeException',
        `The emulator runs nodejs* and python3* functions only; it cannot run ${configuration.PackageType === 'Image' ? 'container image' : configuration.Runtime} functions.`,
      );
    if (type === 'DryRun') return { StatusCode: 204 };
    if (type === 'Event') {
      this.background(resolved, event, clientContext, ctx.baseUrl);
      return { StatusCode: 202 };
    }
    const result = await this.run(resolved, event, clientContext, ctx.baseUrl);
    return {
      StatusCode: 200,
      ...(result.functionError ? { FunctionError: result.functionError } : {}),
      ...(input.LogType === 'Tail' ? { LogResult: logTail(result) } : {}),
      ExecutedVersion: resolved.versionName,
      Payload: result.payload,
    };
  }

  /** An alias with weighted routing sends a share of invocations to its additional version. */
  private route(resolved: Resolved): Resolved {
    const weights = Object.entries(resolved.alias?.RoutingConfig?.AdditionalVersionWeights ?? {});
    if (!weights.length) return resolved;
    const [[version, weight]] = weights as [[string, number]];
    if (Math.random() >= weight) return resolved;
    return { ...resolveIn(resolved.fn, version), alias: resolved.alias, qualifier: resolved.qualifier };
  }

  private clientContext(encoded: string | undefined): unknown {
    if (encoded === undefined) return undefined;
    const text = Buffer.from(encoded, 'base64').toString('utf8');
    if (text.length > 3583)
      throw new AwsError('InvalidParameterValueException', 'Client context must be smaller than 3583 bytes.');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AwsError(
        'InvalidRequestContentException',
        'Client context must be valid base64-encoded JSON.',
      );
    }
  }

  /** Starts an Event invocation; its outcome goes to the function's logs. */
  private background(resolved: Resolved, event: string, clientContext: unknown, endpointUrl: string): void {
    const task: Promise<void> = this.run(resolved, event, clientContext, endpointUrl)
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async run(
    resolved: Resolved,
    event: string,
    clientContext: unknown,
    endpointUrl: string,
  ): Promise<InvocationResult> {
    const { fn } = resolved;
    const key = `${fn.account}|${fn.region}|${fn.name}`;
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    try {
      const result = await this.runtime.invoke({
        fn,
        version: resolved.version,
        versionName: resolved.versionName,
        invokedFunctionArn: functionArn(fn.account, fn.region, fn.name, resolved.qualifier),
        event,
        clientContext,
        endpointUrl,
        requestId: randomUUID(),
      });
      this.logs.write(
        resolved.fn.account,
        resolved.fn.region,
        result.logGroup,
        result.logStream,
        result.logs,
      );
      return result;
    } catch (err) {
      if (err instanceof UnsupportedRuntimeError) throw new AwsError('InvalidRuntimeException', err.message);
      throw err;
    } finally {
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    }
  }
}

/** The last 4 KB of the invocation's log, base64 (X-Amz-Log-Result). */
function logTail(result: InvocationResult): string {
  const text = Buffer.from(result.logs.map((e) => `${e.message}\n`).join(''));
  return text.subarray(Math.max(0, text.length - LOG_TAIL_BYTES)).toString('base64');
}
