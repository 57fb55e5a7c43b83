/**
 * Step Functions through the real @aws-sdk/client-sfn: state machines
 * (create idempotency, describe, update, delete, tags) and executions (start
 * idempotency, describe, stop) with AWS's error codes; the States Language
 * interpreter (Pass, Wait, Task on Lambda with Retry and Catch); the same state
 * machine seen through Cloud Control; and the CDK Provider framework's
 * total-timeout path run by its real handlers (aws-cdk-lib's
 * provider-framework runtime).
 *
 * No test waits on the clock: retries run with `stepFunctionsTimeScale` 0, and
 * the one execution held running waits on a Wait state until it is stopped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
} from '@aws-sdk/client-cloudcontrol';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateStateMachineCommand,
  DeleteStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ListTagsForResourceCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateStateMachineCommand,
} from '@aws-sdk/client-sfn';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { clientConfig, useEmulator } from './helpers';
import { zipOf } from './support/zip';

const ctx = useEmulator();
let sfn: SFNClient;
let lambda: LambdaClient;
let s3: S3Client;
let cloudControl: CloudControlClient;

const ACCOUNT = '123456789012';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/states-role`;
const fnArn = (name: string) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}`;
const machineArn = (name: string) => `arn:aws:states:us-east-1:${ACCOUNT}:stateMachine:${name}`;

const PASS = JSON.stringify({
  StartAt: 'Shape',
  States: {
    Shape: {
      Type: 'Pass',
      Parameters: { 'greeting.$': '$.say', fixed: 1 },
      ResultPath: '$.shaped',
      Next: 'Done',
    },
    Done: { Type: 'Succeed', OutputPath: '$.shaped' },
  },
});
const HOLD = JSON.stringify({
  StartAt: 'Hold',
  States: { Hold: { Type: 'Wait', Seconds: 86400, End: true } },
});

/** Handlers for the interpreter tests; each call is logged so the test can count attempts. */
const HANDLERS = `
exports.flaky = async (event) => {
  console.log('attempt', JSON.stringify(event));
  const e = new Error('not yet'); e.name = 'NotReady'; throw e;
};
exports.echo = async (event) => ({ echoed: event });
exports.countdown = async (event) => {
  console.log('attempt');
  if (event.failFirst > 0 && !(globalThis.done >= event.failFirst)) {
    globalThis.done = (globalThis.done || 0) + 1;
    throw new Error('try again');
  }
  return { ok: true, after: globalThis.done || 0 };
};
`;

async function createFunction(
  name: string,
  handler: string,
  env: Record<string, string> = {},
  files?: Record<string, string>,
) {
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Role: `arn:aws:iam::${ACCOUNT}:role/fn-role`,
      Runtime: 'nodejs20.x',
      Handler: handler,
      Code: { ZipFile: await zipOf(files ?? { 'index.js': HANDLERS }) },
      Timeout: 60,
      Environment: { Variables: env },
    }),
  );
}

async function finished(executionArn: string) {
  await ctx.emulator.control.waitForExecutions();
  return sfn.send(new DescribeExecutionCommand({ executionArn }));
}

async function attempts(functionName: string, word = 'attempt'): Promise<number> {
  const streams = await ctx.emulator.control.lambdaLogs(functionName);
  return streams
    .flatMap((s) => s.events)
    .filter((e) => e.message.includes(`\t${word}`) || e.message.startsWith(word)).length;
}

beforeAll(() => {
  const config = { ...clientConfig(ctx.emulator), maxAttempts: 1 };
  sfn = new SFNClient(config);
  lambda = new LambdaClient(config);
  s3 = new S3Client(config);
  cloudControl = new CloudControlClient(config);
});
afterAll(() => {
  for (const c of [sfn, lambda, s3, cloudControl]) c.destroy();
});

