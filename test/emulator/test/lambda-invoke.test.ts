/**
 * Lambda runs code: Node.js (CommonJS, ES modules, callbacks) and Python
 * handlers from S3 zips run in child processes through Invoke, call S3, SSM
 * and STS in the emulator with their role's credentials, and their errors,
 * timeouts and crashes answer as Lambda's do. Also: logs, Event and DryRun
 * invocations, layers, warm reuse, versions, throttling, and no child process
 * outliving the emulator.
 *
 * Nothing here depends on how fast the machine is: functions that should
 * finish have generous timeouts, and the timeout cases wait forever.
 */
import {
  AddPermissionCommand,
  CreateFunctionCommand,
  InvokeCommand,
  LambdaClient,
  PublishLayerVersionCommand,
  PublishVersionCommand,
  PutFunctionConcurrencyCommand,
  UpdateFunctionCodeCommand,
  type CreateFunctionCommandInput,
  type InvokeCommandOutput,
} from '@aws-sdk/client-lambda';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RestJsonCodec, startEmulator, type Platform, type ServiceModule } from '../src';
import type { LambdaApi } from '../src/services/lambda';
import { clientConfig, useEmulator } from './helpers';
import { zipOf } from './support/zip';

/** A test-only service that hands the test what the platform lends services (the Lambda api). */
let platform: Platform | undefined;
const probe: ServiceModule = {
  name: 'probe',
  signingNames: ['probe'],
  create(p) {
    platform = p;
    return {
      protocol: new RestJsonCodec({
        model: () => require('@aws-sdk/client-lambda') as Record<string, unknown>,
      }),
      operations: {},
    };
  },
};

const ctx = useEmulator({ services: [probe] });
let lambda: LambdaClient;
let s3: S3Client;
let ssm: SSMClient;

const ACCOUNT = '123456789012';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/handler-role`;
const BUCKET = 'function-code';

const NODE_HANDLER = `
const { S3Client, PutObjectCommand } = require('@aws-sdk/client-s3');
const { SSMClient, GetParameterCommand, PutParameterCommand } = require('@aws-sdk/client-ssm');
const { STSClient, GetCallerIdentityCommand } = require('@aws-sdk/client-sts');
let invocations = 0;
console.log('loaded');
exports.handler = async (event, context) => {
  invocations += 1;
  console.log('event', JSON.stringify(event));
  const parameter = await new SSMClient({}).send(new GetParameterCommand({ Name: '/app/greeting' }));
  await new S3Client({}).send(new PutObjectCommand({ Bucket: '${BUCKET}', Key: 'written-by-node', Body: event.say }));
  const me = await new STSClient({}).send(new GetCallerIdentityCommand({}));
  return {
    greeting: parameter.Parameter.Value,
    caller: me.Arn,
    invocations,
    functionName: context.functionName,
    functionVersion: context.functionVersion,
    invokedFunctionArn: context.invokedFunctionArn,
    memoryLimitInMB: context.memoryLimitInMB,
    requestId: context.awsRequestId,
    logGroupName: context.logGroupName,
    remainingPositive: context.getRemainingTimeInMillis() > 0,
    region: process.env.AWS_REGION,
    stage: process.env.STAGE,
    taskRoot: process.env.LAMBDA_TASK_ROOT === process.cwd(),
  };
};
exports.fails = async () => { throw new TypeError('wrong type'); };
exports.forever = () => new Promise(() => {});
exports.callback = (event, context, callback) => setTimeout(() => callback(null, { via: 'callback' }), 10);
exports.callbackError = (event, context, callback) => callback(new Error('called back with an error'));
exports.exits = async () => process.exit(7);
exports.writeParameter = async (event) => {
  await new SSMClient({}).send(new PutParameterCommand({ Name: event.name, Value: 'async', Type: 'String' }));
};
`;

const NODE_ESM = `
import { SSMClient, GetParameterCommand } from '@aws-sdk/client-ssm';
export const handler = async () => (await new SSMClient({}).send(new GetParameterCommand({ Name: '/app/greeting' }))).Parameter.Value;
`;

const PYTHON_HANDLER = `
import json, logging, os, time
import boto3

logger = logging.getLogger()

def handler(event, context):
    print("event", json.dumps(event))
    logger.warning("a warning")
    greeting = boto3.client("ssm").get_parameter(Name="/app/greeting")["Parameter"]["Value"]
    boto3.client("s3").put_object(Bucket="${BUCKET}", Key="written-by-python", Body=event["say"].encode())
    caller = boto3.client("sts").get_caller_identity()["Arn"]
    return {
        "greeting": greeting,
        "caller": caller,
        "functionName": context.function_name,
        "requestId": context.aws_request_id,
        "remainingPositive": context.get_remaining_time_in_millis() > 0,
        "stage": os.environ.get("STAGE"),
    }

