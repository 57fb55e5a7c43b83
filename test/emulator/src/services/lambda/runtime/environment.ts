/**
 * One execution environment: a child process running the runtime's bootstrap
 * (`runtimes/<node|python>/bootstrap.*`), spoken to over fd 3 with one JSON
 * message per line. It is initialized once (the handler module loads), then
 * runs one invocation at a time; a timeout, a crash or an init failure ends
 * it. The process runs in a group of its own, so killing it kills whatever it
 * started too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

export interface EnvironmentSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  handler: string;
  taskRoot: string;
  /** The function's unpacked layers: what Lambda mounts at /opt (the Python runtime maps /opt paths onto it). */
  optRoot?: string;
}

/** The error payload a runtime reports (`errorType`, `errorMessage`, `trace` / `stackTrace`). */
export type ErrorPayload = Record<string, unknown> & { errorType?: string; errorMessage?: string };

export type Outcome =
  | { kind: 'result'; payload: string }
  | { kind: 'error'; error: ErrorPayload }
  | { kind: 'timeout' }
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null };

export interface InvocationRequest {
  requestId: string;
  /** The event as JSON text. */
  event: string;
  /** Epoch ms the invocation must end by. */
  deadline: number;
  invokedFunctionArn: string;
  clientContext?: unknown;
}

interface Message {
  type: string;
  requestId?: string;
  message?: string;
  /** A whole log event (a console call), kept as one event whatever lines it has. */
  event?: boolean;
  payload?: string;
  error?: ErrorPayload;
}

type Waiter = (outcome: Outcome) => void;

export class ExecutionEnvironment {
  private readonly child: ChildProcess;
  private readonly channel: Socket;
  private buffered = '';
  private waiter?: { waiter: Waiter; requestId?: string };
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  /** Log text of the current phase (init, then each invocation), complete lines and a partial one. */
  private lines: string[] = [];
  private partial = '';
  /** Called once when the process has ended. */
  onExit?: () => void;
  /** Resolves once the process has ended. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(private readonly spec: EnvironmentSpec) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.channel = this.child.stdio[3] as Socket;
    this.channel.on('data', (chunk: Buffer) => this.onData(chunk));
    this.channel.on('error', () => undefined);
    // Output that bypasses the runtime's streams (native code, child processes).
    for (const stream of [this.child.stdout, this.child.stderr])
      stream?.on('data', (chunk: Buffer) => this.appendLog(chunk.toString('utf8')));
    this.child.on('error', (err) => {
      this.appendLog(`${String(err)}\n`);
      this.ended(null, null);
    });
    this.child.on('exit', (code, signal) => this.ended(code, signal));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Loads the handler. Resolves undefined when ready, or the outcome that ended the init. */
  init(timeoutMs: number): Promise<Outcome | undefined> {
    return this.request(
      { type: 'init', handler: this.spec.handler, taskRoot: this.spec.taskRoot, optRoot: this.spec.optRoot },
      undefined,
      timeoutMs,
    ).then((outcome) => (outcome.kind === 'result' ? undefined : outcome));
  }

  /** Runs one invocation; a timeout kills the environment. */
  invoke(request: InvocationRequest, timeoutMs: number): Promise<Outcome> {
    return this.request({ type: 'invoke', ...request }, request.requestId, timeoutMs);
  }

  /** The log lines of the last phase, and starts a new phase. */
  takeLogs(): string[] {
    if (this.partial) {
      this.lines.push(this.partial);
      this.partial = '';
    }
    const lines = this.lines;
    this.lines = [];
    return lines;
  }

  kill(): void {
    if (!this.alive || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }

  private request(
    message: Record<string, unknown>,
    requestId: string | undefined,
    timeoutMs: number,
  ): Promise<Outcome> {
    if (!this.alive)
      return Promise.resolve({ kind: 'exit', code: this.exited!.code, signal: this.exited!.signal });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        this.kill();
        resolve({ kind: 'timeout' });
      }, timeoutMs);
      this.waiter = {
        requestId,
        waiter: (outcome) => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve(outcome);
        },
      };
      this.channel.write(`${JSON.stringify(message)}\n`);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (!line) continue;
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        continue;
      }
      this.onMessage(message);
    }
  }

  private onMessage(message: Message): void {
    if (message.type === 'log') {
      if (message.event) {
        if (this.partial) this.lines.push(this.partial);
        this.partial = '';
        this.lines.push((message.message ?? '').replace(/\n$/, ''));
      } else this.appendLog(message.message ?? '');
      return;
    }
    const pending = this.waiter;
    if (!pending) return;
    if (message.type === 'init-done') pending.waiter({ kind: 'result', payload: '' });
    else if (message.type === 'init-error') pending.waiter({ kind: 'error', error: message.error ?? {} });
    else if (message.requestId !== pending.requestId) return;
    else if (message.type === 'result')
      pending.waiter({ kind: 'result', payload: message.payload ?? 'null' });
    else if (message.type === 'error') pending.waiter({ kind: 'error', error: message.error ?? {} });
  }

  /** Runtime output: complete lines become log events; a trailing partial line waits for the rest. */
  private appendLog(text: string): void {
    const joined = this.partial + text;
    const parts = joined.split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
  }

  private ended(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = { code, signal };
    this.waiter?.waiter({ kind: 'exit', code, signal });
    this.onExit?.();
    this.resolveDone();
  }
}
