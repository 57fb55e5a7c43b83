/**
 * The protocol codec a service module names: it finds the operation a request
 * calls, reads the request into the operation's input, writes the handler's
 * output and errors as the protocol does. Handlers see only plain objects.
 */
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import type { ErrorModel, ServiceModel } from './model';

export interface ProtocolCodec {
  /** `awsJson1_0`, `awsJson1_1`, `awsQuery`, `ec2Query`, `restJson1`, `restXml`, or a service's own. */
  readonly protocol: string;
  /** True when an unsigned request is this service's (e.g. its `X-Amz-Target` prefix). */
  recognizes?(req: EmulatorRequest): boolean;
  /** The operation a request calls; throws an AwsError for an unknown one. */
  operation(req: EmulatorRequest): string;
  /** The request as the operation's input (throws an AwsError when malformed). */
  decode(operation: string, req: EmulatorRequest): unknown;
  /** The handler's output as the response. */
  encode(operation: string, output: unknown, reply: ReplyContext): EmulatorResponse;
  encodeError(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse;
  /** The error AWS answers an unsigned request with. */
  unsignedError(req: EmulatorRequest): AwsError;
  /** The error code and status a fault named by an HTTP status (500, 503, 429) becomes. */
  faultFor(status: number): { code: string; status: number };
  /** The error for an operation the model has but the service does not implement. */
  unknownOperation(operation: string): AwsError;
  /** A new request id in the service's format (default: a UUID). */
  newRequestId?(): string;
  /** Headers every response of the service carries (default: `x-amzn-requestid`). */
  responseHeaders?(requestId: string): Record<string, string>;
}

export interface ReplyContext {
  requestId: string;
  request: EmulatorRequest;
}

const RAW = Symbol.for('@cdkd/aws-emulator/raw-response');

/**
 * A handler's escape hatch: a response written by hand, passed through by
 * every codec unchanged (for quirks a model cannot express).
 */
export function rawResponse(response: EmulatorResponse): EmulatorResponse {
  return Object.assign(response, { [RAW]: true });
}

export function isRawResponse(value: unknown): value is EmulatorResponse {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RAW] === true;
}

/** An error resolved against the model: its shape (if modelled) and the status to answer with. */
export interface ResolvedError {
  shape?: ErrorModel;
  status: number;
}

export function resolveError(model: ServiceModel | undefined, err: AwsError, query: boolean): ResolvedError {
  const shape = model?.error(err.code);
  if (err.explicitStatus || !shape) return { shape, status: err.status };
  const status =
    (query ? shape.queryStatus : undefined) ?? shape.httpStatus ?? (shape.fault === 'server' ? 500 : 400);
  return { shape, status };
}

/** The member of an error shape that carries the message (`message` or `Message`). */
export function messageMember(shape: ErrorModel | undefined): string {
  if (!shape) return 'message';
  for (const [name] of shape.schema.structIterator()) if (name.toLowerCase() === 'message') return name;
  return 'message';
}

/** The error query-protocol services answer for an action they do not have. */
export function invalidAction(action: string): AwsError {
  return new AwsError('InvalidAction', `The action ${action} is not valid for this web service.`, 400);
}

/** The error JSON services answer for an operation they do not have. */
export function unknownJsonOperation(operation: string): AwsError {
  return new AwsError('UnknownOperationException', `Unknown operation ${operation}`, 400);
}
