/**
 * Everything one emulator instance holds: accounts, the services built from
 * their modules, request counts, latency, faults and consistency switches.
 * The server, the control API and persistence work on it, and know services
 * only through the module contract (`core/service.ts`).
 */
import { setClockOffset } from './core/clock';
import { AccountRegistry, DEFAULT_ACCOUNT } from './core/accounts';
import { ConsistencySwitches } from './core/consistency';
import { FaultRegistry } from './core/faults';
import { LatencyProfile, RequestCounter, type LatencyProfileSpec } from './core/latency';
import type { ResourceProvider } from './core/resources';
import type { InventoryItem, InventoryView, Platform, ServiceInstance, ServiceModule } from './core/service';
import { SERVICES } from './services';

export type { InventoryItem } from './core/service';

export interface EmulatorStateOptions {
  account?: string;
  /** A folder of hand-written resource schemas for Cloud Control (tests); default: `@aws-cdk/aws-service-spec`. */
  schemasDir?: string;
  /** Service modules beside (or, by name, instead of) the built-in ones. */
  services?: readonly ServiceModule[];
}

/** A service module with its instance. */
export interface RegisteredService {
  module: ServiceModule;
  instance: ServiceInstance;
}

/** What Cloud Control needs to set per-type latencies (its `api`). */
export interface CloudControlLatencyApi {
  setTypeLatencies(typeName: string, latencies: { create?: number; update?: number; delete?: number }): void;
  clearTypeLatencies(): void;
}

export class EmulatorState {
  readonly accounts: AccountRegistry;
  readonly requests = new RequestCounter();
  readonly latency = new LatencyProfile();
  readonly faults = new FaultRegistry();
  readonly consistency = new ConsistencySwitches();
  /** By service name, in registration order. */
  readonly services = new Map<string, RegisteredService>();
  private readonly bySigningName = new Map<string, RegisteredService>();
  private readonly providers = new Map<string, ResourceProvider>();
  /** AWS requests whose headers arrived and that are not answered yet. */
  inFlight = 0;
  latencyProfile: LatencyProfileSpec = { name: 'zero' };
  private readonly listeners: Array<() => void> = [];

  constructor(readonly options: EmulatorStateOptions = {}) {
    this.accounts = new AccountRegistry(options.account ?? DEFAULT_ACCOUNT);
    const modules = new Map<string, ServiceModule>();
    for (const m of [...SERVICES, ...(options.services ?? [])]) modules.set(m.name, m);
    const platform: Platform = {
      accounts: this.accounts,
      consistency: this.consistency,
      changed: () => this.changed(),
      resourceProvider: (typeName) => this.providers.get(typeName),
      api: <T>(name: string) => {
        const service = this.services.get(name);
        if (!service?.instance.api) throw new Error(`the emulator has no service ${name} with an api`);
        return service.instance.api as T;
      },
      options: { schemasDir: options.schemasDir },
    };
    for (const module of modules.values()) {
      const registered = { module, instance: module.create(platform) };
      this.services.set(module.name, registered);
      for (const signingName of module.signingNames) this.bySigningName.set(signingName, registered);
      for (const provider of registered.instance.resources ?? []) {
        if (this.providers.has(provider.typeName))
          throw new Error(`${provider.typeName} is owned by two services (${module.name} and another)`);
        this.providers.set(provider.typeName, provider);
      }
    }
  }

  /** The service a SigV4 signing name routes to. */
  bySigning(signingName: string): RegisteredService | undefined {
    return this.bySigningName.get(signingName);
  }

  /** The service an unsigned request is for: the first codec that recognises it, else S3. */
  recognize(
    req: Parameters<NonNullable<ServiceInstance['protocol']['recognizes']>>[0],
  ): RegisteredService | undefined {
    for (const service of this.services.values())
      if (service.instance.protocol.recognizes?.(req)) return service;
    return this.services.get('s3');
  }

  /** Called after every successful mutating request. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Forgets every resource, request count, latency rule, fault, consistency switch and issued credential. */
  reset(): void {
    for (const { instance } of this.services.values()) {
      instance.store?.clear();
      instance.settings?.reset();
    }
    this.accounts.clear();
    this.requests.clear();
    this.latency.clear();
    this.latencyProfile = { name: 'zero' };
    this.faults.clear();
    this.consistency.reset();
    setClockOffset(0);
    this.changed();
  }

  /** Every resource of every service. */
  inventory(view: InventoryView): InventoryItem[] {
    const items: InventoryItem[] = [];
    for (const { instance } of this.services.values()) {
      for (const provider of instance.resources ?? []) items.push(...provider.inventory(view));
      items.push(...(instance.store?.inventory?.(view) ?? []));
    }
    return items;
  }

  /** Every service's store as JSON-serializable data, by service name. */
  snapshot(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, { instance }] of this.services)
      if (instance.store) out[name] = instance.store.snapshot();
    return out;
  }

  restore(saved: Record<string, unknown>): void {
    for (const [name, data] of Object.entries(saved)) {
      const store = this.services.get(name)?.instance.store;
      if (store && data !== undefined) store.restore(data);
    }
  }

  /** Replaces the latency rules and Cloud Control type latencies with a profile. */
  applyLatencyProfile(profile: LatencyProfileSpec): void {
    const cloudControl = this.services.get('cloudcontrol')?.instance.api as
      CloudControlLatencyApi | undefined;
    this.latency.clear();
    cloudControl?.clearTypeLatencies();
    this.latencyProfile = profile;
    if (profile.name === 'flat') {
      if (profile.callMs > 0) this.latency.set({ service: '*', ms: profile.callMs });
      const ms = profile.cloudControlMs;
      cloudControl?.setTypeLatencies('*', { create: ms, update: ms, delete: ms });
    } else if (profile.name === 'realistic') {
      // Cloud Control's own table first, so a service's figure for a type it owns wins.
      const ordered = [...this.services].sort(
        ([a], [b]) => Number(b === 'cloudcontrol') - Number(a === 'cloudcontrol'),
      );
      for (const [name, { instance }] of ordered) {
        const figures = instance.latency;
        if (!figures) continue;
        for (const [operation, ms] of Object.entries(figures.operations ?? {}))
          this.latency.set({ service: name, operation: operation === '*' ? undefined : operation, ms });
        for (const [typeName, latencies] of Object.entries(figures.resourceTypes ?? {}))
          cloudControl?.setTypeLatencies(typeName, latencies);
      }
    }
  }

  /** Stops every service's timers and child processes; resolves when they have ended. */
  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map(({ instance }) => instance.stop?.()));
  }
}
