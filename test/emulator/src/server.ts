/**
 * The emulator's HTTP server: routes each request by its SigV4 credential
 * scope (or, unsigned, by its protocol) to a service, counts it, applies the
 * configured latency and faults, and serializes the answer.
 */
import { emulatorDate } from './core/clock';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAuth } from './core/auth';
import { AwsError, isAwsError } from './core/errors';
import { statusOfCode, type Fault } from './core/faults';
import { header, type EmulatorRequest, type EmulatorResponse } from './core/http';
import { requestId as newRequestId, s3RequestId } from './core/ids';
import type { CallContext, ServiceHandler } from './core/service';
import { ControlApi } from './control/routes';
import type { EmulatorState } from './state';
import { type EmulatorStateOptions } from './state';

/** Signing names (credential scope) to the emulator's service names. */
const SIGNING_NAMES: Record<string, string> = {
  s3: 's3',
  sts: 'sts',
  cloudformation: 'cloudformation',
  cloudcontrolapi: 'cloudcontrol',
  sqs: 'sqs',
  ssm: 'ssm',
  secretsmanager: 'secretsmanager',
  ec2: 'ec2',
};

/** X-Amz-Target prefixes of the JSON services, for unsigned requests. */
const TARGET_PREFIXES: Array<[string, string]> = [
  ['AmazonSQS.', 'sqs'],
  ['AmazonSSM.', 'ssm'],
  ['CloudApiService.', 'cloudcontrol'],
  ['secretsmanager.', 'secretsmanager'],
];

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
    const service = this.pickService(request, auth?.signingService);
    if (!service) {
      const name = auth?.signingService ?? 'unknown';
      send(res, request, {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          __type: 'UnknownServiceException',
          message: `The emulator does not implement the service '${name}'.`,
        }),
      });
      return;
    }
    const requestId = service.name === 's3' ? s3RequestId() : newRequestId();

    let routed;
    try {
      routed = service.route(request);
    } catch (err) {
      this.state.requests.add(service.name, 'Unknown');
      send(res, request, service.errorResponse(asAwsError(err), request, requestId));
      return;
    }
    this.state.requests.add(service.name, routed.operation);

    if (!auth) {
      send(res, request, service.errorResponse(service.unsignedError(request), request, requestId));
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
    };

    const delay = this.state.latency.delayFor(service.name, routed.operation);
    if (delay > 0) await sleep(delay);

    const fault = this.state.faults.take(service.name, routed.operation, routed.input);
    if (fault && fault.mode === 'error') {
      send(res, request, service.errorResponse(faultError(service, fault), request, requestId));
      return;
    }

    let response: EmulatorResponse;
    try {
      response = await routed.run(ctx);
    } catch (err) {
      response = service.errorResponse(asAwsError(err), request, requestId);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && response.status < 300) this.state.changed();
    if (fault?.mode === 'drop') {
      // The operation took effect; the caller never hears about it.
      res.destroy();
      return;
    }
    if (fault?.mode === 'error-after') {
      // The operation took effect; the caller hears an error.
      send(res, request, service.errorResponse(faultError(service, fault), request, requestId));
      return;
    }
    if (service.name === 's3') {
      response.headers = {
        'x-amz-request-id': requestId,
        'x-amz-id-2': s3HostId(requestId),
        server: 'AmazonS3',
        ...response.headers,
      };
    } else if (response.headers && !response.headers['x-amzn-requestid']) {
      response.headers['x-amzn-requestid'] = requestId;
    }
    send(res, request, response);
  }

  private pickService(req: EmulatorRequest, signingName: string | undefined): ServiceHandler | undefined {
    if (signingName) {
      const name = SIGNING_NAMES[signingName];
      return name ? this.state.services.get(name) : undefined;
    }
    const target = header(req, 'x-amz-target');
    if (target) {
      const match = TARGET_PREFIXES.find(([prefix]) => target.startsWith(prefix));
      return match ? this.state.services.get(match[1]) : undefined;
    }
    const contentType = header(req, 'content-type') ?? '';
    if (req.method === 'POST' && contentType.startsWith('application/x-www-form-urlencoded')) {
      const version = new URLSearchParams(req.body.toString('utf8')).get('Version');
      if (version === '2011-06-15') return this.state.services.get('sts');
      if (version === '2010-05-15') return this.state.services.get('cloudformation');
      if (version === '2016-11-15') return this.state.services.get('ec2');
    }
    return this.state.services.get('s3');
  }
}

function faultError(service: ServiceHandler, fault: Fault): AwsError {
  const error = fault.error ?? 500;
  if (typeof error === 'number' || /^\d+$/.test(error)) {
    const mapped = service.faultFor(Number(error));
    return new AwsError(
      mapped.code,
      fault.message ?? `Injected fault (${mapped.code})`,
      fault.status ?? mapped.status,
    );
  }
  const status = fault.status ?? statusOfCode(error);
  return new AwsError(error, fault.message ?? defaultFaultMessage(error), status);
}

function defaultFaultMessage(code: string): string {
  if (code === 'SlowDown') return 'Please reduce your request rate.';
  if (/Throttl|TooManyRequests|RequestLimitExceeded/.test(code)) return 'Rate exceeded';
  if (code === 'ConditionalRequestConflict') {
    return 'A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload you should initiate another CreateMultipartUpload request and re-upload each part.';
  }
  return 'We encountered an internal error. Please try again.';
}

function asAwsError(err: unknown): AwsError {
  if (isAwsError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AwsError('InternalFailure', `emulator internal error: ${message}`, 500);
}

function s3HostId(requestId: string): string {
  return Buffer.from(`${requestId}${requestId}`).toString('base64');
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

export type { EmulatorStateOptions };
