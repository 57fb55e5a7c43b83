/**
 * The bucket configurations CloudFormation models differently from S3's API
 * (ownership controls, lifecycle, CORS, website), converted between the
 * `AWS::S3::Bucket` properties and S3's store, so a bucket configured through
 * either API reads the same through both.
 */
import { upperAlnum } from '../../core/ids';
import type {
  BucketLifecycle,
  CorsRule,
  LifecycleFilter,
  LifecycleRule,
  ObjectOwnership,
  WebsiteConfiguration,
} from './store';

type Props = Record<string, unknown>;

const obj = (v: unknown): Props =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Props) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
const num = (v: unknown): number | undefined =>
  v === undefined || v === null || v === '' ? undefined : Number(v);
/** Drops undefined members so a model reads like CloudFormation's. */
function compact<T extends Props>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function ownershipToCfn(ownership: ObjectOwnership): Props {
  return { Rules: [{ ObjectOwnership: ownership }] };
}

export function ownershipFromCfn(value: unknown): ObjectOwnership | undefined {
  const rule = obj(arr(obj(value).Rules)[0]);
  return rule.ObjectOwnership as ObjectOwnership | undefined;
}

export function lifecycleToCfn(lifecycle: BucketLifecycle): Props {
  return compact({
    Rules: lifecycle.rules.map((r) =>
      compact({
        Id: r.ID,
        Status: r.Status,
        Prefix: r.Filter?.Prefix ?? r.Prefix,
        TagFilters: r.Filter?.Tags.length ? r.Filter.Tags.map((t) => ({ ...t })) : undefined,
        ObjectSizeGreaterThan: r.Filter?.ObjectSizeGreaterThan,
        ObjectSizeLessThan: r.Filter?.ObjectSizeLessThan,
        ExpirationInDays: r.Expiration?.Days,
        ExpirationDate: r.Expiration?.Date,
        ExpiredObjectDeleteMarker: r.Expiration?.ExpiredObjectDeleteMarker,
        Transitions: r.Transitions.length
          ? r.Transitions.map((t) =>
              compact({ StorageClass: t.StorageClass, TransitionInDays: t.Days, TransitionDate: t.Date }),
            )
          : undefined,
        NoncurrentVersionExpiration: r.NoncurrentVersionExpiration
          ? compact({ ...r.NoncurrentVersionExpiration })
          : undefined,
        NoncurrentVersionTransitions: r.NoncurrentVersionTransitions.length
          ? r.NoncurrentVersionTransitions.map((t) =>
              compact({
                StorageClass: t.StorageClass,
                TransitionInDays: t.NoncurrentDays,
                NewerNoncurrentVersions: t.NewerNoncurrentVersions,
              }),
            )
          : undefined,
        AbortIncompleteMultipartUpload: r.AbortIncompleteMultipartUpload
          ? { ...r.AbortIncompleteMultipartUpload }
          : undefined,
      }),
    ),
    TransitionDefaultMinimumObjectSize: lifecycle.transitionDefaultMinimumObjectSize,
  });
}

export function lifecycleFromCfn(value: unknown): BucketLifecycle {
  const config = obj(value);
  return {
    transitionDefaultMinimumObjectSize:
      str(config.TransitionDefaultMinimumObjectSize) ?? 'all_storage_classes_128K',
    rules: arr(config.Rules).map((raw): LifecycleRule => {
      const r = obj(raw);
      const filter: LifecycleFilter = {
        Prefix: str(r.Prefix),
        Tags: arr(r.TagFilters).map((t) => ({ Key: String(obj(t).Key), Value: String(obj(t).Value ?? '') })),
        ObjectSizeGreaterThan: num(r.ObjectSizeGreaterThan),
        ObjectSizeLessThan: num(r.ObjectSizeLessThan),
      };
      const expiration = compact({
        Days: num(r.ExpirationInDays),
        Date: str(r.ExpirationDate),
        ExpiredObjectDeleteMarker:
          r.ExpiredObjectDeleteMarker === undefined
            ? undefined
            : r.ExpiredObjectDeleteMarker === true || r.ExpiredObjectDeleteMarker === 'true',
      });
      const transitions = [...arr(r.Transitions), ...(r.Transition ? [r.Transition] : [])].map((t) => ({
        StorageClass: String(obj(t).StorageClass),
        Days: num(obj(t).TransitionInDays),
        Date: str(obj(t).TransitionDate),
      }));
      const noncurrentTransitions = [
        ...arr(r.NoncurrentVersionTransitions),
        ...(r.NoncurrentVersionTransition ? [r.NoncurrentVersionTransition] : []),
      ].map((t) => ({
        StorageClass: String(obj(t).StorageClass),
        NoncurrentDays: num(obj(t).TransitionInDays),
        NewerNoncurrentVersions: num(obj(t).NewerNoncurrentVersions),
      }));
      const noncurrent = r.NoncurrentVersionExpiration
        ? {
            NoncurrentDays: num(obj(r.NoncurrentVersionExpiration).NoncurrentDays),
            NewerNoncurrentVersions: num(obj(r.NoncurrentVersionExpiration).NewerNoncurrentVersions),
          }
        : r.NoncurrentVersionExpirationInDays !== undefined
          ? { NoncurrentDays: num(r.NoncurrentVersionExpirationInDays) }
          : undefined;
      const abort = r.AbortIncompleteMultipartUpload
        ? { DaysAfterInitiation: Number(obj(r.AbortIncompleteMultipartUpload).DaysAfterInitiation) }
        : undefined;
      return {
        ID: str(r.Id) ?? upperAlnum(20),
        Status: r.Status === 'Disabled' ? 'Disabled' : 'Enabled',
        Filter: filter,
        Expiration: Object.keys(expiration).length ? expiration : undefined,
        Transitions: transitions,
        NoncurrentVersionExpiration: noncurrent,
        NoncurrentVersionTransitions: noncurrentTransitions,
        AbortIncompleteMultipartUpload: abort,
      };
    }),
  };
}