describe('state machines', () => {
  test('create, describe, idempotent re-create, already-exists, update, delete', async () => {
    const created = await sfn.send(
      new CreateStateMachineCommand({ name: 'pass', definition: PASS, roleArn: ROLE }),
    );
    expect(created.stateMachineArn).toBe(machineArn('pass'));
    expect(created.creationDate).toBeInstanceOf(Date);
    const described = await sfn.send(
      new DescribeStateMachineCommand({ stateMachineArn: created.stateMachineArn }),
    );
    expect(described).toMatchObject({
      name: 'pass',
      status: 'ACTIVE',
      definition: PASS,
      roleArn: ROLE,
      type: 'STANDARD',
      loggingConfiguration: { level: 'OFF', includeExecutionData: false },
      tracingConfiguration: { enabled: false },
    });
    // The same request again (another role is ignored) answers the same state machine.
    const again = await sfn.send(
      new CreateStateMachineCommand({ name: 'pass', definition: PASS, roleArn: `${ROLE}-other` }),
    );
    expect(again.stateMachineArn).toBe(created.stateMachineArn);
    await expect(
      sfn.send(new CreateStateMachineCommand({ name: 'pass', definition: HOLD, roleArn: ROLE })),
    ).rejects.toMatchObject({ name: 'StateMachineAlreadyExists', $metadata: { httpStatusCode: 400 } });

    const updated = await sfn.send(
      new UpdateStateMachineCommand({ stateMachineArn: created.stateMachineArn, definition: HOLD }),
    );
    expect(updated.revisionId).not.toBe(described.revisionId);
    expect(
      (await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: created.stateMachineArn })))
        .definition,
    ).toBe(HOLD);
    await expect(
      sfn.send(new UpdateStateMachineCommand({ stateMachineArn: created.stateMachineArn })),
    ).rejects.toMatchObject({ name: 'MissingRequiredParameter' });

    await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: created.stateMachineArn }));
    await expect(
      sfn.send(new DescribeStateMachineCommand({ stateMachineArn: created.stateMachineArn })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    // Deleting what is not there succeeds (the operation is asynchronous in AWS).
    await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: created.stateMachineArn }));
  });

  test('validation: definition, name, role and ARNs', async () => {
    const make = (input: Partial<{ name: string; definition: string; roleArn: string }>) =>
      sfn.send(new CreateStateMachineCommand({ name: 'v', definition: PASS, roleArn: ROLE, ...input }));
    await expect(make({ definition: '{not json' })).rejects.toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining('INVALID_JSON_DESCRIPTION'),
    });
    await expect(
      make({
        definition: JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Next: 'Nowhere' } } }),
      }),
    ).rejects.toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining('MISSING_TRANSITION_TARGET'),
    });
    await expect(
      make({ definition: JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Task', End: true } } }) }),
    ).rejects.toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining("'Resource' is required"),
    });
    await expect(make({ name: 'has space' })).rejects.toMatchObject({ name: 'InvalidName' });
    await expect(make({ roleArn: 'not-an-arn' })).rejects.toMatchObject({ name: 'InvalidArn' });
    await expect(
      sfn.send(new DescribeStateMachineCommand({ stateMachineArn: 'arn:aws:sqs:us-east-1:123456789012:q' })),
    ).rejects.toMatchObject({ name: 'InvalidArn' });
    await expect(
      sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('missing') })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
  });

  test('tags: on create, TagResource, UntagResource, ListTagsForResource; ResourceNotFound, TooManyTags', async () => {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'tagged',
        definition: PASS,
        roleArn: ROLE,
        tags: [{ key: 'a', value: '1' }],
      }),
    );
    await sfn.send(
      new TagResourceCommand({ resourceArn: stateMachineArn, tags: [{ key: 'b', value: '2' }] }),
    );
    await sfn.send(new UntagResourceCommand({ resourceArn: stateMachineArn, tagKeys: ['a'] }));
    expect((await sfn.send(new ListTagsForResourceCommand({ resourceArn: stateMachineArn }))).tags).toEqual([
      { key: 'b', value: '2' },
    ]);
    await expect(
      sfn.send(new ListTagsForResourceCommand({ resourceArn: machineArn('missing') })),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });
    const many = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    await expect(
      sfn.send(new TagResourceCommand({ resourceArn: stateMachineArn, tags: many })),
    ).rejects.toMatchObject({
      name: 'TooManyTags',
    });
  });
});

