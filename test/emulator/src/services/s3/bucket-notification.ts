/**
 * Bucket event notifications (`?notification`): Get/PutBucketNotificationConfiguration
 * as the S3 API reference documents them, with S3's validation of destinations (a test
 * event to each queue and topic, the function's resource policy for Lambda), and the
 * delivery of object events to SQS, SNS and Lambda through those services' own apis.
 */
import { randomBytes } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import type { CallContext, Platform } from '../../core/service';
import { parseXml, type XmlObject } from '../../core/xml';
import type { LambdaApi } from '../lambda';
import type { SnsPublishApi } from '../sns/publish';
import type { SqsDeliveryApi } from '../sqs';
import { S3Base, hostId, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import type { Bucket, NotificationConfiguration, NotificationTarget, S3Store } from './store';
import { elementOf, listOf, textOf } from './xml-values';

/** Event types S3 notifies of (S3 user guide, "Supported event types"). */
const EVENT_TYPES = [
  'ObjectCreated:Put',
  'ObjectCreated:Post',
  'ObjectCreated:Copy',
  'ObjectCreated:CompleteMultipartUpload',
  'ObjectRemoved:Delete',
  'ObjectRemoved:DeleteMarkerCreated',
  'ObjectRestore:Post',
  'ObjectRestore:Completed',
  'ObjectRestore:Delete',
  'ReducedRedundancyLostObject',
  'Replication:OperationFailedReplication',
  'Replication:OperationMissedThreshold',
  'Replication:OperationReplicatedAfterThreshold',
  'Replication:OperationNotTracked',
  'LifecycleExpiration:Delete',
  'LifecycleExpiration:DeleteMarkerCreated',
  'LifecycleTransition',
  'IntelligentTiering',
  'ObjectTagging:Put',
  'ObjectTagging:Delete',
  'ObjectAcl:Put',
];
const SERVICE_PRINCIPAL = 's3.amazonaws.com';

/** The three kinds of destination, as the XML and the SDK name them. */
const KINDS = [
  { element: 'TopicConfiguration', arnElement: 'Topic', kind: 'topic' },
  { element: 'QueueConfiguration', arnElement: 'Queue', kind: 'queue' },
  { element: 'CloudFunctionConfiguration', arnElement: 'CloudFunction', kind: 'function' },
] as const;

/** Whether `pattern` (`s3:ObjectCreated:*` or an exact event) covers the event `name` (without `s3:`). */
function covers(pattern: string, name: string): boolean {
  const p = pattern.replace(/^s3:/, '');
  return p.endsWith(':*') ? name.startsWith(p.slice(0, -1)) : p === name;
}

function eventsOverlap(a: string[], b: string[]): boolean {
  return EVENT_TYPES.some((e) => a.some((p) => covers(p, e)) && b.some((p) => covers(p, e)));
}

/** Two key filters overlap unless their prefixes or their suffixes exclude each other. */
function filtersOverlap(a: NotificationTarget, b: NotificationTarget): boolean {
  const prefixes = (x?: string, y?: string) => !x || !y || x.startsWith(y) || y.startsWith(x);
  const suffixes = (x?: string, y?: string) => !x || !y || x.endsWith(y) || y.endsWith(x);
  return prefixes(a.prefix, b.prefix) && suffixes(a.suffix, b.suffix);
}

function parseTarget(
  raw: Record<string, unknown>,
  kind: NotificationTarget['kind'],
  arn: unknown,
): NotificationTarget {
  const destination = textOf(arn);
  if (!destination) throw s3Errors.malformedXml();
  const events = listOf(raw.Event).map((e) => textOf(e) ?? '');
  if (events.length === 0) throw s3Errors.malformedXml();
  for (const event of events) {
    if (!/^s3:/.test(event) || !EVENT_TYPES.some((e) => covers(event, e)))
      throw s3Errors.invalidArgument('The event is not supported for notifications', event, event);
  }
  const target: NotificationTarget = { kind, id: textOf(raw.Id) || undefined, arn: destination, events };
  const rules = listOf(elementOf(elementOf(raw.Filter)?.S3Key)?.FilterRule);
  for (const rule of rules.map((r) => elementOf(r) ?? {})) {
    const name = (textOf(rule.Name) ?? '').toLowerCase();
    const value = textOf(rule.Value) ?? '';
    if (name !== 'prefix' && name !== 'suffix')
      throw s3Errors.invalidArgument(
        'filter rule name must be either prefix or suffix',
        'FilterRule',
        textOf(rule.Name) ?? '',
      );
    if (target[name] !== undefined)
      throw s3Errors.invalidArgument(
        'Cannot specify more than one prefix rule in a filter.'.replace('prefix', name),
        'FilterRule',
        name,
      );
    target[name] = value;
  }
  return target;
}

/** The request document as S3 reads it (throws S3's refusals). */
export function parseNotificationConfiguration(body: Buffer | string): NotificationConfiguration {
  const doc = elementOf(parseXml(body)?.NotificationConfiguration);
  if (!doc) throw s3Errors.malformedXml();
  const targets: NotificationTarget[] = [];
  for (const { element, arnElement, kind } of KINDS)
    for (const raw of listOf(doc[element])) {
      const el = elementOf(raw);
      if (!el) throw s3Errors.malformedXml();
      targets.push(parseTarget(el, kind, el[arnElement]));
    }
  for (let i = 0; i < targets.length; i++)
    for (let j = i + 1; j < targets.length; j++) {
      const [a, b] = [targets[i]!, targets[j]!];
      if (eventsOverlap(a.events, b.events) && filtersOverlap(a, b))
        throw s3Errors.invalidArgument(
          'Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes are overlapping for the same event type.',
          'Event',
          a.events.join(','),
        );
    }
  const ids = new Set<string>();
  for (const t of targets) {
    // S3 names a configuration without an Id itself.
    t.id ??= randomBytes(16)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 20);
    if (ids.has(t.id)) throw s3Errors.invalidArgument('Configuration Id must be unique', 'Id', t.id);
    ids.add(t.id);
  }
  return { targets, eventBridge: doc.EventBridgeConfiguration !== undefined };
}

