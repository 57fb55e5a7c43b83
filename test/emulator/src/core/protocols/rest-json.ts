/**
 * The restJson1 protocol (Lambda): HTTP bindings (see rest-codec.ts) with a
 * JSON body (`jsonName` honoured); errors as `x-amzn-errortype: <Code>` with
 * a JSON body `{ "message": ... }` and the error shape's `httpError` status.
 */
import type { NormalizedSchema } from '@smithy/core/schema';
import { AwsError } from '../errors';
import type { EmulatorRequest, EmulatorResponse } from '../http';
import { jsonFault } from './aws-json';
import { messageMember, resolveError } from './codec';
import { readJson, writeJson, type JsonSettings } from './json-shapes';
import type { ModelSource } from './model';
import { RestCodec } from './rest-codec';

export interface RestJsonOptions {
  model: ModelSource;
  faults?: Record<number, { code: string; status: number }>;
}

const SETTINGS: JsonSettings = { jsonName: true, timestamps: 'epoch-seconds' };

export class RestJsonCodec extends RestCodec {
  readonly protocol = 'restJson1';

  constructor(private readonly options: RestJsonOptions) {
    super(options.model);
  }

  protected readDocument(schema: NormalizedSchema, body: Buffer, path?: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw new AwsError('SerializationException', 'The request body is not valid JSON.', 400);
    }
    return readJson(schema, value, SETTINGS, path);
  }

  protected writeDocument(
    schema: NormalizedSchema,
    value: Record<string, unknown>,
    headers: Record<string, string>,
  ): string {
    headers['content-type'] = 'application/json';
    return JSON.stringify(writeJson(schema, value, SETTINGS) ?? {});
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

  faultFor(status: number): { code: string; status: number } {
    return this.options.faults?.[status] ?? jsonFault(status);
  }
}
