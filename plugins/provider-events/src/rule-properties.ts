/**
 * AWS::Events::Rule properties ↔ the EventBridge API: the rule's identity in
 * each spelling a state record may hold (its ARN, `bus|name`, or the name on
 * the default bus), and targets between CloudFormation's shape and the SDK's
 * (they differ only inside `EcsParameters`). No SDK here: the hook reads the
 * property list without loading the client.
 */

/** Every AWS::Events::Rule property this pack wires. */
export const RULE_HANDLED_PROPERTIES = [
  'Description',
  'EventBusName',
  'EventPattern',
  'Name',
  'RoleArn',
  'ScheduleExpression',
  'State',
  'Tags',
  'Targets',
];

export const DEFAULT_BUS = 'default';

export interface RuleIdentity {
  /** Bus name (`default` for the default bus). */
  bus: string;
  name: string;
}

/** An event bus name from a name or an event bus ARN (the default bus when none). */
export function busName(nameOrArn: unknown): string {
  if (typeof nameOrArn !== 'string' || nameOrArn === '') return DEFAULT_BUS;
  const m = /:event-bus\/(.+)$/.exec(nameOrArn);
  return m ? m[1]! : nameOrArn;
}

/** A rule ARN: `rule/<name>` on the default bus, `rule/<bus>/<name>` on another (as EventBridge writes them). */
export function ruleArn(partition: string, region: string, account: string, id: RuleIdentity): string {
  const path = id.bus === DEFAULT_BUS ? id.name : `${id.bus}/${id.name}`;
  return `arn:${partition}:events:${region}:${account}:rule/${path}`;
}

/** The rule a physical id names: an ARN (what this pack records), `bus|name` or a bare name (CloudFormation's spellings). */
export function ruleIdentity(physicalId: string): RuleIdentity {
  const arn = /^arn:[^:]+:events:[^:]*:\d*:rule\/(?:([^/]+)\/)?([^/]+)$/.exec(physicalId);
  if (arn) return { bus: arn[1] ?? DEFAULT_BUS, name: arn[2]! };
  const bar = physicalId.indexOf('|');
  return bar >= 0
    ? { bus: physicalId.slice(0, bar), name: physicalId.slice(bar + 1) }
    : { bus: DEFAULT_BUS, name: physicalId };
}

/** The rule's `EventPattern` as the JSON text PutRule takes. */
export function patternText(pattern: unknown): string | undefined {
  if (pattern === undefined || pattern === null) return undefined;
  return typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
}

type Json = Record<string, unknown>;

/** Renames keys of one object (shallow), leaving others as they are. */
function renamed(value: unknown, names: Record<string, string>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [names[k] ?? k, v]));
}

const ECS_TO_SDK = { PlacementStrategies: 'PlacementStrategy', TagList: 'Tags' };
const ECS_FROM_SDK = { PlacementStrategy: 'PlacementStrategies', Tags: 'TagList' };

/** A CloudFormation target as PutTargets takes it. */
export function targetToSdk(target: Json): Json {
  const ecs = target.EcsParameters as Json | undefined;
  if (!ecs) return target;
  const out = renamed(ecs, ECS_TO_SDK) as Json;
  if (ecs.NetworkConfiguration)
    out.NetworkConfiguration = renamed(ecs.NetworkConfiguration, {
      AwsVpcConfiguration: 'awsvpcConfiguration',
    });
  return { ...target, EcsParameters: out };
}

/** A target as ListTargetsByRule returns it, in CloudFormation's shape. */
export function targetFromSdk(target: Json): Json {
  const ecs = target.EcsParameters as Json | undefined;
  if (!ecs) return target;
  const out = renamed(ecs, ECS_FROM_SDK) as Json;
  if (ecs.NetworkConfiguration)
    out.NetworkConfiguration = renamed(ecs.NetworkConfiguration, {
      awsvpcConfiguration: 'AwsVpcConfiguration',
    });
  return { ...target, EcsParameters: out };
}

/** JSON with sorted keys, to compare targets by content. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The template's targets by id. */
export function targetsById(properties: Record<string, unknown>): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const t of Array.isArray(properties.Targets) ? (properties.Targets as Json[]) : [])
    if (t && typeof t.Id === 'string') out.set(t.Id, t);
  return out;
}

/**
 * What PutTargets and RemoveTargets must do to go from the previous targets to the
 * desired ones: targets added or changed (by content) are put, those gone removed.
 */
export function targetChanges(properties: Record<string, unknown>, previous: Record<string, unknown>) {
  const desired = targetsById(properties);
  const before = targetsById(previous);
  return {
    put: [...desired.values()].filter(
      (t) => !before.has(t.Id as string) || canonical(before.get(t.Id as string)) !== canonical(t),
    ),
    remove: [...before.keys()].filter((id) => !desired.has(id)),
  };
}
