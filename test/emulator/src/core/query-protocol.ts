/** The AWS query protocol (STS, CloudFormation): form-encoded input, XML output. */
import { AwsError } from './errors';
import type { EmulatorRequest, EmulatorResponse } from './http';
import type { RoutedCall, ServiceHandler } from './service';
import { xmlDocument, type XmlValue } from './xml';

/** Action parameters from the form body (POST) or the query string (GET). */
export function queryParams(req: EmulatorRequest): URLSearchParams {
  if (req.method === 'POST' && req.body.length) return new URLSearchParams(req.body.toString('utf8'));
  return req.query;
}

/** `<Action>Response` with `<Action>Result` and the request id. */
export function queryResponse(
  action: string,
  xmlns: string,
  result: XmlValue,
  requestId: string,
): EmulatorResponse {
  const content: Record<string, XmlValue> = {};
  if (result !== undefined) content[`${action}Result`] = result;
  content.ResponseMetadata = { RequestId: requestId };
  return {
    status: 200,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
    body: xmlDocument(`${action}Response`, content, xmlns),
  };
}

export function queryError(err: AwsError, xmlns: string, requestId: string): EmulatorResponse {
  return {
    status: err.status,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
    body: xmlDocument(
      'ErrorResponse',
      { Error: { Type: err.faultType, Code: err.code, Message: err.message }, RequestId: requestId },
      xmlns,
    ),
  };
}

export function requireParam(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === '') {
    throw new AwsError(
      'ValidationError',
      `1 validation error detected: Value null at '${name.charAt(0).toLowerCase()}${name.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

/** Faults named by HTTP status, as the query protocol services report them. */
export function queryFault(status: number): { code: string; status: number } {
  if (status === 503) return { code: 'ServiceUnavailable', status };
  if (status === 429) return { code: 'Throttling', status: 400 };
  if (status >= 500) return { code: 'InternalFailure', status };
  return { code: 'InvalidRequest', status };
}

export function missingAuthToken(): AwsError {
  return new AwsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
}

/**
 * What every query-protocol service answers alike: XML errors in the
 * service's namespace, and the protocol's unsigned-request and fault errors.
 * A service routes its own actions.
 */
export abstract class QueryService implements ServiceHandler {
  abstract readonly name: string;
  /** The XML namespace of the service's responses. */
  protected abstract readonly xmlns: string;

  abstract route(req: EmulatorRequest): RoutedCall;

  errorResponse(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    return queryError(err, this.xmlns, requestId);
  }

  unsignedError(): AwsError {
    return missingAuthToken();
  }

  faultFor(status: number): { code: string; status: number } {
    return queryFault(status);
  }
}
