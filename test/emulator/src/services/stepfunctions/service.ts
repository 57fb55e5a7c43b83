/**
 * Step Functions operations: state machines (create, describe, update, delete,
 * tags) and executions (start, describe, stop), with the errors and
 * idempotency rules the API reference documents. Executions run in the
 * background through the {@link ExecutionRunner}.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { CallContext, Operations } from '../../core/service';
import { parseDefinition } from './definition';
import type { ExecutionRunner } from './interpreter';
import {
  executionArn,
  MAX_TAGS,
  parseStatesArn,
  sfnErrors,
  stateMachineArn,
  tagList,
  validateName,
  type Execution,
  type LoggingConfiguration,
  type SfnStore,
  type StateMachine,
} from './store';

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/;
const LOG_LEVELS = ['ALL', 'ERROR', 'FATAL', 'OFF'];
const MAX_INPUT_BYTES = 262_144;

/** What CreateStateMachine and the Cloud Control handler need to make a state machine. */
export interface StateMachineSpec {
  name: string;
  definition: string;
  roleArn: string;
  type?: string;
  loggingConfiguration?: Partial<LoggingConfiguration>;
  tracingEnabled?: boolean;
  tags?: Record<string, string>;
}

function validateRole(roleArn: unknown): string {
  if (typeof roleArn !== 'string' || !ROLE_ARN.test(roleArn)) throw sfnErrors.invalidArn(String(roleArn));
  return roleArn;
}

export function validateLogging(config: Partial<LoggingConfiguration> | undefined): LoggingConfiguration {
  const level = config?.level ?? 'OFF';
  if (!LOG_LEVELS.includes(level))
    throw sfnErrors.validation(
      `1 validation error detected: Value '${level}' at 'loggingConfiguration.level' failed to satisfy constraint: Member must satisfy enum value set: [${LOG_LEVELS.join(', ')}]`,
    );
  const destinations = config?.destinations ?? [];
  if (destinations.length > 1 || (level !== 'OFF' && destinations.length !== 1))
    throw new AwsError(
      'InvalidLoggingConfiguration',
      'Invalid Logging Configuration: Must specify exactly one Log Destination.',
    );
  for (const d of destinations) {
    const arn = d.cloudWatchLogsLogGroup?.logGroupArn;
    if (typeof arn !== 'string' || !/^arn:aws[a-z-]*:logs:[a-z0-9-]+:\d{12}:log-group:.+:\*$/.test(arn))
      throw new AwsError(
        'InvalidLoggingConfiguration',
        `Invalid Logging Configuration: Log Destination not valid: '${String(arn)}'. The ARN of a log group ends in ':*'.`,
      );
  }
  return {
    level,
    includeExecutionData: config?.includeExecutionData === true,
    ...(destinations.length ? { destinations } : {}),
  };
}

function validateTags(tags: Record<string, string>, arn: string): void {
  if (Object.keys(tags).length > MAX_TAGS) throw sfnErrors.tooManyTags(arn);
  for (const [key, value] of Object.entries(tags))
    if (key.length < 1 || key.length > 128 || value.length > 256 || key.startsWith('aws:'))
      throw sfnErrors.validation(`Invalid tag: '${key}'`);
}

function tagsFrom(list: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of (list ?? []) as Array<{ key?: string; value?: string }>) tags[t.key ?? ''] = t.value ?? '';
  return tags;
}

export function describeMachine(machine: StateMachine) {
  return {
    stateMachineArn: machine.arn,
    name: machine.name,
    status: machine.status,
    definition: machine.definition,
    roleArn: machine.roleArn,
    type: machine.type,
    creationDate: new Date(machine.creationDate),
    loggingConfiguration: machine.loggingConfiguration,
    tracingConfiguration: { enabled: machine.tracingEnabled },
    revisionId: machine.revisionId,
  };
}

export class SfnOperations {
  readonly operations: Operations = {
    CreateStateMachine: (ctx, input: Input) => this.createStateMachine(ctx, input),
    DescribeStateMachine: (ctx, input: Input) =>
      describeMachine(this.store.requireMachine(ctx.account, ctx.region, input.stateMachineArn)),
    UpdateStateMachine: (ctx, input: Input) => this.updateStateMachine(ctx, input),
    DeleteStateMachine: (ctx, input: Input) => this.deleteStateMachine(ctx, input),
    TagResource: (ctx, input: Input) => this.tagResource(ctx, input),
    UntagResource: (ctx, input: Input) => this.untagResource(ctx, input),
    ListTagsForResource: (ctx, input: Input) => ({
      tags: tagList(this.taggable(ctx, input.resourceArn).tags),
    }),
    StartExecution: (ctx, input: Input) => this.startExecution(ctx, input),
    DescribeExecution: (ctx, input: Input) =>
      describeExecution(this.store.requireExecution(ctx.account, ctx.region, input.executionArn)),
    StopExecution: (ctx, input: Input) => this.stopExecution(ctx, input),
  };

