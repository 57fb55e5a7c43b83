/**
 * A test-only service on Lambda's published model (restJson1), written as a
 * service engineer would write one: a module, a store, handlers that take
 * and return plain objects. It exercises the generic restJson1 codec: labels,
 * query parameters, headers, a blob payload, status codes and modelled errors.
 */
import { AwsError, RestJsonCodec, type ServiceModule } from '../../src/index';

interface LiteFunction {
  FunctionName: string;
  FunctionArn: string;
  Runtime?: string;
  Role: string;
  Handler?: string;
  Timeout: number;
  LastModified: string;
  Environment?: { Variables?: Record<string, string> };
}

export const lambdaLite: ServiceModule = {
  name: 'lambda',
  signingNames: ['lambda'],
  create() {
    const functions = new Map<string, LiteFunction>();
    const find = (name: string): LiteFunction => {
      const fn = functions.get(name);
      if (!fn)
        throw new AwsError(
          'ResourceNotFoundException',
          `Function not found: arn:aws:lambda:us-east-1:123456789012:function:${name}`,
        );
      return fn;
    };
    return {
      protocol: new RestJsonCodec({
        model: () => require('@aws-sdk/client-lambda') as Record<string, unknown>,
        faults: { 429: { code: 'TooManyRequestsException', status: 429 } },
      }),
      operations: {
        CreateFunction: (
          ctx,
          input: {
            FunctionName: string;
            Role: string;
            Runtime?: string;
            Handler?: string;
            Timeout?: number;
            Environment?: LiteFunction['Environment'];
          },
        ) => {
          if (functions.has(input.FunctionName))
            throw new AwsError('ResourceConflictException', `Function already exist: ${input.FunctionName}`);
          if (input.Timeout !== undefined && (input.Timeout < 1 || input.Timeout > 900))
            throw new AwsError(
              'InvalidParameterValueException',
              'Timeout must be between 1 and 900 seconds.',
            );
          const fn: LiteFunction = {
            FunctionName: input.FunctionName,
            FunctionArn: `arn:aws:lambda:${ctx.region}:${ctx.account}:function:${input.FunctionName}`,
            Runtime: input.Runtime,
            Role: input.Role,
            Handler: input.Handler,
            Timeout: input.Timeout ?? 3,
            LastModified: '2025-01-01T00:00:00.000+0000',
            Environment: input.Environment,
          };
          functions.set(fn.FunctionName, fn);
          return fn;
        },
        GetFunction: (_ctx, input: { FunctionName: string; Qualifier?: string }) => ({
          Configuration: find(input.FunctionName),
          Tags: { qualifier: input.Qualifier ?? '$LATEST' },
        }),
        ListFunctions: (_ctx, input: { Marker?: string; MaxItems?: number }) => {
          const names = [...functions.keys()].sort();
          const start = input.Marker ? names.indexOf(input.Marker) + 1 : 0;
          const max = input.MaxItems ?? 50;
          const page = names.slice(start, start + max);
          return {
            Functions: page.map((n) => functions.get(n)),
            NextMarker: start + max < names.length ? page[page.length - 1] : undefined,
          };
        },
        Invoke: (_ctx, input: { FunctionName: string; InvocationType?: string; Payload?: Buffer }) => {
          find(input.FunctionName);
          const event = input.Payload
            ? (JSON.parse(input.Payload.toString('utf8')) as { fail?: boolean })
            : {};
          return {
            StatusCode: input.InvocationType === 'Event' ? 202 : 200,
            FunctionError: event.fail ? 'Unhandled' : undefined,
            ExecutedVersion: '$LATEST',
            Payload: Buffer.from(JSON.stringify({ echo: event })),
          };
        },
        DeleteFunction: (_ctx, input: { FunctionName: string }) => {
          find(input.FunctionName);
          functions.delete(input.FunctionName);
          return {};
        },
      },
    };
  },
};
