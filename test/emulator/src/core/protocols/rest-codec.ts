/**
 * What restJson1 and restXml share: the operation found by its `http` trait,
 * input members read from labels, query, headers and payload, output members
 * written to the status, headers and payload. A subclass reads and writes the
 * body document (JSON or XML) and the protocol's errors.
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import { isRawResponse, type ProtocolCodec, type ReplyContext } from './codec';
import {
  HttpRouter,
  payloadBytes,
  rawPayload,
  readBindings,
  unknownRoute,
  writeBindings,
} from './http-bindings';
import { ServiceModel, type ModelSource } from './model';

const LABELS = Symbol('rest-labels');
type Routed = EmulatorRequest & { [LABELS]?: Record<string, string> };

export abstract class RestCodec implements ProtocolCodec {
  abstract readonly protocol: string;
  readonly model: ServiceModel;
  private readonly router: HttpRouter;

  constructor(model: ModelSource) {
    this.model = new ServiceModel(model);
    this.router = new HttpRouter(this.model);
  }

  /** A body document (the whole body, or a structure payload) read into the SDK shape. */
  protected abstract readDocument(schema: NormalizedSchema, body: Buffer, path?: string): unknown;
  /** A structure as the body document; sets the content type. */
  protected abstract writeDocument(
    schema: NormalizedSchema,
    value: Record<string, unknown>,
    headers: Record<string, string>,
  ): string;

  abstract encodeError(err: AwsError, req: EmulatorRequest, requestId: string): EmulatorResponse;
  abstract unsignedError(req: EmulatorRequest): AwsError;
  abstract faultFor(status: number): { code: string; status: number };

  operation(req: EmulatorRequest): string {
    const match = this.router.match(req);
    if (!match) throw unknownRoute(req);
    (req as Routed)[LABELS] = match.labels;
    return match.operation;
  }

  decode(operation: string, req: EmulatorRequest): unknown {
    const input = this.model.operation(operation)!.input;
    const { bound, payload, bodyMembers } = readBindings(input, req, (req as Routed)[LABELS] ?? {});
    // An empty body is an absent payload.
    if (!req.body.length) return bound;
    if (payload) {
      const [name, member] = payload;
      bound[name] = rawPayload(member, req.body) ?? this.readDocument(member, req.body, name);
    } else if (bodyMembers) {
      const body = this.readDocument(input, req.body) as Record<string, unknown>;
      for (const [k, v] of Object.entries(body)) if (!(k in bound)) bound[k] = v;
    }
    return bound;
  }

  encode(operation: string, output: unknown, reply: ReplyContext): EmulatorResponse {
    if (isRawResponse(output)) return output;
    const op = this.model.operation(operation)!;
    const value = (output ?? {}) as Record<string, unknown>;
    const { status, headers, payload, body, hasBody } = writeBindings(op.output, value);
    headers['x-amzn-requestid'] = reply.requestId;
    let content: Buffer | string | undefined;
    if (payload) {
      const [member, payloadValue] = payload;
      content = payloadBytes(member, payloadValue);
      if (content !== undefined)
        headers['content-type'] ??= member.isBlobSchema() ? 'application/octet-stream' : 'text/plain';
      else if (payloadValue && typeof payloadValue === 'object')
        content = this.writeDocument(member, payloadValue as Record<string, unknown>, headers);
    } else if (hasBody) content = this.writeDocument(op.output, body, headers);
    return { status: status ?? op.http?.code ?? 200, headers, body: content };
  }

  unknownOperation(operation: string): AwsError {
    return new AwsError('UnknownOperationException', `The emulator does not implement ${operation}`, 501);
  }
}