  constructor(
    private readonly store: SfnStore,
    private readonly runner: ExecutionRunner,
  ) {}

  /**
   * Makes a state machine, or returns the one of that name when the request is
   * the same (CreateStateMachine is idempotent on name, definition, type,
   * logging and tracing; a differing role or tags are ignored).
   */
  create(
    account: string,
    region: string,
    spec: StateMachineSpec,
  ): { machine: StateMachine; created: boolean } {
    const name = validateName(spec.name);
    parseDefinition(spec.definition);
    const roleArn = validateRole(spec.roleArn);
    const type = spec.type ?? 'STANDARD';
    if (type !== 'STANDARD' && type !== 'EXPRESS')
      throw sfnErrors.validation(
        `1 validation error detected: Value '${type}' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, EXPRESS]`,
      );
    const loggingConfiguration = validateLogging(spec.loggingConfiguration);
    const arn = stateMachineArn(account, region, name);
    const tags = spec.tags ?? {};
    validateTags(tags, arn);
    const existing = this.store.machines.get(arn);
    if (existing) {
      if (existing.status === 'DELETING') throw sfnErrors.stateMachineDeleting(arn);
      const same =
        existing.definition === spec.definition &&
        existing.type === type &&
        existing.tracingEnabled === (spec.tracingEnabled === true) &&
        JSON.stringify(existing.loggingConfiguration) === JSON.stringify(loggingConfiguration);
      if (!same) throw sfnErrors.stateMachineExists(arn);
      return { machine: existing, created: false };
    }
    const machine: StateMachine = {
      account,
      region,
      name,
      arn,
      definition: spec.definition,
      roleArn,
      type,
      status: 'ACTIVE',
      creationDate: Date.now(),
      revisionId: uuid(),
      loggingConfiguration,
      tracingEnabled: spec.tracingEnabled === true,
      tags: { ...tags },
    };
    this.store.machines.set(arn, machine);
    return { machine, created: true };
  }

  /** Applies an update to an active state machine (a new revision). */
  update(
    machine: StateMachine,
    change: {
      definition?: string;
      roleArn?: string;
      loggingConfiguration?: Partial<LoggingConfiguration>;
      tracingEnabled?: boolean;
    },
  ): void {
    if (machine.status === 'DELETING') throw sfnErrors.stateMachineDeleting(machine.arn);
    if (change.definition !== undefined) parseDefinition(change.definition);
    const roleArn = change.roleArn !== undefined ? validateRole(change.roleArn) : undefined;
    const logging =
      change.loggingConfiguration !== undefined ? validateLogging(change.loggingConfiguration) : undefined;
    if (change.definition !== undefined) machine.definition = change.definition;
    if (roleArn !== undefined) machine.roleArn = roleArn;
    if (logging !== undefined) machine.loggingConfiguration = logging;
    if (change.tracingEnabled !== undefined) machine.tracingEnabled = change.tracingEnabled;
    machine.revisionId = uuid();
  }

  /** Deletes at once, or marks DELETING until the executions it has still running end. */
  delete(machine: StateMachine): void {
    if (this.store.running(machine.arn).length) machine.status = 'DELETING';
    else this.store.remove(machine);
  }

  private createStateMachine(ctx: CallContext, input: Input) {
    const { machine } = this.create(ctx.account, ctx.region, {
      name: input.name,
      definition: input.definition,
      roleArn: input.roleArn,
      type: input.type,
      loggingConfiguration: input.loggingConfiguration,
      tracingEnabled: input.tracingConfiguration?.enabled,
      tags: tagsFrom(input.tags),
    });
    return { stateMachineArn: machine.arn, creationDate: new Date(machine.creationDate) };
  }

