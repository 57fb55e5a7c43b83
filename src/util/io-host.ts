/**
 * The engine never prints. It sends every message, log line and progress event
 * to an {@link IoHost}; the CLI supplies one that renders to the terminal, tests
 * a recording one. Messages carry a `code` so tests assert on codes, not wording.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface IoMessage<T = unknown> {
  level: LogLevel;
  /** Stable identifier of the kind of message, e.g. `CDKD_LOG`, `CDKD_RESOURCE_EVENT`. */
  code: string;
  /** Human readable text. */
  message: string;
  /** Typed payload for renderers and tests. */
  data?: T;
  time: Date;
}

export interface IoHost {
  notify(msg: IoMessage): void;
}

/** Logger as seen by the engine and by providers. */
export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A logger whose messages are prefixed, e.g. with a stack or resource name. */
  child(prefix: string): Logger;
}

export const LOG_CODE = 'CDKD_LOG';

export function createLogger(host: IoHost, prefix?: string): Logger {
  const emit = (level: LogLevel, message: string, data?: unknown): void =>
    host.notify({
      level,
      code: LOG_CODE,
      message: prefix ? `${prefix} ${message}` : message,
      data,
      time: new Date(),
    });
  return {
    debug: (m, d) => emit('debug', m, d),
    info: (m, d) => emit('info', m, d),
    warn: (m, d) => emit('warn', m, d),
    error: (m, d) => emit('error', m, d),
    child: (p) => createLogger(host, prefix ? `${prefix} ${p}` : p),
  };
}

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface StreamIoHostOptions {
  /** Show debug messages. */
  verbose?: boolean;
  /** Where text goes. Default: process.stderr (stdout is reserved for payloads). */
  stream?: NodeJS.WritableStream;
}

/** Writes log messages to a stream (stderr by default), one line each. */
export class StreamIoHost implements IoHost {
  private readonly minLevel: number;
  private readonly stream: NodeJS.WritableStream;

  constructor(options: StreamIoHostOptions = {}) {
    this.minLevel = LEVEL_ORDER[options.verbose ? 'debug' : 'info'];
    this.stream = options.stream ?? process.stderr;
  }

  notify(msg: IoMessage): void {
    if (LEVEL_ORDER[msg.level] < this.minLevel) return;
    const prefix = msg.level === 'warn' ? 'warning: ' : msg.level === 'error' ? 'error: ' : '';
    this.stream.write(`${prefix}${msg.message}\n`);
  }
}

/** Keeps every message; for tests and for programs driving the engine. */
export class RecordingIoHost implements IoHost {
  readonly messages: IoMessage[] = [];

  notify(msg: IoMessage): void {
    this.messages.push(msg);
  }

  byCode(code: string): IoMessage[] {
    return this.messages.filter((m) => m.code === code);
  }

  text(level?: LogLevel): string[] {
    return this.messages.filter((m) => !level || m.level === level).map((m) => m.message);
  }
}

/** Fans a message out to several hosts. */
export class TeeIoHost implements IoHost {
  constructor(private readonly hosts: IoHost[]) {}
  notify(msg: IoMessage): void {
    for (const h of this.hosts) h.notify(msg);
  }
}