export function corsToCfn(rules: CorsRule[]): Props {
  return {
    CorsRules: rules.map((r) =>
      compact({
        Id: r.ID,
        AllowedHeaders: r.AllowedHeaders.length ? [...r.AllowedHeaders] : undefined,
        AllowedMethods: [...r.AllowedMethods],
        AllowedOrigins: [...r.AllowedOrigins],
        ExposedHeaders: r.ExposeHeaders.length ? [...r.ExposeHeaders] : undefined,
        MaxAge: r.MaxAgeSeconds,
      }),
    ),
  };
}

export function corsFromCfn(value: unknown): CorsRule[] {
  return arr(obj(value).CorsRules).map((raw) => {
    const r = obj(raw);
    return {
      ID: str(r.Id),
      AllowedHeaders: arr(r.AllowedHeaders).map(String),
      AllowedMethods: arr(r.AllowedMethods).map(String),
      AllowedOrigins: arr(r.AllowedOrigins).map(String),
      ExposeHeaders: arr(r.ExposedHeaders).map(String),
      MaxAgeSeconds: num(r.MaxAge),
    };
  });
}

export function websiteToCfn(w: WebsiteConfiguration): Props {
  return compact({
    IndexDocument: w.IndexDocument?.Suffix,
    ErrorDocument: w.ErrorDocument?.Key,
    RedirectAllRequestsTo: w.RedirectAllRequestsTo ? compact({ ...w.RedirectAllRequestsTo }) : undefined,
    RoutingRules: w.RoutingRules.length
      ? w.RoutingRules.map((r) =>
          compact({
            RoutingRuleCondition: r.Condition ? compact({ ...r.Condition }) : undefined,
            RedirectRule: compact({ ...r.Redirect }),
          }),
        )
      : undefined,
  });
}

export function websiteFromCfn(value: unknown): WebsiteConfiguration {
  const w = obj(value);
  const redirectAll = w.RedirectAllRequestsTo ? obj(w.RedirectAllRequestsTo) : undefined;
  return {
    IndexDocument: w.IndexDocument !== undefined ? { Suffix: String(w.IndexDocument) } : undefined,
    ErrorDocument: w.ErrorDocument !== undefined ? { Key: String(w.ErrorDocument) } : undefined,
    RedirectAllRequestsTo: redirectAll
      ? { HostName: String(redirectAll.HostName), Protocol: str(redirectAll.Protocol) }
      : undefined,
    RoutingRules: arr(w.RoutingRules).map((raw) => {
      const r = obj(raw);
      const c = r.RoutingRuleCondition ? obj(r.RoutingRuleCondition) : undefined;
      const d = obj(r.RedirectRule);
      return {
        Condition: c
          ? {
              HttpErrorCodeReturnedEquals: str(c.HttpErrorCodeReturnedEquals),
              KeyPrefixEquals: str(c.KeyPrefixEquals),
            }
          : undefined,
        Redirect: {
          HostName: str(d.HostName),
          HttpRedirectCode: str(d.HttpRedirectCode),
          Protocol: str(d.Protocol),
          ReplaceKeyPrefixWith: str(d.ReplaceKeyPrefixWith),
          ReplaceKeyWith: str(d.ReplaceKeyWith),
        },
      };
    }),
  };
}
