/**
 * Event buses and rules as the CloudFormation types `AWS::Events::EventBus`
 * (identifier: the bus name) and `AWS::Events::Rule` (the rule ARN), over
 * EventBridge's own store. A rule's `Targets` are its targets, reconciled by
 * id on update. The `default` bus is not an inventory item: nobody made it.
 */
import { upperAlnum } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import { AwsError } from '../../core/errors';
import { checkRuleName, checkScheduleExpression, parseEventPattern, RULE_STATES } from './rules';
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
import { checkTarget, MAX_TARGETS_PER_RULE } from './targets';

type Model = Record<string, unknown>;

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const parsed = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

function tagsOf(model: Model): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of Array.isArray(model.Tags) ? (model.Tags as Array<{ Key: string; Value: string }>) : [])
    tags[t.Key] = t.Value;
  return tags;
}

function tagList(tags: Record<string, string>) {
  const list = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  return list.length ? { Tags: list } : {};
}

/** A service error as the handler reports it (validation errors are InvalidRequest). */
function failure(err: unknown): HandlerError {
  if (err instanceof AwsError && /Validation|InvalidEventPattern|LimitExceeded/.test(err.code))
    return new HandlerError('InvalidRequest', `${err.message} (Service: EventBridge, Status Code: 400)`);
  if (err instanceof AwsError && err.code === 'ResourceNotFoundException')
    return new HandlerError('NotFound', `${err.message} (Service: EventBridge, Status Code: 400)`);
  return serviceFailure(err, 'EventBridge');
}

function busModel(bus: EventBus): Model {
  return {
    Name: bus.name,
    Arn: busArn(bus),
    ...(bus.description ? { Description: bus.description } : {}),
    ...(bus.kmsKeyIdentifier ? { KmsKeyIdentifier: bus.kmsKeyIdentifier } : {}),
    ...(bus.deadLetterConfig ? { DeadLetterConfig: bus.deadLetterConfig } : {}),
    ...(bus.logConfig ? { LogConfig: bus.logConfig } : {}),
    ...(bus.policy ? { Policy: parsed(bus.policy) } : {}),
    ...(bus.eventSourceName ? { EventSourceName: bus.eventSourceName } : {}),
    ...tagList(bus.tags),
  };
}

function applyBusModel(bus: EventBus, desired: Model): void {
  const set = <K extends keyof EventBus>(key: K, value: EventBus[K] | undefined) => {
    if (value === undefined) delete bus[key];
    else bus[key] = value;
  };
  set('description', typeof desired.Description === 'string' ? desired.Description : undefined);
  set(
    'kmsKeyIdentifier',
    typeof desired.KmsKeyIdentifier === 'string' ? desired.KmsKeyIdentifier : undefined,
  );
  set('deadLetterConfig', desired.DeadLetterConfig as EventBus['deadLetterConfig']);
  set('logConfig', desired.LogConfig as EventBus['logConfig']);
  set('policy', desired.Policy !== undefined ? json(desired.Policy) : undefined);
  bus.tags = tagsOf(desired);
  bus.lastModified = Date.now();
}

export class EventBusProvider implements ResourceProvider {
  readonly typeName = 'AWS::Events::EventBus';

  constructor(private readonly store: EventsStore) {}

  inventory(): InventoryItem[] {
    return inventoryItems(
      this.typeName,
      [...this.store.buses.values()].filter((b) => b.name !== DEFAULT_BUS),
      (b) => ({ identifier: b.name, model: busModel(b) }),
    );
  }

  private found(scope: ResourceScope, name: string): EventBus | undefined {
    return this.store.bus(scope.account, scope.region, name);
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const name = String(desired.Name);
    if (name === DEFAULT_BUS || this.found(scope, name)) throw alreadyExists(schema.typeName, name);
    if (!/^[/.\-_A-Za-z0-9]{1,256}$/.test(name) || (!desired.EventSourceName && name.includes('/')))
      throw new HandlerError(
        'InvalidRequest',
        `Event bus name ${name} is not valid (Service: EventBridge, Status Code: 400)`,
      );
    const now = Date.now();
    const bus: EventBus = {
      account: scope.account,
      region: scope.region,
      name,
      tags: {},
      created: now,
      lastModified: now,
    };
    applyBusModel(bus, desired);
    this.store.addBus(bus);
    return { identifier: name, model: busModel(bus) };
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const bus = this.found(scope, identifier);
    return bus ? { identifier, model: busModel(bus) } : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const bus = this.found(scope, identifier);
    if (!bus) throw notFound(schema.typeName, identifier);
    applyBusModel(bus, desired);
    return { identifier, model: busModel(bus) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const bus = identifier === DEFAULT_BUS ? undefined : this.found(scope, identifier);
    if (!bus) throw notFound(schema.typeName, identifier);
    this.store.deleteBus(bus);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.store.buses.values()]
      .filter((b) => b.account === scope.account && b.region === scope.region && b.name !== DEFAULT_BUS)
      .map((b) => ({ identifier: b.name, model: busModel(b) }));
  }
}

/** Renames the keys of one object (shallow). */
function renamed(value: unknown, names: Record<string, string>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [names[k] ?? k, v]));
}

/**
 * A target between CloudFormation's shape and the API's: they differ inside
 * `EcsParameters` only (`PlacementStrategies`/`PlacementStrategy`,
 * `TagList`/`Tags`, `AwsVpcConfiguration`/`awsvpcConfiguration`).
 */
