/**
 * Amazon EventBridge operations (awsJson1_1, `AWSEvents`): event buses (and
 * their resource policies through PutPermission / RemovePermission), rules,
 * targets and tags. Events themselves are in `put-events.ts`.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import {
  busArn,
  busNameOf,
  DEFAULT_BUS,
  parseRuleArn,
  ruleArn,
  type EventBus,
  type EventsStore,
  type Rule,
  type Target,
} from './store';
import {
  checkRuleName,
  checkScheduleExpression,
  parseEventPattern,
  patternViolation,
  RULE_STATES,
  validationError,
} from './rules';
import { checkTarget, putTargets } from './targets';

type Input = Record<string, unknown>;

const PAGE = 100;
const MAX_TAGS = 50;

export const eventsErrors = {
  busNotFound: (name: string) =>
    new AwsError('ResourceNotFoundException', `Event bus ${name} does not exist.`),
  ruleNotFound: (name: string, bus: string) =>
    new AwsError('ResourceNotFoundException', `Rule ${name} does not exist on EventBus ${bus}.`),
};

function str(input: Input, name: string): string | undefined {
  return typeof input[name] === 'string' ? (input[name] as string) : undefined;
}

function tagMap(value: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of Array.isArray(value) ? (value as Array<{ Key?: unknown; Value?: unknown }>) : []) {
    if (typeof t.Key !== 'string' || t.Key === '' || t.Key.length > 128)
      throw validationError('Tag keys must be 1 to 128 characters.');
    if (t.Key.startsWith('aws:')) throw validationError('Tag keys must not start with aws:.');
    tags[t.Key] = typeof t.Value === 'string' ? t.Value : '';
  }
  if (Object.keys(tags).length > MAX_TAGS)
    throw new AwsError(
      'LimitExceededException',
      'The requested resource exceeds the maximum number allowed.',
    );
  return tags;
}

/** A page of sorted items by an opaque token (base64 of the last key served) and a limit. */
function page<T>(items: T[], key: (t: T) => string, input: Input): { items: T[]; next?: string } {
  const limit = input.Limit;
  if (limit !== undefined && (typeof limit !== 'number' || limit < 1 || limit > PAGE))
    throw validationError(
      `1 validation error detected: Value '${String(limit)}' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100`,
    );
  const size = typeof limit === 'number' ? limit : PAGE;
  let start = 0;
  if (typeof input.NextToken === 'string' && input.NextToken !== '') {
    const after = Buffer.from(input.NextToken, 'base64').toString('utf8');
    start = items.findIndex((i) => key(i) === after) + 1;
    if (start === 0) throw validationError('The NextToken provided is invalid.');
  }
  const slice = items.slice(start, start + size);
  return {
    items: slice,
    ...(start + size < items.length
      ? { next: Buffer.from(key(slice[slice.length - 1]!)).toString('base64') }
      : {}),
  };
}

function busView(bus: EventBus) {
  return {
    Name: bus.name,
    Arn: busArn(bus),
    Description: bus.description,
    KmsKeyIdentifier: bus.kmsKeyIdentifier,
    DeadLetterConfig: bus.deadLetterConfig,
    LogConfig: bus.logConfig,
    Policy: bus.policy,
    CreationTime: new Date(bus.created),
    LastModifiedTime: new Date(bus.lastModified),
  };
}

export function ruleView(rule: Rule) {
  return {
    Name: rule.name,
    Arn: ruleArn(rule),
    EventPattern: rule.eventPattern,
    ScheduleExpression: rule.scheduleExpression,
    State: rule.state,
    Description: rule.description,
    RoleArn: rule.roleArn,
    ManagedBy: rule.managedBy,
    EventBusName: rule.busName,
  };
}

interface PolicyStatement {
  Sid?: string;
  [key: string]: unknown;
}

