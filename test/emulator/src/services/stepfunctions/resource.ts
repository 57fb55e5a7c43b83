/**
 * A state machine seen as the CloudFormation resource
 * `AWS::StepFunctions::StateMachine` (identifier: its ARN), and the provider
 * that lets Cloud Control create, read, update and delete state machines in
 * Step Functions' own store: the same object StartExecution runs.
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
import type { InventoryItem, InventoryView } from '../../core/service';
import type { SfnOperations } from './service';
import { stateMachineArn, type LoggingConfiguration, type SfnStore, type StateMachine } from './store';

const TYPE = 'AWS::StepFunctions::StateMachine';

interface CfnLogging {
  Level?: string;
  IncludeExecutionData?: boolean;
  Destinations?: Array<{ CloudWatchLogsLogGroup?: { LogGroupArn?: string } }>;
}

/** The state machine's CloudFormation properties, read-only ones included. */
export function stateMachineProperties(machine: StateMachine): Record<string, unknown> {
  const logging = machine.loggingConfiguration;
  const tags = Object.entries(machine.tags);
  return {
    Arn: machine.arn,
    Name: machine.name,
    StateMachineName: machine.name,
    StateMachineRevisionId: machine.revisionId,
    DefinitionString: machine.definition,
    RoleArn: machine.roleArn,
    StateMachineType: machine.type,
    LoggingConfiguration: {
      Level: logging.level,
      IncludeExecutionData: logging.includeExecutionData,
      ...(logging.destinations
        ? {
            Destinations: logging.destinations.map((d) => ({
              CloudWatchLogsLogGroup: { LogGroupArn: d.cloudWatchLogsLogGroup?.logGroupArn },
            })),
          }
        : {}),
    },
    TracingConfiguration: { Enabled: machine.tracingEnabled },
    ...(tags.length ? { Tags: tags.map(([Key, Value]) => ({ Key, Value })) } : {}),
  };
}

/**
 * The definition text from `DefinitionString` or `Definition` (an object), with
 * `DefinitionSubstitutions` put in for `${name}`; `DefinitionS3Location` is
 * not read by the emulator.
 */
function definitionOf(desired: Record<string, unknown>): string {
  if (desired.DefinitionS3Location !== undefined)
    throw new HandlerError(
      'InvalidRequest',
      'The emulator does not read DefinitionS3Location; give DefinitionString or Definition.',
    );
  let text =
    typeof desired.DefinitionString === 'string'
      ? desired.DefinitionString
      : desired.Definition !== undefined
        ? JSON.stringify(desired.Definition)
        : undefined;
  if (text === undefined)
    throw new HandlerError(
      'InvalidRequest',
      'One of Definition, DefinitionString or DefinitionS3Location is required.',
    );
  const substitutions = (desired.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(substitutions))
    text = text.split(`\${${key}}`).join(typeof value === 'string' ? value : JSON.stringify(value));
  return text;
}

function loggingOf(value: unknown): Partial<LoggingConfiguration> | undefined {
  if (value === undefined) return undefined;
  const cfn = value as CfnLogging;
  return {
    level: cfn.Level ?? 'OFF',
    includeExecutionData: cfn.IncludeExecutionData === true,
    ...(cfn.Destinations
      ? {
          destinations: cfn.Destinations.map((d) => ({
            cloudWatchLogsLogGroup: { logGroupArn: d.CloudWatchLogsLogGroup?.LogGroupArn },
          })),
        }
      : {}),
  };
}

function tagsOf(props: Record<string, unknown>): Record<string, string> {
  const tags: Record<string, string> = {};
  if (Array.isArray(props.Tags))
    for (const t of props.Tags as Array<{ Key: string; Value: string }>) tags[t.Key] = t.Value;
  return tags;
}

export class StateMachineProvider implements ResourceProvider {
  readonly typeName = TYPE;

  constructor(
    private readonly store: SfnStore,
    private readonly operations: SfnOperations,
  ) {}

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.store.machines.values(), (m) => ({
      identifier: m.arn,
      model: stateMachineProperties(m),
    }));
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name =
      typeof desired.StateMachineName === 'string'
        ? desired.StateMachineName
        : `StateMachine-${upperAlnum(12)}`;
    const arn = stateMachineArn(scope.account, scope.region, name);
    if (this.store.machines.has(arn)) throw alreadyExists(TYPE, arn);
    try {
      const { machine } = this.operations.create(scope.account, scope.region, {
        name,
        definition: definitionOf(desired),
        roleArn: desired.RoleArn as string,
        type: desired.StateMachineType as string | undefined,
        loggingConfiguration: loggingOf(desired.LoggingConfiguration),
        tracingEnabled: (desired.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled,
        tags: tagsOf(desired),
      });
      return { identifier: machine.arn, model: stateMachineProperties(machine) };
    } catch (err) {
      throw serviceFailure(err, 'SFN');
    }
  }

  /** A state machine being deleted reads as gone (CloudFormation's handler treats it so). */
  private active(scope: ResourceScope, identifier: string): StateMachine | undefined {
    const machine = this.store.machines.get(identifier);
    return machine &&
      machine.account === scope.account &&
      machine.region === scope.region &&
      machine.status === 'ACTIVE'
      ? machine
      : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const machine = this.active(scope, identifier);
    return machine ? { identifier, model: stateMachineProperties(machine) } : undefined;
  }

  update(
    scope: ResourceScope,
    _schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const machine = this.active(scope, identifier);
    if (!machine) throw notFound(TYPE, identifier);
    try {
      this.operations.update(machine, {
        definition: definitionOf(desired),
        roleArn: desired.RoleArn as string,
        loggingConfiguration: loggingOf(desired.LoggingConfiguration) ?? { level: 'OFF' },
        tracingEnabled: (desired.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled === true,
      });
    } catch (err) {
      throw serviceFailure(err, 'SFN');
    }
    machine.tags = tagsOf(desired);
    return { identifier, model: stateMachineProperties(machine) };
  }

  delete(scope: ResourceScope, _schema: ResourceSchema, identifier: string): void {
    const machine = this.active(scope, identifier);
    if (!machine) throw notFound(TYPE, identifier);
    this.operations.delete(machine);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.store.machines.values()]
      .filter((m) => m.account === scope.account && m.region === scope.region && m.status === 'ACTIVE')
      .map((m) => ({ identifier: m.arn, model: stateMachineProperties(m) }));
  }
}
