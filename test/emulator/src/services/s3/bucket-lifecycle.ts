/**
 * Bucket lifecycle configuration (`?lifecycle`): the rules that expire and
 * transition objects, validated as S3 validates a PutBucketLifecycleConfiguration.
 */
import { AwsError } from '../../core/errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../../core/http';
import { upperAlnum } from '../../core/ids';
import type { CallContext } from '../../core/service';
import { parseXml, type XmlObject } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import type { LifecycleFilter, LifecycleRule, Tag } from './store';
import { elementOf, integerOf, listOf, textOf } from './xml-values';

const TRANSITION_CLASSES = new Set([
  'GLACIER',
  'STANDARD_IA',
  'ONEZONE_IA',
  'INTELLIGENT_TIERING',
  'DEEP_ARCHIVE',
  'GLACIER_IR',
]);
/** Storage classes S3 refuses to transition to before an object is 30 days old. */
const THIRTY_DAY_CLASSES = new Set(['STANDARD_IA', 'ONEZONE_IA']);
const MINIMUM_OBJECT_SIZES = new Set(['varies_by_storage_class', 'all_storage_classes_128K']);
const MAX_RULES = 1000;

export class LifecycleHandlers extends S3Base {
  getBucketLifecycleConfiguration(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetLifecycleConfiguration');
    if (!bucket.lifecycle) {
      throw new AwsError('NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist', 404, {
        BucketName: bucket.name,
      });
    }
    return this.xml(
      200,
      'LifecycleConfiguration',
      { Rule: bucket.lifecycle.rules.map(ruleXml) },
      { 'x-amz-transition-default-minimum-object-size': bucket.lifecycle.transitionDefaultMinimumObjectSize },
    );
  }

  putBucketLifecycleConfiguration(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutLifecycleConfiguration');
    const doc = elementOf(parseXml(req.body)?.LifecycleConfiguration);
    if (!doc) throw s3Errors.malformedXml();
    const rawRules = listOf(doc.Rule);
    if (rawRules.length === 0 || rawRules.length > MAX_RULES) throw s3Errors.malformedXml();
    const rules = rawRules.map((r) => parseRule(elementOf(r)));
    const ids = new Set<string>();
    for (const rule of rules) {
      if (ids.has(rule.ID))
        throw s3Errors.invalidArgument(
          'Rule ID must be unique. Found same ID for more than one rule',
          'ID',
          rule.ID,
        );
      ids.add(rule.ID);
    }
    const minimumSize =
      header(req, 'x-amz-transition-default-minimum-object-size') ?? 'all_storage_classes_128K';
    if (!MINIMUM_OBJECT_SIZES.has(minimumSize))
      throw s3Errors.invalidArgument(
        'Invalid value for x-amz-transition-default-minimum-object-size',
        'x-amz-transition-default-minimum-object-size',
        minimumSize,
      );
    bucket.lifecycle = { rules, transitionDefaultMinimumObjectSize: minimumSize };
    return {
      status: 200,
      headers: { 'x-amz-transition-default-minimum-object-size': minimumSize },
    };
  }

  deleteBucketLifecycle(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutLifecycleConfiguration');
    bucket.lifecycle = undefined;
    return { status: 204 };
  }
}

function positiveDays(value: unknown, message: string): number | undefined {
  const days = integerOf(value);
  if (days !== undefined && days <= 0) throw s3Errors.invalidArgument(message);
  return days;
}

function parseTags(value: unknown): Tag[] {
  return listOf(value).map((t) => {
    const tag = elementOf(t);
    const Key = textOf(tag?.Key);
    if (!Key) throw s3Errors.malformedXml();
    return { Key, Value: textOf(tag?.Value) ?? '' };
  });
}

function parseFilter(raw: Record<string, unknown>): LifecycleFilter {
  const and = elementOf(raw.And);
  const source = and ?? raw;
  const filter: LifecycleFilter = {
    Prefix: textOf(source.Prefix),
    Tags: parseTags(source.Tag),
    ObjectSizeGreaterThan: integerOf(source.ObjectSizeGreaterThan),
    ObjectSizeLessThan: integerOf(source.ObjectSizeLessThan),
  };
  const conditions =
    (filter.Prefix !== undefined ? 1 : 0) +
    filter.Tags.length +
    (filter.ObjectSizeGreaterThan !== undefined ? 1 : 0) +
    (filter.ObjectSizeLessThan !== undefined ? 1 : 0);
  // Outside <And> a filter names one condition; several need <And>.
  if (!and && conditions > 1) throw s3Errors.malformedXml();
  if (
    filter.ObjectSizeGreaterThan !== undefined &&
    filter.ObjectSizeLessThan !== undefined &&
    filter.ObjectSizeGreaterThan >= filter.ObjectSizeLessThan
  )
    throw s3Errors.invalidArgument('ObjectSizeGreaterThan must be less than ObjectSizeLessThan');
  return filter;
}

