/**
 * The control API under `/_emulator/`: a public contract other tools script
 * against. Every route answers JSON.
 */
import { clockOffset, setClockOffset } from '../core/clock';
import { AwsError } from '../core/errors';
import type { FaultSpec } from '../core/faults';
import { jsonResponse, type EmulatorRequest, type EmulatorResponse } from '../core/http';
import type { LatencyRule } from '../core/latency';
import type { StackSeed } from '../services/cloudformation';
import type { TypeSettings } from '../services/cloudcontrol/service';
import type { EmulatorState } from '../state';

type Handler = (req: EmulatorRequest, params: string[]) => EmulatorResponse | Promise<EmulatorResponse>;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

export class ControlApi {
  private readonly routes: Route[] = [];

  constructor(private readonly state: EmulatorState) {
    this.add('GET', /^\/_emulator\/health$/, () =>
      jsonResponse(200, { status: 'ok', account: this.state.accounts.defaultAccount }),
    );
    this.add('GET', /^\/_emulator\/stats$/, () => {
      const cpu = process.cpuUsage();
      return jsonResponse(200, {
        uptimeMs: Math.round(process.uptime() * 1000),
        cpuUserMs: Math.round(cpu.user / 1000),
        cpuSystemMs: Math.round(cpu.system / 1000),
        rssBytes: process.memoryUsage().rss,
        requests: this.state.requests.snapshot().total,
        inFlight: this.state.inFlight,
      });
    });
    this.add('POST', /^\/_emulator\/reset$/, () => {
      this.state.reset();
      return jsonResponse(200, { reset: true });
    });
    this.add('GET', /^\/_emulator\/inventory$/, (req) =>
      jsonResponse(200, this.state.inventory(req.baseUrl)),
    );
    this.add('GET', /^\/_emulator\/requests$/, () => jsonResponse(200, this.state.requests.snapshot()));
    this.add('DELETE', /^\/_emulator\/requests$/, () => {
      this.state.requests.clear();
      return jsonResponse(200, this.state.requests.snapshot());
    });

    this.add('GET', /^\/_emulator\/latency$/, () => jsonResponse(200, this.state.latency.list()));
    this.add('PUT', /^\/_emulator\/latency$/, (req) => {
      const rules = asArray<LatencyRule>(body(req));
      for (const rule of rules) {
        if (typeof rule.ms !== 'number' || rule.ms < 0)
          throw badRequest('latency rule needs "ms" (a number >= 0)');
        this.state.latency.set({ service: rule.service ?? '*', operation: rule.operation, ms: rule.ms });
      }
      return jsonResponse(200, this.state.latency.list());
    });
    this.add('DELETE', /^\/_emulator\/latency$/, () => {
      this.state.latency.clear();
      return jsonResponse(200, []);
    });

    this.add('GET', /^\/_emulator\/faults$/, () => jsonResponse(200, this.state.faults.list()));
    this.add('POST', /^\/_emulator\/faults$/, (req) => {
      const spec = body(req) as FaultSpec;
      if (!spec || typeof spec.service !== 'string')
        throw badRequest('a fault needs "service" (e.g. "s3" or "*")');
      if (spec.mode && spec.mode !== 'error' && spec.mode !== 'drop' && spec.mode !== 'error-after')
        throw badRequest('"mode" is "error", "drop" or "error-after"');
      if (
        spec.match !== undefined &&
        (typeof spec.match !== 'object' || spec.match === null || Array.isArray(spec.match))
      )
        throw badRequest('"match" is an object of input members to values');
      if (spec.probability !== undefined && !(spec.probability >= 0 && spec.probability <= 1))
        throw badRequest('"probability" is between 0 and 1');
      if (spec.count !== undefined && !(Number.isInteger(spec.count) && spec.count > 0))
        throw badRequest('"count" is a positive integer');
      return jsonResponse(201, this.state.faults.add(spec));
    });
    this.add('DELETE', /^\/_emulator\/faults$/, () => {
      this.state.faults.clear();
      return jsonResponse(200, []);
    });
    this.add('DELETE', /^\/_emulator\/faults\/([^/]+)$/, (_req, [id]) => {
      if (!this.state.faults.remove(id!)) throw notFound(`no fault with id ${id}`);
      return jsonResponse(200, { deleted: id });
    });

    this.add('GET', /^\/_emulator\/clock$/, () => jsonResponse(200, { offsetMs: clockOffset() }));
    this.add('PUT', /^\/_emulator\/clock$/, (req) => {
      const { offsetMs } = body(req) as { offsetMs?: unknown };
      if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs))
        throw badRequest(
          '"offsetMs" is a number (ms the emulator clock runs ahead of the host; negative: behind)',
        );
      setClockOffset(offsetMs);
      return jsonResponse(200, { offsetMs });
    });
    this.add('GET', /^\/_emulator\/account$/, () =>
      jsonResponse(200, { accountId: this.state.accounts.defaultAccount }),
    );
    this.add('PUT', /^\/_emulator\/account$/, (req) => {
      const { accountId } = body(req) as { accountId?: unknown };
      if (typeof accountId !== 'string' || !/^\d{12}$/.test(accountId))
        throw badRequest('"accountId" must be 12 digits');
      this.state.accounts.defaultAccount = accountId;
      this.state.changed();
      return jsonResponse(200, { accountId });
    });
    this.addCloudFormationRoutes();
    this.addCloudControlRoutes();
    this.addSsmRoutes();
    this.add('GET', /^\/_emulator\/settings$/, () => jsonResponse(200, this.settings()));
    this.add('PUT', /^\/_emulator\/settings$/, (req) => {
      const { sqsDeleteCooldownMs } = body(req) as { sqsDeleteCooldownMs?: unknown };
      if (sqsDeleteCooldownMs !== undefined) {
        if (typeof sqsDeleteCooldownMs !== 'number' || sqsDeleteCooldownMs < 0)
          throw badRequest('"sqsDeleteCooldownMs" is a number >= 0');
        this.state.sqs.deleteCooldownMs = sqsDeleteCooldownMs;
      }
      return jsonResponse(200, this.settings());
    });
  }

  private addSsmRoutes(): void {
    // Public parameters (e.g. /aws/service/...) cannot be written through PutParameter: seed them here.
    this.add('POST', /^\/_emulator\/ssm\/parameters$/, (req) => {
      const seed = body(req) as {
        name?: unknown;
        value?: unknown;
        type?: unknown;
        account?: unknown;
        region?: unknown;
      };
      if (typeof seed.name !== 'string' || typeof seed.value !== 'string')
        throw badRequest('a parameter needs "name" and "value" (strings)');
      const parameter = this.state.ssm.put(
        typeof seed.account === 'string' ? seed.account : this.state.accounts.defaultAccount,
        typeof seed.region === 'string' ? seed.region : 'us-east-1',
        {
          name: seed.name,
          value: seed.value,
          type: (typeof seed.type === 'string' ? seed.type : 'String') as 'String',
          overwrite: true,
          user: 'emulator-control',
          allowReserved: true,
        },
      );
      this.state.changed();
      return jsonResponse(201, { name: parameter.name, version: parameter.versions.length });
    });
  }

  private settings(): Record<string, unknown> {
    return {
      accountId: this.state.accounts.defaultAccount,
      sqsDeleteCooldownMs: this.state.sqs.deleteCooldownMs,
      schemasDir: this.state.schemas.dir,
    };
  }

  private addCloudControlRoutes(): void {
    const types = () => Object.fromEntries(this.state.cloudcontrol.typeSettings);
    this.add('GET', /^\/_emulator\/cloudcontrol\/types$/, () => jsonResponse(200, types()));
    this.add('PUT', /^\/_emulator\/cloudcontrol\/types\/([^/]+)$/, (req, [typeName]) => {
      const settings = body(req) as TypeSettings;
      if (typeName !== '*' && !this.state.schemas.has(typeName!))
        throw notFound(`no schema for type ${typeName} in ${this.state.schemas.dir}`);
      if (
        settings.latencyMs !== undefined &&
        !(typeof settings.latencyMs === 'number' && settings.latencyMs >= 0)
      )
        throw badRequest('"latencyMs" is a number >= 0');
      if (settings.provisionable !== undefined && typeof settings.provisionable !== 'boolean')
        throw badRequest('"provisionable" is a boolean');
      if (
        settings.failWith !== undefined &&
        settings.failWith !== null &&
        typeof settings.failWith.errorCode !== 'string'
      )
        throw badRequest('"failWith" needs "errorCode" (e.g. GeneralServiceException)');
      const merged: TypeSettings = { ...this.state.cloudcontrol.typeSettings.get(typeName!), ...settings };
      if (settings.failWith === null) delete merged.failWith;
      this.state.cloudcontrol.typeSettings.set(typeName!, merged);
      return jsonResponse(200, merged);
    });
    this.add('DELETE', /^\/_emulator\/cloudcontrol\/types\/([^/]+)$/, (_req, [typeName]) => {
      this.state.cloudcontrol.typeSettings.delete(typeName!);
      return jsonResponse(200, types());
    });
    this.add('DELETE', /^\/_emulator\/cloudcontrol\/types$/, () => {
      this.state.cloudcontrol.typeSettings.clear();
      return jsonResponse(200, {});
    });
  }

  private addCloudFormationRoutes(): void {
    this.add('GET', /^\/_emulator\/cloudformation\/stacks$/, () =>
      jsonResponse(200, this.state.cloudformation.stacks),
    );
    this.add('POST', /^\/_emulator\/cloudformation\/stacks$/, (req) => {
      const seed = body(req) as StackSeed;
      const stack = this.state.cloudformation.seed(seed, this.state.accounts.defaultAccount);
      this.state.changed();
      return jsonResponse(201, stack);
    });
    this.add('DELETE', /^\/_emulator\/cloudformation\/stacks\/([^/]+)$/, (req, [name]) => {
      const account = req.query.get('account') ?? this.state.accounts.defaultAccount;
      const region = req.query.get('region') ?? 'us-east-1';
      if (!this.state.cloudformation.remove(name!, account, region))
        throw notFound(`no seeded stack ${name} in ${account}/${region}`);
      this.state.changed();
      return jsonResponse(200, { deleted: name });
    });
  }

  /** Adds a route (services register their own control routes too). */
  add(method: string, pattern: RegExp, handler: Handler): void {
    this.routes.push({ method, pattern, handler });
  }

  async handle(req: EmulatorRequest): Promise<EmulatorResponse> {
    let pathMatched = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(req.rawPath);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== req.method) continue;
      try {
        const params = m.slice(1).map((p) => decodeURIComponent(p));
        return await route.handler(req, params);
      } catch (err) {
        if (err instanceof AwsError)
          return jsonResponse(err.status, { error: err.code, message: err.message });
        throw err;
      }
    }
    return pathMatched
      ? jsonResponse(405, {
          error: 'MethodNotAllowed',
          message: `${req.method} is not allowed on ${req.rawPath}`,
        })
      : jsonResponse(404, { error: 'NotFound', message: `no control route ${req.method} ${req.rawPath}` });
  }
}

export function body(req: EmulatorRequest): unknown {
  if (!req.body.length) return {};
  try {
    return JSON.parse(req.body.toString('utf8')) as unknown;
  } catch {
    throw badRequest('the body must be JSON');
  }
}

function asArray<T>(value: unknown): T[] {
  return (Array.isArray(value) ? value : [value]) as T[];
}

export function badRequest(message: string): AwsError {
  return new AwsError('BadRequest', message, 400);
}

export function notFound(message: string): AwsError {
  return new AwsError('NotFound', message, 404);
}
