/**
 * Asynchronous invocation configuration: Put (replaces), Update (merges),
 * Get, Delete and ListFunctionEventInvokeConfigs, per version or alias.
 */
import type { DestinationConfig } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { resolveIn, type LambdaContext } from './context';
import { page } from './functions';
import type { InvokeConfigRecord, LambdaFunction } from './model';
import { functionArn, resolveQualifier, validationError } from './names';

interface InvokeConfigInput {
  FunctionName?: string;
  Qualifier?: string;
  MaximumRetryAttempts?: number;
  MaximumEventAgeInSeconds?: number;
  DestinationConfig?: DestinationConfig;
}

function checkMembers(input: InvokeConfigInput): void {
  const range = (member: string, value: number | undefined, min: number, max: number) => {
    if (value === undefined) return;
    if (value < min)
      throw validationError(member, value, `Member must have value greater than or equal to ${min}`);
    if (value > max)
      throw validationError(member, value, `Member must have value less than or equal to ${max}`);
  };
  range('maximumRetryAttempts', input.MaximumRetryAttempts, 0, 2);
  range('maximumEventAgeInSeconds', input.MaximumEventAgeInSeconds, 60, 21600);
  for (const side of ['OnSuccess', 'OnFailure'] as const) {
    const destination = input.DestinationConfig?.[side]?.Destination;
    if (destination !== undefined && !/^arn:aws[a-zA-Z-]*:(sqs|sns|lambda|events|s3):/.test(destination))
      throw new AwsError('InvalidParameterValueException', `The destination ARN ${destination} is invalid.`);
  }
}

function destinations(config: DestinationConfig | undefined): DestinationConfig {
  return { OnSuccess: { ...config?.OnSuccess }, OnFailure: { ...config?.OnFailure } };
}

export class InvokeConfigHandlers {
  readonly operations: Operations = {
    PutFunctionEventInvokeConfig: (ctx, input: InvokeConfigInput) => {
      checkMembers(input);
      const { fn, key } = this.target(ctx, input);
      const record: InvokeConfigRecord = {
        FunctionArn: functionArn(fn.account, fn.region, fn.name, key),
        ...(input.MaximumRetryAttempts !== undefined
          ? { MaximumRetryAttempts: input.MaximumRetryAttempts }
          : {}),
        ...(input.MaximumEventAgeInSeconds !== undefined
          ? { MaximumEventAgeInSeconds: input.MaximumEventAgeInSeconds }
          : {}),
        DestinationConfig: destinations(input.DestinationConfig),
        LastModified: Date.now() / 1000,
      };
      fn.invokeConfigs[key] = record;
      return { ...record };
    },
    UpdateFunctionEventInvokeConfig: (ctx, input: InvokeConfigInput) => {
      checkMembers(input);
      const { fn, key } = this.target(ctx, input);
      const current = fn.invokeConfigs[key];
      const record: InvokeConfigRecord = {
        ...(current ?? {}),
        FunctionArn: functionArn(fn.account, fn.region, fn.name, key),
        ...(input.MaximumRetryAttempts !== undefined
          ? { MaximumRetryAttempts: input.MaximumRetryAttempts }
          : {}),
        ...(input.MaximumEventAgeInSeconds !== undefined
          ? { MaximumEventAgeInSeconds: input.MaximumEventAgeInSeconds }
          : {}),
        DestinationConfig:
          input.DestinationConfig !== undefined
            ? destinations({ ...current?.DestinationConfig, ...input.DestinationConfig })
            : destinations(current?.DestinationConfig),
        LastModified: Date.now() / 1000,
      };
      fn.invokeConfigs[key] = record;
      return { ...record };
    },
    GetFunctionEventInvokeConfig: (ctx, input: InvokeConfigInput) => ({
      ...this.existing(ctx, input).record,
    }),
    DeleteFunctionEventInvokeConfig: (ctx, input: InvokeConfigInput) => {
      const { fn, key } = this.existing(ctx, input);
      delete fn.invokeConfigs[key];
      return {};
    },
    ListFunctionEventInvokeConfigs: (
      ctx,
      input: { FunctionName?: string; Marker?: string; MaxItems?: number },
    ) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      const all = Object.entries(fn.invokeConfigs).sort(([a], [b]) => (a < b ? -1 : 1));
      const { items, nextMarker } = page(all, ([key]) => key, input.Marker, input.MaxItems, 50);
      return { FunctionEventInvokeConfigs: items.map(([, r]) => ({ ...r })), NextMarker: nextMarker };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The function and the qualifier (`$LATEST` by default) a call addresses. */
  private target(ctx: CallContext, input: InvokeConfigInput): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const key = resolveQualifier(ref, input.Qualifier) ?? '$LATEST';
    resolveIn(fn, key);
    return { fn, key };
  }

  private existing(
    ctx: CallContext,
    input: InvokeConfigInput,
  ): { fn: LambdaFunction; key: string; record: InvokeConfigRecord } {
    const { fn, key } = this.target(ctx, input);
    const record = fn.invokeConfigs[key];
    if (!record)
      throw new AwsError(
        'ResourceNotFoundException',
        `The function ${functionArn(fn.account, fn.region, fn.name, key)} doesn't have an EventInvokeConfig`,
      );
    return { fn, key, record };
  }
}
