/**
 * The control API under `/_emulator/`: a public contract other tools script
 * against. Every route answers JSON.
 */
import { clockOffset, setClockOffset } from '../core/clock';
import { AwsError } from '../core/errors';
import { BUILTIN_FAULT_MODES, type FaultSpec } from '../core/faults';
import { jsonResponse, type EmulatorRequest, type EmulatorResponse } from '../core/http';
import type { LatencyRule } from '../core/latency';
import type { ControlHandler, ControlRouter } from '../core/service';
import type { EmulatorState } from '../state';

interface Route {
  method: string;
  pattern: RegExp;
  handler: ControlHandler;
}

export class ControlApi implements ControlRouter {
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
      jsonResponse(200, this.state.inventory({ baseUrl: req.baseUrl })),
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
      if (spec.mode && !this.knownFaultMode(spec.service, spec.mode))
        throw badRequest(
          `"mode" is "error", "drop", "error-after" or a mode of the service (unknown: ${spec.mode})`,
        );
      if (spec.match !== undefined && (typeof spec.match !== 'object' || Array.isArray(spec.match)))
        throw badRequest('"match" is an object of input members and values');
      if (spec.probability !== undefined && !(spec.probability >= 0 && spec.probability <= 1))
        throw badRequest('"probability" is between 0 and 1');
      if (spec.count !== undefined && !(Number.isInteger(spec.count) && spec.count > 0))
        throw badRequest('"count" is a positive integer');
      if (spec.seed !== undefined && !Number.isInteger(spec.seed)) throw badRequest('"seed" is an integer');
      if (spec.maxPerCall !== undefined && !(Number.isInteger(spec.maxPerCall) && spec.maxPerCall > 0))
        throw badRequest('"maxPerCall" is a positive integer');
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
    this.add('GET', /^\/_emulator\/settings$/, () => jsonResponse(200, this.settings()));
    this.add('PUT', /^\/_emulator\/settings$/, (req) => {
      const patch = body(req) as Record<string, unknown>;
      if (!patch || typeof patch !== 'object' || Array.isArray(patch))
        throw badRequest('settings are a JSON object');
      for (const { instance } of this.state.services.values()) instance.settings?.update(patch);
      return jsonResponse(200, this.settings());
    });
    this.addLatencyProfileRoutes();
    this.addConsistencyRoutes();
    for (const { instance } of this.state.services.values()) instance.control?.(this);
  }

  private settings(): Record<string, unknown> {
    const out: Record<string, unknown> = { accountId: this.state.accounts.defaultAccount };
    for (const { instance } of this.state.services.values()) Object.assign(out, instance.settings?.read());
    return out;
  }

  private addLatencyProfileRoutes(): void {
    this.add('GET', /^\/_emulator\/latency\/profile$/, () => jsonResponse(200, this.state.latencyProfile));
    this.add('PUT', /^\/_emulator\/latency\/profile$/, (req) => {
      const spec = body(req) as { name?: unknown; callMs?: unknown; cloudControlMs?: unknown };
      if (spec.name === 'zero' || spec.name === 'realistic')
        this.state.applyLatencyProfile({ name: spec.name });
      else if (spec.name === 'flat') {
        const callMs = spec.callMs ?? 0;
        const cloudControlMs = spec.cloudControlMs ?? 0;
        if (
          typeof callMs !== 'number' ||
          callMs < 0 ||
          typeof cloudControlMs !== 'number' ||
          cloudControlMs < 0
        )
          throw badRequest('"flat" takes "callMs" and "cloudControlMs" (numbers >= 0)');
        this.state.applyLatencyProfile({ name: 'flat', callMs, cloudControlMs });
      } else throw badRequest('"name" is "zero", "realistic" or "flat"');
      return jsonResponse(200, { profile: this.state.latencyProfile, rules: this.state.latency.list() });
    });
  }

  private addConsistencyRoutes(): void {
    this.add('GET', /^\/_emulator\/consistency$/, () => jsonResponse(200, this.state.consistency.list()));
    this.add('PUT', /^\/_emulator\/consistency\/([^/]+)$/, (req, [name]) => {
      if (!this.state.consistency.has(name!))
        throw notFound(`no consistency behaviour ${name} (GET /_emulator/consistency lists them)`);
      const { enabled, delayMs } = body(req) as { enabled?: unknown; delayMs?: unknown };
      if (enabled !== undefined && typeof enabled !== 'boolean') throw badRequest('"enabled" is a boolean');
      if (delayMs !== undefined && !(typeof delayMs === 'number' && delayMs >= 0))
        throw badRequest('"delayMs" is a number >= 0');
      return jsonResponse(200, this.state.consistency.set(name!, { enabled, delayMs }));
    });
  }

  private knownFaultMode(service: string, mode: string): boolean {
    if (BUILTIN_FAULT_MODES[mode]) return true;
    const services = service === '*' ? [...this.state.services.values()] : [this.state.services.get(service)];
    return services.some((s) => s?.instance.faultModes?.[mode] !== undefined);
  }

  /** Adds a route (services register their own control routes too). */
  add(method: string, pattern: RegExp, handler: ControlHandler): void {
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
