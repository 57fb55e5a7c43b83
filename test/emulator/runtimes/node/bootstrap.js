'use strict';
// The emulator's Node.js runtime: one execution environment. It talks to the
// emulator over fd 3 (one JSON message per line): `init` loads the handler
// (its module's top-level code runs then, as in Lambda's init phase), each
// `invoke` runs it with a Lambda-like context, and every console call and
// write to stdout/stderr goes back as a `log` message, so logs stay in order
// with results. The environment handles one invocation at a time.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const util = require('node:util');
const { pathToFileURL } = require('node:url');

const channel = new net.Socket({ fd: 3, readable: true, writable: true });
// The emulator went away: nothing will ever read our answers.
channel.on('close', () => process.exit(0));
channel.on('error', () => process.exit(0));

let current; // request id of the invocation in progress
let handler;

function send(message) {
  channel.write(`${JSON.stringify(message)}\n`);
}

/** Output; `event` marks one whole log event (a console call), however many lines it has. */
function log(message, event = false) {
  send({ type: 'log', requestId: current, message, ...(event ? { event: true } : {}) });
}

const jsonLogs = process.env.AWS_LAMBDA_LOG_FORMAT === 'JSON';
const LEVELS = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4, FATAL: 5 };
const minimumLevel = LEVELS[process.env.AWS_LAMBDA_LOG_LEVEL || 'INFO'] ?? LEVELS.INFO;

// console.* as Lambda's Node.js runtimes format it.
for (const [method, level] of [
  ['log', 'INFO'],
  ['info', 'INFO'],
  ['warn', 'WARN'],
  ['error', 'ERROR'],
  ['debug', 'DEBUG'],
  ['trace', 'TRACE'],
]) {
  console[method] = (...args) => {
    if (jsonLogs && LEVELS[level] < minimumLevel) return;
    let text = util.format(...args);
    if (method === 'trace') text = `Trace: ${text}\n${new Error().stack.split('\n').slice(2).join('\n')}`;
    const timestamp = new Date().toISOString();
    log(
      jsonLogs
        ? `${JSON.stringify({ timestamp, level, requestId: current, message: text })}\n`
        : `${timestamp}\t${current}\t${level}\t${text}\n`,
      true,
    );
  };
}
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, encoding, callback) => {
    log(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) done();
    return true;
  };
}

// The sandbox's network. In AWS a handler's HTTPS request to S3 (a custom
// resource's ResponseURL, which cfn-response code and CDK's handlers PUT with
// https.request to the URL's host, dropping its port) reaches S3. Here every
// AWS endpoint is the emulator, which speaks plain HTTP: HTTPS to the
// emulator's host is carried to the emulator's port over HTTP.
function routeHttpsToEmulator() {
  let endpoint;
  try {
    endpoint = new URL(process.env.AWS_ENDPOINT_URL || '');
  } catch {
    return;
  }
  if (endpoint.protocol !== 'http:') return;
  const http = require('node:http');
  const https = require('node:https');
  const loopback = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
  const sameHost = (host) =>
    host === endpoint.hostname || (loopback.has(host) && loopback.has(endpoint.hostname));
  /** https.request's arguments as one options object and a callback. */
  const normalize = (args) => {
    let [first, second, third] = args;
    let options = {};
    if (typeof first === 'string' || first instanceof URL) {
      const u = new URL(String(first));
      options = {
        protocol: u.protocol,
        hostname: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
      };
      if (typeof second === 'object' && second !== null) options = { ...options, ...second };
      else third = second;
    } else {
      options = { ...first };
      third = second;
    }
    return { options, callback: typeof third === 'function' ? third : undefined };
  };
  for (const name of ['request', 'get']) {
    const original = https[name];
    https[name] = function (...args) {
      const { options, callback } = normalize(args);
      const host = String(options.hostname || options.host || '').replace(/:\d+$/, '');
      const port = String(options.port || '443');
      if (!sameHost(host) || port !== '443') return original.apply(this, args);
      const { agent, ...rest } = options;
      void agent;
      const routed = {
        ...rest,
        protocol: 'http:',
        hostname: endpoint.hostname,
        host: undefined,
        port: endpoint.port,
      };
      return http[name](routed, callback);
    };
  }
}
routeHttpsToEmulator();

/** An error as Lambda's Node.js runtimes report it. */
function errorPayload(err, errorType) {
  if (err instanceof Error) {
    return {
      errorType: errorType || err.name || 'Error',
      errorMessage: err.message,
      trace: (err.stack || '').split('\n'),
    };
  }
  return { errorType: errorType || typeof err, errorMessage: String(err), trace: [] };
}