function parseRule(raw: Record<string, unknown> | undefined): LifecycleRule {
  if (!raw) throw s3Errors.malformedXml();
  const status = textOf(raw.Status);
  if (status !== 'Enabled' && status !== 'Disabled') throw s3Errors.malformedXml();
  const id = textOf(raw.ID);
  if (id !== undefined && id.length > 255)
    throw s3Errors.invalidArgument('ID length should not exceed allowed limit of 255', 'ID', id);
  const rawFilter = raw.Filter === undefined ? undefined : elementOf(raw.Filter);
  const prefix = textOf(raw.Prefix);
  if (rawFilter === undefined && prefix === undefined) throw s3Errors.malformedXml();
  if (rawFilter !== undefined && prefix !== undefined) throw s3Errors.malformedXml();
  const rule: LifecycleRule = {
    // S3 names an unnamed rule itself.
    ID: id ?? upperAlnum(20),
    Status: status,
    Prefix: prefix,
    Filter: rawFilter ? parseFilter(rawFilter) : undefined,
    Transitions: [],
    NoncurrentVersionTransitions: [],
  };
  const expiration = elementOf(raw.Expiration);
  if (expiration) {
    const days = positiveDays(expiration.Days, "'Days' for Expiration action must be a positive integer");
    const date = textOf(expiration.Date);
    const marker = textOf(expiration.ExpiredObjectDeleteMarker);
    if ([days, date, marker].filter((v) => v !== undefined).length !== 1) throw s3Errors.malformedXml();
    if (marker !== undefined && rule.Filter?.Tags.length)
      throw s3Errors.invalidArgument('ExpiredObjectDeleteMarker cannot be specified with tags.');
    rule.Expiration = {
      Days: days,
      Date: date,
      ExpiredObjectDeleteMarker: marker === undefined ? undefined : marker === 'true',
    };
  }
  for (const t of listOf(raw.Transition)) {
    const transition = elementOf(t) ?? {};
    const storageClass = textOf(transition.StorageClass) ?? '';
    if (!TRANSITION_CLASSES.has(storageClass)) throw s3Errors.malformedXml();
    const days = integerOf(transition.Days);
    const date = textOf(transition.Date);
    if ((days === undefined) === (date === undefined)) throw s3Errors.malformedXml();
    if (days !== undefined && days < 30 && THIRTY_DAY_CLASSES.has(storageClass))
      throw s3Errors.invalidArgument(
        `'Days' in Transition action must be greater than or equal to 30 for storageClass '${storageClass}'`,
      );
    rule.Transitions.push({ Days: days, Date: date, StorageClass: storageClass });
  }
  const noncurrent = elementOf(raw.NoncurrentVersionExpiration);
  if (noncurrent) {
    rule.NoncurrentVersionExpiration = {
      NoncurrentDays: positiveDays(
        noncurrent.NoncurrentDays,
        "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
      ),
      NewerNoncurrentVersions: integerOf(noncurrent.NewerNoncurrentVersions),
    };
  }
  for (const t of listOf(raw.NoncurrentVersionTransition)) {
    const transition = elementOf(t) ?? {};
    const storageClass = textOf(transition.StorageClass) ?? '';
    if (!TRANSITION_CLASSES.has(storageClass)) throw s3Errors.malformedXml();
    rule.NoncurrentVersionTransitions.push({
      NoncurrentDays: integerOf(transition.NoncurrentDays),
      StorageClass: storageClass,
      NewerNoncurrentVersions: integerOf(transition.NewerNoncurrentVersions),
    });
  }
  const abort = elementOf(raw.AbortIncompleteMultipartUpload);
  if (abort) {
    const days = positiveDays(
      abort.DaysAfterInitiation,
      "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
    );
    if (days === undefined) throw s3Errors.malformedXml();
    if (rule.Filter?.Tags.length)
      throw s3Errors.invalidArgument('AbortIncompleteMultipartUpload cannot be specified with Tags.');
    rule.AbortIncompleteMultipartUpload = { DaysAfterInitiation: days };
  }
  if (
    !rule.Expiration &&
    !rule.Transitions.length &&
    !rule.NoncurrentVersionExpiration &&
    !rule.NoncurrentVersionTransitions.length &&
    !rule.AbortIncompleteMultipartUpload
  )
    throw s3Errors.invalidRequest('At least one action needs to be specified in a rule');
  return rule;
}

function filterXml(filter: LifecycleFilter): XmlObject {
  const conditions: XmlObject = {
    Prefix: filter.Prefix,
    Tag: filter.Tags.length ? filter.Tags.map((t) => ({ ...t })) : undefined,
    ObjectSizeGreaterThan: filter.ObjectSizeGreaterThan,
    ObjectSizeLessThan: filter.ObjectSizeLessThan,
  };
  const count = Object.values(conditions).reduce<number>(
    (n, v) => n + (v === undefined ? 0 : Array.isArray(v) ? v.length : 1),
    0,
  );
  return count > 1 ? { And: conditions } : conditions;
}

function ruleXml(rule: LifecycleRule): XmlObject {
  return {
    Expiration: rule.Expiration ? { ...rule.Expiration } : undefined,
    ID: rule.ID,
    Prefix: rule.Prefix,
    Filter: rule.Filter ? filterXml(rule.Filter) : undefined,
    Status: rule.Status,
    Transition: rule.Transitions.map((t) => ({ ...t })),
    NoncurrentVersionTransition: rule.NoncurrentVersionTransitions.map((t) => ({ ...t })),
    NoncurrentVersionExpiration: rule.NoncurrentVersionExpiration
      ? { ...rule.NoncurrentVersionExpiration }
      : undefined,
    AbortIncompleteMultipartUpload: rule.AbortIncompleteMultipartUpload
      ? { ...rule.AbortIncompleteMultipartUpload }
      : undefined,
  };
}
