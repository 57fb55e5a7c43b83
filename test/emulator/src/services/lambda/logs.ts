/**
 * Where a function's log events go: its log group (`/aws/lambda/<name>`, or
 * the LoggingConfig's), one stream per execution environment. Through the
 * CloudWatch Logs service when the emulator has one whose `api` can take
 * events (`putLogEvents`), so `FilterLogEvents` and friends find them; else
 * kept by the Lambda service itself, readable through its control route
 * `GET /_emulator/lambda/logs`.
 */
import type { Platform } from '../../core/service';
import type { LogEvent } from './model';
import { LambdaStore } from './store';

/** What Lambda needs from a CloudWatch Logs service's `api`. */
export interface LogsServiceApi {
  /** Appends events to a stream, creating the log group and stream when missing. */
  putLogEvents?(
    account: string,
    region: string,
    logGroupName: string,
    logStreamName: string,
    events: LogEvent[],
  ): void;
}

export interface LogStreamEvents {
  logStreamName: string;
  events: LogEvent[];
}

export class FunctionLogs {
  constructor(
    private readonly store: LambdaStore,
    private readonly platform: Platform,
  ) {}

  write(account: string, region: string, group: string, stream: string, events: LogEvent[]): void {
    if (!events.length) return;
    const logs = this.logsService();
    if (logs?.putLogEvents) logs.putLogEvents(account, region, group, stream, events);
    else this.store.appendLogs(account, region, group, stream, events);
    this.platform.changed();
  }

  /** The events the Lambda service kept for a log group (none once a Logs service takes them). */
  read(account: string, region: string, group: string): LogStreamEvents[] {
    const streams = this.store.logs.get(LambdaStore.key(account, region, group));
    return [...(streams ?? [])].map(([logStreamName, events]) => ({ logStreamName, events }));
  }

  private logsService(): LogsServiceApi | undefined {
    try {
      return this.platform.api<LogsServiceApi>('logs');
    } catch {
      return undefined; // no CloudWatch Logs service with an api
    }
  }
}
