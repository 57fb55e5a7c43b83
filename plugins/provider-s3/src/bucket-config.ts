/**
 * The bucket configurations the pack wires, converted from CloudFormation's
 * `AWS::S3::Bucket` properties to the S3 API's inputs. Pure functions; the SDK
 * is imported for its types only, so the hook can load this module without
 * loading `@aws-sdk/client-s3`.
 */
import type {
  CORSRule,
  LifecycleRule,
  LifecycleRuleFilter,
  NoncurrentVersionTransition,
  OwnershipControls,
  PublicAccessBlockConfiguration,
  RoutingRule,
  ServerSideEncryptionConfiguration,
  Tag,
  Transition,
  TransitionDefaultMinimumObjectSize,
  WebsiteConfiguration,
} from '@aws-sdk/client-s3';

type Props = Record<string, unknown>;

function record(value: unknown): Props {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Props) : {};
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function text(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}
/** Template numbers may arrive as strings (resolved parameters). */
function integer(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return Number(value);
}
function bool(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return value === true || value === 'true';
}
/** Drops undefined members, so equal configurations compare equal. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The template's `Tags` as a key → value map (later duplicates win, as a map must). */
export function templateTags(tags: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of list(tags)) {
    const { Key, Value } = record(t);
    if (typeof Key === 'string') out[Key] = String(Value ?? '');
  }
  return out;
}

export function tagSet(tags: Readonly<Record<string, string>>): Tag[] {
  return Object.keys(tags)
    .sort()
    .map((Key) => ({ Key, Value: tags[Key] }));
}

export function versioningStatus(value: unknown): 'Enabled' | 'Suspended' | undefined {
  const status = record(value).Status;
  return status === 'Enabled' || status === 'Suspended' ? status : undefined;
}

export function encryptionConfiguration(value: unknown): ServerSideEncryptionConfiguration {
  return {
    Rules: list(record(value).ServerSideEncryptionConfiguration).map((raw) => {
      const rule = record(raw);
      const byDefault = rule.ServerSideEncryptionByDefault
        ? record(rule.ServerSideEncryptionByDefault)
        : undefined;
      const blocked = rule.BlockedEncryptionTypes ? record(rule.BlockedEncryptionTypes) : undefined;
      return defined({
        ApplyServerSideEncryptionByDefault: byDefault
          ? defined({
              SSEAlgorithm: text(byDefault.SSEAlgorithm) as never,
              KMSMasterKeyID: text(byDefault.KMSMasterKeyID),
            })
          : undefined,
        BucketKeyEnabled: bool(rule.BucketKeyEnabled),
        BlockedEncryptionTypes: blocked
          ? { EncryptionType: list(blocked.EncryptionType).map(String) as never }
          : undefined,
      });
    }),
  };
}

/** CloudFormation's four flags; an unset flag is false, as CloudFormation sends it. */
export function publicAccessBlock(value: unknown): PublicAccessBlockConfiguration {
  const v = record(value);
  return {
    BlockPublicAcls: bool(v.BlockPublicAcls) ?? false,
    IgnorePublicAcls: bool(v.IgnorePublicAcls) ?? false,
    BlockPublicPolicy: bool(v.BlockPublicPolicy) ?? false,
    RestrictPublicBuckets: bool(v.RestrictPublicBuckets) ?? false,
  };
}

export function ownershipControls(value: unknown): OwnershipControls {
  return {
    Rules: list(record(value).Rules).map((r) => ({
      ObjectOwnership: text(record(r).ObjectOwnership) as never,
    })),
  };
}

function lifecycleFilter(rule: Props): LifecycleRuleFilter {
  const prefix = text(rule.Prefix);
  const tags = list(rule.TagFilters).map((t) => ({
    Key: String(record(t).Key),
    Value: String(record(t).Value ?? ''),
  }));
  const greater = integer(rule.ObjectSizeGreaterThan);
  const less = integer(rule.ObjectSizeLessThan);
  const count =
    (prefix !== undefined ? 1 : 0) +
    tags.length +
    (greater !== undefined ? 1 : 0) +
    (less !== undefined ? 1 : 0);
  // S3 takes one condition bare and several under And; none is every object.
  if (count === 0) return { Prefix: '' };
  if (count > 1) {
    return {
      And: defined({
        Prefix: prefix,
        Tags: tags.length ? tags : undefined,
        ObjectSizeGreaterThan: greater,
        ObjectSizeLessThan: less,
      }),
    };
  }
  if (tags.length) return { Tag: tags[0] };
  return defined({ Prefix: prefix, ObjectSizeGreaterThan: greater, ObjectSizeLessThan: less });
}

function transition(raw: unknown): Transition {
  const t = record(raw);
  return defined({
    StorageClass: text(t.StorageClass) as never,
    Days: integer(t.TransitionInDays),
    Date: t.TransitionDate !== undefined ? new Date(String(t.TransitionDate)) : undefined,
  });
}

