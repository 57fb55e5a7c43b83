/**
 * Custom resources (`Custom::*`, `AWS::CloudFormation::CustomResource`) run as
 * CloudFormation runs them: a request event (Create / Update / Delete) goes to
 * the `ServiceToken` — a Lambda function, invoked asynchronously (`Event`), or
 * an SNS topic, published to — and the handler answers by PUTting its
 * cfn-response to the event's `ResponseURL`: a pre-signed S3 URL for a
 * placeholder object under `custom-resource-responses/` in the state bucket,
 * which this provider polls. `PhysicalResourceId` and `Data` become the
 * physical id and the `Fn::GetAtt` attributes; `FAILED` fails the resource with
 * the handler's `Reason`; no answer within the timeout (one hour, or the
 * resource's `ServiceTimeout`) fails it.
 *
 * Never a second request for the same operation: the request id is derived
 * from the operation's intent token (durable in the write-ahead log before the
 * call) and the placeholder is written, conditionally, before the event is
 * sent. A run that finds the placeholder already there (an earlier process
 * sent the request and died) waits for that response instead of sending again.
 * The placeholder is deleted and its versions purged once read.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
// Loaded when a custom resource is first run: every command builds the registry, few run one.
import type * as LambdaModule from '@aws-sdk/client-lambda';
import type * as SnsModule from '@aws-sdk/client-sns';
import type * as PresignerModule from '@aws-sdk/s3-request-presigner';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '../plugin-api';
import { purgeNoncurrentVersions } from '../state/purge';
import { s3ErrorCode } from '../state/s3-errors';
import { customResourceResponseKey } from '../state/keys';
import { ProvisioningError } from '../util/errors';
import { SYSTEM_CLOCK } from './poll-schedule';
import type { Clock } from './poll-schedule';

/** CloudFormation's wait for a custom resource's response when `ServiceTimeout` is not set. */
export const DEFAULT_CUSTOM_RESOURCE_TIMEOUT_SECONDS = 3600;

/** Where the response placeholders live: the state bucket. */
export interface ResponseBucket {
  readonly name: string;
  /** The S3 client of the bucket's own region (the pre-signed URL must name it). */
  client(): Promise<S3Client>;
}

export interface CustomResourceProviderOptions {
  responses: ResponseBucket;
  /** Default wait for a response, in seconds (CloudFormation's one hour unless configured). */
  timeoutSeconds?: number;
  /** Time and timers (tests inject a manual clock). */
  clock?: Clock;
  /** Waits between response polls, in ms; the last repeats. */
  pollIntervalsMs?: readonly number[];
}

type RequestType = 'Create' | 'Update' | 'Delete';

/** The cfn-response a handler PUTs. */
interface CfnResponse {
  Status?: string;
  Reason?: string;
  PhysicalResourceId?: string;
  RequestId?: string;
  LogicalResourceId?: string;
  NoEcho?: boolean;
  Data?: Record<string, unknown>;
}

interface SendInput {
  requestType: RequestType;
  logicalId: string;
  resourceType: string;
  properties: Record<string, unknown>;
  physicalId?: string;
  oldProperties?: Record<string, unknown>;
  stackName: string;
  token?: string;
  attempt?: number;
  signal?: AbortSignal;
}

const DEFAULT_POLL_INTERVALS_MS = [250, 500, 1000, 2000, 5000];

/**
 * CloudFormation hands a custom resource its properties with every scalar as a
 * string (`5` arrives as `"5"`, `true` as `"true"`); handlers rely on it.
 */
export function stringifyScalars(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stringifyScalars);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringifyScalars(v)]));
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value;
}

