/**
 * CloudWatch Logs log groups, their streams and events, per account and
 * region, with the naming and value rules the API reference documents. Shared
 * with Cloud Control (`AWS::Logs::LogGroup`) and with other services through
 * the `api` (Lambda writes function logs here).
 */
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';

export interface LogEvent {
  timestamp: number;
  message: string;
  ingestionTime: number;
  /** Unique per event, as FilterLogEvents' `eventId`. */
  eventId: string;
}

export interface LogStream {
  name: string;
  creationTime: number;
  lastIngestionTime?: number;
  /** Sorted by timestamp; events of equal timestamp in ingestion order. */
  events: LogEvent[];
  storedBytes: number;
}

/** A policy document with the time it was last written. */
export interface StoredPolicy {
  document: string;
  lastUpdated: number;
}

export interface LogGroup {
  account: string;
  region: string;
  name: string;
  creationTime: number;
  retentionInDays?: number;
  kmsKeyId?: string;
  logGroupClass: string;
  deletionProtectionEnabled: boolean;
  bearerTokenAuthenticationEnabled: boolean;
  dataProtectionPolicy?: StoredPolicy;
  indexPolicy?: StoredPolicy;
  /** The log group's own resource policy (PutResourcePolicy with a resourceArn). */
  resourcePolicy?: StoredPolicy & { revisionId: string };
  tags: Record<string, string>;
  streams: Map<string, LogStream>;
}