export function notificationXml(config: NotificationConfiguration | undefined): XmlObject {
  const targets = config?.targets ?? [];
  const out: XmlObject = {};
  for (const { element, arnElement, kind } of KINDS) {
    const mine = targets.filter((t) => t.kind === kind);
    if (mine.length === 0) continue;
    out[element] = mine.map((t) => {
      const rules = (['prefix', 'suffix'] as const)
        .filter((name) => t[name] !== undefined)
        // S3 answers the rule names capitalised, whatever case the request used.
        .map((name) => ({ Name: name === 'prefix' ? 'Prefix' : 'Suffix', Value: t[name] }));
      return {
        Id: t.id,
        [arnElement]: t.arn,
        Event: t.events,
        Filter: rules.length ? { S3Key: { FilterRule: rules } } : undefined,
      };
    });
  }
  if (config?.eventBridge) out.EventBridgeConfiguration = '';
  return out;
}

/** An object event, as S3 describes it to a destination. */
export interface ObjectEvent {
  name: string;
  key: string;
  size?: number;
  etag?: string;
  versionId?: string;
}

export class NotificationHandlers extends S3Base {
  constructor(
    store: S3Store,
    private readonly platform: Platform,
  ) {
    super(store);
  }

  getBucketNotificationConfiguration(
    ctx: CallContext,
    _req: EmulatorRequest,
    target: Target,
  ): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketNotification');
    return this.xml(200, 'NotificationConfiguration', notificationXml(bucket.notification));
  }

  async putBucketNotificationConfiguration(
    ctx: CallContext,
    req: EmulatorRequest,
    target: Target,
  ): Promise<EmulatorResponse> {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketNotification');
    const config = parseNotificationConfiguration(req.body);
    if (header(req, 'x-amz-skip-destination-validation') !== 'true') {
      const failures = await this.validate(ctx, bucket, config.targets);
      if (failures.length) {
        const detail: Record<string, string> = {};
        failures.forEach(([arn, reason], i) => {
          detail[`ArgumentName${i + 1}`] = arn;
          detail[`ArgumentValue${i + 1}`] = reason;
        });
        throw new AwsError(
          'InvalidArgument',
          'Unable to validate the following destination configurations',
          400,
          detail,
        );
      }
    }
    bucket.notification = config.targets.length || config.eventBridge ? config : undefined;
    return { status: 200 };
  }

  /** S3 sends each queue and topic an `s3:TestEvent`; a function must allow S3 to invoke it. */
  private async validate(
    ctx: CallContext,
    bucket: Bucket,
    targets: NotificationTarget[],
  ): Promise<Array<[string, string]>> {
    const failures: Array<[string, string]> = [];
    const source = {
      servicePrincipal: SERVICE_PRINCIPAL,
      sourceArn: `arn:aws:s3:::${bucket.name}`,
      sourceAccount: bucket.account,
    };
    const test = JSON.stringify({
      Service: 'Amazon S3',
      Event: 's3:TestEvent',
      Time: new Date().toISOString(),
      Bucket: bucket.name,
      RequestId: ctx.requestId,
      HostId: hostId(),
    });
    for (const arn of new Set(targets.map((t) => t.arn))) {
      const kind = targets.find((t) => t.arn === arn)!.kind;
      if (!arnInRegion(arn, kind, bucket.region)) {
        failures.push([arn, `The destination is not a valid ${kind} ARN in ${bucket.region}`]);
        continue;
      }
      if (kind === 'queue') {
        const sent = this.platform.api<SqsDeliveryApi>('sqs').deliver(arn, { ...source, body: test });
        if (!sent.delivered)
          failures.push([
            arn,
            'Permissions on the destination queue do not allow S3 to publish notifications from this bucket',
          ]);
      } else if (kind === 'topic') {
        const sent = await this.platform
          .api<SnsPublishApi>('sns')
          .publish(arn, { ...source, message: test, subject: 'Amazon S3 Notification' });
        if (!sent.published)
          failures.push([
            arn,
            'Permissions on the destination topic do not allow S3 to publish notifications from this bucket',
          ]);
      } else {
        const allowed = await this.platform.api<LambdaApi>('lambda').mayInvoke(arn, source);
        if (!allowed.accepted) failures.push([arn, 'Not authorized to invoke function [' + arn + ']']);
      }
    }
    return failures;
  }

  /** Delivers an object event to every configuration that matches it (failures are dropped, as in S3). */
  async notify(ctx: CallContext, bucketName: string, event: ObjectEvent): Promise<void> {
    const bucket = this.store.buckets.get(bucketName);
    const config = bucket?.notification;
    if (!bucket || !config) return;
    const source = {
      servicePrincipal: SERVICE_PRINCIPAL,
      sourceArn: `arn:aws:s3:::${bucket.name}`,
      sourceAccount: bucket.account,
    };
    for (const t of config.targets) {
      if (!t.events.some((p) => covers(p, event.name))) continue;
      if (t.prefix !== undefined && !event.key.startsWith(t.prefix)) continue;
      if (t.suffix !== undefined && !event.key.endsWith(t.suffix)) continue;
      const body = JSON.stringify({ Records: [eventRecord(ctx, bucket, t.id!, event)] });
      if (t.kind === 'queue') this.platform.api<SqsDeliveryApi>('sqs').deliver(t.arn, { ...source, body });
      else if (t.kind === 'topic')
        await this.platform
          .api<SnsPublishApi>('sns')
          .publish(t.arn, { ...source, message: body, subject: 'Amazon S3 Notification' });
      else await this.platform.api<LambdaApi>('lambda').invokeAsync(t.arn, body, source);
    }
  }
}