/** A UUID-shaped request id that is the same for every attempt of one intent, in any process. */
export function requestIdFor(token: string | undefined, requestType: RequestType, attempt = 0): string {
  if (!token) return randomUUID();
  const h = createHash('sha256').update(`${token}|${requestType}|${attempt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The stack id handlers see: CloudFormation's ARN shape, stable per stack name. */
function stackIdOf(partition: string, region: string, account: string, stackName: string): string {
  const h = createHash('sha256').update(`${region}|${stackName}`).digest('hex');
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  return `arn:${partition}:cloudformation:${region}:${account}:stack/${stackName}/${uuid}`;
}

/** The service a `ServiceToken` ARN names, and its region. */
function targetOf(serviceToken: string): { service: 'lambda' | 'sns'; region: string } | undefined {
  const m = /^arn:[a-z-]+:(lambda|sns):([a-z0-9-]+):\d{12}:/.exec(serviceToken);
  return m ? { service: m[1] as 'lambda' | 'sns', region: m[2] } : undefined;
}

export class CustomResourceProvider implements ResourceProvider {
  private readonly clock: Clock;
  private readonly intervals: readonly number[];

  constructor(
    private readonly ctx: ProviderContext,
    private readonly options: CustomResourceProviderOptions,
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.intervals = options.pollIntervalsMs ?? DEFAULT_POLL_INTERVALS_MS;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const response = await this.send({
      requestType: 'Create',
      logicalId,
      resourceType,
      properties,
      stackName: context.stackName,
      token: context.idempotencyToken,
      attempt: context.attempt,
      signal: context.signal,
    });
    const physicalId = response.PhysicalResourceId;
    if (!physicalId) {
      throw this.error(logicalId, resourceType, 'Create', 'the response carries no PhysicalResourceId');
    }
    return {
      physicalId,
      attributes: response.Data ?? {},
      ...(response.NoEcho ? { noEchoAttributes: true } : {}),
    };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const response = await this.send({
      requestType: 'Update',
      logicalId,
      resourceType,
      properties,
      physicalId,
      oldProperties: previousProperties,
      stackName: context?.stackName ?? '',
      token: context?.idempotencyToken,
      attempt: context?.attempt,
      signal: context?.signal,
    });
    const next = response.PhysicalResourceId || physicalId;
    const replaced = next !== physicalId;
    return {
      physicalId: next,
      wasReplaced: replaced,
      // CloudFormation's cleanup phase sends the old physical id a Delete.
      ...(replaced ? { deletePrevious: true } : {}),
      attributes: response.Data ?? {},
      ...(response.NoEcho ? { noEchoAttributes: true } : {}),
    };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    await this.send({
      requestType: 'Delete',
      logicalId,
      resourceType,
      properties: properties ?? {},
      physicalId,
      stackName: context?.stackName ?? '',
      token: context?.idempotencyToken,
      attempt: context?.attempt,
      signal: context?.signal,
    });
  }

  /** One request: placeholder, event, response, cleanup. Returns the SUCCESS response. */
  private async send(input: SendInput): Promise<CfnResponse> {
    const { logicalId, resourceType, requestType } = input;
    const serviceToken = input.properties.ServiceToken;
    if (typeof serviceToken !== 'string' || !serviceToken) {
      throw this.error(logicalId, resourceType, requestType, 'it has no ServiceToken', {
        remedy: 'Set ServiceToken to the ARN of the Lambda function or SNS topic that handles the resource.',
      });
    }
    const target = targetOf(serviceToken);
    if (!target) {
      throw this.error(
        logicalId,
        resourceType,
        requestType,
        `its ServiceToken ${serviceToken} is neither a Lambda function ARN nor an SNS topic ARN`,
        {
          remedy:
            'Set ServiceToken to the ARN of the Lambda function or SNS topic that handles the resource.',
        },
      );
    }
    const requestId = requestIdFor(input.token, requestType, input.attempt);
    const key = customResourceResponseKey(requestId);
    const s3 = await this.options.responses.client();
    const bucket = this.options.responses.name;
    const timeoutMs = this.timeoutMs(input.properties);

    const alreadySent = await this.writePlaceholder(s3, bucket, key, input);
    if (alreadySent) {
      this.ctx.logger.info(
        `${logicalId}: request ${requestId} was sent by an earlier run; waiting for its response instead of sending it again.`,
      );
    } else {
      const { getSignedUrl } = require('@aws-sdk/s3-request-presigner') as typeof PresignerModule;
      const responseUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key }), {
        // Long enough for a handler answering at the very end of the wait.
        expiresIn: Math.ceil(timeoutMs / 1000) + 900,
      });
      const event = {
        RequestType: requestType,
        ServiceToken: serviceToken,
        ResponseURL: responseUrl,
        StackId: stackIdOf(this.ctx.partition, this.ctx.region, await this.ctx.accountId(), input.stackName),
        RequestId: requestId,
        LogicalResourceId: logicalId,
        ResourceType: resourceType,
        ...(input.physicalId !== undefined ? { PhysicalResourceId: input.physicalId } : {}),
        ResourceProperties: stringifyScalars(input.properties),
        ...(requestType === 'Update'
          ? { OldResourceProperties: stringifyScalars(input.oldProperties ?? {}) }
          : {}),
      };
      const gone = await this.deliver(target, serviceToken, event, input);
      if (gone) {
        await this.cleanUp(s3, bucket, key);
        return { Status: 'SUCCESS', PhysicalResourceId: input.physicalId };
      }
    }
    let response: CfnResponse;
    try {
      response = await this.awaitResponse(s3, bucket, key, timeoutMs, input);
    } catch (err) {
      // An interrupted wait leaves the placeholder: the next run waits on it again.
      if (!(err as { inDoubt?: boolean }).inDoubt) await this.cleanUp(s3, bucket, key);
      throw err;
    }
    await this.cleanUp(s3, bucket, key);
    if (response.Status === 'SUCCESS') return response;
    const reason = response.Reason ? `: ${response.Reason}` : ' (it gave no Reason)';
    throw this.error(
      logicalId,
      resourceType,
      requestType,
      `the handler reported ${response.Status ?? 'no Status'}${reason}`,
      {
        remedy: `Read the handler's logs (${serviceToken}), fix the cause and re-run.`,
        // CloudFormation deletes what a failed Create reports it made, so do we.
        ...(requestType === 'Create' && response.PhysicalResourceId
          ? { createdPhysicalId: response.PhysicalResourceId }
          : {}),
      },
    );
  }

  /** The wait: the resource's `ServiceTimeout` (seconds), else the configured default. */
  private timeoutMs(properties: Record<string, unknown>): number {
    const own = Number(properties.ServiceTimeout);
    const seconds =
      Number.isFinite(own) && own > 0
        ? own
        : (this.options.timeoutSeconds ?? DEFAULT_CUSTOM_RESOURCE_TIMEOUT_SECONDS);
    return seconds * 1000;
  }

  /** Writes the empty placeholder unless it exists; true when it did (the request was sent before). */
  private async writePlaceholder(
    s3: S3Client,
    bucket: string,
    key: string,
    input: SendInput,
  ): Promise<boolean> {
    try {
      await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: input.signal });
      return true;
    } catch (err) {
      const code = s3ErrorCode(err);
      if (code !== 'NotFound' && code !== 'NoSuchKey') throw this.s3Error(err, input, key);
    }
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '', IfNoneMatch: '*' }), {
        abortSignal: input.signal,
      });
      return false;
    } catch (err) {
      if (s3ErrorCode(err) === 'PreconditionFailed') return true;
      throw this.s3Error(err, input, key);
    }
  }

  /** Sends the event; true when the handler is gone and this is a Delete (nothing left to delete it). */
  private async deliver(
    target: { service: 'lambda' | 'sns'; region: string },
    serviceToken: string,
    event: Record<string, unknown>,
    input: SendInput,
  ): Promise<boolean> {
    const payload = JSON.stringify(event);
    try {
      if (target.service === 'lambda') {
        const { InvokeCommand, LambdaClient } = require('@aws-sdk/client-lambda') as typeof LambdaModule;
        const lambda = this.ctx.clients.get(LambdaClient, { region: target.region });
        await lambda.send(
          new InvokeCommand({ FunctionName: serviceToken, InvocationType: 'Event', Payload: payload }),
          {
            abortSignal: input.signal,
          },
        );
      } else {
        const { PublishCommand, SNSClient } = require('@aws-sdk/client-sns') as typeof SnsModule;
        const sns = this.ctx.clients.get(SNSClient, { region: target.region });
        await sns.send(new PublishCommand({ TopicArn: serviceToken, Message: payload }), {
          abortSignal: input.signal,
        });
      }
      return false;
    } catch (err) {
      const name = (err as { name?: string }).name ?? '';
      const missing =
        name === 'ResourceNotFoundException' || name === 'NotFoundException' || name === 'NotFound';
      if (missing && input.requestType === 'Delete') {
        this.ctx.logger.warn(
          `${input.logicalId}: its handler ${serviceToken} no longer exists, so nothing can run its Delete; counted as deleted.`,
        );
        return true;
      }
      throw new ProvisioningError(
        `${input.requestType} of ${input.logicalId} (${input.resourceType}) could not be sent to ${serviceToken}: ${name || 'Error'}: ${(err as Error).message}`,
        {
          cause: err,
          resource: {
            logicalId: input.logicalId,
            resourceType: input.resourceType,
            physicalId: input.physicalId,
          },
          remedy: missing
            ? 'The ServiceToken names a handler that does not exist: deploy it first (or fix the ARN), then re-run.'
            : 'Fix the cause and re-run; nothing was sent.',
        },
      );
    }
  }

  /** Polls the placeholder until the handler's response is in it, or the timeout. */
  private async awaitResponse(
    s3: S3Client,
    bucket: string,
    key: string,
    timeoutMs: number,
    input: SendInput,
  ): Promise<CfnResponse> {
    const deadline = this.clock.now() + timeoutMs;
    for (let poll = 0; ; poll++) {
      const body = await this.readPlaceholder(s3, bucket, key, input);
      if (body) return this.parseResponse(body, input);
      const wait = Math.min(
        this.intervals[Math.min(poll, this.intervals.length - 1)],
        deadline - this.clock.now(),
      );
      if (wait <= 0) {
        throw this.error(
          input.logicalId,
          input.resourceType,
          input.requestType,
          `its handler did not respond within ${Math.round(timeoutMs / 1000)} s`,
          {
            remedy:
              "Check the handler's logs: it must PUT its response to the ResponseURL. Raise ServiceTimeout on the resource (or customResourceTimeoutSeconds) if it needs longer, then re-run.",
          },
        );
      }
      await this.sleep(wait, input);
    }
  }

  private async readPlaceholder(
    s3: S3Client,
    bucket: string,
    key: string,
    input: SendInput,
  ): Promise<string> {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
        abortSignal: input.signal,
      });
      return (await out.Body?.transformToString()) ?? '';
    } catch (err) {
      if (input.signal?.aborted) throw this.interrupted(input);
      // Gone (collected while we waited): keep waiting; a handler's PUT writes it again.
      if (s3ErrorCode(err) === 'NoSuchKey') return '';
      throw this.s3Error(err, input, key);
    }
  }

  private parseResponse(body: string, input: SendInput): CfnResponse {
    try {
      const parsed = JSON.parse(body) as CfnResponse;
      if (parsed && typeof parsed === 'object') return parsed;
    } catch {
      // reported below
    }
    throw this.error(
      input.logicalId,
      input.resourceType,
      input.requestType,
      'its handler sent a response that is not a JSON object',
      {
        remedy:
          'The handler must PUT a cfn-response JSON document (Status, PhysicalResourceId, ...) to the ResponseURL.',
      },
    );
  }

  private sleep(ms: number, input: SendInput): Promise<void> {
    return new Promise((resolve, reject) => {
      if (input.signal?.aborted) return reject(this.interrupted(input));
      const onAbort = () => {
        cancel();
        reject(this.interrupted(input));
      };
      const cancel = this.clock.setTimer(() => {
        input.signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      input.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Deletes the placeholder and purges its versions (they may hold the handler's Data). Warns, never throws. */
  private async cleanUp(s3: S3Client, bucket: string, key: string): Promise<void> {
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      this.ctx.logger.warn(
        `Could not delete the custom-resource response s3://${bucket}/${key} (${s3ErrorCode(err) ?? (err as Error).message}); \`cdkd gc\` collects it.`,
      );
      return;
    }
    const purged = await purgeNoncurrentVersions(s3, bucket, [key]);
    for (const f of purged.failures) {
      this.ctx.logger.warn(
        `Could not purge the earlier versions of s3://${bucket}/${f.key} (${f.code} on ${f.action}); they hold a custom resource's response.`,
      );
    }
    await this.removeDeleteMarker(s3, bucket, key);
  }

  /**
   * On a versioned bucket the delete left a marker. The key is this request's alone, so the
   * marker goes too and the key is gone entirely (best effort: a marker holds nothing).
   */
  private async removeDeleteMarker(s3: S3Client, bucket: string, key: string): Promise<void> {
    try {
      const out = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
      for (const marker of out.DeleteMarkers ?? []) {
        if (marker.Key === key && marker.VersionId)
          await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: marker.VersionId }));
      }
    } catch (err) {
      this.ctx.logger.debug(`Left the delete marker of s3://${bucket}/${key}: ${(err as Error).message}`);
    }
  }

  private interrupted(input: SendInput): ProvisioningError {
    return new ProvisioningError(
      `Stopped waiting for the response of ${input.logicalId} (${input.resourceType}) to its ${input.requestType} request.`,
      {
        inDoubt: true,
        resource: {
          logicalId: input.logicalId,
          resourceType: input.resourceType,
          physicalId: input.physicalId,
        },
        remedy: 'Re-run the command: it waits for the same response and does not send the request again.',
      },
    );
  }

  private s3Error(err: unknown, input: SendInput, key: string): ProvisioningError {
    if (input.signal?.aborted) return this.interrupted(input);
    return new ProvisioningError(
      `${input.requestType} of ${input.logicalId} (${input.resourceType}): the response object s3://${this.options.responses.name}/${key} could not be used: ${(err as Error).name}: ${(err as Error).message}`,
      {
        cause: err,
        resource: {
          logicalId: input.logicalId,
          resourceType: input.resourceType,
          physicalId: input.physicalId,
        },
        remedy:
          'Grant the deploying principal s3:PutObject, s3:GetObject and s3:DeleteObject on the state bucket, then re-run.',
        ...(this.ctx.isTransientError(err) ? { inDoubt: true } : {}),
      },
    );
  }

  private error(
    logicalId: string,
    resourceType: string,
    requestType: RequestType,
    why: string,
    options: { remedy?: string; createdPhysicalId?: string } = {},
  ): ProvisioningError {
    return new ProvisioningError(`${requestType} of ${logicalId} (${resourceType}) failed: ${why}.`, {
      resource: { logicalId, resourceType },
      remedy: options.remedy ?? 'Fix the cause and re-run.',
      ...(options.createdPhysicalId ? { createdPhysicalId: options.createdPhysicalId } : {}),
    });
  }
}
