/**
 * The provider registry: which provider pack provisions which resource type,
 * and, per resource, whether the SDK provider or Cloud Control does.
 *
 * It is built from what every installed pack's `cdkd:providers` hook returned
 * (collected by the CLI, see src/cli/load-provider-packs.ts) and validates each
 * registration against cdkd's schemas. A bad registration is refused with one
 * message naming pack, type and property; the pack's other registrations and
 * every other pack still load.
 */
import type { ProviderContext, ProviderRegistration, ResourceProvider } from '../plugin-api';
import { SUPPORTED_PLUGIN_API_VERSIONS } from '../plugin-api';
import { ProvisioningError } from '../util/errors';
import type { SchemaStore } from './schema-store';

/** How a pack is installed: bundled with cdkd (`core`), `cdkd plugins install` (`user`), `cdkd plugins link` (`link`). */
export type PackInstallType = 'core' | 'user' | 'link';

/** What one plugin's `cdkd:providers` hook produced. */
export interface LoadedPack {
  /** The oclif plugin (npm package) name. */
  pluginName: string;
  /** How the plugin is installed; oclif's other kinds (e.g. `dev`) rank as `core`. */
  pluginType: PackInstallType | string;
  /** The hook's return value, unchecked. */
  result?: unknown;
  /** The hook threw, or could not be loaded. */
  error?: unknown;
}

/** One refused pack or registration. */
export interface RegistrationProblem {
  /** The pack's declared name, or its plugin name when it declared none. */
  pack: string;
  pluginName: string;
  resourceType?: string;
  /** The offending properties, when properties are the problem. */
  properties?: string[];
  /** One line naming pack, type and property. */
  message: string;
}

/** A validated registration. */
export interface RegisteredProvider {
  resourceType: string;
  /** The pack's declared name. */
  packName: string;
  pluginName: string;
  pluginType: PackInstallType;
  handledProperties: ReadonlySet<string>;
  /** By-design unhandled properties and their rationales. */
  unhandledByDesign: ReadonlyMap<string, string>;
  /** The pack's registration object (its `createProvider` builds providers). */
  registration: ProviderRegistration;
}

/** A registration that lost to a higher-ranked one for the same type. */
export interface ProviderOverride {
  resourceType: string;
  /** The winner. */
  packName: string;
  /** The registration it replaced. */
  overriddenPack: string;
}

/** Where one resource is provisioned, and why. */
export type RouteDecision =
  | { route: 'sdk'; registration: RegisteredProvider; packName: string; reason: string }
  | {
      route: 'cc-api';
      reason: string;
      /** Template properties the type's SDK provider does not handle, when that is the reason. */
      unhandledProperties?: string[];
    };

/** The `provisionedBy` value recorded in state; only `'cc-api'` pins a resource. */
export type ProvisionedBy = 'sdk' | 'cc-api';

/** Builds the Cloud Control provider for a region (supplied by the engine; a later issue implements it). */
export type CloudControlProviderFactory = (ctx: ProviderContext) => ResourceProvider;

/** Ranks of install types: a user-installed or linked pack replaces a bundled one. */
const RANK: Record<PackInstallType, number> = { core: 0, user: 1, link: 1 };

