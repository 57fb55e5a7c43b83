/**
 * The providers against the emulator's IAM, through real SDK clients built
 * by cdkd's client factory and a provider context made exactly as a deploy
 * makes them.
 */
import { IAMClient } from '@aws-sdk/client-iam';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';

// A project's testTimeout does not apply to a file run from the root; an emulator call under load can take seconds.
jest.setTimeout(60_000);

export const REGION = 'eu-west-1';
export const ACCOUNT = '123456789012';
export const STACK = 'IamPackTest';

export interface PackTestEnv {
  emulator: RunningEmulator;
  ctx: ProviderContext;
  host: RecordingIoHost;
  iam: IAMClient;
}

let counter = 0;

/** A create context as cdkd builds it (generated names and ownership from a token of its own). */
export function createContext(logicalId: string, stackName = STACK, token?: string): CreateContext {
  return buildCreateContext({
    stackName,
    region: REGION,
    logicalId,
    idempotencyToken: token ?? `intent-${Date.now().toString(36)}-${++counter}`,
  });
}

/** A create context of a cdkd before the idempotency contract: a token only. */
export function bareContext(stackName = STACK): CreateContext {
  return { stackName, region: REGION, idempotencyToken: `bare-${++counter}` };
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}`;
}

/** One emulator and one provider context for the test file. */
export function usePackEnv(): PackTestEnv {
  const env = {} as PackTestEnv;
  const savedEnv = { ...process.env };
  beforeAll(async () => {
    env.emulator = await startEmulator();
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    delete process.env.AWS_PROFILE;
    const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: env.emulator.url });
    env.host = new RecordingIoHost();
    const ctx = createProviderContext({ clients: factory, logger: createLogger(env.host) });
    // The engine's retry with its attempts kept and its backoff shortened: a missing referenced
    // entity is retried (IAM propagation) as in a deploy, without the test waiting seconds.
    env.ctx = {
      ...ctx,
      retry: (op, options) => ctx.retry(op, { ...options, baseDelayMs: 1, maxDelayMs: 2 }),
    };
    env.iam = factory.get(IAMClient);
  });
  afterAll(async () => {
    await env.emulator?.stop();
    process.env = savedEnv;
  });
  return env;
}

export const TRUST = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
};

export const allow = (Action: string | string[], Resource: string | string[] = '*') => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action, Resource }],
});

export const BASIC = 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole';
export const READ_ONLY = 'arn:aws:iam::aws:policy/ReadOnlyAccess';

export const decode = (s: string | undefined): unknown => JSON.parse(decodeURIComponent(s ?? ''));

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; remedy?: string; cause?: unknown }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}
