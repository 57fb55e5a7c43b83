/**
 * The emulator's HTTP server: routes each request by its SigV4 credential
 * scope (or, unsigned, by the first codec that recognises it) to a service,
 * counts it, applies the configured latency and faults, runs the operation's
 * handler and lets the service's codec write the answer.
 */
import { emulatorDate } from './core/clock';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAuth } from './core/auth';
import { AwsError, asAwsError } from './core/errors';
import { BUILTIN_FAULT_MODES, statusOfCode, type Fault, type FaultOutcome } from './core/faults';
import { header, type EmulatorRequest, type EmulatorResponse } from './core/http';
import { requestId as newRequestId } from './core/ids';
import type { ProtocolCodec } from './core/protocols/codec';
import type { CallContext } from './core/service';
import { ControlApi } from './control/routes';
import type { EmulatorState, RegisteredService } from './state';

export class EmulatorServer {
  private readonly server: http.Server;
  private readonly control: ControlApi;

  constructor(readonly state: EmulatorState) {
    this.control = new ControlApi(state);
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`emulator internal error: ${err instanceof Error ? err.stack : String(err)}`);
        } else res.destroy();
      });
    });
    // Longer than the SDK's idle sockets live, so a reused socket is never closed under a request.
    this.server.keepAliveTimeout = 65_000;
    this.server.headersTimeout = 66_000;
    this.server.requestTimeout = 0;
  }

  async listen(port: number, host: string): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrivedAt = performance.now();
    const isControl = (req.url ?? '').startsWith('/_emulator');
    if (!isControl) {
      this.state.inFlight++;
      res.once('close', () => this.state.inFlight--);
    }
    const body = await readBody(req);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const host = req.headers.host ?? 'localhost';
    const request: EmulatorRequest = {
      method: req.method ?? 'GET',
      rawPath: q < 0 ? url : url.slice(0, q),
      query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
      headers: req.headers,
      body,
      host,
      baseUrl: `http://${host}`,
      arrivedAt,
    };

    if (isControl) {
      send(res, request, await this.control.handle(request));
      return;
    }

    const auth = parseAuth(request);
    const service = auth ? this.state.bySigning(auth.signingService) : this.state.recognize(request);
    if (!service) {
      send(res, request, {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          __type: 'UnknownServiceException',
          message: `The emulator does not implement the service '${auth?.signingService ?? 'unknown'}'.`,
        }),
      });
      return;
    }
    const name = service.module.name;
    const codec = service.instance.protocol;
    const requestId = codec.newRequestId?.() ?? newRequestId();
    const reply = (response: EmulatorResponse) => send(res, request, withIds(codec, response, requestId));
    const fail = (err: unknown) => reply(codec.encodeError(asAwsError(err), request, requestId));

    let operation: string;
    try {
      operation = codec.operation(request);
    } catch (err) {
      this.state.requests.add(name, 'Unknown');
      fail(err);
      return;
    }
    this.state.requests.add(name, operation);
    if (!auth) {
      fail(codec.unsignedError(request));
      return;
    }
    const handler = service.instance.operations[operation];
    if (!handler) {
      fail(codec.unknownOperation(operation));
      return;
    }

    const principal = this.state.accounts.resolve(auth.accessKeyId);
    const ctx: CallContext = {
      account: principal.account,
      region: auth.region,
      accessKeyId: auth.accessKeyId,
      callerArn: principal.arn,
      callerUserId: principal.userId,
      requestId,
      baseUrl: request.baseUrl,
      presigned: auth.presigned,
      request,
    };

    const delay = this.state.latency.delayFor(name, operation);
    if (delay > 0) await sleep(delay);

    let input: unknown;
    try {
      input = codec.decode(operation, request);
    } catch (err) {
      fail(err);
      return;
    }
    this.state.requests.addTyped(name, operation, input);

    const mutating = request.method !== 'GET' && request.method !== 'HEAD';
    const run = async (): Promise<EmulatorResponse> => {
      let response: EmulatorResponse;
      try {
        response = codec.encode(operation, await handler(ctx, input), { requestId, request });
      } catch (err) {
        response = codec.encodeError(asAwsError(err), request, requestId);
      }
      if (mutating && response.status < 300) this.state.changed();
      return response;
    };

    const fault = this.state.faults.any()
      ? this.state.faults.take(name, operation, input, header(request, 'amz-sdk-invocation-id'))
      : undefined;
    if (!fault) {
      reply(await run());
      return;
    }
    const outcome = await this.runFault(service, fault, { operation, input, ctx, run });
    if (outcome === 'drop') res.destroy();
    else if ('error' in outcome) fail(outcome.error);
    else reply(outcome.response);
  }

  private runFault(
    service: RegisteredService,
    fault: Fault,
    call: { operation: string; input: unknown; ctx: CallContext; run: () => Promise<EmulatorResponse> },
  ): Promise<FaultOutcome> {
    const mode = BUILTIN_FAULT_MODES[fault.mode] ?? service.instance.faultModes?.[fault.mode];
    const error = () => faultError(service.instance.protocol, fault);
    if (!mode)
      return Promise.resolve({
        error: new AwsError('InternalFailure', `unknown fault mode ${fault.mode}`, 500),
      });
    return mode({ fault, service: service.module.name, ...call, error });
  }
}

/** The service's request-id headers on a response (a handler's own take precedence). */
function withIds(codec: ProtocolCodec, response: EmulatorResponse, requestId: string): EmulatorResponse {
  const ids = codec.responseHeaders?.(requestId) ?? { 'x-amzn-requestid': requestId };
  response.headers = { ...ids, ...response.headers };
  return response;
}

function faultError(codec: ProtocolCodec, fault: Fault): AwsError {
  const error = fault.error ?? 500;
  if (typeof error === 'number' || /^\d+$/.test(error)) {
    const mapped = codec.faultFor(Number(error));
    return new AwsError(
      mapped.code,
      fault.message ?? `Injected fault (${mapped.code})`,
      fault.status ?? mapped.status,
    );
  }
  return new AwsError(
    error,
    fault.message ?? defaultFaultMessage(error),
    fault.status ?? statusOfCode(error),
  );
}

function defaultFaultMessage(code: string): string {
  if (code === 'SlowDown') return 'Please reduce your request rate.';
  if (/Throttl|TooManyRequests|RequestLimitExceeded/.test(code)) return 'Rate exceeded';
  if (code === 'ConditionalRequestConflict') {
    return 'A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload you should initiate another CreateMultipartUpload request and re-upload each part.';
  }
  return 'We encountered an internal error. Please try again.';
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, req: EmulatorRequest, response: EmulatorResponse): void {
  const headers: Record<string, string | number> = {
    date: emulatorDate().toUTCString(),
    ...response.headers,
  };
  const noBody = req.method === 'HEAD' || response.status === 204 || response.status === 304;
  if (headers['content-length'] === undefined && response.status !== 204 && response.status !== 304) {
    // A known length keeps the connection alive (HEAD answers included).
    headers['content-length'] = response.body === undefined ? 0 : Buffer.byteLength(response.body);
  }
  res.writeHead(response.status, headers);
  if (noBody || response.body === undefined) res.end();
  else res.end(response.body);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