async function loadHandler(handlerSpec, taskRoot) {
  const slash = handlerSpec.lastIndexOf('/');
  const dot = handlerSpec.indexOf('.', slash + 1);
  if (dot < 0) {
    throw Object.assign(new Error(`Bad handler ${handlerSpec}: missing a '.' between module and function`), {
      lambdaErrorType: 'Runtime.MalformedHandlerName',
    });
  }
  const modulePath = path.resolve(taskRoot, handlerSpec.slice(0, dot));
  const names = handlerSpec.slice(dot + 1).split('.');
  let loaded;
  const existing = ['.js', '.mjs', '.cjs'].map((ext) => modulePath + ext).find((file) => fs.existsSync(file));
  try {
    if (!existing) {
      throw Object.assign(
        new Error(
          `Cannot find module '${handlerSpec.slice(0, dot)}'\nRequire stack:\n- ${path.join(__dirname, 'bootstrap.js')}`,
        ),
        { code: 'MODULE_NOT_FOUND' },
      );
    }
    if (existing.endsWith('.mjs')) loaded = await import(pathToFileURL(existing).href);
    else {
      try {
        loaded = require(existing);
      } catch (err) {
        if (err && err.code === 'ERR_REQUIRE_ESM') loaded = await import(pathToFileURL(existing).href);
        else throw err;
      }
    }
  } catch (err) {
    if (err instanceof SyntaxError) err.lambdaErrorType = 'Runtime.UserCodeSyntaxError';
    else if (err && (err.code === 'MODULE_NOT_FOUND' || err.code === 'ERR_MODULE_NOT_FOUND')) {
      err.lambdaErrorType = 'Runtime.ImportModuleError';
      err.message = `Error: ${err.message}`;
    }
    throw err;
  }
  let fn = loaded;
  for (const name of names) fn = fn == null ? undefined : fn[name];
  if (typeof fn !== 'function') {
    throw Object.assign(
      new Error(`${path.basename(modulePath)}.${names.join('.')} is undefined or not exported`),
      {
        lambdaErrorType: 'Runtime.HandlerNotFound',
      },
    );
  }
  return fn;
}

function invoke(message) {
  current = message.requestId;
  let settled = false;
  const finish = (err, result) => {
    if (settled) return;
    settled = true;
    if (err !== undefined && err !== null) {
      send({ type: 'error', requestId: message.requestId, error: errorPayload(err) });
      return;
    }
    let payload;
    try {
      payload = JSON.stringify(result === undefined ? null : result);
    } catch (serializeError) {
      send({
        type: 'error',
        requestId: message.requestId,
        error: errorPayload(serializeError, 'Runtime.MalformedHandlerResponse'),
      });
      return;
    }
    send({ type: 'result', requestId: message.requestId, payload });
  };
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.invokedFunctionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    identity: undefined,
    clientContext: message.clientContext || undefined,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
    done: (err, result) => finish(err, result),
    succeed: (result) => finish(null, result),
    fail: (err) => finish(err === undefined ? new Error('handled') : err),
  };
  let event;
  try {
    event = JSON.parse(message.event);
  } catch (err) {
    finish(err);
    return;
  }
  try {
    const returned = handler(event, context, (err, result) => finish(err, result));
    if (returned && typeof returned.then === 'function')
      returned.then(
        (r) => finish(null, r),
        (e) => finish(e === undefined ? new Error('undefined') : e),
      );
    // A handler that neither returns a promise nor takes a callback answers null.
    else if (handler.length < 3) finish(null, null);
  } catch (err) {
    finish(err);
  }
}

let buffered = '';
channel.on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.type === 'init') {
      loadHandler(message.handler, message.taskRoot).then(
        (fn) => {
          handler = fn;
          send({ type: 'init-done' });
        },
        (err) => send({ type: 'init-error', error: errorPayload(err, err && err.lambdaErrorType) }),
      );
    } else if (message.type === 'invoke') invoke(message);
  }
});

// Errors no handler awaits end the environment, as in Lambda.
process.on('uncaughtException', (err) => {
  if (current) send({ type: 'error', requestId: current, error: errorPayload(err) });
  process.exitCode = 129;
  channel.end(() => process.exit(129));
});
process.on('unhandledRejection', (reason) => {
  if (current)
    send({
      type: 'error',
      requestId: current,
      error: errorPayload(reason, 'Runtime.UnhandledPromiseRejection'),
    });
  process.exitCode = 128;
  channel.end(() => process.exit(128));
});
