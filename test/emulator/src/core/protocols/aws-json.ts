/**
 * The awsJson1_0 and awsJson1_1 protocols: `POST /` with
 * `X-Amz-Target: <Prefix>.<Operation>`, a JSON body in and out, errors as
 * `{ "__type": "<namespace>#<Code>", "message": ... }` with the shape's status.
 * awsQueryCompatible services (SQS) also answer `x-amzn-query-error` with the
 * query code from the error shape's `awsQueryError` trait.
 */
import { AwsError } from '../errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../http';
import {
  isRawResponse,
  messageMember,
  resolveError,
  unknownJsonOperation,
  type ProtocolCodec,
  type ReplyContext,
} from './codec';
import { readJson, writeJson, type JsonSettings } from './json-shapes';
import { ServiceModel, type ModelSource } from './model';

export interface AwsJsonOptions {
  version: '1.0' | '1.1';
  /** The `X-Amz-Target` prefix: `AmazonSQS`, `AmazonSSM`, `CloudApiService`. */
  targetPrefix: string;
  /** Namespace of `__type`: `com.amazonaws.sqs`. */
  namespace: string;
  model: ModelSource;
  awsQueryCompatible?: boolean;
  /** Faults the service names otherwise than {@link jsonFault}, by the HTTP status asked for. */
  faults?: Record<number, { code: string; status: number }>;
  /** The error for an operation the service does not have (default UnknownOperationException). */
  unknownOperation?: (operation: string) => AwsError;
}

const SETTINGS: JsonSettings = { jsonName: false, timestamps: 'epoch-seconds' };

/** Faults named by HTTP status, as JSON services report them. */
export function jsonFault(status: number): { code: string; status: number } {
  if (status === 503) return { code: 'ServiceUnavailable', status };
  if (status === 429) return { code: 'ThrottlingException', status: 400 };
  if (status >= 500) return { code: 'InternalFailure', status };
  return { code: 'ValidationException', status };
}

export class AwsJsonCodec implements ProtocolCodec {
  readonly protocol: string;
  readonly model: ServiceModel;
  private readonly contentType: string;

  constructor(private readonly options: AwsJsonOptions) {
    this.protocol = options.version === '1.0' ? 'awsJson1_0' : 'awsJson1_1';
    this.model = new ServiceModel(options.model);
    this.contentType = `application/x-amz-json-${options.version}`;
  }

  recognizes(req: EmulatorRequest): boolean {
    return header(req, 'x-amz-target')?.startsWith(`${this.options.targetPrefix}.`) ?? false;
  }

  operation(req: EmulatorRequest): string {
    const target = header(req, 'x-amz-target') ?? '';
    const dot = target.lastIndexOf('.');
    const name = dot < 0 ? target : target.slice(dot + 1);
    if (!this.model.operation(name)) throw this.unknownOperation(name);
    return name;
  }

  decode(operation: string, req: EmulatorRequest): unknown {
    let value: unknown = {};
    if (req.body.length) {
      try {
        value = JSON.parse(req.body.toString('utf8')) as unknown;
      } catch {
        value = undefined;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new AwsError('SerializationException', 'Start of structure or map found where not expected.');
    }
    return readJson(this.model.operation(operation)!.input, value, SETTINGS);
  }

  encode(operation: string, output: unknown, reply: ReplyContext): EmulatorResponse {
    if (isRawResponse(output)) return output;
    const body = writeJson(this.model.operation(operation)!.output, output ?? {}, SETTINGS) ?? {};
    return {
      status: 200,
      headers: { 'content-type': this.contentType, 'x-amzn-requestid': reply.requestId },
      body: JSON.stringify(body),
    };
  }

  encodeError(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    const { shape, status } = resolveError(this.model, err, false);
    const code = shape?.name ?? err.code;
    const headers: Record<string, string> = {
      'content-type': this.contentType,
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': code,
      ...err.headers,
    };
    if (this.options.awsQueryCompatible)
      headers['x-amzn-query-error'] = `${shape?.queryCode ?? code};${status >= 500 ? 'Receiver' : 'Sender'}`;
    return {
      status,
      headers,
      body: JSON.stringify({
        __type: `${this.options.namespace}#${code}`,
        [messageMember(shape)]: err.message,
        ...err.extra,
      }),
    };
  }

  unsignedError(): AwsError {
    return new AwsError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
  }

  faultFor(status: number): { code: string; status: number } {
    return this.options.faults?.[status] ?? jsonFault(status);
  }

  unknownOperation(operation: string): AwsError {
    return (this.options.unknownOperation ?? unknownJsonOperation)(operation);
  }
}

/** Reads a required string member, with the validation error JSON services answer. */
export function requireString(
  input: Record<string, unknown>,
  name: string,
  code = 'ValidationException',
): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw new AwsError(
      code,
      `1 validation error detected: Value null at '${name.charAt(0).toLowerCase()}${name.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}