/** PutRetentionPolicy's accepted values, in days. */
export const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];
export const LOG_GROUP_CLASSES = ['STANDARD', 'INFREQUENT_ACCESS', 'DELIVERY'];
const LOG_GROUP_NAME = /^[.\-_/#A-Za-z0-9]{1,512}$/;
const LOG_STREAM_NAME = /^[^:*]{1,512}$/;
const TAG_KEY = /^(?!aws:)[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u;
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u;
export const MAX_TAGS = 50;

export const logsErrors = {
  groupNotFound: () => new AwsError('ResourceNotFoundException', 'The specified log group does not exist.'),
  streamNotFound: () => new AwsError('ResourceNotFoundException', 'The specified log stream does not exist.'),
  groupExists: () => new AwsError('ResourceAlreadyExistsException', 'The specified log group already exists'),
  streamExists: () =>
    new AwsError('ResourceAlreadyExistsException', 'The specified log stream already exists'),
  invalid: (message: string) => new AwsError('InvalidParameterException', message),
  /** The wording of a constraint the model enforces (`1 validation error detected: ...`). */
  constraint: (member: string, value: unknown, constraint: string) =>
    new AwsError(
      'InvalidParameterException',
      `1 validation error detected: Value '${String(value)}' at '${member}' failed to satisfy constraint: ${constraint}`,
    ),
};

export function validateLogGroupName(name: string, member = 'logGroupName'): void {
  if (name.length < 1 || name.length > 512)
    throw logsErrors.constraint(member, name, 'Member must have length between 1 and 512');
  if (!LOG_GROUP_NAME.test(name))
    throw logsErrors.constraint(
      member,
      name,
      'Member must satisfy regular expression pattern: [\\.\\-_/#A-Za-z0-9]+',
    );
}

export function validateLogStreamName(name: string): void {
  if (name.length < 1 || name.length > 512)
    throw logsErrors.constraint('logStreamName', name, 'Member must have length between 1 and 512');
  if (!LOG_STREAM_NAME.test(name))
    throw logsErrors.constraint(
      'logStreamName',
      name,
      'Member must satisfy regular expression pattern: [^:*]*',
    );
}

export function validateRetention(days: unknown): number {
  if (typeof days !== 'number' || !RETENTION_DAYS.includes(days))
    throw logsErrors.constraint(
      'retentionInDays',
      days,
      `Member must satisfy enum value set: [${RETENTION_DAYS.join(', ')}]`,
    );
  return days;
}

/** A KMS key ARN in the log group's region (CloudWatch Logs takes ARNs only). */
export function validateKmsKeyArn(kmsKeyId: string, region: string): void {
  const m = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):(\d{12}):key\/[A-Za-z0-9-]+$/.exec(kmsKeyId);
  if (!m)
    throw logsErrors.invalid(
      `Specified KMS key ARN '${kmsKeyId}' is not valid. Specify the full ARN of a KMS key.`,
    );
  if (m[1] !== region)
    throw logsErrors.invalid(`The KMS key ${kmsKeyId} is not in the log group's Region (${region}).`);
}

/** Checks tags as TagResource and CreateLogGroup check them. */
export function validateTags(tags: Record<string, string>): void {
  for (const [key, value] of Object.entries(tags)) {
    if (!TAG_KEY.test(key))
      throw logsErrors.constraint(
        'tags',
        key,
        'Map keys must satisfy constraint: [Member must have length between 1 and 128, Member must satisfy regular expression pattern: ^(?!aws:)[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]+$]',
      );
    if (!TAG_VALUE.test(value))
      throw logsErrors.constraint(
        'tags',
        value,
        'Map values must satisfy constraint: [Member must have length less than or equal to 256, Member must satisfy regular expression pattern: ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$]',
      );
  }
}

/** `arn:aws:logs:<region>:<account>:log-group:<name>` — the form tagging and `logGroupIdentifier` take. */
export function logGroupArn(group: Pick<LogGroup, 'account' | 'region' | 'name'>): string {
  return `arn:${partitionOf(group.region)}:logs:${group.region}:${group.account}:log-group:${group.name}`;
}

/** The `arn` DescribeLogGroups reports (and CloudFormation's `Arn` attribute): with a trailing `:*`. */
export function logGroupWildcardArn(group: Pick<LogGroup, 'account' | 'region' | 'name'>): string {
  return `${logGroupArn(group)}:*`;
}

export function logStreamArn(group: LogGroup, stream: LogStream): string {
  return `${logGroupArn(group)}:log-stream:${stream.name}`;
}

/** Account, region and name of a log group ARN (no trailing `:*`), or undefined. */
export function parseLogGroupArn(arn: string): { account: string; region: string; name: string } | undefined {
  const m = /^arn:aws[a-z-]*:logs:([a-z0-9-]+):(\d{12}):log-group:(.+)$/.exec(arn);
  return m ? { region: m[1]!, account: m[2]!, name: m[3]! } : undefined;
}

interface SavedGroup extends Omit<LogGroup, 'streams'> {
  streams: LogStream[];
}

/** An account-level resource policy (PutResourcePolicy with a `policyName`). */
export interface AccountResourcePolicy {
  document: string;
  lastUpdated: number;
  revisionId: string;
}

export class LogsStore implements ServiceStore {
  readonly groups = new Map<string, LogGroup>();
  /** Account-level resource policies by `account|region|policyName`. */
  readonly accountPolicies = new Map<string, AccountResourcePolicy>();
  private eventCounter = 0;

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  get(account: string, region: string, name: string): LogGroup | undefined {
    return this.groups.get(LogsStore.key(account, region, name));
  }

  /** The group, or ResourceNotFoundException. */
  require(account: string, region: string, name: string): LogGroup {
    const group = this.get(account, region, name);
    if (!group) throw logsErrors.groupNotFound();
    return group;
  }

  /** A group by name or by ARN (`logGroupIdentifier`), in the caller's account and region. */
  resolve(account: string, region: string, identifier: string): LogGroup {
    if (identifier.startsWith('arn:')) {
      const parsed = parseLogGroupArn(identifier);
      if (!parsed || parsed.account !== account || parsed.region !== region) throw logsErrors.groupNotFound();
      return this.require(account, region, parsed.name);
    }
    return this.require(account, region, identifier);
  }

  /** The groups of one account and region, sorted by name (DescribeLogGroups' order). */
  list(account: string, region: string): LogGroup[] {
    return [...this.groups.values()]
      .filter((g) => g.account === account && g.region === region)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  create(
    account: string,
    region: string,
    name: string,
    options: {
      kmsKeyId?: string;
      tags?: Record<string, string>;
      logGroupClass?: string;
      deletionProtectionEnabled?: boolean;
    } = {},
  ): LogGroup {
    validateLogGroupName(name);
    const logGroupClass = options.logGroupClass ?? 'STANDARD';
    if (!LOG_GROUP_CLASSES.includes(logGroupClass))
      throw logsErrors.constraint(
        'logGroupClass',
        logGroupClass,
        `Member must satisfy enum value set: [${LOG_GROUP_CLASSES.join(', ')}]`,
      );
    const tags = options.tags ?? {};
    if (Object.keys(tags).length > MAX_TAGS)
      throw logsErrors.invalid(`A log group can have at most ${MAX_TAGS} tags.`);
    validateTags(tags);
    if (options.kmsKeyId !== undefined) validateKmsKeyArn(options.kmsKeyId, region);
    const key = LogsStore.key(account, region, name);
    if (this.groups.has(key)) throw logsErrors.groupExists();
    const group: LogGroup = {
      account,
      region,
      name,
      creationTime: Date.now(),
      ...(options.kmsKeyId !== undefined ? { kmsKeyId: options.kmsKeyId } : {}),
      logGroupClass,
      deletionProtectionEnabled: options.deletionProtectionEnabled ?? false,
      bearerTokenAuthenticationEnabled: false,
      tags: { ...tags },
      streams: new Map(),
    };
    this.groups.set(key, group);
    return group;
  }

  delete(group: LogGroup): void {
    if (group.deletionProtectionEnabled)
      throw new AwsError(
        'ValidationException',
        `Log group ${group.name} has deletion protection enabled. Disable deletion protection before deleting the log group.`,
      );
    this.groups.delete(LogsStore.key(group.account, group.region, group.name));
  }

  createStream(group: LogGroup, name: string): LogStream {
    validateLogStreamName(name);
    if (group.streams.has(name)) throw logsErrors.streamExists();
    const stream: LogStream = { name, creationTime: Date.now(), events: [], storedBytes: 0 };
    group.streams.set(name, stream);
    return stream;
  }

  /** Appends already validated events, keeping the stream sorted by timestamp. */
  append(stream: LogStream, events: ReadonlyArray<{ timestamp: number; message: string }>): void {
    const now = Date.now();
    for (const e of events) {
      const event: LogEvent = {
        timestamp: e.timestamp,
        message: e.message,
        ingestionTime: now,
        eventId: String(++this.eventCounter).padStart(56, '0'),
      };
      let i = stream.events.length;
      while (i > 0 && stream.events[i - 1]!.timestamp > event.timestamp) i--;
      stream.events.splice(i, 0, event);
      stream.storedBytes += Buffer.byteLength(e.message, 'utf8') + 26;
    }
    if (events.length) stream.lastIngestionTime = now;
  }

  clear(): void {
    this.groups.clear();
    this.accountPolicies.clear();
  }

  snapshot(): {
    groups: SavedGroup[];
    accountPolicies: Array<[string, AccountResourcePolicy]>;
    eventCounter: number;
  } {
    return {
      groups: [...this.groups.values()].map((g) => ({ ...g, streams: [...g.streams.values()] })),
      accountPolicies: [...this.accountPolicies.entries()],
      eventCounter: this.eventCounter,
    };
  }

  restore(saved: unknown): void {
    const data = saved as {
      groups?: SavedGroup[];
      accountPolicies?: Array<[string, AccountResourcePolicy]>;
      eventCounter?: number;
    };
    for (const [key, policy] of data.accountPolicies ?? []) this.accountPolicies.set(key, policy);
    for (const g of data.groups ?? [])
      this.groups.set(LogsStore.key(g.account, g.region, g.name), {
        ...g,
        streams: new Map(g.streams.map((s) => [s.name, s])),
      });
    this.eventCounter = data.eventCounter ?? 0;
  }
}