def fails(event, context):
    raise ValueError("bad value")

def forever(event, context):
    while True:
        time.sleep(0.5)
`;

let keyCounter = 0;

/** Uploads a zip to the code bucket and creates a function from it. */
async function functionFromS3(
  name: string,
  files: Record<string, string>,
  extra: Partial<CreateFunctionCommandInput>,
): Promise<void> {
  const key = `${name}-${++keyCounter}.zip`;
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: await zipOf(files) }));
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Role: ROLE,
      Code: { S3Bucket: BUCKET, S3Key: key },
      Timeout: 60,
      ...extra,
    } as CreateFunctionCommandInput),
  );
}

const node = (name: string, handler: string, extra: Partial<CreateFunctionCommandInput> = {}) =>
  functionFromS3(
    name,
    { 'index.js': NODE_HANDLER },
    { Runtime: 'nodejs20.x', Handler: `index.${handler}`, ...extra },
  );
const python = (name: string, handler: string, extra: Partial<CreateFunctionCommandInput> = {}) =>
  functionFromS3(
    name,
    { 'app.py': PYTHON_HANDLER },
    { Runtime: 'python3.12', Handler: `app.${handler}`, ...extra },
  );

async function invoke(name: string, event: unknown = {}, extra: Partial<InvokeCommand['input']> = {}) {
  const out = await lambda.send(
    new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(event)), ...extra }),
  );
  return {
    ...out,
    body: JSON.parse(Buffer.from(out.Payload ?? new Uint8Array()).toString() || 'null') as unknown,
  };
}

const logOf = (out: InvokeCommandOutput) => Buffer.from(out.LogResult ?? '', 'base64').toString();

beforeAll(async () => {
  const config = { ...clientConfig(ctx.emulator), maxAttempts: 1 };
  lambda = new LambdaClient(config);
  s3 = new S3Client(config);
  ssm = new SSMClient(config);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await ssm.send(new PutParameterCommand({ Name: '/app/greeting', Value: 'hello from SSM', Type: 'String' }));
});
afterAll(() => {
  lambda.destroy();
  s3.destroy();
  ssm.destroy();
});

async function objectText(key: string): Promise<string> {
  return (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToString();
}

describe('Node.js', () => {
  test('a handler from an S3 zip calls SSM, S3 and STS in the emulator with its role, with a Lambda context', async () => {
    await node('node-ok', 'handler', { Environment: { Variables: { STAGE: 'test' } }, MemorySize: 256 });
    const out = await invoke('node-ok', { say: 'from node' }, { LogType: 'Tail' });
    expect(out.StatusCode).toBe(200);
    expect(out.FunctionError).toBeUndefined();
    expect(out.ExecutedVersion).toBe('$LATEST');
    expect(out.body).toMatchObject({
      greeting: 'hello from SSM',
      caller: `arn:aws:sts::${ACCOUNT}:assumed-role/handler-role/node-ok`,
      invocations: 1,
      functionName: 'node-ok',
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:node-ok`,
      memoryLimitInMB: '256',
      logGroupName: '/aws/lambda/node-ok',
      remainingPositive: true,
      region: 'us-east-1',
      stage: 'test',
      taskRoot: true,
    });
    expect(await objectText('written-by-node')).toBe('from node');
    const log = logOf(out);
    const requestId = (out.body as { requestId: string }).requestId;
    expect(log).toContain(`START RequestId: ${requestId} Version: $LATEST`);
    expect(log).toMatch(new RegExp(`\\t${requestId}\\tINFO\\tevent {"say":"from node"}`));
    expect(log).toContain(`END RequestId: ${requestId}`);
    expect(log).toMatch(
      new RegExp(
        `REPORT RequestId: ${requestId}\\tDuration: [\\d.]+ ms\\tBilled Duration: \\d+ ms\\tMemory Size: 256 MB`,
      ),
    );

    // The environment is reused: module state survives, as in Lambda.
    expect((await invoke('node-ok', { say: 'again' })).body).toMatchObject({ invocations: 2 });

    // The log group keeps every invocation's events (here, in the Lambda service's own store).
    const streams = await ctx.emulator.control.lambdaLogs('node-ok');
    expect(streams).toHaveLength(1);
    expect(streams[0]!.logStreamName).toMatch(/^\d{4}\/\d\d\/\d\d\/\[\$LATEST\][0-9a-f]{32}$/);
    const messages = streams[0]!.events.map((e) => e.message);
    expect(messages.filter((m) => m.startsWith('START RequestId:'))).toHaveLength(2);
    expect(messages.some((m) => m.endsWith('\tINFO\tloaded'))).toBe(true);
  });

  test('ES modules import the SDK; callback handlers answer through the callback', async () => {
    await functionFromS3(
      'node-esm',
      { 'index.mjs': NODE_ESM },
      { Runtime: 'nodejs22.x', Handler: 'index.handler' },
    );
    expect((await invoke('node-esm')).body).toBe('hello from SSM');
    await node('node-callback', 'callback');
    expect((await invoke('node-callback')).body).toEqual({ via: 'callback' });
  });

  test('a thrown error is FunctionError Unhandled with errorType, errorMessage and trace (status 200)', async () => {
    await node('node-fails', 'fails');
    const out = await invoke('node-fails');
    expect(out.StatusCode).toBe(200);
    expect(out.FunctionError).toBe('Unhandled');
    expect(out.body).toMatchObject({ errorType: 'TypeError', errorMessage: 'wrong type' });
    expect((out.body as { trace: string[] }).trace[0]).toBe('TypeError: wrong type');
    await node('node-callback-error', 'callbackError');
    expect((await invoke('node-callback-error')).body).toMatchObject({
      errorType: 'Error',
      errorMessage: 'called back with an error',
    });
  });

  test('a handler that never finishes times out as Lambda reports it', async () => {
    await node('node-forever', 'forever', { Timeout: 1 });
    const out = await invoke('node-forever', {}, { LogType: 'Tail' });
    expect(out.StatusCode).toBe(200);
    expect(out.FunctionError).toBe('Unhandled');
    expect(out.body).toEqual({
      errorType: 'Sandbox.Timedout',
      errorMessage: expect.stringMatching(
        /^RequestId: [0-9a-f-]{36} Error: Task timed out after 1\.00 seconds$/,
      ),
    });
    expect(logOf(out)).toMatch(/Task timed out after 1\.00 seconds/);
    // The timed-out environment is gone; the next invocation gets a fresh one.
    expect((await invoke('node-forever')).FunctionError).toBe('Unhandled');
  });

  test('a runtime that exits, a missing module and a missing export answer Runtime.* errors', async () => {
    await node('node-exits', 'exits');
    expect((await invoke('node-exits')).body).toMatchObject({
      errorType: 'Runtime.ExitError',
      errorMessage: expect.stringContaining('Runtime exited with error: exit status 7'),
    });
    await node('node-no-module', 'handler', { Handler: 'missing.handler' });
    expect((await invoke('node-no-module')).body).toMatchObject({
      errorType: 'Runtime.ImportModuleError',
      errorMessage: expect.stringContaining("Cannot find module 'missing'"),
    });
    await node('node-no-export', 'handler', { Handler: 'index.nothing' });
    expect((await invoke('node-no-export')).body).toMatchObject({
      errorType: 'Runtime.HandlerNotFound',
      errorMessage: 'index.nothing is undefined or not exported',
    });
  });
});

