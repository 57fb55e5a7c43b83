/**
 * Runs a function's code for Invoke: finds or starts an execution environment
 * for the function version (Node.js handlers on this Node.js, Python handlers
 * on the host's python3), with the environment Lambda gives a function — its
 * variables, the Lambda variables, credentials of its execution role and
 * `AWS_ENDPOINT_URL` pointing back at the emulator — and turns what the
 * handler did into Lambda's answer and log lines (START, END, REPORT, a
 * timeout's "Task timed out after N seconds").
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporaryAccessKeyId, type AccountRegistry } from '../../../core/accounts';
import { secretKey, upperAlnum } from '../../../core/ids';
import type { FunctionVersion, LambdaFunction } from '../model';
import { ExecutionEnvironment, type ErrorPayload, type Outcome } from './environment';
import { pythonInterpreter } from './interpreters';
import { EnvironmentPool, type PooledEnvironment } from './pool';
import { RuntimeWorkspace } from './workspace';

/** The package root (`test/emulator`), where the runtimes' bootstraps live. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const BOOTSTRAPS = {
  node: path.join(PACKAGE_ROOT, 'runtimes', 'node', 'bootstrap.js'),
  python: path.join(PACKAGE_ROOT, 'runtimes', 'python', 'bootstrap.py'),
};
/** Lambda's documented limits: init phase, synchronous response. */
const INIT_LIMIT_MS = 10_000;
const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

export interface RuntimeOptions {
  /** Most environments alive at once (default 8). */
  maxEnvironments?: number;
  /** How long an idle environment is kept warm (default 60 s). */
  idleMs?: number;
}

export interface InvocationInput {
  fn: LambdaFunction;
  version: FunctionVersion;
  /** `$LATEST` or the version number. */
  versionName: string;
  invokedFunctionArn: string;
  /** The event, as JSON text. */
  event: string;
  clientContext?: unknown;
  /** `http://<host>` the emulator is reached at, for the handler's AWS_ENDPOINT_URL. */
  endpointUrl: string;
  requestId: string;
}

export interface InvocationResult {
  payload: Buffer;
  /** `Unhandled` when the function failed (threw, timed out, crashed). */
  functionError?: 'Unhandled';
  logGroup: string;
  logStream: string;
  /** The invocation's log events, in order. */
  logs: Array<{ timestamp: number; message: string }>;
}

/** Thrown when the emulator cannot run a runtime at all (Invoke answers an error, not a function error). */
export class UnsupportedRuntimeError extends Error {}

function isNode(runtime: string | undefined): boolean {
  return !!runtime && runtime.startsWith('nodejs');
}

function isPython(runtime: string | undefined): boolean {
  return !!runtime && runtime.startsWith('python3');
}

/** Where the runtime finds packages: by CodeSha256, and a layer version's CodeSha256 by its ARN. */
export interface PackageSource {
  zip(sha: string): Buffer | undefined;
  layerSha(layerVersionArn: string): string | undefined;
}

export class LambdaRuntime {
  private readonly workspace = new RuntimeWorkspace();
  private readonly pool: EnvironmentPool;

  constructor(
    private readonly accounts: AccountRegistry,
    private readonly packages: PackageSource,
    options: RuntimeOptions = {},
  ) {
    this.pool = new EnvironmentPool(options.maxEnvironments ?? 8, options.idleMs ?? 60_000);
  }

  /** Whether the emulator can run a function of this runtime. */
  static canRun(runtime: string | undefined): boolean {
    return isNode(runtime) || isPython(runtime);
  }

