/**
 * Waiting for Lambda to settle, with the SDK's waiters: a function is usable
 * once Active, and takes its next change once its last update is Successful;
 * an event source mapping is usable once Enabled (or Disabled). Bounded, and
 * stopped by the operation's abort signal.
 */
import {
  GetEventSourceMappingCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
  waitUntilPublishedVersionActive,
  type LambdaClient,
} from '@aws-sdk/client-lambda';
import { checkExceptions, createWaiter, WaiterState } from '@smithy/util-waiter';
import { errorName } from './errors';

/** Lambda's documented worst cases are minutes (VPC networking); give up after 15. */
const MAX_WAIT_SECONDS = 900;

export async function functionActive(
  client: LambdaClient,
  functionName: string,
  signal?: AbortSignal,
): Promise<void> {
  await waitUntilFunctionActiveV2(
    { client, maxWaitTime: MAX_WAIT_SECONDS, ...(signal ? { abortSignal: signal } : {}) },
    { FunctionName: functionName },
  );
}

export async function functionUpdated(
  client: LambdaClient,
  functionName: string,
  signal?: AbortSignal,
): Promise<void> {
  await waitUntilFunctionUpdatedV2(
    { client, maxWaitTime: MAX_WAIT_SECONDS, ...(signal ? { abortSignal: signal } : {}) },
    { FunctionName: functionName },
  );
}

export async function versionActive(
  client: LambdaClient,
  functionName: string,
  version: string,
  signal?: AbortSignal,
): Promise<void> {
  await waitUntilPublishedVersionActive(
    { client, maxWaitTime: MAX_WAIT_SECONDS, ...(signal ? { abortSignal: signal } : {}) },
    { FunctionName: functionName, Qualifier: version },
  );
}

/** Until the mapping is Enabled or Disabled (or, with `gone`, until it no longer exists). */
export async function mappingSettled(
  client: LambdaClient,
  uuid: string,
  options: { gone?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  const result = await createWaiter(
    {
      client,
      maxWaitTime: MAX_WAIT_SECONDS,
      minDelay: 1,
      maxDelay: 30,
      ...(options.signal ? { abortSignal: options.signal } : {}),
    },
    { UUID: uuid },
    async (c: LambdaClient, input: { UUID: string }) => {
      try {
        const out = await c.send(new GetEventSourceMappingCommand(input), { abortSignal: options.signal });
        if (!options.gone && (out.State === 'Enabled' || out.State === 'Disabled'))
          return { state: WaiterState.SUCCESS, reason: out };
        return { state: WaiterState.RETRY, reason: out };
      } catch (err) {
        if (options.gone && errorName(err) === 'ResourceNotFoundException')
          return { state: WaiterState.SUCCESS, reason: err };
        throw err;
      }
    },
  );
  checkExceptions(result);
}
