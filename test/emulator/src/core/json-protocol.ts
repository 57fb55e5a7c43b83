/** The AWS JSON 1.0 / 1.1 protocols (Cloud Control, SQS, SSM). */
import { AwsError } from './errors';
import { header, type EmulatorRequest, type EmulatorResponse } from './http';
import type { CallContext, RoutedCall, ServiceHandler } from './service';

export interface JsonProtocolOptions {
  /** `1.0` or `1.1`. */
  version: '1.0' | '1.1';
  /** Namespace of error shapes: `com.amazonaws.sqs`. */
  errorNamespace: string;
  /** awsQueryCompatible services (SQS): query error codes by JSON error name. */
  queryErrorCodes?: Record<string, string>;
  /** Faults the service names otherwise than {@link jsonFault}, by the HTTP status asked for. */
  faults?: Record<number, { code: string; status: number }>;
}

/** The operation named by `X-Amz-Target: <Prefix>.<Operation>`. */
export function jsonTarget(req: EmulatorRequest): string | undefined {
  const target = header(req, 'x-amz-target');
  if (!target) return undefined;
  const dot = target.lastIndexOf('.');
  return dot < 0 ? target : target.slice(dot + 1);
}

/** The JSON input of a request (`{}` for an empty body). */
export function jsonInput(req: EmulatorRequest): Record<string, unknown> {
  if (!req.body.length) return {};
  try {
    const value = JSON.parse(req.body.toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new AwsError('SerializationException', 'Start of structure or map found where not expected.');
}

export function jsonOk(options: JsonProtocolOptions, value: unknown, requestId: string): EmulatorResponse {
  return {
    status: 200,
    headers: { 'content-type': `application/x-amz-json-${options.version}`, 'x-amzn-requestid': requestId },
    body: JSON.stringify(value ?? {}),
  };
}

export function jsonError(options: JsonProtocolOptions, err: AwsError, requestId: string): EmulatorResponse {
  const headers: Record<string, string> = {
    'content-type': `application/x-amz-json-${options.version}`,
    'x-amzn-requestid': requestId,
    'x-amzn-errortype': err.code,
  };
  const queryCode = options.queryErrorCodes?.[err.code];
  if (options.queryErrorCodes) headers['x-amzn-query-error'] = `${queryCode ?? err.code};${err.faultType}`;
  return {
    status: err.status,
    headers,
    body: JSON.stringify({
      __type: `${options.errorNamespace}#${err.code}`,
      message: err.message,
      ...err.extra,
    }),
  };
}

/** Faults named by HTTP status, as JSON services report them. */
export function jsonFault(status: number): { code: string; status: number } {
  if (status === 503) return { code: 'ServiceUnavailable', status };
  if (status === 429) return { code: 'ThrottlingException', status: 400 };
  if (status >= 500) return { code: 'InternalFailure', status };
  return { code: 'ValidationException', status };
}

export function missingAuthTokenException(): AwsError {
  return new AwsError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
}

/** Reads a required string member. */
export function requireString(
  input: Record<string, unknown>,
  name: string,
  code = 'ValidationException',
): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw new AwsError(
      code,
      `1 validation error detected: Value null at '${name}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

/** One operation of a JSON service: the request's JSON input in, the response's JSON value out. */
export type JsonOperation = (ctx: CallContext, input: Record<string, unknown>) => unknown;

/**
 * What every JSON-protocol service does alike: finds the operation named by
 * `X-Amz-Target`, answers in JSON, and reports errors, unsigned requests and
 * injected faults as the protocol does. A service lists its operations and
 * its protocol options.
 */
export abstract class JsonService implements ServiceHandler {
  abstract readonly name: string;
  protected abstract readonly protocol: JsonProtocolOptions;
  protected abstract readonly operations: Record<string, JsonOperation>;

  route(req: EmulatorRequest): RoutedCall {
    const operation = jsonTarget(req) ?? '';
    const handler = this.operations[operation];
    if (!handler) throw this.unknownOperation(operation);
    let input: Record<string, unknown> | undefined;
    try {
      input = jsonInput(req);
    } catch {
      input = undefined; // run() reports the malformed body
    }
    return {
      operation,
      ...(input ? { input } : {}),
      run: (ctx) => jsonOk(this.protocol, handler(ctx, jsonInput(req)), ctx.requestId),
    };
  }

  /** The error for an operation the service does not have. */
  protected unknownOperation(operation: string): AwsError {
    return new AwsError('UnknownOperationException', `Unknown operation ${operation}`, 400);
  }

  errorResponse(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    return jsonError(this.protocol, err, requestId);
  }

  unsignedError(): AwsError {
    return missingAuthTokenException();
  }

  faultFor(status: number): { code: string; status: number } {
    return this.protocol.faults?.[status] ?? jsonFault(status);
  }
}
