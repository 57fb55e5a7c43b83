/**
 * Event source mappings: Create/Get/Update/Delete/ListEventSourceMappings,
 * with the states AWS reports (Creating → Enabled or Disabled, Updating,
 * Deleting) and the defaults per source (SQS, Kinesis, DynamoDB streams,
 * Kafka, MQ, DocumentDB). The emulator keeps the mappings; it does not poll
 * the sources (the emulated SQS keeps no messages).
 */
import { randomUUID } from 'node:crypto';
import type {
  CreateEventSourceMappingRequest,
  UpdateEventSourceMappingRequest,
} from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { inTransition, settle } from './configuration';
import { resolveIn, type LambdaContext } from './context';
import { page } from './functions';
import type { EventSourceMappingRecord } from './model';
import { eventSourceMappingArn, functionArn, resolveQualifier, validationError } from './names';
import { validateTags } from './tags';

type SourceKind = 'sqs' | 'kinesis' | 'dynamodb' | 'kafka' | 'mq' | 'docdb' | 'self-managed';

/** The members a mapping keeps (everything but identity, state and times). */
const SETTABLE = [
  'BatchSize',
  'FilterCriteria',
  'KMSKeyArn',
  'MetricsConfig',
  'LoggingConfig',
  'ScalingConfig',
  'MaximumBatchingWindowInSeconds',
  'ParallelizationFactor',
  'DestinationConfig',
  'MaximumRecordAgeInSeconds',
  'BisectBatchOnFunctionError',
  'MaximumRetryAttempts',
  'TumblingWindowInSeconds',
  'FunctionResponseTypes',
  'SourceAccessConfigurations',
  'DocumentDBEventSourceConfig',
  'ProvisionedPollerConfig',
  'AmazonManagedKafkaEventSourceConfig',
  'SelfManagedKafkaEventSourceConfig',
] as const;

function sourceKind(input: { EventSourceArn?: string; SelfManagedEventSource?: unknown }): SourceKind {
  if (!input.EventSourceArn) {
    if (input.SelfManagedEventSource) return 'self-managed';
    throw new AwsError(
      'InvalidParameterValueException',
      'Unrecognized event source, must be kinesis, dynamodb stream, sqs, kafka, mq or documentdb.',
    );
  }
  const service = input.EventSourceArn.split(':')[2];
  switch (service) {
    case 'sqs':
      return 'sqs';
    case 'kinesis':
      return 'kinesis';
    case 'dynamodb':
      return 'dynamodb';
    case 'kafka':
      return 'kafka';
    case 'mq':
      return 'mq';
    case 'rds':
    case 'docdb':
      return 'docdb';
    default:
      throw new AwsError(
        'InvalidParameterValueException',
        `Unrecognized event source, must be kinesis, dynamodb stream, sqs, kafka, mq or documentdb: ${input.EventSourceArn}`,
      );
  }
}

/** The defaults AWS fills in per kind of source. */
function defaults(kind: SourceKind): Partial<EventSourceMappingRecord> {
  if (kind === 'sqs') return { BatchSize: 10, MaximumBatchingWindowInSeconds: 0, FunctionResponseTypes: [] };
  if (kind === 'kinesis' || kind === 'dynamodb')
    return {
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: 1,
      MaximumRecordAgeInSeconds: -1,
      BisectBatchOnFunctionError: false,
      MaximumRetryAttempts: -1,
      TumblingWindowInSeconds: 0,
      FunctionResponseTypes: [],
      DestinationConfig: { OnFailure: {} },
      LastProcessingResult: 'No records processed',
    };
  return { BatchSize: 100, MaximumBatchingWindowInSeconds: 500 };
}

function checkBatching(kind: SourceKind, mapping: Partial<EventSourceMappingRecord>, fifo: boolean): void {
  const batch = mapping.BatchSize;
  const max = kind === 'sqs' ? (fifo ? 10 : 10000) : 10000;
  if (batch !== undefined && (batch < 1 || batch > max))
    throw new AwsError(
      'InvalidParameterValueException',
      `BatchSize must be between 1 and ${max} for this event source.`,
    );
  if (kind === 'sqs' && (batch ?? 10) > 10 && !(mapping.MaximumBatchingWindowInSeconds ?? 0))
    throw new AwsError(
      'InvalidParameterValueException',
      'Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10',
    );
  const window = mapping.MaximumBatchingWindowInSeconds;
  if (window !== undefined && (window < 0 || window > 300))
    throw validationError(
      'maximumBatchingWindowInSeconds',
      window,
      'Member must have value less than or equal to 300',
    );
}

