/**
 * The restJson1 protocol (Lambda): operations found by their `http` trait,
 * input from labels, query, headers, payload and a JSON body (`jsonName`
 * honoured), output likewise; errors as `x-amzn-errortype: <Code>` with a
 * JSON body `{ "message": ... }` and the error shape's `httpError` status.
 */
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import { isRawResponse, messageMember, resolveError, type ProtocolCodec, type ReplyContext } from './codec';
import {
  HttpRouter,
  payloadBytes,
  rawPayload,
  readBindings,
  unknownRoute,
  writeBindings,
} from './http-bindings';
import { readJson, writeJson, type JsonSettings } from './json-shapes';
import { ServiceModel, type ModelSource } from './model';
import { jsonFault } from './aws-json';

export interface RestJsonOptions {
  model: ModelSource;
  faults?: Record<number, { code: string; status: number }>;
}

const SETTINGS: JsonSettings = { jsonName: true, timestamps: 'epoch-seconds' };
const LABELS = Symbol('rest-labels');
type Routed = EmulatorRequest & { [LABELS]?: Record<string, string> };

export class RestJsonCodec implements ProtocolCodec {
  readonly protocol = 'restJson1';
  readonly model: ServiceModel;
  private readonly router: HttpRouter;

  constructor(private readonly options: RestJsonOptions) {
    this.model = new ServiceModel(options.model);
    this.router = new HttpRouter(this.model);
  }

  operation(req: EmulatorRequest): string {
    const match = this.router.match(req);
    if (!match) throw unknownRoute(req);
    (req as Routed)[LABELS] = match.labels;
    return match.operation;
  }

  decode(operation: string, req: EmulatorRequest): unknown {
    const input = this.model.operation(operation)!.input;
    const { bound, payload, bodyMembers } = readBindings(input, req, (req as Routed)[LABELS] ?? {});
    if (payload) {
      const [name, member] = payload;
      const raw = rawPayload(member, req.body);
      if (raw !== undefined) {
        // An empty payload is an absent one.
        if (req.body.length) bound[name] = raw;
      } else if (req.body.length) bound[name] = readJson(member, parseJson(req.body), SETTINGS, name);
    } else if (bodyMembers && req.body.length) {
      const body = readJson(input, parseJson(req.body), SETTINGS) as Record<string, unknown>;
      for (const [k, v] of Object.entries(body)) if (!(k in bound)) bound[k] = v;
    }
    return bound;
  }

  encode(operation: string, output: unknown, reply: ReplyContext): EmulatorResponse {
    if (isRawResponse(output)) return output;
    const op = this.model.operation(operation)!;
    const { status, headers, payload, body, hasBody } = writeBindings(
      op.output,
      (output ?? {}) as Record<string, unknown>,
    );
    headers['x-amzn-requestid'] = reply.requestId;
    let content: Buffer | string | undefined;
    if (payload) {
      const [member, value] = payload;
      content = payloadBytes(member, value);
      if (content === undefined && value !== undefined) {
        content = JSON.stringify(writeJson(member, value, SETTINGS));
        headers['content-type'] = 'application/json';
      } else if (content !== undefined)
        headers['content-type'] ??= member.isBlobSchema() ? 'application/octet-stream' : 'text/plain';
    } else if (hasBody) {
      content = JSON.stringify(writeJson(op.output, body, SETTINGS) ?? {});
      headers['content-type'] = 'application/json';
    }
    return { status: status ?? op.http?.code ?? 200, headers, body: content };
  }

  encodeError(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    const { shape, status } = resolveError(this.model, err, false);
    const code = shape?.name ?? err.code;
    const body: Record<string, unknown> = { [messageMember(shape)]: err.message, ...err.extra };
    if (shape && [...shape.schema.structIterator()].some(([n]) => n === 'Type'))
      body.Type = status >= 500 ? 'Service' : 'User';
    return {
      status,
      headers: {
        'content-type': 'application/json',
        'x-amzn-errortype': code,
        'x-amzn-requestid': requestId,
        ...err.headers,
      },
      body: JSON.stringify(body),
    };
  }

  unsignedError(): AwsError {
    return new AwsError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
  }

  unknownOperation(operation: string): AwsError {
    return new AwsError('UnknownOperationException', `The emulator does not implement ${operation}`, 501);
  }

  faultFor(status: number): { code: string; status: number } {
    return this.options.faults?.[status] ?? jsonFault(status);
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new AwsError('SerializationException', 'The request body is not valid JSON.', 400);
  }
}
