/**
 * CloudWatch Logs operations: log groups (retention, KMS, class, deletion
 * protection, data protection, field index and resource policies, tags, the
 * legacy tag calls), log streams, and events in and out.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { CallContext, Operations } from '../../core/service';
import { checkBatch, filterEvents, getEvents, type InputEvent } from './events';
import {
  logGroupArn,
  logGroupWildcardArn,
  logStreamArn,
  logsErrors,
  MAX_TAGS,
  parseLogGroupArn,
  validateKmsKeyArn,
  validateRetention,
  validateTags,
  type LogGroup,
  type LogsStore,
  type LogStream,
} from './store';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MAX_DESCRIBE = 50;
const MAX_ACCOUNT_RESOURCE_POLICIES = 10;

/** A page of `items` after the token's position; the token is the position, base64-encoded. */
function page<T>(items: T[], nextToken: unknown, limit: unknown, max = MAX_DESCRIBE) {
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max)
  )
    throw logsErrors.constraint('limit', limit, `Member must have value between 1 and ${max}`);
  let start = 0;
  if (nextToken !== undefined) {
    const offset = Number(Buffer.from(String(nextToken), 'base64').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0)
      throw logsErrors.invalid('The specified nextToken is invalid.');
    start = offset;
  }
  const size = typeof limit === 'number' ? limit : max;
  const slice = items.slice(start, start + size);
  const next = start + slice.length;
  return {
    items: slice,
    nextToken: next < items.length ? Buffer.from(String(next)).toString('base64') : undefined,
  };
}

function requireMember(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '')
    throw logsErrors.constraint(name, 'null', 'Member must not be null');
  return value;
}

function parsePolicyJson(document: string, what: string): void {
  try {
    const parsed = JSON.parse(document) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not an object');
  } catch {
    throw logsErrors.invalid(`The ${what} document is not valid JSON.`);
  }
}

export function describeGroup(group: LogGroup) {
  return {
    logGroupName: group.name,
    creationTime: group.creationTime,
    retentionInDays: group.retentionInDays,
    metricFilterCount: 0,
    arn: logGroupWildcardArn(group),
    storedBytes: [...group.streams.values()].reduce((n, s) => n + s.storedBytes, 0),
    kmsKeyId: group.kmsKeyId,
    dataProtectionStatus: group.dataProtectionPolicy ? 'ACTIVATED' : undefined,
    logGroupClass: group.logGroupClass,
    logGroupArn: logGroupArn(group),
    deletionProtectionEnabled: group.deletionProtectionEnabled,
    bearerTokenAuthenticationEnabled: group.bearerTokenAuthenticationEnabled,
  };
}

function describeStream(group: LogGroup, stream: LogStream) {
  const first = stream.events[0];
  const last = stream.events[stream.events.length - 1];
  return {
    logStreamName: stream.name,
    creationTime: stream.creationTime,
    firstEventTimestamp: first?.timestamp,
    lastEventTimestamp: last?.timestamp,
    lastIngestionTime: stream.lastIngestionTime,
    uploadSequenceToken: String(stream.events.length).padStart(49, '0'),
    arn: logStreamArn(group, stream),
    storedBytes: stream.storedBytes,
  };
}

