/**
 * Step Functions state machines and their executions, per account and region,
 * with the ARNs, names and errors the API reference documents. Shared with
 * Cloud Control (`AWS::StepFunctions::StateMachine`).
 */
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';

export interface LoggingConfiguration {
  level: string;
  includeExecutionData: boolean;
  destinations?: Array<{ cloudWatchLogsLogGroup?: { logGroupArn?: string } }>;
}

export interface StateMachine {
  account: string;
  region: string;
  name: string;
  arn: string;
  definition: string;
  roleArn: string;
  type: 'STANDARD' | 'EXPRESS';
  /** ACTIVE, or DELETING while executions it had when deleted still run. */
  status: 'ACTIVE' | 'DELETING';
  creationDate: number;
  revisionId: string;
  loggingConfiguration: LoggingConfiguration;
  tracingEnabled: boolean;
  tags: Record<string, string>;
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface Execution {
  arn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
}

/** Names of state machines and executions: 1-80 characters, none of the ones the reference forbids. */
// The reference forbids control characters U+0000-001F and U+007F-009F.
// eslint-disable-next-line no-control-regex
const NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;
export const MAX_TAGS = 50;

export const sfnErrors = {
  stateMachineNotFound: (arn: string) =>
    new AwsError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`),
  stateMachineExists: (arn: string) =>
    new AwsError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`),
  stateMachineDeleting: (arn: string) =>
    new AwsError('StateMachineDeleting', `State machine is being deleted: '${arn}'`),
  executionNotFound: (arn: string) =>
    new AwsError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`),
  executionExists: (arn: string) =>
    new AwsError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`),
  invalidArn: (arn: string, why = 'Resource type not valid in this context') =>
    new AwsError('InvalidArn', `Invalid Arn: '${why}: ${arn}'`),
  invalidName: (name: string) => new AwsError('InvalidName', `Invalid Name: '${name}'`),
  invalidDefinition: (message: string) =>
    new AwsError('InvalidDefinition', `Invalid State Machine Definition: '${message}'`),
  invalidInput: (message: string) =>
    new AwsError('InvalidExecutionInput', `Invalid execution input: ${message}`),
  resourceNotFound: (arn: string) => new AwsError('ResourceNotFound', `Resource not found: '${arn}'`),
  tooManyTags: (arn: string) =>
    new AwsError('TooManyTags', `Too many tags: '${arn}' would have more than ${MAX_TAGS} tags`),
  validation: (message: string) => new AwsError('ValidationException', message),
};

export function validateName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) throw sfnErrors.invalidName(String(name));
  return name;
}

export function stateMachineArn(account: string, region: string, name: string): string {
  return `arn:${partitionOf(region)}:states:${region}:${account}:stateMachine:${name}`;
}

export function executionArn(
  machine: Pick<StateMachine, 'account' | 'region' | 'name'>,
  name: string,
): string {
  return `arn:${partitionOf(machine.region)}:states:${machine.region}:${machine.account}:execution:${machine.name}:${name}`;
}

interface ParsedArn {
  region: string;
  account: string;
  kind: string;
  rest: string[];
}

/** `arn:aws:states:<region>:<account>:<kind>:<name>[:...]`, or undefined. */
export function parseStatesArn(arn: unknown): ParsedArn | undefined {
  if (typeof arn !== 'string') return undefined;
  const m = /^arn:aws[a-z-]*:states:([a-z0-9-]+):(\d{12}):([A-Za-z]+):(.+)$/.exec(arn);
  if (!m) return undefined;
  return { region: m[1]!, account: m[2]!, kind: m[3]!, rest: m[4]!.split(':') };
}

export function tagList(tags: Record<string, string>): Array<{ key: string; value: string }> {
  return Object.entries(tags).map(([key, value]) => ({ key, value }));
}

export class SfnStore implements ServiceStore {
  /** By ARN. */
  readonly machines = new Map<string, StateMachine>();
  /** By ARN. */
  readonly executions = new Map<string, Execution>();

  /** The state machine in the caller's account and region, or StateMachineDoesNotExist (InvalidArn for what is no state machine ARN). */
  requireMachine(account: string, region: string, arn: unknown): StateMachine {
    const parsed = parseStatesArn(arn);
    if (!parsed || parsed.kind !== 'stateMachine' || parsed.rest.length !== 1)
      throw sfnErrors.invalidArn(String(arn));
    const machine = this.machines.get(arn as string);
    if (!machine || machine.account !== account || machine.region !== region)
      throw sfnErrors.stateMachineNotFound(arn as string);
    return machine;
  }

  requireExecution(account: string, region: string, arn: unknown): Execution {
    const parsed = parseStatesArn(arn);
    if (!parsed || parsed.kind !== 'execution' || parsed.rest.length !== 2)
      throw sfnErrors.invalidArn(String(arn));
    const execution = this.executions.get(arn as string);
    if (!execution || parsed.account !== account || parsed.region !== region)
      throw sfnErrors.executionNotFound(arn as string);
    return execution;
  }

  /** Executions of a state machine still running. */
  running(machineArn: string): Execution[] {
    return [...this.executions.values()].filter(
      (e) => e.stateMachineArn === machineArn && e.status === 'RUNNING',
    );
  }

  /** Removes a state machine and its executions (Step Functions forgets them once it is deleted). */
  remove(machine: StateMachine): void {
    this.machines.delete(machine.arn);
    for (const [arn, e] of this.executions)
      if (e.stateMachineArn === machine.arn) this.executions.delete(arn);
  }

  clear(): void {
    this.machines.clear();
    this.executions.clear();
  }

  snapshot(): { machines: StateMachine[]; executions: Execution[] } {
    return { machines: [...this.machines.values()], executions: [...this.executions.values()] };
  }

  /**
   * Executions that were running when the snapshot was taken cannot go on (their
   * interpreter was in the old process): they come back ABORTED.
   */
  restore(saved: unknown): void {
    const data = saved as { machines?: StateMachine[]; executions?: Execution[] };
    for (const m of data.machines ?? []) this.machines.set(m.arn, m);
    for (const e of data.executions ?? [])
      this.executions.set(
        e.arn,
        e.status === 'RUNNING'
          ? {
              ...e,
              status: 'ABORTED',
              stopDate: Date.now(),
              error: 'States.Runtime',
              cause: 'The emulator restarted while the execution ran.',
            }
          : e,
      );
    for (const m of this.machines.values()) if (m.status === 'DELETING') this.remove(m);
  }
}