export class EventsOperations {
  readonly operations: Operations = {
    CreateEventBus: (ctx, input) => this.createEventBus(ctx, input),
    DescribeEventBus: (ctx, input) => ({ ...busView(this.bus(ctx, str(input, 'Name'))) }),
    UpdateEventBus: (ctx, input) => this.updateEventBus(ctx, input),
    DeleteEventBus: (ctx, input) => this.deleteEventBus(ctx, input),
    ListEventBuses: (ctx, input) => this.listEventBuses(ctx, input),
    PutPermission: (ctx, input) => this.putPermission(ctx, input),
    RemovePermission: (ctx, input) => this.removePermission(ctx, input),
    PutRule: (ctx, input) => this.putRule(ctx, input),
    DescribeRule: (ctx, input) => this.describeRule(ctx, input),
    DeleteRule: (ctx, input) => this.deleteRule(ctx, input),
    EnableRule: (ctx, input) => this.setState(ctx, input, 'ENABLED'),
    DisableRule: (ctx, input) => this.setState(ctx, input, 'DISABLED'),
    ListRules: (ctx, input) => this.listRules(ctx, input),
    ListRuleNamesByTarget: (ctx, input) => this.listRuleNamesByTarget(ctx, input),
    PutTargets: (ctx, input) => this.putTargets(ctx, input),
    RemoveTargets: (ctx, input) => this.removeTargets(ctx, input),
    ListTargetsByRule: (ctx, input) => this.listTargetsByRule(ctx, input),
    TagResource: (ctx, input) => this.tagResource(ctx, input),
    UntagResource: (ctx, input) => this.untagResource(ctx, input),
    ListTagsForResource: (ctx, input) => ({
      Tags: Object.entries(this.tagged(ctx, input).tags).map(([Key, Value]) => ({ Key, Value })),
    }),
  };

  constructor(private readonly store: EventsStore) {}

  /** The bus a name or ARN names (the default bus when none), in the caller's account and region. */
  bus(ctx: CallContext, nameOrArn: string | undefined): EventBus {
    const name = busNameOf(nameOrArn);
    const bus = this.store.bus(ctx.account, ctx.region, name);
    if (!bus) throw eventsErrors.busNotFound(name);
    return bus;
  }

  private rule(ctx: CallContext, input: Input, member = 'Name'): { bus: EventBus; rule: Rule } {
    const name = checkRuleName(input[member]);
    const bus = this.bus(ctx, str(input, 'EventBusName'));
    const rule = this.store.rule(ctx.account, ctx.region, bus.name, name);
    if (!rule) throw eventsErrors.ruleNotFound(name, bus.name);
    return { bus, rule };
  }

  private createEventBus(ctx: CallContext, input: Input): unknown {
    const name = str(input, 'Name') ?? '';
    if (!/^[/.\-_A-Za-z0-9]{1,256}$/.test(name)) throw patternViolation(name, 'name', '[/\\.\\-_A-Za-z0-9]+');
    const source = str(input, 'EventSourceName');
    if (!source && name.includes('/')) throw validationError("Event bus name must not contain '/'.");
    if (source) throw new AwsError('ResourceNotFoundException', `Event source ${source} does not exist.`);
    if (name === DEFAULT_BUS || this.store.bus(ctx.account, ctx.region, name))
      throw new AwsError('ResourceAlreadyExistsException', `Event bus ${name} already exists.`);
    const now = Date.now();
    const bus: EventBus = {
      account: ctx.account,
      region: ctx.region,
      name,
      tags: tagMap(input.Tags),
      created: now,
      lastModified: now,
    };
    applyBusSettings(bus, input);
    this.store.addBus(bus);
    return {
      EventBusArn: busArn(bus),
      Description: bus.description,
      KmsKeyIdentifier: bus.kmsKeyIdentifier,
      DeadLetterConfig: bus.deadLetterConfig,
      LogConfig: bus.logConfig,
    };
  }

  private updateEventBus(ctx: CallContext, input: Input): unknown {
    const bus = this.bus(ctx, str(input, 'Name'));
    applyBusSettings(bus, input);
    bus.lastModified = Date.now();
    return {
      Arn: busArn(bus),
      Name: bus.name,
      Description: bus.description,
      KmsKeyIdentifier: bus.kmsKeyIdentifier,
      DeadLetterConfig: bus.deadLetterConfig,
      LogConfig: bus.logConfig,
    };
  }

  private deleteEventBus(ctx: CallContext, input: Input): unknown {
    const name = busNameOf(str(input, 'Name'));
    if (name === DEFAULT_BUS) throw validationError('Cannot delete event bus default.');
    const bus = this.store.bus(ctx.account, ctx.region, name);
    // Deleting a bus that does not exist is no error.
    if (bus) this.store.deleteBus(bus);
    return {};
  }

