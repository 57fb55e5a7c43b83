/**
 * A service's published Smithy model as the AWS SDK for JavaScript v3 ships it:
 * every `@aws-sdk/client-*` package exports a static schema per operation
 * (`CreateQueue$`), structure and error shape, with their traits. The codecs
 * navigate them with `@smithy/core/schema`'s NormalizedSchema. A model is
 * loaded on first use, so a service nobody calls costs nothing at start-up.
 */
import { NormalizedSchema } from '@smithy/core/schema';

/** `[9, namespace, name, traits, input, output]`: an operation's static schema. */
type StaticOperation = [9, string, string, Record<string, unknown> | number, unknown, unknown];
/** `[-3, namespace, name, traits, memberNames, memberSchemas]`: an error shape. */
type StaticError = [-3, string, string, Record<string, unknown>, string[], unknown[]];

/** The `http` trait of an operation: method, URI pattern (with static query), success status. */
export interface HttpTrait {
  method: string;
  uri: string;
  code: number;
}

export interface OperationModel {
  name: string;
  input: NormalizedSchema;
  output: NormalizedSchema;
  http?: HttpTrait;
  traits: Record<string, unknown>;
}

export interface ErrorModel {
  /** Shape name: `QueueDoesNotExist`, `NoSuchEntityException`. */
  name: string;
  schema: NormalizedSchema;
  /** `client` or `server`. */
  fault: string;
  /** `httpError` trait. */
  httpStatus?: number;
  /** `awsQueryError` trait: the code (and status) the query protocol uses. */
  queryCode?: string;
  queryStatus?: number;
}

/** What a service module names to get its model: the SDK client package, loaded lazily. */
export type ModelSource = () => Record<string, unknown>;

function isStatic(value: unknown, kind: number): boolean {
  return Array.isArray(value) && value[0] === kind && typeof value[2] === 'string';
}

export class ServiceModel {
  private loaded?: {
    operations: Map<string, OperationModel>;
    errors: Map<string, ErrorModel>;
    errorsByQueryCode: Map<string, ErrorModel>;
  };

  constructor(private readonly source: ModelSource) {}

  private load() {
    if (this.loaded) return this.loaded;
    const exports = this.source();
    const operations = new Map<string, OperationModel>();
    const errors = new Map<string, ErrorModel>();
    const errorsByQueryCode = new Map<string, ErrorModel>();
    for (const [key, value] of Object.entries(exports)) {
      if (!key.endsWith('$')) continue;
      if (isStatic(value, 9)) {
        const op = value as StaticOperation;
        const traits = (typeof op[3] === 'object' ? op[3] : {}) as Record<string, unknown>;
        const http = traits.http as [string, string, number] | undefined;
        operations.set(op[2], {
          name: op[2],
          input: NormalizedSchema.of(op[4] as never),
          output: NormalizedSchema.of(op[5] as never),
          http: http ? { method: http[0], uri: http[1], code: http[2] } : undefined,
          traits,
        });
      } else if (isStatic(value, -3)) {
        const shape = value as StaticError;
        const traits = shape[3] ?? {};
        const query = traits.awsQueryError as [string, number] | undefined;
        const error: ErrorModel = {
          name: shape[2],
          schema: NormalizedSchema.of(shape as never),
          fault: String(traits.error ?? 'client'),
          httpStatus: typeof traits.httpError === 'number' ? traits.httpError : undefined,
          queryCode: query?.[0],
          queryStatus: query?.[1],
        };
        errors.set(error.name, error);
        if (error.queryCode) errorsByQueryCode.set(error.queryCode, error);
      }
    }
    this.loaded = { operations, errors, errorsByQueryCode };
    return this.loaded;
  }

  operation(name: string): OperationModel | undefined {
    return this.load().operations.get(name);
  }

  operations(): OperationModel[] {
    return [...this.load().operations.values()];
  }

  /** An error shape by its name or by its query-protocol code. */
  error(code: string): ErrorModel | undefined {
    const { errors, errorsByQueryCode } = this.load();
    return errors.get(code) ?? errorsByQueryCode.get(code);
  }
}