function arnInRegion(arn: string, kind: NotificationTarget['kind'], region: string): boolean {
  const service = { queue: 'sqs', topic: 'sns', function: 'lambda' }[kind];
  const parts = arn.split(':');
  return parts.length >= 6 && parts[0] === 'arn' && parts[2] === service && parts[3] === region;
}

/** The event record S3 sends (S3 user guide, "Event message structure", version 2.1). */
function eventRecord(ctx: CallContext, bucket: Bucket, configurationId: string, event: ObjectEvent): unknown {
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: bucket.region,
    eventTime: new Date().toISOString(),
    eventName: event.name,
    userIdentity: { principalId: `AWS:${ctx.callerUserId}` },
    requestParameters: { sourceIPAddress: '127.0.0.1' },
    responseElements: { 'x-amz-request-id': ctx.requestId, 'x-amz-id-2': hostId() },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId,
      bucket: {
        name: bucket.name,
        ownerIdentity: { principalId: bucket.account },
        arn: `arn:aws:s3:::${bucket.name}`,
      },
      object: {
        // Keys are URL-encoded in event records, spaces as '+'.
        key: encodeURIComponent(event.key).replace(/%20/g, '+').replace(/%2F/g, '/'),
        ...(event.size !== undefined ? { size: event.size } : {}),
        ...(event.etag ? { eTag: event.etag.replace(/"/g, '') } : {}),
        ...(event.versionId && event.versionId !== 'null' ? { versionId: event.versionId } : {}),
        sequencer: Date.now().toString(16).toUpperCase().padStart(16, '0'),
      },
    },
  };
}
