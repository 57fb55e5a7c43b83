/**
 * The awsQuery protocol (STS, CloudFormation, IAM, SNS) and its ec2Query
 * variant (EC2): form-encoded `Action=<Operation>&Version=...` in (POST body
 * or GET query string), XML out. awsQuery wraps the output in
 * `<OpResponse><OpResult>…</OpResult><ResponseMetadata/>`, ec2Query writes it
 * under `<OpResponse>` beside `<requestId>`. Errors: awsQuery
 * `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>` with
 * the `awsQueryError` code and status; ec2Query
 * `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/>`.
 */
import { AwsError } from '../errors';
import { header, type EmulatorRequest, type EmulatorResponse } from '../http';
import { escapeXml } from '../xml';
import { invalidAction, isRawResponse, resolveError, type ProtocolCodec, type ReplyContext } from './codec';
import { ServiceModel, type ModelSource } from './model';
import { paramTree, readQuery } from './query-shapes';
import { writeXmlMembers } from './xml-shapes';

export interface AwsQueryOptions {
  /** API version the SDK sends (`Version=`), used to recognise unsigned requests. */
  version: string;
  /** XML namespace of responses. */
  xmlns: string;
  model: ModelSource;
  /** ec2Query instead of awsQuery. */
  ec2?: boolean;
  /** The error for an action the service does not have (default InvalidAction). */
  unknownOperation?: (action: string) => AwsError;
}

/** Faults named by HTTP status, as the query services report them. */
export function queryFault(status: number): { code: string; status: number } {
  if (status === 503) return { code: 'ServiceUnavailable', status };
  if (status === 429) return { code: 'Throttling', status: 400 };
  if (status >= 500) return { code: 'InternalFailure', status };
  return { code: 'InvalidRequest', status };
}

function ec2Fault(status: number): { code: string; status: number } {
  if (status === 503) return { code: 'Unavailable', status };
  if (status === 429) return { code: 'RequestLimitExceeded', status: 503 };
  if (status >= 500) return { code: 'InternalError', status };
  return { code: 'InvalidParameterValue', status };
}

/** Action parameters from the form body (POST) or the query string (GET). */
export function queryParams(req: EmulatorRequest): URLSearchParams {
  if (req.method === 'POST' && req.body.length) return new URLSearchParams(req.body.toString('utf8'));
  return req.query;
}

const PARAMS = Symbol('query-params');
type WithParams = EmulatorRequest & { [PARAMS]?: URLSearchParams };

/** The request's parameters, parsed once per request. */
function paramsOf(req: EmulatorRequest): URLSearchParams {
  const r = req as WithParams;
  return (r[PARAMS] ??= queryParams(req));
}

export class AwsQueryCodec implements ProtocolCodec {
  readonly protocol: string;
  readonly model: ServiceModel;
  private readonly contentType: string;

  constructor(private readonly options: AwsQueryOptions) {
    this.protocol = options.ec2 ? 'ec2Query' : 'awsQuery';
    this.model = new ServiceModel(options.model);
    this.contentType = options.ec2 ? 'text/xml;charset=UTF-8' : 'text/xml';
  }

  recognizes(req: EmulatorRequest): boolean {
    const contentType = header(req, 'content-type') ?? '';
    if (req.method === 'POST' && !contentType.startsWith('application/x-www-form-urlencoded')) return false;
    return paramsOf(req).get('Version') === this.options.version;
  }

  operation(req: EmulatorRequest): string {
    const action = paramsOf(req).get('Action') ?? '';
    if (!this.model.operation(action)) throw this.unknownOperation(action);
    return action;
  }

  decode(operation: string, req: EmulatorRequest): unknown {
    const params = new URLSearchParams(paramsOf(req));
    params.delete('Action');
    params.delete('Version');
    return readQuery(this.model.operation(operation)!.input, paramTree(params), !!this.options.ec2) ?? {};
  }

  encode(operation: string, output: unknown, reply: ReplyContext): EmulatorResponse {
    if (isRawResponse(output)) return output;
    const schema = this.model.operation(operation)!.output;
    const out: string[] = [
      '<?xml version="1.0" encoding="UTF-8"?>\n<',
      operation,
      'Response xmlns="',
      this.options.xmlns,
      '">',
    ];
    const value = (output ?? {}) as Record<string, unknown>;
    if (this.options.ec2) {
      out.push('<requestId>', reply.requestId, '</requestId>');
      if (schema.isStructSchema()) writeXmlMembers(schema, value, out);
    } else {
      if (schema.isStructSchema() && !schema.isUnitSchema()) {
        out.push('<', operation, 'Result>');
        writeXmlMembers(schema, value, out);
        out.push('</', operation, 'Result>');
      }
      out.push('<ResponseMetadata><RequestId>', reply.requestId, '</RequestId></ResponseMetadata>');
    }
    out.push('</', operation, 'Response>');
    return {
      status: 200,
      headers: { 'content-type': this.contentType, 'x-amzn-requestid': reply.requestId },
      body: out.join(''),
    };
  }

  encodeError(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    const { shape, status } = resolveError(this.model, err, true);
    const code = shape?.queryCode ?? shape?.name ?? err.code;
    const message = escapeXml(err.message);
    const extra = Object.entries(err.extra)
      .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
      .join('');
    const body = this.options.ec2
      ? `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${message}</Message>${extra}</Error></Errors><RequestID>${requestId}</RequestID></Response>`
      : `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${this.options.xmlns}"><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(code)}</Code><Message>${message}</Message>${extra}</Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
    return {
      status,
      headers: { 'content-type': this.contentType, 'x-amzn-requestid': requestId, ...err.headers },
      body,
    };
  }

  unsignedError(): AwsError {
    return new AwsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
  }

  faultFor(status: number): { code: string; status: number } {
    return this.options.ec2 ? ec2Fault(status) : queryFault(status);
  }

  unknownOperation(operation: string): AwsError {
    return (this.options.unknownOperation ?? invalidAction)(operation);
  }
}

/** Reads a required parameter, with the validation error query services answer. */
export function requireParam(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw new AwsError(
      'ValidationError',
      `1 validation error detected: Value null at '${name.charAt(0).toLowerCase()}${name.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}