export class EventSourceHandlers {
  readonly operations: Operations = {
    CreateEventSourceMapping: (ctx, input: CreateEventSourceMappingRequest) => this.create(ctx, input),
    GetEventSourceMapping: (ctx, input: { UUID?: string }) => this.render(this.mapping(ctx, input.UUID)),
    UpdateEventSourceMapping: (ctx, input: UpdateEventSourceMappingRequest) => this.update(ctx, input),
    DeleteEventSourceMapping: (ctx, input: { UUID?: string }) => {
      const mapping = this.mapping(ctx, input.UUID);
      if (this.lambda.transitionMs > 0)
        mapping.transition = { kind: 'delete', startedAt: Date.now(), durationMs: this.lambda.transitionMs };
      else this.lambda.store.eventSourceMappings.delete(mapping.UUID);
      return { ...this.render(mapping), State: 'Deleting' };
    },
    ListEventSourceMappings: (
      ctx,
      input: { EventSourceArn?: string; FunctionName?: string; Marker?: string; MaxItems?: number },
    ) => {
      const fnArn = input.FunctionName ? this.functionArnOf(ctx, input.FunctionName) : undefined;
      const all = this.all(ctx).filter(
        (m) =>
          (input.EventSourceArn === undefined || m.EventSourceArn === input.EventSourceArn) &&
          (fnArn === undefined || m.FunctionArn === fnArn),
      );
      const { items, nextMarker } = page(all, (m) => m.UUID, input.Marker, input.MaxItems);
      return { EventSourceMappings: items.map((m) => this.render(m)), NextMarker: nextMarker };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The caller's mappings, with settled deletes removed. */
  all(ctx: { account: string; region: string }): EventSourceMappingRecord[] {
    this.settle();
    return [...this.lambda.store.eventSourceMappings.values()]
      .filter((m) => m.account === ctx.account && m.region === ctx.region)
      .sort((a, b) => (a.UUID < b.UUID ? -1 : 1));
  }

  /** Removes mappings whose delete has settled. */
  settle(): void {
    for (const m of this.lambda.store.eventSourceMappings.values())
      if (m.transition?.kind === 'delete' && !inTransition(m.transition, 'delete', this.lambda.transitionMs))
        this.lambda.store.eventSourceMappings.delete(m.UUID);
  }

  /** The qualified or unqualified ARN of the function a FunctionName names (which must exist). */
  functionArnOf(ctx: CallContext, functionName: unknown): string {
    const { fn, ref } = this.lambda.find(ctx, functionName);
    const qualifier = resolveQualifier(ref, undefined);
    if (qualifier !== undefined) resolveIn(fn, qualifier);
    return functionArn(fn.account, fn.region, fn.name, qualifier);
  }

  mapping(ctx: { account: string; region: string }, uuid: string | undefined): EventSourceMappingRecord {
    this.settle();
    const mapping = uuid ? this.lambda.store.eventSourceMappings.get(uuid) : undefined;
    if (!mapping || mapping.account !== ctx.account || mapping.region !== ctx.region)
      throw new AwsError('ResourceNotFoundException', 'The resource you requested does not exist.');
    return mapping;
  }

  /** The mapping as the API returns it, its state as of now. */
  render(mapping: EventSourceMappingRecord): Record<string, unknown> {
    const ms = this.lambda.transitionMs;
    const {
      account: _a,
      region: _r,
      transition,
      settledState,
      tags: _t,
      LastModified,
      ...rest
    } = settle(mapping, ms);
    const state = inTransition(transition, 'create', ms)
      ? 'Creating'
      : inTransition(transition, 'update', ms)
        ? 'Updating'
        : inTransition(transition, 'delete', ms)
          ? 'Deleting'
          : settledState;
    return { ...rest, LastModified: new Date(LastModified * 1000), State: state };
  }

  private create(ctx: CallContext, input: CreateEventSourceMappingRequest): unknown {
    if (!input.FunctionName) throw validationError('functionName', null, 'Member must not be null');
    const kind = sourceKind(input);
    const fnArn = this.functionArnOf(ctx, input.FunctionName);
    if ((kind === 'kinesis' || kind === 'dynamodb' || kind === 'kafka') && !input.StartingPosition)
      throw new AwsError(
        'InvalidParameterValueException',
        'StartingPosition is required for Kinesis, DynamoDB Streams and Kafka event sources.',
      );
    if (kind === 'sqs' && input.StartingPosition)
      throw new AwsError(
        'InvalidParameterValueException',
        'StartingPosition is not valid for SQS event sources.',
      );
    const existing = this.all(ctx).find(
      (m) => m.EventSourceArn === input.EventSourceArn && m.FunctionArn === fnArn && input.EventSourceArn,
    );
    if (existing)
      throw new AwsError(
        'ResourceConflictException',
        `An event source mapping with ${kind === 'sqs' ? 'SQS' : kind} arn (" ${input.EventSourceArn} ") and function (" ${fnArn} ") already exists. Please update or delete the existing mapping with UUID ${existing.UUID}`,
      );
    const tags = validateTags(input.Tags);
    const uuid = randomUUID();
    const mapping: EventSourceMappingRecord = {
      account: ctx.account,
      region: ctx.region,
      UUID: uuid,
      ...defaults(kind),
      ...(input.StartingPosition ? { StartingPosition: input.StartingPosition } : {}),
      ...(input.StartingPositionTimestamp
        ? { StartingPositionTimestamp: input.StartingPositionTimestamp }
        : {}),
      ...(input.EventSourceArn ? { EventSourceArn: input.EventSourceArn } : {}),
      FunctionArn: fnArn,
      LastModified: Date.now() / 1000,
      StateTransitionReason: 'USER_INITIATED',
      ...(input.Topics ? { Topics: input.Topics } : {}),
      ...(input.Queues ? { Queues: input.Queues } : {}),
      ...(input.SelfManagedEventSource ? { SelfManagedEventSource: input.SelfManagedEventSource } : {}),
      EventSourceMappingArn: eventSourceMappingArn(ctx.account, ctx.region, uuid),
      settledState: input.Enabled === false ? 'Disabled' : 'Enabled',
      tags,
    };
    for (const member of SETTABLE)
      if (input[member] !== undefined) Object.assign(mapping, { [member]: input[member] });
    checkBatching(kind, mapping, (input.EventSourceArn ?? '').endsWith('.fifo'));
    if (this.lambda.transitionMs > 0)
      mapping.transition = { kind: 'create', startedAt: Date.now(), durationMs: this.lambda.transitionMs };
    this.lambda.store.eventSourceMappings.set(uuid, mapping);
    return { ...this.render(mapping), State: 'Creating' };
  }

  private update(ctx: CallContext, input: UpdateEventSourceMappingRequest): unknown {
    const mapping = this.mapping(ctx, input.UUID);
    const ms = this.lambda.transitionMs;
    if (
      inTransition(mapping.transition, 'create', ms) ||
      inTransition(mapping.transition, 'update', ms) ||
      inTransition(mapping.transition, 'delete', ms)
    )
      throw new AwsError(
        'ResourceInUseException',
        `Cannot update the event source mapping because it is in use. The event source mapping ${mapping.UUID} is currently in the following state: ${String(this.render(mapping).State)}`,
      );
    const next: EventSourceMappingRecord = { ...mapping };
    if (input.FunctionName !== undefined) next.FunctionArn = this.functionArnOf(ctx, input.FunctionName);
    for (const member of SETTABLE)
      if (input[member] !== undefined) Object.assign(next, { [member]: input[member] });
    if (input.Enabled !== undefined) next.settledState = input.Enabled ? 'Enabled' : 'Disabled';
    const kind = sourceKind(mapping);
    checkBatching(kind, next, (mapping.EventSourceArn ?? '').endsWith('.fifo'));
    next.LastModified = Date.now() / 1000;
    if (ms > 0) next.transition = { kind: 'update', startedAt: Date.now(), durationMs: ms };
    else delete next.transition;
    this.lambda.store.eventSourceMappings.set(mapping.UUID, next);
    return { ...this.render(next), State: 'Updating' };
  }
}
