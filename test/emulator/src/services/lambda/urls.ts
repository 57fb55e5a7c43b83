/**
 * Function URLs: Create/Get/Update/DeleteFunctionUrlConfig and
 * ListFunctionUrlConfigs, on the unqualified function or an alias. The
 * emulator hands out URLs in AWS's form; it does not serve them.
 */
import type { Cors } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import { randomBytes } from 'node:crypto';
import type { CallContext, Operations } from '../../core/service';
import type { LambdaContext } from './context';
import { page } from './functions';
import type { LambdaFunction, UrlRecord } from './model';
import { functionArn, resolveQualifier, validationError } from './names';
import { aliasNotFound } from './aliases';

interface UrlInput {
  FunctionName?: string;
  Qualifier?: string;
  AuthType?: string;
  Cors?: Cors;
  InvokeMode?: string;
}

const AUTH_TYPES = ['NONE', 'AWS_IAM'];
const INVOKE_MODES = ['BUFFERED', 'RESPONSE_STREAM'];

function urlId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(32)].map((b) => alphabet[b % alphabet.length]).join('');
}

function checkMembers(input: UrlInput): void {
  if (input.AuthType !== undefined && !AUTH_TYPES.includes(input.AuthType))
    throw validationError('authType', input.AuthType, 'Member must satisfy enum value set: [NONE, AWS_IAM]');
  if (input.InvokeMode !== undefined && !INVOKE_MODES.includes(input.InvokeMode))
    throw validationError(
      'invokeMode',
      input.InvokeMode,
      'Member must satisfy enum value set: [BUFFERED, RESPONSE_STREAM]',
    );
  if (input.Cors?.MaxAge !== undefined && (input.Cors.MaxAge < 0 || input.Cors.MaxAge > 86400))
    throw validationError(
      'cors.maxAge',
      input.Cors.MaxAge,
      'Member must have value less than or equal to 86400',
    );
}

function render(url: UrlRecord): Record<string, unknown> {
  return { ...url };
}

export class UrlHandlers {
  readonly operations: Operations = {
    CreateFunctionUrlConfig: (ctx, input: UrlInput) => {
      const { fn, key } = this.target(ctx, input);
      if (!input.AuthType) throw validationError('authType', null, 'Member must not be null');
      checkMembers(input);
      const arn = functionArn(fn.account, fn.region, fn.name, key || undefined);
      if (fn.urls[key])
        throw new AwsError(
          'ResourceConflictException',
          `Failed to create function url config for [functionArn = ${arn}]. Error message:  FunctionUrlConfig exists for this Lambda function`,
        );
      const now = new Date().toISOString();
      const url: UrlRecord = {
        FunctionUrl: `https://${urlId()}.lambda-url.${fn.region}.on.aws/`,
        FunctionArn: arn,
        AuthType: input.AuthType,
        ...(input.Cors ? { Cors: input.Cors } : {}),
        InvokeMode: input.InvokeMode ?? 'BUFFERED',
        CreationTime: now,
        LastModifiedTime: now,
      };
      fn.urls[key] = url;
      const { LastModifiedTime: _omitted, ...created } = url;
      return created;
    },
    GetFunctionUrlConfig: (ctx, input: UrlInput) => render(this.url(ctx, input).url),
    UpdateFunctionUrlConfig: (ctx, input: UrlInput) => {
      const { url } = this.url(ctx, input);
      checkMembers(input);
      if (input.AuthType !== undefined) url.AuthType = input.AuthType;
      if (input.Cors !== undefined) url.Cors = input.Cors;
      if (input.InvokeMode !== undefined) url.InvokeMode = input.InvokeMode;
      url.LastModifiedTime = new Date().toISOString();
      return render(url);
    },
    DeleteFunctionUrlConfig: (ctx, input: UrlInput) => {
      const { fn, key } = this.url(ctx, input);
      delete fn.urls[key];
      return {};
    },
    ListFunctionUrlConfigs: (ctx, input: { FunctionName?: string; Marker?: string; MaxItems?: number }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      const urls = Object.entries(fn.urls).sort(([a], [b]) => (a < b ? -1 : 1));
      const { items, nextMarker } = page(urls, ([key]) => key || ' ', input.Marker, input.MaxItems, 50);
      return { FunctionUrlConfigs: items.map(([, url]) => render(url)), NextMarker: nextMarker };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The function and URL key (`''` or an alias name) a call addresses. */
  private target(ctx: CallContext, input: UrlInput): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const qualifier = resolveQualifier(ref, input.Qualifier);
    if (qualifier === undefined) return { fn, key: '' };
    if (qualifier === '$LATEST' || /^\d+$/.test(qualifier))
      throw validationError(
        'qualifier',
        qualifier,
        'Member must satisfy regular expression pattern: ((?!^\\d+$)^[0-9a-zA-Z-_]+$)',
      );
    if (!fn.aliases[qualifier]) throw aliasNotFound(fn, qualifier);
    return { fn, key: qualifier };
  }

  private url(ctx: CallContext, input: UrlInput): { fn: LambdaFunction; key: string; url: UrlRecord } {
    const { fn, key } = this.target(ctx, input);
    const url = fn.urls[key];
    if (!url) throw new AwsError('ResourceNotFoundException', 'The resource you requested does not exist.');
    return { fn, key, url };
  }
}