  private updateStateMachine(ctx: CallContext, input: Input) {
    const machine = this.store.requireMachine(ctx.account, ctx.region, input.stateMachineArn);
    if (
      input.definition === undefined &&
      input.roleArn === undefined &&
      input.loggingConfiguration === undefined &&
      input.tracingConfiguration === undefined
    )
      throw new AwsError(
        'MissingRequiredParameter',
        'Either the definition, the role ARN, the LoggingConfiguration, or the TracingConfiguration must be specified',
      );
    this.update(machine, {
      definition: input.definition,
      roleArn: input.roleArn,
      loggingConfiguration: input.loggingConfiguration,
      tracingEnabled: input.tracingConfiguration?.enabled,
    });
    return { updateDate: new Date(), revisionId: machine.revisionId };
  }

  /** Deleting a state machine that does not exist succeeds, as in Step Functions (it is asynchronous). */
  private deleteStateMachine(ctx: CallContext, input: Input) {
    const parsed = parseStatesArn(input.stateMachineArn);
    if (!parsed || parsed.kind !== 'stateMachine' || parsed.rest.length !== 1)
      throw sfnErrors.invalidArn(String(input.stateMachineArn));
    const machine = this.store.machines.get(input.stateMachineArn as string);
    if (machine && machine.account === ctx.account && machine.region === ctx.region) this.delete(machine);
    return {};
  }

  /** A state machine to tag (InvalidArn for another kind of ARN, ResourceNotFound when missing). */
  private taggable(ctx: CallContext, arn: unknown): StateMachine {
    const parsed = parseStatesArn(arn);
    if (!parsed || parsed.kind !== 'stateMachine' || parsed.rest.length !== 1)
      throw sfnErrors.invalidArn(String(arn));
    const machine = this.store.machines.get(arn as string);
    if (!machine || machine.account !== ctx.account || machine.region !== ctx.region)
      throw sfnErrors.resourceNotFound(arn as string);
    return machine;
  }

  private tagResource(ctx: CallContext, input: Input) {
    const machine = this.taggable(ctx, input.resourceArn);
    const tags = { ...machine.tags, ...tagsFrom(input.tags) };
    validateTags(tags, machine.arn);
    machine.tags = tags;
    return {};
  }

  private untagResource(ctx: CallContext, input: Input) {
    const machine = this.taggable(ctx, input.resourceArn);
    for (const key of (input.tagKeys ?? []) as string[]) delete machine.tags[key];
    return {};
  }

  private startExecution(ctx: CallContext, input: Input) {
    const machine = this.store.requireMachine(ctx.account, ctx.region, input.stateMachineArn);
    if (machine.status === 'DELETING') throw sfnErrors.stateMachineDeleting(machine.arn);
    const text = (input.input as string | undefined) ?? '{}';
    if (Buffer.byteLength(text, 'utf8') > MAX_INPUT_BYTES)
      throw sfnErrors.invalidInput(`the input is larger than ${MAX_INPUT_BYTES} bytes`);
    try {
      JSON.parse(text);
    } catch (err) {
      throw sfnErrors.invalidInput((err as Error).message);
    }
    const name = input.name === undefined ? uuid() : validateName(input.name);
    const arn = executionArn(machine, name);
    const existing = this.store.executions.get(arn);
    if (existing) {
      // Same name and input while it runs: the same execution (idempotent); otherwise refused.
      if (existing.status === 'RUNNING' && existing.input === text)
        return { executionArn: arn, startDate: new Date(existing.startDate) };
      throw sfnErrors.executionExists(arn);
    }
    const execution: Execution = {
      arn,
      stateMachineArn: machine.arn,
      name,
      status: 'RUNNING',
      startDate: Date.now(),
      input: text,
    };
    this.store.executions.set(arn, execution);
    this.runner.start(machine, execution, parseDefinition(machine.definition));
    return { executionArn: arn, startDate: new Date(execution.startDate) };
  }

  /** Stopping an execution that has already ended changes nothing. */
  private stopExecution(ctx: CallContext, input: Input) {
    const execution = this.store.requireExecution(ctx.account, ctx.region, input.executionArn);
    this.runner.abort(execution, input.error as string | undefined, input.cause as string | undefined);
    return { stopDate: new Date(execution.stopDate ?? Date.now()) };
  }
}

export function describeExecution(execution: Execution) {
  return {
    executionArn: execution.arn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: new Date(execution.startDate),
    ...(execution.stopDate !== undefined ? { stopDate: new Date(execution.stopDate) } : {}),
    input: execution.input,
    inputDetails: { included: true },
    ...(execution.output !== undefined
      ? { output: execution.output, outputDetails: { included: true } }
      : {}),
    ...(execution.error !== undefined ? { error: execution.error } : {}),
    ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
  };
}
