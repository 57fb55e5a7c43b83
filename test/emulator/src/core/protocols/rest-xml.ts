/**
 * The restXml protocol (S3, Route 53, CloudFront): HTTP bindings (see
 * rest-codec.ts) with XML bodies. A structure body or payload is one root
 * element (the shape's `xmlName`, else its name) holding the members; errors
 * are `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>`
 * (S3 answers a bare `<Error>`; its module writes that itself).
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import { escapeXml, parseXmlDocument } from '../xml';
import { queryFault } from './aws-query';
import { resolveError } from './codec';
import type { ModelSource } from './model';
import { RestCodec } from './rest-codec';
import { readXml, writeXmlMembers } from './xml-shapes';

export interface RestXmlOptions {
  model: ModelSource;
  xmlns: string;
  faults?: Record<number, { code: string; status: number }>;
}

function rootName(ns: NormalizedSchema): string {
  return (ns.getMergedTraits() as { xmlName?: string }).xmlName ?? ns.getName() ?? 'Root';
}

export class RestXmlCodec extends RestCodec {
  readonly protocol = 'restXml';

  constructor(private readonly options: RestXmlOptions) {
    super(options.model);
  }

  protected readDocument(schema: NormalizedSchema, body: Buffer, path?: string): unknown {
    const parsed = parseXmlDocument(body);
    if (!parsed)
      throw new AwsError(
        'MalformedXML',
        'The XML you provided was not well-formed or did not validate against our published schema',
        400,
      );
    const [root] = Object.keys(parsed);
    return readXml(schema, root === undefined ? undefined : parsed[root], path);
  }

  protected writeDocument(
    schema: NormalizedSchema,
    value: Record<string, unknown>,
    headers: Record<string, string>,
  ): string {
    const out = [
      '<?xml version="1.0" encoding="UTF-8"?>\n<',
      rootName(schema),
      ' xmlns="',
      this.options.xmlns,
      '">',
    ];
    writeXmlMembers(schema, value, out);
    out.push('</', rootName(schema), '>');
    headers['content-type'] = 'application/xml';
    return out.join('');
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

  faultFor(status: number): { code: string; status: number } {
    return this.options.faults?.[status] ?? queryFault(status);
  }
}