describe('Python', () => {
  test('a handler from an S3 zip calls SSM, S3 and STS with boto3', async () => {
    await python('py-ok', 'handler', { Environment: { Variables: { STAGE: 'py' } } });
    const out = await invoke('py-ok', { say: 'from python' }, { LogType: 'Tail' });
    expect(out.FunctionError).toBeUndefined();
    expect(out.body).toMatchObject({
      greeting: 'hello from SSM',
      caller: `arn:aws:sts::${ACCOUNT}:assumed-role/handler-role/py-ok`,
      functionName: 'py-ok',
      remainingPositive: true,
      stage: 'py',
    });
    expect(await objectText('written-by-python')).toBe('from python');
    const log = logOf(out);
    expect(log).toContain('event {"say": "from python"}');
    expect(log).toMatch(/\[WARNING\]\t\d{4}-\d\d-\d\dT[\d:.]+Z\t[0-9a-f-]{36}\ta warning/);
  });

  test('an exception is FunctionError Unhandled with errorMessage, errorType and stackTrace', async () => {
    await python('py-fails', 'fails');
    const out = await invoke('py-fails');
    expect(out.FunctionError).toBe('Unhandled');
    expect(out.body).toMatchObject({ errorType: 'ValueError', errorMessage: 'bad value' });
    expect((out.body as { stackTrace: string[] }).stackTrace.join('')).toContain(
      'raise ValueError("bad value")',
    );
  });

  test('a handler that never finishes times out; a missing module is Runtime.ImportModuleError', async () => {
    await python('py-forever', 'forever', { Timeout: 2 });
    expect((await invoke('py-forever')).body).toEqual({
      errorType: 'Sandbox.Timedout',
      errorMessage: expect.stringMatching(/Task timed out after 2\.00 seconds$/),
    });
    await python('py-no-module', 'handler', { Handler: 'nope.handler' });
    expect((await invoke('py-no-module')).body).toMatchObject({
      errorType: 'Runtime.ImportModuleError',
      errorMessage: "Unable to import module 'nope': No module named 'nope'",
    });
  });
});