export class LogsOperations {
  readonly operations: Operations = {
    CreateLogGroup: (ctx, input: Input) => {
      this.store.create(ctx.account, ctx.region, requireMember(input, 'logGroupName'), {
        kmsKeyId: input.kmsKeyId,
        tags: input.tags,
        logGroupClass: input.logGroupClass,
        deletionProtectionEnabled: input.deletionProtectionEnabled,
      });
      return {};
    },
    DeleteLogGroup: (ctx, input: Input) => {
      this.store.delete(this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName')));
      return {};
    },
    DescribeLogGroups: (ctx, input: Input) => this.describeLogGroups(ctx, input),
    PutRetentionPolicy: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      group.retentionInDays = validateRetention(input.retentionInDays);
      return {};
    },
    DeleteRetentionPolicy: (ctx, input: Input) => {
      delete this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'))
        .retentionInDays;
      return {};
    },
    AssociateKmsKey: (ctx, input: Input) => {
      const group = this.kmsTarget(ctx, input);
      const kmsKeyId = requireMember(input, 'kmsKeyId');
      validateKmsKeyArn(kmsKeyId, ctx.region);
      group.kmsKeyId = kmsKeyId;
      return {};
    },
    DisassociateKmsKey: (ctx, input: Input) => {
      delete this.kmsTarget(ctx, input).kmsKeyId;
      return {};
    },
    TagResource: (ctx, input: Input) => {
      this.tag(this.byArn(ctx, requireMember(input, 'resourceArn')), input.tags, 'TooManyTagsException');
      return {};
    },
    UntagResource: (ctx, input: Input) => {
      const group = this.byArn(ctx, requireMember(input, 'resourceArn'));
      for (const key of (input.tagKeys as string[] | undefined) ?? []) delete group.tags[key];
      return {};
    },
    ListTagsForResource: (ctx, input: Input) => ({
      tags: { ...this.byArn(ctx, requireMember(input, 'resourceArn')).tags },
    }),
    TagLogGroup: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      this.tag(group, input.tags, 'InvalidParameterException');
      return {};
    },
    UntagLogGroup: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      for (const key of (input.tags as string[] | undefined) ?? []) delete group.tags[key];
      return {};
    },
    ListTagsLogGroup: (ctx, input: Input) => ({
      tags: { ...this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName')).tags },
    }),
    PutLogGroupDeletionProtection: (ctx, input: Input) => {
      const group = this.store.resolve(ctx.account, ctx.region, requireMember(input, 'logGroupIdentifier'));
      group.deletionProtectionEnabled = input.deletionProtectionEnabled === true;
      return {};
    },
    PutBearerTokenAuthentication: (ctx, input: Input) => {
      const group = this.store.resolve(ctx.account, ctx.region, requireMember(input, 'logGroupIdentifier'));
      group.bearerTokenAuthenticationEnabled = input.bearerTokenAuthenticationEnabled === true;
      return {};
    },
    PutDataProtectionPolicy: (ctx, input: Input) => {
      const identifier = requireMember(input, 'logGroupIdentifier');
      const group = this.store.resolve(ctx.account, ctx.region, identifier);
      const document = requireMember(input, 'policyDocument');
      parsePolicyJson(document, 'data protection policy');
      group.dataProtectionPolicy = { document, lastUpdated: Date.now() };
      return {
        logGroupIdentifier: identifier,
        policyDocument: document,
        lastUpdatedTime: group.dataProtectionPolicy.lastUpdated,
      };
    },
    GetDataProtectionPolicy: (ctx, input: Input) => {
      const identifier = requireMember(input, 'logGroupIdentifier');
      const policy = this.store.resolve(ctx.account, ctx.region, identifier).dataProtectionPolicy;
      return {
        logGroupIdentifier: identifier,
        policyDocument: policy?.document,
        lastUpdatedTime: policy?.lastUpdated,
      };
    },
    DeleteDataProtectionPolicy: (ctx, input: Input) => {
      const group = this.store.resolve(ctx.account, ctx.region, requireMember(input, 'logGroupIdentifier'));
      if (!group.dataProtectionPolicy)
        throw new AwsError(
          'ResourceNotFoundException',
          'The specified data protection policy does not exist.',
        );
      delete group.dataProtectionPolicy;
      return {};
    },
    PutIndexPolicy: (ctx, input: Input) => {
      const identifier = requireMember(input, 'logGroupIdentifier');
      const group = this.store.resolve(ctx.account, ctx.region, identifier);
      const document = requireMember(input, 'policyDocument');
      parsePolicyJson(document, 'index policy');
      if (group.logGroupClass !== 'STANDARD')
        throw logsErrors.invalid(
          'Field index policies are supported only for log groups in the Standard log class.',
        );
      group.indexPolicy = { document, lastUpdated: Date.now() };
      return { indexPolicy: this.indexPolicy(group, identifier) };
    },
    DescribeIndexPolicies: (ctx, input: Input) => {
      const identifiers = (input.logGroupIdentifiers as string[] | undefined) ?? [];
      if (identifiers.length !== 1)
        throw logsErrors.constraint(
          'logGroupIdentifiers',
          identifiers.length,
          'Member must have length equal to 1',
        );
      const group = this.store.resolve(ctx.account, ctx.region, identifiers[0]!);
      return { indexPolicies: group.indexPolicy ? [this.indexPolicy(group, identifiers[0]!)] : [] };
    },
    DeleteIndexPolicy: (ctx, input: Input) => {
      const group = this.store.resolve(ctx.account, ctx.region, requireMember(input, 'logGroupIdentifier'));
      if (!group.indexPolicy)
        throw new AwsError('ResourceNotFoundException', 'The specified index policy does not exist.');
      delete group.indexPolicy;
      return {};
    },
    PutResourcePolicy: (ctx, input: Input) => this.putResourcePolicy(ctx, input),
    DescribeResourcePolicies: (ctx, input: Input) => this.describeResourcePolicies(ctx, input),
    DeleteResourcePolicy: (ctx, input: Input) => this.deleteResourcePolicy(ctx, input),
    CreateLogStream: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      this.store.createStream(group, requireMember(input, 'logStreamName'));
      return {};
    },
    DeleteLogStream: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      if (!group.streams.delete(requireMember(input, 'logStreamName'))) throw logsErrors.streamNotFound();
      return {};
    },
    DescribeLogStreams: (ctx, input: Input) => this.describeLogStreams(ctx, input),
    PutLogEvents: (ctx, input: Input) => {
      const group = this.store.require(ctx.account, ctx.region, requireMember(input, 'logGroupName'));
      const stream = group.streams.get(requireMember(input, 'logStreamName'));
      if (!stream) throw logsErrors.streamNotFound();
      const { accepted, rejected } = checkBatch(
        group,
        (input.logEvents as InputEvent[] | undefined) ?? [],
        Date.now(),
      );
      this.store.append(stream, accepted);
      return {
        nextSequenceToken: String(stream.events.length).padStart(49, '0'),
        rejectedLogEventsInfo: rejected,
      };
    },
    GetLogEvents: (ctx, input: Input) => {
      const group = this.groupOf(ctx, input);
      const stream = group.streams.get(requireMember(input, 'logStreamName'));
      if (!stream) throw logsErrors.streamNotFound();
      const out = getEvents(stream, input);
      return {
        events: out.events.map((e) => ({
          timestamp: e.timestamp,
          message: e.message,
          ingestionTime: e.ingestionTime,
        })),
        nextForwardToken: out.nextForwardToken,
        nextBackwardToken: out.nextBackwardToken,
      };
    },
    FilterLogEvents: (ctx, input: Input) => {
      const out = filterEvents(this.groupOf(ctx, input), input);
      return {
        events: out.events.map((e) => ({
          logStreamName: e.logStreamName,
          timestamp: e.timestamp,
          message: e.message,
          ingestionTime: e.ingestionTime,
          eventId: e.eventId,
        })),
        nextToken: out.nextToken,
      };
    },
  };

  constructor(private readonly store: LogsStore) {}

  /** `logGroupName` or `logGroupIdentifier`, exactly one. */
  private groupOf(ctx: CallContext, input: Input): LogGroup {
    const name = input.logGroupName as string | undefined;
    const identifier = input.logGroupIdentifier as string | undefined;
    if ((name === undefined) === (identifier === undefined))
      throw logsErrors.invalid('Exactly one of logGroupName and logGroupIdentifier must be specified.');
    return name !== undefined
      ? this.store.require(ctx.account, ctx.region, name)
      : this.store.resolve(ctx.account, ctx.region, identifier!);
  }

  /** The group of a tagging ARN (`arn:aws:logs:<region>:<account>:log-group:<name>`, no `:*`). */
  private byArn(ctx: CallContext, arn: string): LogGroup {
    const parsed = parseLogGroupArn(arn);
    if (!parsed) throw logsErrors.invalid(`Invalid resource ARN: ${arn}`);
    if (parsed.account !== ctx.account || parsed.region !== ctx.region) throw logsErrors.groupNotFound();
    return this.store.require(parsed.account, parsed.region, parsed.name);
  }

  private kmsTarget(ctx: CallContext, input: Input): LogGroup {
    const name = input.logGroupName as string | undefined;
    const identifier = input.resourceIdentifier as string | undefined;
    if ((name === undefined) === (identifier === undefined))
      throw logsErrors.invalid('Exactly one of logGroupName and resourceIdentifier must be specified.');
    return name !== undefined
      ? this.store.require(ctx.account, ctx.region, name)
      : this.byArn(ctx, identifier!);
  }

  private tag(group: LogGroup, tags: unknown, tooMany: string): void {
    const add = (tags ?? {}) as Record<string, string>;
    validateTags(add);
    const merged = { ...group.tags, ...add };
    if (Object.keys(merged).length > MAX_TAGS)
      throw new AwsError(tooMany, `A resource can have no more than ${MAX_TAGS} tags.`);
    group.tags = merged;
  }

  private indexPolicy(group: LogGroup, identifier: string) {
    return {
      logGroupIdentifier: identifier,
      lastUpdateTime: group.indexPolicy!.lastUpdated,
      policyDocument: group.indexPolicy!.document,
      policyName: `${logGroupArn(group)}-index-policy`,
      source: 'LOG_GROUP',
    };
  }

  private describeLogGroups(ctx: CallContext, input: Input) {
    const prefix = input.logGroupNamePrefix as string | undefined;
    const pattern = input.logGroupNamePattern as string | undefined;
    const identifiers = input.logGroupIdentifiers as string[] | undefined;
    if (prefix !== undefined && pattern !== undefined)
      throw logsErrors.invalid('LogGroupNamePrefix and LogGroupNamePattern are mutually exclusive.');
    if (identifiers && (prefix !== undefined || pattern !== undefined))
      throw logsErrors.invalid(
        'logGroupIdentifiers cannot be combined with logGroupNamePrefix or logGroupNamePattern.',
      );
    const wanted = identifiers?.map((id) => (id.startsWith('arn:') ? parseLogGroupArn(id)?.name : id));
    const groups = this.store
      .list(ctx.account, ctx.region)
      .filter((g) => prefix === undefined || g.name.startsWith(prefix))
      .filter((g) => pattern === undefined || g.name.includes(pattern))
      .filter((g) => input.logGroupClass === undefined || g.logGroupClass === input.logGroupClass)
      .filter((g) => wanted === undefined || wanted.includes(g.name));
    const { items, nextToken } = page(groups, input.nextToken, input.limit);
    return { logGroups: items.map(describeGroup), nextToken };
  }

  private describeLogStreams(ctx: CallContext, input: Input) {
    const group = this.groupOf(ctx, input);
    const orderBy = (input.orderBy as string | undefined) ?? 'LogStreamName';
    const prefix = input.logStreamNamePrefix as string | undefined;
    if (orderBy === 'LastEventTime' && prefix !== undefined)
      throw logsErrors.invalid('Cannot order by LastEventTime with a logStreamNamePrefix.');
    const lastEvent = (s: LogStream) => s.events[s.events.length - 1]?.timestamp ?? 0;
    const streams = [...group.streams.values()]
      .filter((s) => prefix === undefined || s.name.startsWith(prefix))
      .sort((a, b) =>
        orderBy === 'LastEventTime'
          ? lastEvent(a) - lastEvent(b) || (a.name < b.name ? -1 : 1)
          : a.name < b.name
            ? -1
            : a.name > b.name
              ? 1
              : 0,
      );
    if (input.descending === true) streams.reverse();
    const { items, nextToken } = page(streams, input.nextToken, input.limit);
    return { logStreams: items.map((s) => describeStream(group, s)), nextToken };
  }

  private putResourcePolicy(ctx: CallContext, input: Input) {
    const document = requireMember(input, 'policyDocument');
    parsePolicyJson(document, 'resource policy');
    const now = Date.now();
    if (typeof input.resourceArn === 'string') {
      const group = this.byArn(ctx, input.resourceArn);
      if (
        input.expectedRevisionId !== undefined &&
        input.expectedRevisionId !== group.resourcePolicy?.revisionId
      )
        throw new AwsError(
          'OperationAbortedException',
          'The expected revision id does not match the current policy.',
        );
      group.resourcePolicy = { document, lastUpdated: now, revisionId: uuid() };
      const policy = this.groupPolicy(group);
      return { resourcePolicy: policy, revisionId: policy.revisionId };
    }
    const name = requireMember(input, 'policyName');
    const key = `${ctx.account}|${ctx.region}|${name}`;
    const inRegion = [...this.store.accountPolicies.keys()].filter((k) =>
      k.startsWith(`${ctx.account}|${ctx.region}|`),
    );
    if (!this.store.accountPolicies.has(key) && inRegion.length >= MAX_ACCOUNT_RESOURCE_POLICIES)
      throw new AwsError('LimitExceededException', 'Resource limit exceeded.');
    const stored = { document, lastUpdated: now, revisionId: uuid() };
    this.store.accountPolicies.set(key, stored);
    return {
      resourcePolicy: {
        policyName: name,
        policyDocument: document,
        lastUpdatedTime: now,
        policyScope: 'ACCOUNT',
        revisionId: stored.revisionId,
      },
      revisionId: stored.revisionId,
    };
  }

  private groupPolicy(group: LogGroup) {
    const p = group.resourcePolicy!;
    return {
      policyDocument: p.document,
      lastUpdatedTime: p.lastUpdated,
      policyScope: 'RESOURCE',
      resourceArn: logGroupArn(group),
      revisionId: p.revisionId,
    };
  }

  private describeResourcePolicies(ctx: CallContext, input: Input) {
    let policies: object[];
    if (typeof input.resourceArn === 'string') {
      const group = this.byArn(ctx, input.resourceArn);
      policies = group.resourcePolicy ? [this.groupPolicy(group)] : [];
    } else {
      const prefix = `${ctx.account}|${ctx.region}|`;
      policies = [...this.store.accountPolicies.entries()]
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, p]) => ({
          policyName: k.slice(prefix.length),
          policyDocument: p.document,
          lastUpdatedTime: p.lastUpdated,
          policyScope: 'ACCOUNT',
          revisionId: p.revisionId,
        }));
    }
    const { items, nextToken } = page(policies, input.nextToken, input.limit);
    return { resourcePolicies: items, nextToken };
  }

  private deleteResourcePolicy(ctx: CallContext, input: Input) {
    if (typeof input.resourceArn === 'string') {
      const group = this.byArn(ctx, input.resourceArn);
      if (!group.resourcePolicy)
        throw new AwsError(
          'ResourceNotFoundException',
          'Policy with the specified resource ARN does not exist.',
        );
      delete group.resourcePolicy;
      return {};
    }
    const name = requireMember(input, 'policyName');
    if (!this.store.accountPolicies.delete(`${ctx.account}|${ctx.region}|${name}`))
      throw new AwsError('ResourceNotFoundException', `Policy with name [${name}] does not exist.`);
    return {};
  }
}