describe('executions', () => {
  beforeAll(async () => {
    await ctx.emulator.control.updateSettings({ stepFunctionsTimeScale: 0 });
    await sfn.send(new CreateStateMachineCommand({ name: 'shape', definition: PASS, roleArn: ROLE }));
    await sfn.send(new CreateStateMachineCommand({ name: 'hold', definition: HOLD, roleArn: ROLE }));
  });

  test('Pass with Parameters and ResultPath, Succeed with OutputPath', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: machineArn('shape'),
        name: 'first',
        input: '{"say":"hi"}',
      }),
    );
    expect(executionArn).toBe(`arn:aws:states:us-east-1:${ACCOUNT}:execution:shape:first`);
    const done = await finished(executionArn!);
    expect(done).toMatchObject({ status: 'SUCCEEDED', name: 'first', input: '{"say":"hi"}' });
    expect(JSON.parse(done.output!)).toEqual({ greeting: 'hi', fixed: 1 });
    // A closed execution's name cannot be used again.
    await expect(
      sfn.send(
        new StartExecutionCommand({
          stateMachineArn: machineArn('shape'),
          name: 'first',
          input: '{"say":"hi"}',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  test('start idempotency while running, stop, delete while running, errors', async () => {
    await ctx.emulator.control.updateSettings({ stepFunctionsTimeScale: 1 });
    const start = (input: string) =>
      sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('hold'), name: 'held', input }));
    const first = await start('{"n":1}');
    expect((await start('{"n":1}')).executionArn).toBe(first.executionArn);
    await expect(start('{"n":2}')).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }))).status).toBe(
      'RUNNING',
    );

    await sfn.send(new DeleteStateMachineCommand({ stateMachineArn: machineArn('hold') }));
    expect(
      (await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('hold') }))).status,
    ).toBe('DELETING');
    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('hold'), input: '{}' })),
    ).rejects.toMatchObject({ name: 'StateMachineDeleting' });

    const stopped = await sfn.send(
      new StopExecutionCommand({ executionArn: first.executionArn, error: 'Manual', cause: 'test' }),
    );
    expect(stopped.stopDate).toBeInstanceOf(Date);
    await ctx.emulator.control.waitForExecutions();
    // Its last execution ended: the state machine (and its executions) are gone.
    await expect(
      sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('hold') })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    await ctx.emulator.control.updateSettings({ stepFunctionsTimeScale: 0 });

    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('shape'), input: '{oops' })),
    ).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
    await expect(
      sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('missing'), input: '{}' })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    await expect(
      sfn.send(
        new DescribeExecutionCommand({
          executionArn: `arn:aws:states:us-east-1:${ACCOUNT}:execution:shape:nope`,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  test('a stopped execution is ABORTED with the error and cause given', async () => {
    await ctx.emulator.control.updateSettings({ stepFunctionsTimeScale: 1 });
    await sfn.send(new CreateStateMachineCommand({ name: 'hold2', definition: HOLD, roleArn: ROLE }));
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('hold2') }),
    );
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'Manual', cause: 'stopped by the test' }));
    expect(await finished(executionArn!)).toMatchObject({
      status: 'ABORTED',
      error: 'Manual',
      cause: 'stopped by the test',
    });
    await ctx.emulator.control.updateSettings({ stepFunctionsTimeScale: 0 });
  });

  test('Task on a Lambda ARN: Retry runs MaxAttempts more times, then Catch hands {Error, Cause} on at its ResultPath', async () => {
    await createFunction('flaky', 'index.flaky');
    await createFunction('echo', 'index.echo');
    const definition = JSON.stringify({
      StartAt: 'Try',
      States: {
        Try: {
          Type: 'Task',
          Resource: fnArn('flaky'),
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 30, MaxAttempts: 2, BackoffRate: 1.5 }],
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Handle' }],
          End: true,
        },
        Handle: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: 'echo', 'Payload.$': '$' },
          ResultSelector: { 'echoed.$': '$.Payload.echoed' },
          End: true,
        },
      },
    });
    await sfn.send(new CreateStateMachineCommand({ name: 'retry', definition, roleArn: ROLE }));
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('retry'), input: '{"job":7}' }),
    );
    const done = await finished(executionArn!);
    expect(done.status).toBe('SUCCEEDED');
    const { echoed } = JSON.parse(done.output!) as {
      echoed: { job: number; failure: { Error: string; Cause: string } };
    };
    expect(echoed.job).toBe(7);
    expect(echoed.failure.Error).toBe('NotReady');
    expect(JSON.parse(echoed.failure.Cause)).toMatchObject({
      errorType: 'NotReady',
      errorMessage: 'not yet',
    });
    expect(await attempts('flaky')).toBe(3);
  });

  test('a state machine deleted while an execution runs ends that execution at its next state transition', async () => {
    await createFunction(
      'deletes-its-machine',
      'index.handler',
      {},
      {
        'index.js': `
const { SFNClient, DeleteStateMachineCommand } = require('@aws-sdk/client-sfn');
exports.handler = async (event) => {
  await new SFNClient({}).send(new DeleteStateMachineCommand({ stateMachineArn: event.machine }));
  return { deleted: true };
};`,
      },
    );
    const definition = JSON.stringify({
      StartAt: 'Delete',
      States: {
        Delete: { Type: 'Task', Resource: fnArn('deletes-its-machine'), Next: 'After' },
        // Would run the function again, were the execution not ended at this transition.
        After: { Type: 'Task', Resource: fnArn('deletes-its-machine'), End: true },
      },
    });
    await sfn.send(new CreateStateMachineCommand({ name: 'self-deleting', definition, roleArn: ROLE }));
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: machineArn('self-deleting'),
        input: JSON.stringify({ machine: machineArn('self-deleting') }),
      }),
    );
    await ctx.emulator.control.waitForExecutions();
    // Step Functions forgets a deleted state machine's executions along with it.
    await expect(sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject({
      name: 'ExecutionDoesNotExist',
    });
    await expect(
      sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('self-deleting') })),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    expect(await attempts('deletes-its-machine', 'START RequestId')).toBe(1);
  });

  test('an uncaught Task error fails the execution with its name and cause; a missing function is Lambda.ResourceNotFoundException', async () => {
    const definition = JSON.stringify({
      StartAt: 'Try',
      States: {
        Try: {
          Type: 'Task',
          Resource: fnArn('flaky'),
          Retry: [{ ErrorEquals: ['Other'], MaxAttempts: 5 }],
          End: true,
        },
      },
    });
    await sfn.send(new CreateStateMachineCommand({ name: 'uncaught', definition, roleArn: ROLE }));
    const before = await attempts('flaky');
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('uncaught') }),
    );
    expect(await finished(executionArn!)).toMatchObject({ status: 'FAILED', error: 'NotReady' });
    expect((await attempts('flaky')) - before).toBe(1);

    const gone = JSON.stringify({
      StartAt: 'T',
      States: { T: { Type: 'Task', Resource: fnArn('nope'), End: true } },
    });
    await sfn.send(new CreateStateMachineCommand({ name: 'gone', definition: gone, roleArn: ROLE }));
    const run = await sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('gone') }));
    expect(await finished(run.executionArn!)).toMatchObject({
      status: 'FAILED',
      error: 'Lambda.ResourceNotFoundException',
    });
  });
});