  async invoke(input: InvocationInput): Promise<InvocationResult> {
    const configuration = input.version.configuration;
    if (configuration.PackageType === 'Image' || !LambdaRuntime.canRun(configuration.Runtime))
      throw new UnsupportedRuntimeError(
        `The emulator runs nodejs* and python3* functions from .zip packages only; it cannot run ${configuration.PackageType === 'Image' ? 'container image functions' : `${configuration.Runtime} functions`}.`,
      );
    const key = [
      input.fn.account,
      input.fn.region,
      input.fn.name,
      input.versionName,
      configuration.RevisionId,
    ].join('|');
    const timeoutMs = (configuration.Timeout ?? 3) * 1000;
    const logGroup = configuration.LoggingConfig?.LogGroup ?? `/aws/lambda/${input.fn.name}`;
    const logs: InvocationResult['logs'] = [];
    const emit = (message: string) => logs.push({ timestamp: Date.now(), message });

    let pooled = await this.pool.acquire(key);
    let initDurationMs: number | undefined;
    if (!pooled) {
      let started: { pooled: PooledEnvironment; initError?: Outcome; initDurationMs: number };
      try {
        started = await this.start(input, key, logGroup, timeoutMs);
      } catch (err) {
        this.pool.giveBack();
        throw err;
      }
      pooled = started.pooled;
      initDurationMs = started.initDurationMs;
      for (const line of pooled.env.takeLogs()) emit(line);
      if (started.initError) {
        this.pool.discard(pooled);
        const error = this.failure(started.initError, input.requestId, timeoutMs);
        emit(`START RequestId: ${input.requestId} Version: ${input.versionName}`);
        emit(`${new Date().toISOString()}\t${input.requestId}\tERROR\t${JSON.stringify(error)}`);
        this.finishLogs(emit, input, started.initError, timeoutMs, 0, initDurationMs, undefined);
        return {
          payload: Buffer.from(JSON.stringify(error)),
          functionError: 'Unhandled',
          logGroup,
          logStream: pooled.logStream,
          logs,
        };
      }
    }
    emit(`START RequestId: ${input.requestId} Version: ${input.versionName}`);
    const startedAt = performance.now();
    const outcome = await pooled.env.invoke(
      {
        requestId: input.requestId,
        event: input.event,
        deadline: Date.now() + timeoutMs,
        invokedFunctionArn: input.invokedFunctionArn,
        clientContext: input.clientContext,
      },
      timeoutMs,
    );
    const durationMs = performance.now() - startedAt;
    for (const line of pooled.env.takeLogs()) emit(line);
    const memory = maxMemoryUsedMb(pooled.env);
    this.finishLogs(emit, input, outcome, timeoutMs, durationMs, initDurationMs, memory);
    this.pool.release(pooled);
    const logStream = pooled.logStream;
    if (outcome.kind === 'result') {
      const payload = Buffer.from(outcome.payload);
      if (payload.length > MAX_RESPONSE_BYTES) {
        const error = {
          errorType: 'Function.ResponseSizeTooLarge',
          errorMessage: `Response payload size exceeded maximum allowed payload size (${MAX_RESPONSE_BYTES} bytes).`,
        };
        return {
          payload: Buffer.from(JSON.stringify(error)),
          functionError: 'Unhandled',
          logGroup,
          logStream,
          logs,
        };
      }
      return { payload, logGroup, logStream, logs };
    }
    const error = this.failure(outcome, input.requestId, timeoutMs);
    return {
      payload: Buffer.from(JSON.stringify(error)),
      functionError: 'Unhandled',
      logGroup,
      logStream,
      logs,
    };
  }

  /** Stops every environment (reset); later invocations start new ones. */
  reset(): void {
    this.pool.clear();
  }

  /** Stops every environment and removes the unpacked code (the emulator is stopping). */
  async stop(): Promise<void> {
    await this.pool.stopAll();
    this.workspace.dispose();
  }

