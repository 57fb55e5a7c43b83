/**
 * Log events in and out: PutLogEvents' batch rules, GetLogEvents' forward and
 * backward tokens, FilterLogEvents across a group's streams. The rules are the
 * PutLogEvents API reference's: at most 10,000 events and 1,048,576 bytes
 * (messages in UTF-8 plus 26 bytes per event), in chronological order,
 * spanning at most 24 hours; events more than 2 hours ahead, more than 14 days
 * old, or older than the group's retention are rejected (reported, not an
 * error).
 */
import type { LogEvent, LogGroup, LogStream } from './store';
import { logsErrors } from './store';
import { compileFilterPattern } from './filter-pattern';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_BATCH_EVENTS = 10_000;
const MAX_BATCH_BYTES = 1_048_576;
const EVENT_OVERHEAD_BYTES = 26;
const MAX_PAGE_EVENTS = 10_000;

export interface InputEvent {
  timestamp: number;
  message: string;
}

export interface RejectedInfo {
  tooNewLogEventStartIndex?: number;
  tooOldLogEventEndIndex?: number;
  expiredLogEventEndIndex?: number;
}

/**
 * The events of a batch that are accepted, and what was rejected. Throws for
 * a batch the API refuses as a whole.
 */
export function checkBatch(
  group: LogGroup,
  events: InputEvent[],
  now: number,
): { accepted: InputEvent[]; rejected?: RejectedInfo } {
  if (events.length < 1 || events.length > MAX_BATCH_EVENTS)
    throw logsErrors.constraint(
      'logEvents',
      `[${events.length} events]`,
      `Member must have length between 1 and ${MAX_BATCH_EVENTS}`,
    );
  let bytes = 0;
  events.forEach((e, i) => {
    if (typeof e.message !== 'string' || e.message.length < 1)
      throw logsErrors.constraint(
        `logEvents.${i + 1}.member.message`,
        e.message,
        'Member must have length greater than or equal to 1',
      );
    if (typeof e.timestamp !== 'number' || !Number.isInteger(e.timestamp) || e.timestamp < 0)
      throw logsErrors.constraint(
        `logEvents.${i + 1}.member.timestamp`,
        e.timestamp,
        'Member must have value greater than or equal to 0',
      );
    bytes += Buffer.byteLength(e.message, 'utf8') + EVENT_OVERHEAD_BYTES;
    if (i > 0 && e.timestamp < events[i - 1]!.timestamp)
      throw logsErrors.invalid('Log events in a single PutLogEvents request must be in chronological order.');
  });
  if (bytes > MAX_BATCH_BYTES)
    throw logsErrors.invalid(`Upload too large: ${bytes} bytes exceeds limit of ${MAX_BATCH_BYTES}`);
  if (events[events.length - 1]!.timestamp - events[0]!.timestamp > DAY)
    throw logsErrors.invalid(
      'The batch of log events in a single PutLogEvents request cannot span more than 24 hours.',
    );

  const tooOldBefore = now - 14 * DAY;
  const expiredBefore = group.retentionInDays !== undefined ? now - group.retentionInDays * DAY : -Infinity;
  const tooNewAfter = now + 2 * HOUR;
  let start = 0;
  let end = events.length;
  const rejected: RejectedInfo = {};
  // Events are sorted, so the rejected ones are a prefix (too old) and a suffix (too new).
  while (start < end && events[start]!.timestamp < Math.max(tooOldBefore, expiredBefore)) start++;
  if (start > 0) {
    const expired = events.slice(0, start).filter((e) => e.timestamp < expiredBefore).length;
    if (expired > 0) rejected.expiredLogEventEndIndex = expired;
    if (expired < start) rejected.tooOldLogEventEndIndex = start;
  }
  while (end > start && events[end - 1]!.timestamp > tooNewAfter) end--;
  if (end < events.length) rejected.tooNewLogEventStartIndex = end;
  return {
    accepted: events.slice(start, end),
    ...(Object.keys(rejected).length ? { rejected } : {}),
  };
}

function inWindow(e: LogEvent, startTime?: number, endTime?: number): boolean {
  return (
    (startTime === undefined || e.timestamp >= startTime) && (endTime === undefined || e.timestamp < endTime)
  );
}

function pageLimit(limit: unknown): number {
  if (limit === undefined) return MAX_PAGE_EVENTS;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_EVENTS)
    throw logsErrors.constraint('limit', limit, `Member must have value between 1 and ${MAX_PAGE_EVENTS}`);
  return limit;
}

const token = (direction: 'f' | 'b', index: number) => `${direction}/${String(index).padStart(56, '0')}`;

/** GetLogEvents over one stream: `f/<n>` pages forward from position n, `b/<n>` backward to it. */
export function getEvents(
  stream: LogStream,
  input: {
    startTime?: number;
    endTime?: number;
    nextToken?: string;
    limit?: number;
    startFromHead?: boolean;
  },
): { events: LogEvent[]; nextForwardToken: string; nextBackwardToken: string } {
  const limit = pageLimit(input.limit);
  const window = stream.events.filter((e) => inWindow(e, input.startTime, input.endTime));
  let start: number;
  let end: number;
  if (input.nextToken !== undefined) {
    const m = /^([fb])\/(\d+)$/.exec(input.nextToken);
    if (!m) throw logsErrors.invalid('The specified nextToken is invalid.');
    const at = Math.min(Number(m[2]), window.length);
    if (m[1] === 'f') {
      start = at;
      end = Math.min(window.length, at + limit);
    } else {
      end = at;
      start = Math.max(0, at - limit);
    }
  } else if (input.startFromHead) {
    start = 0;
    end = Math.min(window.length, limit);
  } else {
    end = window.length;
    start = Math.max(0, end - limit);
  }
  return {
    events: window.slice(start, end),
    nextForwardToken: token('f', end),
    nextBackwardToken: token('b', start),
  };
}

/** FilterLogEvents: matching events of the chosen streams, oldest first, paged by an offset token. */
export function filterEvents(
  group: LogGroup,
  input: {
    logStreamNames?: string[];
    logStreamNamePrefix?: string;
    startTime?: number;
    endTime?: number;
    filterPattern?: string;
    nextToken?: string;
    limit?: number;
  },
): { events: Array<LogEvent & { logStreamName: string }>; nextToken?: string } {
  if (input.logStreamNames && input.logStreamNamePrefix !== undefined)
    throw logsErrors.invalid('logStreamNames and logStreamNamePrefix are mutually exclusive.');
  const limit = pageLimit(input.limit);
  const matches = compileFilterPattern(input.filterPattern);
  const streams = [...group.streams.values()].filter((s) =>
    input.logStreamNames
      ? input.logStreamNames.includes(s.name)
      : s.name.startsWith(input.logStreamNamePrefix ?? ''),
  );
  const all = streams
    .flatMap((s) => s.events.map((e) => ({ ...e, logStreamName: s.name })))
    .filter((e) => inWindow(e, input.startTime, input.endTime) && matches(e.message))
    .sort((a, b) => a.timestamp - b.timestamp || (a.eventId < b.eventId ? -1 : 1));
  let start = 0;
  if (input.nextToken !== undefined) {
    const offset = Number(Buffer.from(input.nextToken, 'base64').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0)
      throw logsErrors.invalid('The specified nextToken is invalid.');
    start = offset;
  }
  const page = all.slice(start, start + limit);
  const next = start + page.length;
  return {
    events: page,
    ...(next < all.length ? { nextToken: Buffer.from(String(next)).toString('base64') } : {}),
  };
}