describe('Cloud Control', () => {
  test('AWS::StepFunctions::StateMachine is the state machine Step Functions runs', async () => {
    const cc = await cloudControl.send(
      new CreateResourceCommand({
        TypeName: 'AWS::StepFunctions::StateMachine',
        DesiredState: JSON.stringify({
          StateMachineName: 'via-cc',
          DefinitionString: PASS,
          RoleArn: ROLE,
          Tags: [{ Key: 'team', Value: 'x' }],
        }),
      }),
    );
    let status = cc.ProgressEvent!;
    while (status.OperationStatus === 'PENDING' || status.OperationStatus === 'IN_PROGRESS')
      status = (
        await cloudControl.send(new GetResourceRequestStatusCommand({ RequestToken: status.RequestToken }))
      ).ProgressEvent!;
    expect(status).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: machineArn('via-cc') });
    const read = await cloudControl.send(
      new GetResourceCommand({
        TypeName: 'AWS::StepFunctions::StateMachine',
        Identifier: machineArn('via-cc'),
      }),
    );
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      Arn: machineArn('via-cc'),
      Name: 'via-cc',
      DefinitionString: PASS,
    });
    expect(
      (await sfn.send(new ListTagsForResourceCommand({ resourceArn: machineArn('via-cc') }))).tags,
    ).toEqual([{ key: 'team', value: 'x' }]);
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.filter((i) => i.identifier === machineArn('via-cc')).map((i) => i.type)).toEqual([
      'AWS::StepFunctions::StateMachine',
    ]);
  });
});