function installTypeOf(pluginType: string): PackInstallType {
  return pluginType === 'user' || pluginType === 'link' ? pluginType : 'core';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function quoteList(names: string[]): string {
  return names.join(', ');
}

export class ProviderRegistry {
  /** Winners by type. */
  private readonly byType = new Map<string, RegisteredProvider>();
  /** Every valid registration, winners and losers, in load order. */
  private readonly valid: RegisteredProvider[] = [];
  private readonly instances = new Map<RegisteredProvider, Map<string, ResourceProvider>>();
  private readonly cloudControlInstances = new Map<string, ResourceProvider>();
  readonly problems: RegistrationProblem[] = [];
  readonly overrides: ProviderOverride[] = [];
  /** Every pack that answered, by declared name, with its plugin. */
  readonly packs: { packName: string; pluginName: string; pluginType: PackInstallType }[] = [];

  private constructor(
    private readonly schemas: SchemaStore,
    private cloudControl?: CloudControlProviderFactory,
  ) {}

  /**
   * Validates every pack's hook result and ranks the registrations.
   * Never throws for a bad pack: see {@link problems}.
   */
  static fromPacks(
    packs: readonly LoadedPack[],
    schemas: SchemaStore,
    options: { cloudControl?: CloudControlProviderFactory } = {},
  ): ProviderRegistry {
    const registry = new ProviderRegistry(schemas, options.cloudControl);
    const sorted = [...packs].sort((a, b) =>
      a.pluginName < b.pluginName ? -1 : a.pluginName > b.pluginName ? 1 : 0,
    );
    for (const pack of sorted) registry.addPack(pack);
    registry.rank();
    return registry;
  }

  /** Supplies the Cloud Control provider (the engine does, once it exists). */
  setCloudControlProvider(factory: CloudControlProviderFactory): void {
    this.cloudControl = factory;
    this.cloudControlInstances.clear();
  }

  /** The winning registration of every type, sorted by type. */
  registrations(): RegisteredProvider[] {
    return [...this.byType.values()].sort((a, b) => (a.resourceType < b.resourceType ? -1 : 1));
  }

  /** Every valid registration, including ones a higher-ranked pack overrode. */
  allRegistrations(): RegisteredProvider[] {
    return [...this.valid];
  }

  /** The registration that provisions `type`, if any. */
  registrationFor(type: string): RegisteredProvider | undefined {
    return this.byType.get(type);
  }

  /**
   * Decides where a resource goes. The SDK provider when the type has one and
   * every property the template sets is handled or unhandled by design;
   * otherwise Cloud Control. A resource whose state records `provisionedBy:
   * 'cc-api'` stays there (sticky); `'sdk'` or absent re-decides.
   */
  providerFor(
    type: string,
    properties: Record<string, unknown>,
    pinnedProvisionedBy?: ProvisionedBy,
  ): RouteDecision {
    if (pinnedProvisionedBy === 'cc-api') {
      return {
        route: 'cc-api',
        reason: 'state records it as provisioned by Cloud Control (provisionedBy: cc-api)',
      };
    }
    const registered = this.byType.get(type);
    if (!registered) return { route: 'cc-api', reason: `no provider pack registers ${type}` };
    // A key whose value resolved to nothing (AWS::NoValue) is not set.
    const unhandled = Object.keys(properties)
      .filter((name) => properties[name] !== undefined)
      .filter((name) => !registered.handledProperties.has(name) && !registered.unhandledByDesign.has(name))
      .sort();
    if (unhandled.length > 0) {
      return {
        route: 'cc-api',
        reason: `the template sets ${quoteList(unhandled)}, which ${registered.packName} does not handle for ${type}`,
        unhandledProperties: unhandled,
      };
    }
    return {
      route: 'sdk',
      registration: registered,
      packName: registered.packName,
      reason: `${registered.packName} handles every property the template sets`,
    };
  }

  /**
   * The provider instance for a routing decision: one per registration and
   * region, created on first use from `ctx`.
   */
  providerInstance(decision: RouteDecision, ctx: ProviderContext): ResourceProvider {
    if (decision.route === 'sdk') return this.sdkProvider(decision.registration, ctx);
    let instance = this.cloudControlInstances.get(ctx.region);
    if (!instance) {
      if (!this.cloudControl) {
        throw new ProvisioningError(
          `Cloud Control provisioning is not available in this build (${decision.reason}).`,
          {
            code: 'CLOUD_CONTROL_UNAVAILABLE',
            remedy: 'Install a provider pack that handles this type and these properties.',
          },
        );
      }
      instance = this.cloudControl(ctx);
      this.cloudControlInstances.set(ctx.region, instance);
    }
    return instance;
  }

  /** The SDK provider of a registration for `ctx.region`, created once. */
  sdkProvider(registered: RegisteredProvider, ctx: ProviderContext): ResourceProvider {
    let perRegion = this.instances.get(registered);
    if (!perRegion) {
      perRegion = new Map();
      this.instances.set(registered, perRegion);
    }
    let instance = perRegion.get(ctx.region);
    if (!instance) {
      try {
        instance = registered.registration.createProvider(ctx);
      } catch (err) {
        throw new ProvisioningError(
          `Provider pack ${registered.packName} could not create its provider for ${registered.resourceType}: ${describeError(err)}`,
          { cause: err, code: 'PROVIDER_PACK_ERROR', resource: { resourceType: registered.resourceType } },
        );
      }
      perRegion.set(ctx.region, instance);
    }
    return instance;
  }

  // -------------------------------------------------------------------------

  private problem(p: Omit<RegistrationProblem, 'message'>, message: string): void {
    this.problems.push({ ...p, message });
  }

  private addPack(pack: LoadedPack): void {
    const pluginName = pack.pluginName;
    const declared = isRecord(pack.result) && typeof pack.result.name === 'string' ? pack.result.name : '';
    const packName = declared || pluginName;
    const where = { pack: packName, pluginName };
    if (pack.error !== undefined) {
      this.problem(where, `Provider pack ${pluginName} failed to load: ${describeError(pack.error)}`);
      return;
    }
    const result = pack.result;
    if (!isRecord(result)) {
      this.problem(
        where,
        `Provider pack ${pluginName}: its cdkd:providers hook returned ${result === undefined ? 'nothing' : typeof result}, not a provider pack object.`,
      );
      return;
    }
    if (!declared) {
      this.problem(where, `Provider pack ${pluginName}: "name" must be a non-empty string.`);
      return;
    }
    if (typeof result.apiVersion !== 'number' || !SUPPORTED_PLUGIN_API_VERSIONS.includes(result.apiVersion)) {
      this.problem(
        where,
        `Provider pack ${packName} declares plugin API version ${JSON.stringify(result.apiVersion)}; this cdkd supports ${SUPPORTED_PLUGIN_API_VERSIONS.join(', ')}.`,
      );
      return;
    }
    if (!Array.isArray(result.providers)) {
      this.problem(where, `Provider pack ${packName}: "providers" must be an array of registrations.`);
      return;
    }
    this.packs.push({ packName, pluginName, pluginType: installTypeOf(pack.pluginType) });
    const seen = new Set<string>();
    result.providers.forEach((entry: unknown, i: number) => {
      const registered = this.validateRegistration(entry, i, packName, pack);
      if (!registered) return;
      if (seen.has(registered.resourceType)) {
        this.problem(
          { ...where, resourceType: registered.resourceType },
          `Provider pack ${packName} registers ${registered.resourceType} twice; only the first registration is used.`,
        );
        return;
      }
      seen.add(registered.resourceType);
      this.valid.push(registered);
    });
  }

  private validateRegistration(
    entry: unknown,
    index: number,
    packName: string,
    pack: LoadedPack,
  ): RegisteredProvider | undefined {
    const pluginName = pack.pluginName;
    if (!isRecord(entry)) {
      this.problem(
        { pack: packName, pluginName },
        `Provider pack ${packName}: providers[${index}] is not a registration object.`,
      );
      return undefined;
    }
    const type = entry.resourceType;
    if (typeof type !== 'string' || type === '') {
      this.problem(
        { pack: packName, pluginName },
        `Provider pack ${packName}: providers[${index}].resourceType must be a resource type name.`,
      );
      return undefined;
    }
    const where = { pack: packName, pluginName, resourceType: type };
    const refuse = (why: string, properties?: string[]): undefined => {
      this.problem(
        properties ? { ...where, properties } : where,
        `Provider pack ${packName}, ${type}: ${why}; the registration is refused.`,
      );
      return undefined;
    };
    if (!this.schemas.has(type)) return refuse(`${type} is not a resource type cdkd knows`);
    if (typeof entry.createProvider !== 'function') return refuse('createProvider is not a function');

    const handled = entry.handledProperties;
    if (!Array.isArray(handled) || handled.some((p) => typeof p !== 'string')) {
      return refuse('handledProperties must be an array of property names');
    }
    const byDesignRaw = entry.unhandledByDesign ?? {};
    if (!isRecord(byDesignRaw))
      return refuse('unhandledByDesign must be an object of property name to rationale');

    const known = new Set(this.schemas.propertyNames(type));
    const readOnly = new Set(this.schemas.readOnlyPropertyNames(type));
    const byDesign = new Map<string, string>();
    for (const [name, rationale] of Object.entries(byDesignRaw))
      byDesign.set(name, typeof rationale === 'string' ? rationale : '');

    const unknownProps = [...new Set([...(handled as string[]), ...byDesign.keys()])].filter(
      (p) => !known.has(p),
    );
    if (unknownProps.length > 0) {
      const which = unknownProps.length === 1 ? 'is not a property' : 'are not properties';
      return refuse(`${quoteList(unknownProps)} ${which} of ${type}`, unknownProps);
    }
    const readOnlyProps = (handled as string[]).filter((p) => readOnly.has(p));
    if (readOnlyProps.length > 0) {
      return refuse(
        `${quoteList(readOnlyProps)} ${readOnlyProps.length === 1 ? 'is' : 'are'} read-only in ${type} and cannot be handled`,
        readOnlyProps,
      );
    }
    const noRationale = [...byDesign].filter(([, r]) => r.trim() === '').map(([p]) => p);
    if (noRationale.length > 0) {
      return refuse(
        `unhandledByDesign.${noRationale.join(', unhandledByDesign.')} needs a non-empty rationale`,
        noRationale,
      );
    }
    const both = (handled as string[]).filter((p) => byDesign.has(p));
    if (both.length > 0) {
      return refuse(
        `${quoteList(both)} ${both.length === 1 ? 'is' : 'are'} listed both as handled and as unhandled by design`,
        both,
      );
    }
    return {
      resourceType: type,
      packName,
      pluginName,
      pluginType: installTypeOf(pack.pluginType),
      handledProperties: new Set(handled as string[]),
      unhandledByDesign: byDesign,
      registration: entry as unknown as ProviderRegistration,
    };
  }

  /** Picks one registration per type: the highest rank wins; a tie at the top refuses both. */
  private rank(): void {
    const byType = new Map<string, RegisteredProvider[]>();
    for (const r of this.valid) byType.set(r.resourceType, [...(byType.get(r.resourceType) ?? []), r]);
    for (const [type, candidates] of byType) {
      const top = Math.max(...candidates.map((c) => RANK[c.pluginType]));
      const winners = candidates.filter((c) => RANK[c.pluginType] === top);
      if (winners.length > 1) {
        const names = winners.map((w) => `${w.packName} (${w.pluginType})`);
        for (const w of winners) {
          this.problem(
            { pack: w.packName, pluginName: w.pluginName, resourceType: type },
            `Provider packs ${names.join(' and ')} both register ${type}; neither is used. Uninstall or unlink one of them.`,
          );
        }
        continue;
      }
      const winner = winners[0];
      this.byType.set(type, winner);
      for (const loser of candidates.filter((c) => c !== winner)) {
        this.overrides.push({
          resourceType: type,
          packName: winner.packName,
          overriddenPack: loser.packName,
        });
      }
    }
  }
}
