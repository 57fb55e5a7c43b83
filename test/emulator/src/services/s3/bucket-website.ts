/** Static website hosting configuration (`?website`). */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml, type XmlObject } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import type { RoutingRule, WebsiteConfiguration } from './store';
import { elementOf, listOf, textOf } from './xml-values';

const PROTOCOLS = new Set(['http', 'https']);
const MAX_ROUTING_RULES = 50;

export class WebsiteHandlers extends S3Base {
  getBucketWebsite(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketWebsite');
    if (!bucket.website) {
      throw new AwsError(
        'NoSuchWebsiteConfiguration',
        'The specified bucket does not have a website configuration',
        404,
        { BucketName: bucket.name },
      );
    }
    const w = bucket.website;
    const content: XmlObject = {
      RedirectAllRequestsTo: w.RedirectAllRequestsTo ? { ...w.RedirectAllRequestsTo } : undefined,
      IndexDocument: w.IndexDocument ? { ...w.IndexDocument } : undefined,
      ErrorDocument: w.ErrorDocument ? { ...w.ErrorDocument } : undefined,
      RoutingRules: w.RoutingRules.length
        ? {
            RoutingRule: w.RoutingRules.map((r) => ({
              Condition: r.Condition ? { ...r.Condition } : undefined,
              Redirect: { ...r.Redirect },
            })),
          }
        : undefined,
    };
    return this.xml(200, 'WebsiteConfiguration', content);
  }

  putBucketWebsite(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketWebsite');
    const doc = elementOf(parseXml(req.body)?.WebsiteConfiguration);
    if (!doc) throw s3Errors.malformedXml();
    bucket.website = parseWebsite(doc);
    return { status: 200 };
  }

  deleteBucketWebsite(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:DeleteBucketWebsite');
    bucket.website = undefined;
    return { status: 204 };
  }
}

function parseWebsite(doc: Record<string, unknown>): WebsiteConfiguration {
  const redirectAll = elementOf(doc.RedirectAllRequestsTo);
  const index = elementOf(doc.IndexDocument);
  const error = elementOf(doc.ErrorDocument);
  const rules = listOf(elementOf(doc.RoutingRules)?.RoutingRule);
  if (redirectAll) {
    // Redirecting every request excludes every other element.
    if (index || error || rules.length)
      throw s3Errors.invalidArgument(
        'RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.',
        'RedirectAllRequestsTo',
      );
    const hostName = textOf(redirectAll.HostName);
    const protocol = textOf(redirectAll.Protocol);
    if (!hostName) throw s3Errors.malformedXml();
    if (protocol !== undefined && !PROTOCOLS.has(protocol))
      throw s3Errors.invalidArgument(
        'Invalid protocol, protocol can be http or https.',
        'Protocol',
        protocol,
      );
    return { RedirectAllRequestsTo: { HostName: hostName, Protocol: protocol }, RoutingRules: [] };
  }
  const suffix = textOf(index?.Suffix);
  if (!suffix)
    throw s3Errors.invalidArgument(
      'A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty',
      'IndexDocument',
    );
  if (suffix.includes('/'))
    throw s3Errors.invalidArgument('The IndexDocument Suffix is not well formed', 'IndexDocument', suffix);
  const errorKey = error ? textOf(error.Key) : undefined;
  if (error && !errorKey)
    throw s3Errors.invalidArgument('The ErrorDocument Key is not well formed', 'ErrorDocument');
  if (rules.length > MAX_ROUTING_RULES) throw s3Errors.malformedXml();
  return {
    IndexDocument: { Suffix: suffix },
    ErrorDocument: errorKey ? { Key: errorKey } : undefined,
    RoutingRules: rules.map((r) => parseRoutingRule(elementOf(r))),
  };
}

function parseRoutingRule(raw: Record<string, unknown> | undefined): RoutingRule {
  const redirect = elementOf(raw?.Redirect);
  if (!raw || !redirect) throw s3Errors.malformedXml();
  const condition = elementOf(raw.Condition);
  const rule: RoutingRule = {
    Condition: condition
      ? {
          HttpErrorCodeReturnedEquals: textOf(condition.HttpErrorCodeReturnedEquals),
          KeyPrefixEquals: textOf(condition.KeyPrefixEquals),
        }
      : undefined,
    Redirect: {
      HostName: textOf(redirect.HostName),
      HttpRedirectCode: textOf(redirect.HttpRedirectCode),
      Protocol: textOf(redirect.Protocol),
      ReplaceKeyPrefixWith: textOf(redirect.ReplaceKeyPrefixWith),
      ReplaceKeyWith: textOf(redirect.ReplaceKeyWith),
    },
  };
  if (rule.Redirect.ReplaceKeyPrefixWith !== undefined && rule.Redirect.ReplaceKeyWith !== undefined)
    throw s3Errors.invalidRequest('You can only define ReplaceKeyPrefix or ReplaceKey but not both.');
  if (rule.Redirect.Protocol !== undefined && !PROTOCOLS.has(rule.Redirect.Protocol))
    throw s3Errors.invalidArgument(
      'Invalid protocol, protocol can be http or https.',
      'Protocol',
      rule.Redirect.Protocol,
    );
  return rule;
}
