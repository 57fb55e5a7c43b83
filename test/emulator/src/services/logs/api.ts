/**
 * What other services use of CloudWatch Logs (`platform.api<LogsApi>('logs')`):
 * Lambda writes a function's output to `/aws/lambda/<name>` (or the group its
 * LoggingConfig names) the way its runtime does, creating the group and the
 * stream when they are missing.
 */
import type { LogsStore } from './store';

/** Where events go. */
export interface LogTarget {
  account: string;
  region: string;
  logGroupName: string;
  logStreamName: string;
}

/** One event as a reader sees it. */
export interface StoredLogEvent {
  logStreamName: string;
  timestamp: number;
  message: string;
  ingestionTime: number;
}

export interface LogsApi {
  /**
   * Appends events to a stream, creating the log group (standard class, never
   * expiring, as Lambda creates it) and the stream when missing. Events may be
   * in any order; empty messages are dropped. Throws an `AwsError`
   * (`InvalidParameterException`) for an invalid group or stream name.
   */
  putLogEvents(target: LogTarget, events: ReadonlyArray<{ timestamp: number; message: string }>): void;
  /**
   * The events of a group (of one stream when `logStreamName` is given),
   * oldest first; empty when the group does not exist.
   */
  readEvents(target: Omit<LogTarget, 'logStreamName'> & { logStreamName?: string }): StoredLogEvent[];
}

export function logsApi(store: LogsStore, changed: () => void): LogsApi {
  return {
    putLogEvents(target, events) {
      const group =
        store.get(target.account, target.region, target.logGroupName) ??
        store.create(target.account, target.region, target.logGroupName);
      const stream =
        group.streams.get(target.logStreamName) ?? store.createStream(group, target.logStreamName);
      const accepted = events
        .filter((e) => typeof e.message === 'string' && e.message !== '')
        .map((e) => ({ timestamp: Math.trunc(e.timestamp), message: e.message }))
        .sort((a, b) => a.timestamp - b.timestamp);
      store.append(stream, accepted);
      changed();
    },
    readEvents(target) {
      const group = store.get(target.account, target.region, target.logGroupName);
      if (!group) return [];
      return [...group.streams.values()]
        .filter((s) => target.logStreamName === undefined || s.name === target.logStreamName)
        .flatMap((s) =>
          s.events.map((e) => ({
            logStreamName: s.name,
            timestamp: e.timestamp,
            message: e.message,
            ingestionTime: e.ingestionTime,
          })),
        )
        .sort((a, b) => a.timestamp - b.timestamp);
    },
  };
}
