/** Bucket CORS configuration (`?cors`). */
import { AwsError } from '../../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { parseXml } from '../../core/xml';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import type { CorsRule } from './store';
import { elementOf, integerOf, listOf, textOf } from './xml-values';

const CORS_METHODS = new Set(['GET', 'PUT', 'HEAD', 'POST', 'DELETE']);
const MAX_RULES = 100;

export class CorsHandlers extends S3Base {
  getBucketCors(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:GetBucketCORS');
    if (!bucket.cors) {
      throw new AwsError('NoSuchCORSConfiguration', 'The CORS configuration does not exist', 404, {
        BucketName: bucket.name,
      });
    }
    return this.xml(200, 'CORSConfiguration', {
      CORSRule: bucket.cors.map((r) => ({
        ID: r.ID,
        AllowedHeader: r.AllowedHeaders,
        AllowedMethod: r.AllowedMethods,
        AllowedOrigin: r.AllowedOrigins,
        ExposeHeader: r.ExposeHeaders,
        MaxAgeSeconds: r.MaxAgeSeconds,
      })),
    });
  }

  putBucketCors(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketCORS');
    const doc = elementOf(parseXml(req.body)?.CORSConfiguration);
    const raw = listOf(doc?.CORSRule);
    if (!doc || raw.length === 0 || raw.length > MAX_RULES) throw s3Errors.malformedXml();
    bucket.cors = raw.map((r) => parseCorsRule(elementOf(r)));
    return { status: 200 };
  }

  deleteBucketCors(ctx: CallContext, _req: EmulatorRequest, target: Target): EmulatorResponse {
    const bucket = this.bucketFor(ctx, target.Bucket!, 's3:PutBucketCORS');
    bucket.cors = undefined;
    return { status: 204 };
  }
}

function strings(value: unknown): string[] {
  return listOf(value).map((v) => textOf(v) ?? '');
}

function parseCorsRule(raw: Record<string, unknown> | undefined): CorsRule {
  if (!raw) throw s3Errors.malformedXml();
  const rule: CorsRule = {
    ID: textOf(raw.ID),
    AllowedHeaders: strings(raw.AllowedHeader),
    AllowedMethods: strings(raw.AllowedMethod),
    AllowedOrigins: strings(raw.AllowedOrigin),
    ExposeHeaders: strings(raw.ExposeHeader),
    MaxAgeSeconds: integerOf(raw.MaxAgeSeconds),
  };
  if (rule.AllowedMethods.length === 0 || rule.AllowedOrigins.length === 0) throw s3Errors.malformedXml();
  const unsupported = rule.AllowedMethods.find((m) => !CORS_METHODS.has(m));
  if (unsupported !== undefined)
    throw s3Errors.invalidRequest(
      `Found unsupported HTTP method in CORS config. Unsupported method is ${unsupported}`,
    );
  if (rule.ID !== undefined && rule.ID.length > 255)
    throw s3Errors.invalidArgument('ID length should not exceed allowed limit of 255', 'ID', rule.ID);
  for (const origin of rule.AllowedOrigins) {
    if ((origin.match(/\*/g) ?? []).length > 1)
      throw s3Errors.invalidRequest(`AllowedOrigin "${origin}" can not have more than one wildcard.`);
  }
  return rule;
}