function noncurrentTransition(raw: unknown): NoncurrentVersionTransition {
  const t = record(raw);
  return defined({
    StorageClass: text(t.StorageClass) as never,
    NoncurrentDays: integer(t.TransitionInDays),
    NewerNoncurrentVersions: integer(t.NewerNoncurrentVersions),
  });
}

function lifecycleRule(raw: unknown): LifecycleRule {
  const r = record(raw);
  const expiration = defined({
    Days: integer(r.ExpirationInDays),
    Date: r.ExpirationDate !== undefined ? new Date(String(r.ExpirationDate)) : undefined,
    ExpiredObjectDeleteMarker: bool(r.ExpiredObjectDeleteMarker),
  });
  // The deprecated single-object forms add to the lists, as CloudFormation merges them.
  const transitions = [...list(r.Transitions), ...(r.Transition ? [r.Transition] : [])].map(transition);
  const noncurrentTransitions = [
    ...list(r.NoncurrentVersionTransitions),
    ...(r.NoncurrentVersionTransition ? [r.NoncurrentVersionTransition] : []),
  ].map(noncurrentTransition);
  const noncurrent = r.NoncurrentVersionExpiration
    ? defined({
        NoncurrentDays: integer(record(r.NoncurrentVersionExpiration).NoncurrentDays),
        NewerNoncurrentVersions: integer(record(r.NoncurrentVersionExpiration).NewerNoncurrentVersions),
      })
    : r.NoncurrentVersionExpirationInDays !== undefined
      ? { NoncurrentDays: integer(r.NoncurrentVersionExpirationInDays) }
      : undefined;
  return defined({
    ID: text(r.Id),
    Status: text(r.Status) as never,
    Filter: lifecycleFilter(r),
    Expiration: Object.keys(expiration).length ? expiration : undefined,
    Transitions: transitions.length ? transitions : undefined,
    NoncurrentVersionExpiration: noncurrent,
    NoncurrentVersionTransitions: noncurrentTransitions.length ? noncurrentTransitions : undefined,
    AbortIncompleteMultipartUpload: r.AbortIncompleteMultipartUpload
      ? { DaysAfterInitiation: integer(record(r.AbortIncompleteMultipartUpload).DaysAfterInitiation) }
      : undefined,
  });
}

export function lifecycleConfiguration(value: unknown): {
  Rules: LifecycleRule[];
  TransitionDefaultMinimumObjectSize?: TransitionDefaultMinimumObjectSize;
} {
  const v = record(value);
  return defined({
    Rules: list(v.Rules).map(lifecycleRule),
    TransitionDefaultMinimumObjectSize: text(v.TransitionDefaultMinimumObjectSize) as never,
  });
}

export function corsRules(value: unknown): CORSRule[] {
  return list(record(value).CorsRules).map((raw) => {
    const r = record(raw);
    return defined({
      ID: text(r.Id),
      AllowedHeaders: r.AllowedHeaders !== undefined ? list(r.AllowedHeaders).map(String) : undefined,
      AllowedMethods: list(r.AllowedMethods).map(String),
      AllowedOrigins: list(r.AllowedOrigins).map(String),
      ExposeHeaders: r.ExposedHeaders !== undefined ? list(r.ExposedHeaders).map(String) : undefined,
      MaxAgeSeconds: integer(r.MaxAge),
    });
  });
}

function routingRule(raw: unknown): RoutingRule {
  const r = record(raw);
  const condition = r.RoutingRuleCondition ? record(r.RoutingRuleCondition) : undefined;
  const redirect = record(r.RedirectRule);
  return defined({
    Condition: condition
      ? defined({
          HttpErrorCodeReturnedEquals: text(condition.HttpErrorCodeReturnedEquals),
          KeyPrefixEquals: text(condition.KeyPrefixEquals),
        })
      : undefined,
    Redirect: defined({
      HostName: text(redirect.HostName),
      HttpRedirectCode: text(redirect.HttpRedirectCode),
      Protocol: text(redirect.Protocol) as never,
      ReplaceKeyPrefixWith: text(redirect.ReplaceKeyPrefixWith),
      ReplaceKeyWith: text(redirect.ReplaceKeyWith),
    }),
  });
}

export function websiteConfiguration(value: unknown): WebsiteConfiguration {
  const w = record(value);
  const redirectAll = w.RedirectAllRequestsTo ? record(w.RedirectAllRequestsTo) : undefined;
  return defined({
    IndexDocument: w.IndexDocument !== undefined ? { Suffix: String(w.IndexDocument) } : undefined,
    ErrorDocument: w.ErrorDocument !== undefined ? { Key: String(w.ErrorDocument) } : undefined,
    RedirectAllRequestsTo: redirectAll
      ? defined({ HostName: String(redirectAll.HostName), Protocol: text(redirectAll.Protocol) as never })
      : undefined,
    RoutingRules: w.RoutingRules !== undefined ? list(w.RoutingRules).map(routingRule) : undefined,
  });
}

/** JSON with object keys sorted at every level: equal configurations, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Props)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
