/**
 * Where a function's log events go: its log group (`/aws/lambda/<name>`, or
 * the LoggingConfig's), one stream per execution environment. Through the
 * CloudWatch Logs service when the emulator has one whose `api` can take
 * events (`putLogEvents`), so GetLogEvents and FilterLogEvents find them;
 * else kept by the Lambda service itself. Either way the control route
 * `GET /_emulator/lambda/logs` reads them.
 */
import type { Platform } from '../../core/service';
import type { LogEvent } from './model';
import { LambdaStore } from './store';

interface LogTarget {
  account: string;
  region: string;
  logGroupName: string;
  logStreamName: string;
}

/** What Lambda needs from a CloudWatch Logs service's `api`. */
export interface LogsServiceApi {
  /** Appends events to a stream, creating the log group and stream when missing. */
  putLogEvents?(target: LogTarget, events: ReadonlyArray<LogEvent>): void;
  /** A group's events (oldest first), each with its stream. */
  readEvents?(target: Omit<LogTarget, 'logStreamName'>): Array<LogEvent & { logStreamName: string }>;
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
    if (logs?.putLogEvents)
      logs.putLogEvents({ account, region, logGroupName: group, logStreamName: stream }, events);
    else this.store.appendLogs(account, region, group, stream, events);
    this.platform.changed();
  }

  /** A log group's events by stream, from the Logs service when it keeps them. */
  read(account: string, region: string, group: string): LogStreamEvents[] {
    const logs = this.logsService();
    if (logs?.readEvents) {
      const byStream = new Map<string, LogEvent[]>();
      for (const { logStreamName, timestamp, message } of logs.readEvents({
        account,
        region,
        logGroupName: group,
      }))
        byStream.set(logStreamName, [...(byStream.get(logStreamName) ?? []), { timestamp, message }]);
      return [...byStream].map(([logStreamName, events]) => ({ logStreamName, events }));
    }
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
