/** Bucket names cdkd generates, and the attributes a bucket's name determines. */
import { createHash } from 'node:crypto';
import type { CreateContext } from '@cdkd/plugin-api';

const MAX_LENGTH = 63;

/**
 * A name for a bucket whose template leaves BucketName unset: the core's
 * deterministic name (same intent, same name) in S3's rules — lower case,
 * letters, digits and hyphens, at most 63 characters. Older cdkd versions have
 * no `generatePhysicalName`; the same shape is then derived from the token here.
 */
export function generateBucketName(logicalId: string, context: CreateContext): string {
  const generated =
    context.generatePhysicalName?.({ maxLength: MAX_LENGTH, lowercase: true }) ??
    fallbackName(context.stackName, logicalId, context.idempotencyToken);
  // S3 refuses names that start with a hyphen or with the reserved `xn--` / `sthree-` prefixes.
  return /^[a-z0-9]/.test(generated) && !/^(xn--|sthree-)/.test(generated)
    ? generated
    : `b${generated}`.slice(0, MAX_LENGTH);
}

function fallbackName(stackName: string, logicalId: string, token: string): string {
  const clean = (s: string) => s.toLowerCase().replace(/[^a-z0-9-]/g, '');
  const suffix = createHash('sha256').update(token).digest('hex').slice(0, 13);
  const budget = MAX_LENGTH - suffix.length - 2;
  let stack = clean(stackName);
  let logical = clean(logicalId);
  if (stack.length + logical.length > budget) {
    stack = stack.slice(0, Math.max(Math.floor(budget / 2), budget - logical.length));
    logical = logical.slice(0, budget - stack.length);
  }
  return [stack, logical, suffix].filter((p) => p !== '').join('-');
}

/** Regions whose website endpoint is `s3-website-<region>` rather than `s3-website.<region>`. */
const DASH_WEBSITE_REGIONS = new Set([
  'us-east-1',
  'us-west-1',
  'us-west-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'eu-west-1',
  'sa-east-1',
  'us-gov-west-1',
]);

function dnsSuffix(partition: string): string {
  return partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** Every `Fn::GetAtt` of a bucket this provider can answer, from its name and region alone. */
export function bucketAttributes(name: string, region: string, partition: string): Record<string, string> {
  const suffix = dnsSuffix(partition);
  const website = DASH_WEBSITE_REGIONS.has(region) ? `s3-website-${region}` : `s3-website.${region}`;
  return {
    Arn: `arn:${partition}:s3:::${name}`,
    DomainName: `${name}.s3.${suffix}`,
    RegionalDomainName: `${name}.s3.${region}.${suffix}`,
    DualStackDomainName: `${name}.s3.dualstack.${region}.${suffix}`,
    WebsiteURL: `http://${name}.${website}.${suffix}`,
  };
}