  private async start(
    input: InvocationInput,
    key: string,
    logGroup: string,
    timeoutMs: number,
  ): Promise<{ pooled: PooledEnvironment; initError?: Outcome; initDurationMs: number }> {
    const configuration = input.version.configuration;
    const runtime = configuration.Runtime!;
    const taskRoot = this.workspace.task(configuration.CodeSha256!, () =>
      this.packages.zip(configuration.CodeSha256!),
    );
    // Another account's layers (AWS-published ones) have no package here and are left out.
    const layerShas = (configuration.Layers ?? [])
      .map((layer) => layer.Arn && this.packages.layerSha(layer.Arn))
      .filter((sha): sha is string => !!sha);
    const opt = this.workspace.opt(layerShas, (sha) => this.packages.zip(sha));
    const now = new Date();
    const logStream = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCDate()).padStart(2, '0')}/[${input.versionName}]${randomBytes(16).toString('hex')}`;
    const env = this.environmentVariables(input, taskRoot, opt, logGroup, logStream);
    let command: string;
    let args: string[];
    if (isNode(runtime)) {
      const major = /^nodejs(\d+)/.exec(runtime)?.[1] ?? '';
      env.NODE_PATH = [
        path.join(opt, 'nodejs', `node${major}`, 'node_modules'),
        path.join(opt, 'nodejs', 'node_modules'),
        taskRoot,
      ].join(path.delimiter);
      command = process.execPath;
      args = [BOOTSTRAPS.node];
    } else {
      const interpreter = await pythonInterpreter();
      if (!interpreter)
        throw new UnsupportedRuntimeError(
          `The emulator found no python3 to run ${runtime} functions (install python3, or set AWS_EMULATOR_PYTHON).`,
        );
      const version = /^python(3\.\d+)/.exec(runtime)?.[1] ?? '';
      env.PYTHONPATH = [
        path.join(opt, 'python', 'lib', `python${version}`, 'site-packages'),
        path.join(opt, 'python'),
      ].join(path.delimiter);
      env.PYTHONDONTWRITEBYTECODE = '1';
      command = interpreter.command;
      args = ['-u', BOOTSTRAPS.python];
    }
    const environment = new ExecutionEnvironment({
      command,
      args,
      env,
      cwd: taskRoot,
      handler: configuration.Handler ?? 'index.handler',
      taskRoot,
      optRoot: opt,
    });
    const pooled: PooledEnvironment = { env: environment, key, logStream };
    this.pool.add(pooled);
    const initStarted = performance.now();
    const initError = await environment.init(INIT_LIMIT_MS + timeoutMs);
    return { pooled, initError, initDurationMs: performance.now() - initStarted };
  }

  private environmentVariables(
    input: InvocationInput,
    taskRoot: string,
    opt: string,
    logGroup: string,
    logStream: string,
  ): Record<string, string> {
    const configuration = input.version.configuration;
    const credentials = this.roleCredentials(input.fn, configuration.Role ?? '');
    const logging = configuration.LoggingConfig;
    return {
      PATH: [path.join(opt, 'bin'), process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(path.delimiter),
      LANG: 'en_US.UTF-8',
      TZ: 'UTC',
      HOME: this.workspace.home,
      _HANDLER: configuration.Handler ?? '',
      LAMBDA_TASK_ROOT: taskRoot,
      LAMBDA_RUNTIME_DIR: path.dirname(isNode(configuration.Runtime) ? BOOTSTRAPS.node : BOOTSTRAPS.python),
      AWS_EXECUTION_ENV: `AWS_Lambda_${configuration.Runtime}`,
      AWS_LAMBDA_FUNCTION_NAME: input.fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: input.versionName,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(configuration.MemorySize ?? 128),
      AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
      AWS_LAMBDA_LOG_STREAM_NAME: logStream,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      ...(logging?.LogFormat === 'JSON'
        ? { AWS_LAMBDA_LOG_FORMAT: 'JSON', AWS_LAMBDA_LOG_LEVEL: logging.ApplicationLogLevel ?? 'INFO' }
        : {}),
      AWS_REGION: input.fn.region,
      AWS_DEFAULT_REGION: input.fn.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
      AWS_ENDPOINT_URL: input.endpointUrl,
      // The host's Node.js may be older than Lambda's; keep the SDK's notice about it out of the logs when asked.
      ...(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED
        ? {
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED:
              process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED,
          }
        : {}),
      ...(configuration.Environment?.Variables ?? {}),
    };
  }

  /** Temporary credentials of the execution role (session name: the function), valid for 12 hours. */
  private roleCredentials(fn: LambdaFunction, roleArn: string) {
    const m = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
    const account = m?.[2] ?? fn.account;
    const accessKeyId = temporaryAccessKeyId();
    const userId = `AROA${upperAlnum(17)}:${fn.name}`;
    this.accounts.register({
      accessKeyId,
      account,
      arn: `arn:${m?.[1] ?? 'aws'}:sts::${account}:assumed-role/${m?.[3] ?? 'lambda'}/${fn.name}`,
      userId,
      expiration: new Date(Date.now() + 12 * 3600_000).toISOString(),
    });
    return {
      accessKeyId,
      secretAccessKey: secretKey(),
      sessionToken: Buffer.from(`${accessKeyId}:${secretKey()}${secretKey()}`).toString('base64'),
    };
  }

  /** The error payload Lambda answers for a failed invocation. */
  private failure(outcome: Outcome, requestId: string, timeoutMs: number): ErrorPayload {
    switch (outcome.kind) {
      case 'error':
        return outcome.error;
      case 'timeout':
        return {
          errorType: 'Sandbox.Timedout',
          errorMessage: `RequestId: ${requestId} Error: Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
        };
      case 'exit':
        return {
          errorType: 'Runtime.ExitError',
          errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${outcome.code !== null ? `exit status ${outcome.code}` : `signal: ${outcome.signal?.toLowerCase().replace(/^sig/, '')}`}`,
        };
      default:
        return { errorType: 'Runtime.Unknown', errorMessage: 'Unknown error' };
    }
  }

  private finishLogs(
    emit: (message: string) => void,
    input: InvocationInput,
    outcome: Outcome,
    timeoutMs: number,
    durationMs: number,
    initDurationMs: number | undefined,
    memoryMb: number | undefined,
  ): void {
    const memory = input.version.configuration.MemorySize ?? 128;
    if (outcome.kind === 'timeout')
      emit(
        `${new Date().toISOString()} ${input.requestId} Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
      );
    emit(`END RequestId: ${input.requestId}`);
    const report = [
      `REPORT RequestId: ${input.requestId}`,
      `Duration: ${durationMs.toFixed(2)} ms`,
      `Billed Duration: ${Math.max(1, Math.ceil(durationMs + (initDurationMs ?? 0)))} ms`,
      `Memory Size: ${memory} MB`,
      `Max Memory Used: ${memoryMb ?? 0} MB`,
      ...(initDurationMs !== undefined ? [`Init Duration: ${initDurationMs.toFixed(2)} ms`] : []),
      ...(outcome.kind === 'timeout'
        ? ['Status: timeout']
        : outcome.kind === 'exit'
          ? ['Status: error', 'Error Type: Runtime.ExitError']
          : []),
    ];
    emit(`${report.join('\t')}\t`);
  }
}

/** The environment's peak resident memory (Linux `/proc`), if it can be read. */
function maxMemoryUsedMb(env: ExecutionEnvironment): number | undefined {
  const pid = env.pid;
  if (pid === undefined) return undefined;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