function convertTarget(target: Model, toApi: boolean): Model {
  const ecs = target.EcsParameters as Model | undefined;
  if (!ecs) return { ...target };
  const keys: Record<string, string> = toApi
    ? { PlacementStrategies: 'PlacementStrategy', TagList: 'Tags' }
    : { PlacementStrategy: 'PlacementStrategies', Tags: 'TagList' };
  const out = renamed(ecs, keys) as Model;
  if (ecs.NetworkConfiguration)
    out.NetworkConfiguration = renamed(
      ecs.NetworkConfiguration,
      toApi ? { AwsVpcConfiguration: 'awsvpcConfiguration' } : { awsvpcConfiguration: 'AwsVpcConfiguration' },
    );
  return { ...target, EcsParameters: out };
}

function ruleModel(rule: Rule): Model {
  return {
    Arn: ruleArn(rule),
    Name: rule.name,
    ...(rule.busName !== DEFAULT_BUS ? { EventBusName: rule.busName } : {}),
    ...(rule.eventPattern ? { EventPattern: parsed(rule.eventPattern) } : {}),
    ...(rule.scheduleExpression ? { ScheduleExpression: rule.scheduleExpression } : {}),
    State: rule.state,
    ...(rule.description !== undefined ? { Description: rule.description } : {}),
    ...(rule.roleArn ? { RoleArn: rule.roleArn } : {}),
    ...(rule.targets.length ? { Targets: rule.targets.map((t) => convertTarget(t, false)) } : {}),
    ...tagList(rule.tags),
  };
}

/** A rule's settings and targets from its CloudFormation model (checked as PutRule and PutTargets check them). */
function ruleSettings(
  desired: Model,
  busName: string,
): Omit<Rule, 'account' | 'region' | 'busName' | 'name'> {
  const pattern = desired.EventPattern !== undefined ? json(desired.EventPattern) : undefined;
  const schedule = typeof desired.ScheduleExpression === 'string' ? desired.ScheduleExpression : undefined;
  if (!pattern && !schedule)
    throw new HandlerError(
      'InvalidRequest',
      'Parameter(s) EventPattern or ScheduleExpression must be specified.',
    );
  try {
    if (pattern) parseEventPattern(pattern);
    if (schedule) {
      if (busName !== DEFAULT_BUS)
        throw new AwsError(
          'ValidationException',
          'ScheduleExpression is supported only on the default event bus.',
        );
      checkScheduleExpression(schedule);
    }
  } catch (err) {
    throw failure(err);
  }
  const state = typeof desired.State === 'string' ? desired.State : 'ENABLED';
  if (!RULE_STATES.has(state)) throw new HandlerError('InvalidRequest', `Invalid State ${state}`);
  const raw = Array.isArray(desired.Targets) ? (desired.Targets as Model[]) : [];
  let targets: Target[];
  try {
    targets = raw.map((t, i) => checkTarget(convertTarget(t, true), i + 1));
  } catch (err) {
    throw failure(err);
  }
  if (targets.length > MAX_TARGETS_PER_RULE)
    throw new HandlerError(
      'ServiceLimitExceeded',
      'The requested resource exceeds the maximum number allowed.',
    );
  return {
    state,
    tags: tagsOf(desired),
    targets,
    ...(pattern ? { eventPattern: pattern } : {}),
    ...(schedule ? { scheduleExpression: schedule } : {}),
    ...(typeof desired.Description === 'string' ? { description: desired.Description } : {}),
    ...(typeof desired.RoleArn === 'string' ? { roleArn: desired.RoleArn } : {}),
  };
}

export class RuleProvider implements ResourceProvider {
  readonly typeName = 'AWS::Events::Rule';

  constructor(private readonly store: EventsStore) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.store.rules.values(), (r) => ({
      identifier: ruleArn(r),
      model: ruleModel(r),
    }));
  }

  private found(scope: ResourceScope, identifier: string): Rule | undefined {
    const arn = parseRuleArn(identifier);
    if (!arn || arn.account !== scope.account || arn.region !== scope.region) return undefined;
    return this.store.rule(scope.account, scope.region, arn.busName, arn.name);
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const busName = busNameOf(typeof desired.EventBusName === 'string' ? desired.EventBusName : undefined);
    if (!this.store.bus(scope.account, scope.region, busName))
      throw new HandlerError(
        'NotFound',
        `Event bus ${busName} does not exist. (Service: EventBridge, Status Code: 400)`,
      );
    let name: string;
    try {
      name = typeof desired.Name === 'string' ? checkRuleName(desired.Name) : `Rule-${upperAlnum(12)}`;
    } catch (err) {
      throw failure(err);
    }
    const identity = { account: scope.account, region: scope.region, busName, name };
    if (this.store.rule(scope.account, scope.region, busName, name))
      throw alreadyExists(schema.typeName, ruleArn(identity));
    const rule: Rule = { ...identity, ...ruleSettings(desired, busName) };
    this.store.putRule(rule);
    return { identifier: ruleArn(rule), model: ruleModel(rule) };
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const rule = this.found(scope, identifier);
    return rule ? { identifier, model: ruleModel(rule) } : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const rule = this.found(scope, identifier);
    if (!rule) throw notFound(schema.typeName, identifier);
    const settings = ruleSettings(desired, rule.busName);
    for (const key of ['description', 'roleArn', 'eventPattern', 'scheduleExpression'] as const)
      delete rule[key];
    Object.assign(rule, settings);
    return { identifier, model: ruleModel(rule) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const rule = this.found(scope, identifier);
    if (!rule) throw notFound(schema.typeName, identifier);
    // The handler removes the targets first, then the rule.
    this.store.deleteRule(rule);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.store.rules.values()]
      .filter((r) => r.account === scope.account && r.region === scope.region)
      .map((r) => ({ identifier: ruleArn(r), model: ruleModel(r) }));
  }
}