describe("the Provider framework's waiter, run by aws-cdk-lib's own handlers", () => {
  test('isComplete never true: after the retries the onTimeout handler fails the resource with "Operation timed out"', async () => {
    const runtime = path.join(
      path.dirname(require.resolve('aws-cdk-lib/package.json')),
      'custom-resources/lib/provider-framework/runtime',
    );
    const framework = Object.fromEntries(
      fs
        .readdirSync(runtime)
        .filter((f) => f.endsWith('.js'))
        .map((f) => [f, fs.readFileSync(path.join(runtime, f), 'utf8')]),
    );
    await createFunction(
      'user-is-complete',
      'index.handler',
      {},
      {
        'index.js': "exports.handler = async () => { console.log('polled'); return { IsComplete: false }; };",
      },
    );
    const env = { USER_IS_COMPLETE_FUNCTION_ARN: fnArn('user-is-complete') };
    await createFunction('framework-is-complete', 'framework.isComplete', env, framework);
    await createFunction('framework-on-timeout', 'framework.onTimeout', env, framework);
    // The definition WaiterStateMachine renders (maxAttempts from totalTimeout / queryInterval).
    const definition = JSON.stringify({
      StartAt: 'framework-isComplete-task',
      States: {
        'framework-isComplete-task': {
          End: true,
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 5, MaxAttempts: 3, BackoffRate: 1 }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'framework-onTimeout-task' }],
          Type: 'Task',
          Resource: fnArn('framework-is-complete'),
        },
        'framework-onTimeout-task': { End: true, Type: 'Task', Resource: fnArn('framework-on-timeout') },
      },
    });
    await sfn.send(new CreateStateMachineCommand({ name: 'waiter', definition, roleArn: ROLE }));
    await s3.send(new CreateBucketCommand({ Bucket: 'responses' }));
    const responseUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'responses', Key: 'r.json' }), {
      expiresIn: 3600,
    });
    const event = {
      RequestType: 'Create',
      ResponseURL: responseUrl,
      StackId: `arn:aws:cloudformation:us-east-1:${ACCOUNT}:stack/s/1`,
      RequestId: 'req-1',
      LogicalResourceId: 'Thing',
      PhysicalResourceId: 'thing-1',
      ResourceType: 'Custom::Thing',
      ResourceProperties: {},
    };
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('waiter'), input: JSON.stringify(event) }),
    );
    // onTimeout answers FAILED and returns: the execution itself succeeds.
    expect((await finished(executionArn!)).status).toBe('SUCCEEDED');
    const response = JSON.parse(
      await (
        await s3.send(new GetObjectCommand({ Bucket: 'responses', Key: 'r.json' }))
      ).Body!.transformToString(),
    ) as Record<string, unknown>;
    expect(response).toMatchObject({
      Status: 'FAILED',
      Reason: 'Operation timed out',
      RequestId: 'req-1',
      PhysicalResourceId: 'thing-1',
      LogicalResourceId: 'Thing',
    });
    expect(await attempts('user-is-complete', 'polled')).toBe(4);
  });
});