describe('invocation types, layers, versions, throttling', () => {
  test('Event answers 202 and runs in the background; DryRun answers 204; a payload that is not JSON is refused', async () => {
    await node('node-async', 'writeParameter');
    const out = await lambda.send(
      new InvokeCommand({
        FunctionName: 'node-async',
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify({ name: '/async/result' })),
      }),
    );
    expect(out.StatusCode).toBe(202);
    await ctx.emulator.control.waitForLambdaInvocations();
    expect((await ssm.send(new GetParameterCommand({ Name: '/async/result' }))).Parameter?.Value).toBe(
      'async',
    );
    expect(
      (await lambda.send(new InvokeCommand({ FunctionName: 'node-async', InvocationType: 'DryRun' })))
        .StatusCode,
    ).toBe(204);
    await expect(
      lambda.send(new InvokeCommand({ FunctionName: 'node-async', Payload: Buffer.from('{not json') })),
    ).rejects.toMatchObject({ name: 'InvalidRequestContentException' });
    await expect(lambda.send(new InvokeCommand({ FunctionName: 'nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  test('other services invoke through the api: allowed by the resource policy, refused otherwise', async () => {
    await node('node-for-sns', 'writeParameter');
    const api = platform!.api<LambdaApi>('lambda');
    const arn = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:node-for-sns`;
    const invoker = {
      servicePrincipal: 'sns.amazonaws.com',
      sourceArn: `arn:aws:sns:us-east-1:${ACCOUNT}:topic`,
      sourceAccount: ACCOUNT,
    };
    expect(await api.invokeAsync(arn, JSON.stringify({ name: '/sns/x' }), invoker)).toEqual({
      accepted: false,
      reason: expect.stringContaining('does not allow sns.amazonaws.com'),
    });
    await lambda.send(
      new AddPermissionCommand({
        FunctionName: 'node-for-sns',
        StatementId: 'sns',
        Action: 'lambda:InvokeFunction',
        Principal: 'sns.amazonaws.com',
        SourceArn: `arn:aws:sns:us-east-1:${ACCOUNT}:*`,
      }),
    );
    expect(
      await api.invokeAsync(arn, JSON.stringify({ name: '/sns/x' }), {
        ...invoker,
        servicePrincipal: 'events.amazonaws.com',
      }),
    ).toMatchObject({ accepted: false });
    expect(await api.invokeAsync(arn, JSON.stringify({ name: '/sns/x' }), invoker)).toEqual({
      accepted: true,
    });
    await api.idle();
    expect((await ssm.send(new GetParameterCommand({ Name: '/sns/x' }))).Parameter?.Value).toBe('async');
    expect(await api.invokeAsync(`${arn}-missing`, '{}', invoker)).toMatchObject({
      accepted: false,
      reason: expect.stringContaining('Function not found'),
    });
  });

  test('layers are on the module path (/opt/nodejs/node_modules, /opt/python)', async () => {
    const nodeLayer = await lambda.send(
      new PublishLayerVersionCommand({
        LayerName: 'node-greeter',
        Content: {
          ZipFile: await zipOf({
            'nodejs/node_modules/greeter/index.js': 'module.exports = (n) => `hi ${n}`;',
          }),
        },
      }),
    );
    await functionFromS3(
      'node-layered',
      { 'index.js': "exports.handler = async () => require('greeter')('node');" },
      { Runtime: 'nodejs20.x', Handler: 'index.handler', Layers: [nodeLayer.LayerVersionArn!] },
    );
    expect((await invoke('node-layered')).body).toBe('hi node');
    const pyLayer = await lambda.send(
      new PublishLayerVersionCommand({
        LayerName: 'py-greeter',
        Content: { ZipFile: await zipOf({ 'python/greeter.py': 'def greet(n):\n    return "hi " + n\n' }) },
      }),
    );
    await functionFromS3(
      'py-layered',
      { 'app.py': 'import greeter\ndef handler(event, context):\n    return greeter.greet("python")\n' },
      { Runtime: 'python3.12', Handler: 'app.handler', Layers: [pyLayer.LayerVersionArn!] },
    );
    expect((await invoke('py-layered')).body).toBe('hi python');
  });

  test("a Python handler runs a layer's program by its /opt path, a Lambda-Python script on the host's python", async () => {
    // As CDK's BucketDeployment runs /opt/awscli/aws (whose #! is Lambda's /var/lang/bin/python).
    const tool = await lambda.send(
      new PublishLayerVersionCommand({
        LayerName: 'tool',
        Content: {
          ZipFile: await zipOf({
            'tool/run': '#!/var/lang/bin/python\nimport sys\nprint("ran " + " ".join(sys.argv[1:]))\n',
            'tool/data.txt': 'from the layer',
          }),
        },
      }),
    );
    await functionFromS3(
      'py-opt',
      {
        'app.py':
          'import subprocess\ndef handler(event, context):\n' +
          '    out = subprocess.check_output(["/opt/tool/run", "/opt/tool/data.txt"]).decode().strip()\n' +
          '    return out + " | " + subprocess.check_output(["cat", "/opt/tool/data.txt"]).decode()\n',
      },
      { Runtime: 'python3.12', Handler: 'app.handler', Layers: [tool.LayerVersionArn!] },
    );
    const { body } = await invoke('py-opt');
    expect(body).toMatch(/^ran \/.+\/tool\/data\.txt \| from the layer$/);
    expect(body).not.toContain('ran /opt/');
  });

  test('a published version keeps running its own code after $LATEST changes', async () => {
    await functionFromS3(
      'versioned',
      { 'index.js': 'exports.handler = async () => "v1";' },
      { Runtime: 'nodejs20.x', Handler: 'index.handler' },
    );
    await lambda.send(new PublishVersionCommand({ FunctionName: 'versioned' }));
    await lambda.send(
      new UpdateFunctionCodeCommand({
        FunctionName: 'versioned',
        ZipFile: await zipOf({ 'index.js': 'exports.handler = async () => "v2";' }),
      }),
    );
    expect((await invoke('versioned')).body).toBe('v2');
    const pinned = await invoke('versioned', {}, { Qualifier: '1' });
    expect(pinned.body).toBe('v1');
    expect(pinned.ExecutedVersion).toBe('1');
  });

  test('reserved concurrency 0 throttles every invocation', async () => {
    await node('node-throttled', 'handler');
    await lambda.send(
      new PutFunctionConcurrencyCommand({ FunctionName: 'node-throttled', ReservedConcurrentExecutions: 0 }),
    );
    await expect(invoke('node-throttled')).rejects.toMatchObject({
      name: 'TooManyRequestsException',
      Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
      $metadata: { httpStatusCode: 429 },
    });
  });

  test('functions whose runtime the emulator cannot run answer InvalidRuntimeException', async () => {
    await functionFromS3('java', { 'A.class': 'x' }, { Runtime: 'java21', Handler: 'A::handle' });
    await expect(invoke('java')).rejects.toMatchObject({ name: 'InvalidRuntimeException' });
  });
});

test('no execution environment outlives the emulator', async () => {
  const emulator = await startEmulator({ port: 0 });
  const client = new LambdaClient({ ...clientConfig(emulator), maxAttempts: 1 });
  await client.send(
    new CreateFunctionCommand({
      FunctionName: 'pid',
      Role: ROLE,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Timeout: 60,
      Code: { ZipFile: await zipOf({ 'index.js': 'exports.handler = async () => process.pid;' }) },
    }),
  );
  const out = await client.send(new InvokeCommand({ FunctionName: 'pid' }));
  const pid = JSON.parse(Buffer.from(out.Payload!).toString()) as number;
  expect(() => process.kill(pid, 0)).not.toThrow();
  client.destroy();
  await emulator.stop();
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
});

test('a function kept in --state-dir runs after a restart (its package is kept too)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lambda-state-'));
  try {
    const first = await startEmulator({ port: 0, stateDir: dir });
    const client = new LambdaClient({ ...clientConfig(first), maxAttempts: 1 });
    await client.send(
      new CreateFunctionCommand({
        FunctionName: 'kept',
        Role: ROLE,
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Timeout: 60,
        Code: { ZipFile: await zipOf({ 'index.js': 'exports.handler = async () => "still here";' }) },
      }),
    );
    client.destroy();
    await first.stop();
    const second = await startEmulator({ port: 0, stateDir: dir });
    const again = new LambdaClient({ ...clientConfig(second), maxAttempts: 1 });
    const out = await again.send(new InvokeCommand({ FunctionName: 'kept' }));
    expect(Buffer.from(out.Payload!).toString()).toBe('"still here"');
    again.destroy();
    await second.stop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