  private listEventBuses(ctx: CallContext, input: Input): unknown {
    this.store.bus(ctx.account, ctx.region, DEFAULT_BUS);
    const prefix = str(input, 'NamePrefix') ?? '';
    const buses = [...this.store.buses.values()]
      .filter((b) => b.account === ctx.account && b.region === ctx.region && b.name.startsWith(prefix))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const { items, next } = page(buses, (b) => b.name, input);
    return {
      EventBuses: items.map((b) => {
        const v = busView(b);
        return {
          Name: v.Name,
          Arn: v.Arn,
          Description: v.Description,
          Policy: v.Policy,
          CreationTime: v.CreationTime,
          LastModifiedTime: v.LastModifiedTime,
        };
      }),
      NextToken: next,
    };
  }

  private putPermission(ctx: CallContext, input: Input): unknown {
    const bus = this.bus(ctx, str(input, 'EventBusName'));
    const policy = str(input, 'Policy');
    if (policy !== undefined) {
      let doc: unknown;
      try {
        doc = JSON.parse(policy);
      } catch {
        throw validationError('This policy contains invalid Json');
      }
      if (!doc || typeof doc !== 'object' || !('Statement' in doc))
        throw validationError('This policy contains invalid Json');
      bus.policy = policy;
      return {};
    }
    const principal = str(input, 'Principal');
    if (!principal) throw validationError('Parameter Principal must be specified.');
    const condition = input.Condition as { Type?: string; Key?: string; Value?: string } | undefined;
    if (condition && principal !== '*')
      throw new AwsError(
        'InvalidParameterValue',
        "Value of the parameter 'principal' must be '*' when the parameter 'condition' is set.",
      );
    if (!/^(\d{12}|\*)$/.test(principal)) throw patternViolation(principal, 'principal', '(\\d{12}|\\*)');
    if (str(input, 'Action') !== 'events:PutEvents')
      throw validationError("Provided value in parameter 'action' is not supported.");
    const sid = str(input, 'StatementId') ?? '';
    if (!/^[a-zA-Z0-9-_]{1,64}$/.test(sid)) throw patternViolation(sid, 'statementId', '[a-zA-Z0-9-_]+');
    const doc = bus.policy
      ? (JSON.parse(bus.policy) as { Statement: PolicyStatement[] })
      : { Version: '2012-10-17', Statement: [] as PolicyStatement[] };
    doc.Statement = (Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement]).filter(
      (s) => s.Sid !== sid,
    );
    doc.Statement.push({
      Sid: sid,
      Effect: 'Allow',
      Principal: principal === '*' ? '*' : { AWS: `arn:aws:iam::${principal}:root` },
      Action: 'events:PutEvents',
      Resource: busArn(bus),
      ...(condition?.Type && condition.Key
        ? { Condition: { [condition.Type]: { [condition.Key]: condition.Value } } }
        : {}),
    });
    bus.policy = JSON.stringify(doc);
    return {};
  }

  private removePermission(ctx: CallContext, input: Input): unknown {
    const bus = this.bus(ctx, str(input, 'EventBusName'));
    if (input.RemoveAllPermissions === true) {
      delete bus.policy;
      return {};
    }
    if (!bus.policy) throw new AwsError('ResourceNotFoundException', 'EventBus does not have a policy.');
    const doc = JSON.parse(bus.policy) as { Statement: PolicyStatement[] | PolicyStatement };
    const statements = Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement];
    const kept = statements.filter((s) => s.Sid !== str(input, 'StatementId'));
    if (kept.length === statements.length)
      throw new AwsError('ResourceNotFoundException', 'Statement with the provided id does not exist.');
    if (kept.length) bus.policy = JSON.stringify({ ...doc, Statement: kept });
    else delete bus.policy;
    return {};
  }

  private putRule(ctx: CallContext, input: Input): unknown {
    const name = checkRuleName(input.Name);
    const busName = busNameOf(str(input, 'EventBusName'));
    const pattern = str(input, 'EventPattern');
    const schedule = str(input, 'ScheduleExpression');
    if (!pattern && !schedule)
      throw validationError('Parameter(s) EventPattern or ScheduleExpression must be specified.');
    if (pattern) parseEventPattern(pattern);
    if (schedule) {
      if (busName !== DEFAULT_BUS)
        throw validationError('ScheduleExpression is supported only on the default event bus.');
      checkScheduleExpression(schedule);
    }
    const state = str(input, 'State') ?? 'ENABLED';
    if (!RULE_STATES.has(state))
      throw validationError(
        `1 validation error detected: Value '${state}' at 'state' failed to satisfy constraint: Member must satisfy enum value set: [ENABLED, DISABLED, ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS]`,
      );
    const description = str(input, 'Description');
    if (description !== undefined && description.length > 512)
      throw validationError(
        "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 512",
      );
    const bus = this.bus(ctx, busName);
    const existing = this.store.rule(ctx.account, ctx.region, bus.name, name);
    // PutRule replaces the rule: what the call leaves out is not kept. Tags apply to a new rule only.
    const rule: Rule = {
      account: ctx.account,
      region: ctx.region,
      busName: bus.name,
      name,
      state,
      tags: existing ? existing.tags : tagMap(input.Tags),
      targets: existing ? existing.targets : [],
      ...(pattern ? { eventPattern: pattern } : {}),
      ...(schedule ? { scheduleExpression: schedule } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(str(input, 'RoleArn') ? { roleArn: str(input, 'RoleArn') } : {}),
    };
    this.store.putRule(rule);
    return { RuleArn: ruleArn(rule) };
  }

  private describeRule(ctx: CallContext, input: Input): unknown {
    const { rule } = this.rule(ctx, input);
    return { ...ruleView(rule), CreatedBy: rule.account };
  }

  private deleteRule(ctx: CallContext, input: Input): unknown {
    const name = checkRuleName(input.Name);
    const busName = busNameOf(str(input, 'EventBusName'));
    const bus = this.store.bus(ctx.account, ctx.region, busName);
    const rule = bus && this.store.rule(ctx.account, ctx.region, bus.name, name);
    // "If you call delete rule multiple times for the same rule, all calls will succeed."
    if (!rule) return {};
    if (rule.targets.length) throw validationError("Rule can't be deleted since it has targets.");
    if (rule.managedBy && input.Force !== true)
      throw new AwsError(
        'ManagedRuleException',
        `Rule ${name} is managed by ${rule.managedBy} and can only be deleted with Force.`,
      );
    this.store.deleteRule(rule);
    return {};
  }

  private setState(ctx: CallContext, input: Input, state: string): unknown {
    this.rule(ctx, input).rule.state = state;
    return {};
  }

  private listRules(ctx: CallContext, input: Input): unknown {
    const bus = this.bus(ctx, str(input, 'EventBusName'));
    const prefix = str(input, 'NamePrefix') ?? '';
    const rules = this.store.rulesOf(bus).filter((r) => r.name.startsWith(prefix));
    const { items, next } = page(rules, (r) => r.name, input);
    return { Rules: items.map(ruleView), NextToken: next };
  }

  private listRuleNamesByTarget(ctx: CallContext, input: Input): unknown {
    const bus = this.bus(ctx, str(input, 'EventBusName'));
    const arn = str(input, 'TargetArn');
    const rules = this.store.rulesOf(bus).filter((r) => r.targets.some((t) => t.Arn === arn));
    const { items, next } = page(rules, (r) => r.name, input);
    return { RuleNames: items.map((r) => r.name), NextToken: next };
  }

  private putTargets(ctx: CallContext, input: Input): unknown {
    const { rule } = this.rule(ctx, input, 'Rule');
    const raw = Array.isArray(input.Targets) ? (input.Targets as Input[]) : [];
    if (!raw.length || raw.length > 10)
      throw validationError(
        `1 validation error detected: Value at 'targets' failed to satisfy constraint: Member must have length between 1 and 10`,
      );
    const targets = raw.map((t, i) => checkTarget(t, i + 1));
    if (new Set(targets.map((t) => t.Id)).size !== targets.length)
      throw validationError('The same target id appears more than once in the request.');
    putTargets(rule, targets);
    return { FailedEntryCount: 0, FailedEntries: [] };
  }

  private removeTargets(ctx: CallContext, input: Input): unknown {
    const { rule } = this.rule(ctx, input, 'Rule');
    const ids = Array.isArray(input.Ids) ? (input.Ids as string[]) : [];
    if (!ids.length)
      throw validationError(
        "1 validation error detected: Value '[]' at 'ids' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    rule.targets = rule.targets.filter((t: Target) => !ids.includes(t.Id));
    return { FailedEntryCount: 0, FailedEntries: [] };
  }

  private listTargetsByRule(ctx: CallContext, input: Input): unknown {
    const { rule } = this.rule(ctx, input, 'Rule');
    const { items, next } = page(rule.targets, (t) => t.Id, input);
    return { Targets: items, NextToken: next };
  }

  /** The bus or rule an ARN names, in the caller's account and region. */
  private tagged(ctx: CallContext, input: Input): EventBus | Rule {
    const arn = str(input, 'ResourceARN') ?? '';
    const rule = parseRuleArn(arn);
    const found =
      rule && rule.account === ctx.account && rule.region === ctx.region
        ? this.store.rule(ctx.account, ctx.region, rule.busName, rule.name)
        : /:event-bus\//.test(arn) && arn.split(':')[4] === ctx.account && arn.split(':')[3] === ctx.region
          ? this.store.bus(ctx.account, ctx.region, busNameOf(arn))
          : undefined;
    if (!found) throw new AwsError('ResourceNotFoundException', `Resource ${arn} does not exist.`);
    return found;
  }

  private tagResource(ctx: CallContext, input: Input): unknown {
    const resource = this.tagged(ctx, input);
    const merged = { ...resource.tags, ...tagMap(input.Tags) };
    if (Object.keys(merged).length > MAX_TAGS)
      throw new AwsError(
        'LimitExceededException',
        'The requested resource exceeds the maximum number allowed.',
      );
    resource.tags = merged;
    return {};
  }

  private untagResource(ctx: CallContext, input: Input): unknown {
    const resource = this.tagged(ctx, input);
    for (const key of Array.isArray(input.TagKeys) ? (input.TagKeys as string[]) : [])
      delete resource.tags[key];
    return {};
  }
}

/** CreateEventBus / UpdateEventBus settings (an empty Description or KmsKeyIdentifier clears it). */
function applyBusSettings(bus: EventBus, input: Input): void {
  const description = str(input, 'Description');
  if (description !== undefined) {
    if (description.length > 512)
      throw validationError(
        "Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 512",
      );
    if (description === '') delete bus.description;
    else bus.description = description;
  }
  const kms = str(input, 'KmsKeyIdentifier');
  if (kms !== undefined) {
    if (kms === '') delete bus.kmsKeyIdentifier;
    else bus.kmsKeyIdentifier = kms;
  }
  if (input.DeadLetterConfig !== undefined) {
    const arn = (input.DeadLetterConfig as { Arn?: unknown }).Arn;
    if (arn === undefined || arn === '') delete bus.deadLetterConfig;
    else if (typeof arn !== 'string' || !/^arn:aws[a-z-]*:sqs:/.test(arn))
      throw validationError(
        'Parameter DeadLetterConfig.Arn is not valid. Reason: it must be an SQS queue ARN.',
      );
    else bus.deadLetterConfig = { Arn: arn };
  }
  if (input.LogConfig !== undefined) {
    const log = input.LogConfig as { IncludeDetail?: unknown; Level?: unknown };
    if (log.Level !== undefined && !['OFF', 'ERROR', 'INFO', 'TRACE'].includes(String(log.Level)))
      throw validationError(
        `Value '${String(log.Level)}' at 'logConfig.level' failed to satisfy constraint: Member must satisfy enum value set: [OFF, ERROR, INFO, TRACE]`,
      );
    if (log.IncludeDetail !== undefined && !['NONE', 'FULL'].includes(String(log.IncludeDetail)))
      throw validationError(
        `Value '${String(log.IncludeDetail)}' at 'logConfig.includeDetail' failed to satisfy constraint: Member must satisfy enum value set: [NONE, FULL]`,
      );
    if (log.Level === undefined && log.IncludeDetail === undefined) delete bus.logConfig;
    else
      bus.logConfig = {
        ...(log.IncludeDetail !== undefined ? { IncludeDetail: String(log.IncludeDetail) } : {}),
        ...(log.Level !== undefined ? { Level: String(log.Level) } : {}),
      };
  }
}
