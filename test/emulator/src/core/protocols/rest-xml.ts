/**
 * The restXml protocol (S3, Route 53, CloudFront): HTTP bindings as restJson1,
 * with XML bodies. A structure body or payload is one root element (the
 * shape's `xmlName`, else its name) holding the members; errors are
 * `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>`
 * (S3 answers a bare `<Error>`; its module writes that itself).
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { XMLParser } from 'fast-xml-parser';
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import { escapeXml } from '../xml';
import { isRawResponse, resolveError, type ProtocolCodec, type ReplyContext } from './codec';
import {
  HttpRouter,
  payloadBytes,
  rawPayload,
  readBindings,
  unknownRoute,
  writeBindings,
} from './http-bindings';
import { ServiceModel, type ModelSource } from './model';
import { queryFault } from './aws-query';
import { readXml, writeXmlMembers } from './xml-shapes';

export interface RestXmlOptions {
  model: ModelSource;
  xmlns: string;
  faults?: Record<number, { code: string; status: number }>;
}

const LABELS = Symbol('rest-labels');
type Routed = EmulatorRequest & { [LABELS]?: Record<string, string> };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
});

/** The content of an XML document's single root element. */
function rootContent(body: Buffer): unknown {
  let parsed: Record<string, unknown>;
  try {
    parsed = parser.parse(body.toString('utf8'), true) as Record<string, unknown>;
  } catch {
    throw new AwsError(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
      400,
    );
  }
  delete parsed['?xml'];
  const [root] = Object.keys(parsed);
  return root === undefined ? undefined : parsed[root];
}

function rootName(ns: NormalizedSchema): string {
  return (ns.getMergedTraits() as { xmlName?: string }).xmlName ?? ns.getName() ?? 'Root';
}

export class RestXmlCodec implements ProtocolCodec {
  readonly protocol = 'restXml';
  readonly model: ServiceModel;
  private readonly router: HttpRouter;

  constructor(private readonly options: RestXmlOptions) {
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
        if (req.body.length) bound[name] = raw;
      } else if (req.body.length) bound[name] = readXml(member, rootContent(req.body), name);
    } else if (bodyMembers && req.body.length) {
      const body = readXml(input, rootContent(req.body)) as Record<string, unknown>;
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
    const document = (ns: NormalizedSchema, value: Record<string, unknown>) => {
      const out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<',
        rootName(ns),
        ' xmlns="',
        this.options.xmlns,
        '">',
      ];
      writeXmlMembers(ns, value, out);
      out.push('</', rootName(ns), '>');
      headers['content-type'] = 'application/xml';
      return out.join('');
    };
    if (payload) {
      const [member, value] = payload;
      content = payloadBytes(member, value);
      if (content === undefined && value && typeof value === 'object' && member.isStructSchema())
        content = document(member, value as Record<string, unknown>);
    } else if (hasBody) content = document(op.output, body);
    return { status: status ?? op.http?.code ?? 200, headers, body: content };
  }

  encodeError(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    const { shape, status } = resolveError(this.model, err, false);
    const code = shape?.name ?? err.code;
    const extra = Object.entries(err.extra)
      .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
      .join('');
    return {
      status,
      headers: { 'content-type': 'application/xml', 'x-amzn-requestid': requestId, ...err.headers },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${this.options.xmlns}"><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(err.message)}</Message>${extra}</Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
    };
  }

  unsignedError(): AwsError {
    return new AwsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
  }

  unknownOperation(operation: string): AwsError {
    return new AwsError('UnknownOperationException', `The emulator does not implement ${operation}`, 501);
  }

  faultFor(status: number): { code: string; status: number } {
    return this.options.faults?.[status] ?? queryFault(status);
  }
}
