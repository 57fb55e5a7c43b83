/**
 * The provider registry: which provider pack provisions which resource type,
 * and, per resource, whether an SDK provider or Cloud Control does.
 *
 * It is built from what every pack's `cdkd:providers` hook returned (collected
 * by the CLI, see src/cli/load-provider-packs.ts) and validates each pack and
 * registration: the pack's declared name is its package name, its API version
 * is supported, every type is in cdkd's catalogue or comes with its own schema
 * (an org-internal type), every handled property belongs to the type. A bad
 * registration is refused with one message naming pack, type and property, plus
 * the remedy; the pack's other registrations and every other pack still load.
 *
 * Routing keeps a resource with the provider that made it (state records the
 * pack and its version) and moves it between a pack and Cloud Control only when
 * the pack declares that its physical ids are the type's Cloud Control
 * identifiers.
 */
import { isKnownNeverReused, schemaSaysNeverReused } from './generated-identifiers';
import type { ProviderContext, ProviderRegistration, ResourceProvider } from '../plugin-api';
import { SUPPORTED_PLUGIN_API_VERSIONS } from '../plugin-api';
import { CdkdError, ProvisioningError } from '../util/errors';
import { CLOUD_CONTROL_CANNOT_PROVISION } from './cloud-control-types';
import { isCustomResourceType } from '../template/custom-resource-type';
import { convertPackSchema } from './pack-schema';
import type { CfnResourceSchema, SchemaStore } from './schema-store';
import { isRecord } from '../util/objects';

/**
 * How a pack is installed: bundled with cdkd (`core`), `cdkd plugins install`
 * (`user`), `cdkd plugins link` (`link`), `cdkd packs install` (`project`).
 */
export type PackInstallType = 'core' | 'user' | 'link' | 'project';

/** What one plugin's `cdkd:providers` hook produced. */
export interface LoadedPack {
  /** The oclif plugin (npm package) name. */
  pluginName: string;
  /** How the plugin is installed; oclif's other kinds (e.g. `dev`) rank as `core`. */
  pluginType: PackInstallType | string;
  /** The plugin's package version. */
  pluginVersion?: string;
  /** The hook's return value, unchecked. */
  result?: unknown;
  /** The hook threw, could not be loaded, or did not answer in time. */
  error?: unknown;
}

/** One refused pack or registration. */
export interface RegistrationProblem {
  /** The pack's declared name, or its plugin name when it declared none. */
  pack: string;
  pluginName: string;
  /** How the refused pack is installed. */
  pluginType: PackInstallType;
  resourceType?: string;
  /** The offending properties, when properties are the problem. */
  properties?: string[];
  /** One line naming pack, type and property. */
  message: string;
  /** What to do about it. */
  remedy: string;
}

/** A validated registration. */
export interface RegisteredProvider {
  resourceType: string;
  /** The pack's declared name (its package name). */
  packName: string;
  pluginName: string;
  pluginType: PackInstallType;
  /** The pack's package version, when known. */
  packVersion?: string;
  handledProperties: ReadonlySet<string>;
  /** By-design unhandled properties and their rationales. */
  unhandledByDesign: ReadonlyMap<string, string>;
  /** Properties whose resources go to Cloud Control by design, and why. */
  cloudControlByDesign: ReadonlyMap<string, string>;
  /** The provider's physical ids are the type's Cloud Control identifiers (resources may move). */
  physicalIdIsPrimaryIdentifier: boolean;
  /** The provider can take the type's final snapshot (`DeletionPolicy: Snapshot`). */
  canSnapshot: boolean;
  /** The type's physical ids never name a later resource (plugin API `physicalIdNeverReused`). */
  physicalIdNeverReused?: boolean;
  /** Attribute names the type always holds a secret in (plugin API `secretAttributes`). */
  secretAttributes: ReadonlySet<string>;
  /** The schema the pack brought for a type outside the catalogue (cdkd's format). */
  ownSchema?: CfnResourceSchema;
  /** The pack's registration object (its `createProvider` builds providers). */
  registration: ProviderRegistration;
  /** cdkd's own provider (custom resources): its records name no pack. */
  builtIn?: true;
}

/** A pack that answered and passed the pack-level checks. */
export interface LoadedPackInfo {
  packName: string;
  pluginName: string;
  pluginType: PackInstallType;
  packVersion?: string;
}

/** A registration that lost to a higher-ranked one for the same type. */
export interface ProviderOverride {
  resourceType: string;
  /** The winner. */
  packName: string;
  /** The registration it replaced. */
  overriddenPack: string;
}

/** The `provisionedBy` value recorded in state. */
export type ProvisionedBy = 'sdk' | 'cc-api';

/** Who made a recorded resource: the provenance fields of its state record. */
export interface RecordedProvenance {
  provisionedBy?: ProvisionedBy;
  /** The pack that provisioned it (absent: Cloud Control, or a record older than pack provenance). */
  providerPack?: string;
  providerPackVersion?: string;
}

/** Where one resource is provisioned, and why. */
export type RouteDecision =
  | {
      route: 'sdk';
      registration: RegisteredProvider;
      packName: string;
      reason: string;
      /** It was provisioned elsewhere (Cloud Control, another pack) and moves to this pack. */
      moved?: true;
    }
  | {
      route: 'cc-api';
      reason: string;
      /** Template properties the type's SDK provider does not handle, when that is the reason. */
      unhandledProperties?: string[];
      /** It was provisioned by a pack and moves to Cloud Control. */
      moved?: true;
      /** Said once per run: a pack that made resources is missing, so they go to Cloud Control. */
      warning?: { message: string; remedy: string };
    }
  | {
      /** No provider may take it: changing it would lose track of the resource. */
      route: 'refused';
      reason: string;
      remedy: string;
    };

/** Builds the Cloud Control provider for a region (supplied by the engine). */
export type CloudControlProviderFactory = (ctx: ProviderContext) => ResourceProvider;

/** Builds cdkd's custom-resource provider for a region (supplied by the engine: it needs the state bucket). */
export type CustomResourceProviderFactory = (ctx: ProviderContext) => ResourceProvider;

export interface ProviderRegistryOptions {
  cloudControl?: CloudControlProviderFactory;
  /**
   * Refuse to move a resource whose pack is not installed to Cloud Control
   * (`--strict-packs`); by default it moves, with a warning.
   */
  strictPacks?: boolean;
  /** `--cloud-control-only`: every resource goes to Cloud Control, whatever packs are installed. */
  cloudControlOnly?: boolean;
}

/** Ranks of install types: a project's declared pack beats a linked or installed one, which beats a bundled one. */
const RANK: Record<PackInstallType, number> = { core: 0, user: 1, link: 1, project: 2 };

function installTypeOf(pluginType: string): PackInstallType {
  return pluginType === 'user' || pluginType === 'link' || pluginType === 'project' ? pluginType : 'core';
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function quoteList(names: string[]): string {
  return names.join(', ');
}

/** The decision to use `r`. */
function packRoute(r: RegisteredProvider, reason: string, moved = false): RouteDecision {
  return { route: 'sdk', registration: r, packName: r.packName, reason, ...(moved ? { moved: true } : {}) };
}

/** The decision to use `r`, which handles every property the template sets. */
function handlesAll(r: RegisteredProvider): RouteDecision {
  return packRoute(r, `${r.packName} handles every property the template sets`);
}

/**
 * Why `r` cannot take a resource on its own: the properties it does not handle,
 * with the rationale of those it leaves to Cloud Control by design.
 */
function setsUnhandled(unhandled: string[], r: RegisteredProvider, type: string): string {
  const byDesign = unhandled.filter((p) => r.cloudControlByDesign.has(p));
  const others = unhandled.filter((p) => !r.cloudControlByDesign.has(p));
  const parts: string[] = [];
  if (others.length > 0) parts.push(`${quoteList(others)}, which ${r.packName} does not handle for ${type}`);
  for (const p of byDesign)
    parts.push(
      `${p}, which ${r.packName} leaves to Cloud Control by design (${r.cloudControlByDesign.get(p)})`,
    );
  return `the template sets ${parts.join('; and ')}`;
}

/** How to get a working pack, by how it is installed. */
export function packRemedy(pluginType: PackInstallType, pluginName: string): string {
  switch (pluginType) {
    case 'project':
      return `Install a version of ${pluginName} that works: change its range under packs and run \`cdkd packs install\` (or \`cdkd packs upgrade ${pluginName}\`).`;
    case 'user':
      return `Update it (\`cdkd plugins update\`) or uninstall it (\`cdkd plugins uninstall ${pluginName}\`).`;
    case 'link':
      return `Fix the linked pack, or unlink it (\`cdkd plugins unlink ${pluginName}\`).`;
    default:
      return `${pluginName} is bundled with cdkd: reinstall cdkd.`;
  }
}

/** How to install a missing pack that made resources. */
function installRemedy(pack: string): string {
  return `Install ${pack}: declare it under packs and run \`cdkd packs install\`, or run \`cdkd plugins install ${pack}\`.`;
}

export class ProviderRegistry {
  /** Winners by type. */
  private readonly byType = new Map<string, RegisteredProvider>();
  /** Every valid registration, winners and losers, in load order. */
  private readonly valid: RegisteredProvider[] = [];
  /** Registrations refused for a tie: never used. */
  private readonly tied = new Set<RegisteredProvider>();
  private readonly instances = new Map<RegisteredProvider, Map<string, ResourceProvider>>();
  private readonly cloudControlInstances = new Map<string, ResourceProvider>();
  private cloudControl?: CloudControlProviderFactory;
  private customResources?: CustomResourceProviderFactory;
  /** Every custom-resource type routes here: cdkd runs them itself, whatever properties they set. */
  private readonly customResourceRegistration: RegisteredProvider = {
    resourceType: 'AWS::CloudFormation::CustomResource',
    packName: 'cdkd',
    pluginName: 'cdkd',
    pluginType: 'core',
    handledProperties: new Set(),
    unhandledByDesign: new Map(),
    cloudControlByDesign: new Map(),
    canSnapshot: false,
    secretAttributes: new Set(),
    physicalIdIsPrimaryIdentifier: false,
    builtIn: true,
    registration: {
      resourceType: 'AWS::CloudFormation::CustomResource',
      handledProperties: [],
      createProvider: (ctx) => {
        if (!this.customResources) {
          throw new ProvisioningError(
            'Custom resources cannot be run in this build: no state bucket was given.',
            {
              code: 'CUSTOM_RESOURCES_UNAVAILABLE',
              remedy: 'Run the command through the cdkd CLI, which supplies the state bucket.',
            },
          );
        }
        return this.customResources(ctx);
      },
    },
  };
  private readonly strictPacks: boolean;
  /** Every resource goes to Cloud Control (`--cloud-control-only`). */
  readonly cloudControlOnly: boolean;
  readonly problems: RegistrationProblem[] = [];
  readonly overrides: ProviderOverride[] = [];
  /** Every pack that answered and passed the pack-level checks. */
  readonly packs: LoadedPackInfo[] = [];
  /** Every pack that was loaded, by plugin name, refused or not. */
  readonly loaded = new Map<string, { pluginType: PackInstallType; packVersion?: string }>();
  /**
   * The schemas every reader should use: the catalogue plus the schemas of the
   * org-internal types the winning registrations brought.
   */
  schemas: SchemaStore;

  private constructor(
    private readonly catalogue: SchemaStore,
    options: ProviderRegistryOptions,
  ) {
    this.schemas = catalogue;
    this.cloudControl = options.cloudControl;
    this.strictPacks = options.strictPacks ?? false;
    this.cloudControlOnly = options.cloudControlOnly ?? false;
  }

  /**
   * Validates every pack's hook result and ranks the registrations.
   * Never throws for a bad pack: see {@link problems}.
   */
  static fromPacks(
    packs: readonly LoadedPack[],
    schemas: SchemaStore,
    options: ProviderRegistryOptions = {},
  ): ProviderRegistry {
    const registry = new ProviderRegistry(schemas, options);
    const sorted = [...packs].sort((a, b) =>
      a.pluginName < b.pluginName ? -1 : a.pluginName > b.pluginName ? 1 : 0,
    );
    for (const pack of sorted) registry.addPack(pack);
    registry.rank();
    const own = new Map<string, CfnResourceSchema>();
    for (const r of registry.byType.values()) if (r.ownSchema) own.set(r.resourceType, r.ownSchema);
    if (own.size > 0) registry.schemas = schemas.withTypes(own);
    return registry;
  }

  /** Supplies the custom-resource provider (the engine does). */
  setCustomResourceProvider(factory: CustomResourceProviderFactory): void {
    this.customResources = factory;
    this.instances.delete(this.customResourceRegistration);
  }

  /** Supplies the Cloud Control provider (the engine does). */
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

  /** The registration that provisions new resources of `type`, if any. */
  registrationFor(type: string): RegisteredProvider | undefined {
    if (isCustomResourceType(type)) return this.customResourceRegistration;
    return this.byType.get(type);
  }

  /**
   * The attribute names `type` always holds a secret in, as any pack's registration of it
   * declares them (plugin API `secretAttributes`): a fact about the type, whichever layer
   * provisions a resource of it, and the same for a record an earlier cdkd wrote.
   */
  secretAttributesOf(type: string): string[] {
    const names = new Set<string>();
    for (const r of this.valid) if (r.resourceType === type) for (const n of r.secretAttributes) names.add(n);
    return [...names];
  }

  /** The usable registration of `type` by the pack named `packName` (a winner, or one it overrode). */
  registrationOf(packName: string, type: string): RegisteredProvider | undefined {
    return this.valid.find((r) => r.packName === packName && r.resourceType === type && !this.tied.has(r));
  }

  /**
   * True when something can provision `type`: cdkd itself (custom resources), a
   * pack, or Cloud Control for a catalogued type it can provision.
   */
  canProvision(type: string): boolean {
    if (isCustomResourceType(type)) return true;
    return (
      this.byType.has(type) ||
      (this.catalogue.isCatalogued(type) && !CLOUD_CONTROL_CANNOT_PROVISION.has(type))
    );
  }

  /**
   * Decides where a resource goes. A new resource (no `recorded`) goes to the
   * type's pack when it handles every property the template sets, else to Cloud
   * Control (an org-internal type cannot go there: refused). A recorded resource
   * stays with the provider that made it, and moves only when that costs no
   * physical-id churn: see {@link RouteDecision}.
   */
  providerFor(
    type: string,
    properties: Record<string, unknown>,
    recorded?: RecordedProvenance,
  ): RouteDecision {
    // A key whose value resolved to nothing (AWS::NoValue) is not set.
    const set = Object.keys(properties).filter((name) => properties[name] !== undefined);
    const unhandledBy = (r: RegisteredProvider) =>
      set.filter((name) => !r.handledProperties.has(name) && !r.unhandledByDesign.has(name)).sort();
    if (isCustomResourceType(type)) return this.customResourceRoute();
    if (this.cloudControlOnly) return this.cloudControlOnlyRoute(type, recorded);
    const current = this.byType.get(type);
    if (!recorded) return this.newResourceRoute(type, current, unhandledBy);

    if (recorded.provisionedBy === 'cc-api') {
      if (current?.physicalIdIsPrimaryIdentifier && unhandledBy(current).length === 0) {
        const reason = `moves from Cloud Control to ${current.packName}, which handles every property the template sets and addresses it by its Cloud Control identifier`;
        return packRoute(current, reason, true);
      }
      return {
        route: 'cc-api',
        reason: 'state records it as provisioned by Cloud Control (provisionedBy: cc-api)',
      };
    }

    const maker = recorded.providerPack ? this.registrationOf(recorded.providerPack, type) : current;
    if (!maker) {
      // A record older than pack provenance whose type no pack registers now: decided afresh, as before.
      if (!recorded.providerPack) return this.newResourceRoute(type, current, unhandledBy);
      return this.missingPackRoute(type, recorded, () => this.newResourceRoute(type, undefined, unhandledBy));
    }
    const unhandled = unhandledBy(maker);
    if (unhandled.length === 0) return handlesAll(maker);
    const sets = setsUnhandled(unhandled, maker, type);
    if (maker.physicalIdIsPrimaryIdentifier) {
      const other = current !== maker ? current : undefined;
      if (other?.physicalIdIsPrimaryIdentifier && unhandledBy(other).length === 0) {
        const reason = `${sets}; it moves to ${other.packName} (both address it by its Cloud Control identifier)`;
        return packRoute(other, reason, true);
      }
      if (this.catalogue.isCatalogued(type)) {
        return {
          route: 'cc-api',
          moved: true,
          unhandledProperties: unhandled,
          reason: `${sets}; it moves to Cloud Control (${maker.packName} addresses it by its Cloud Control identifier)`,
        };
      }
    }
    return {
      route: 'refused',
      reason: `${sets}, and it cannot move: ${
        this.catalogue.isCatalogued(type)
          ? `${maker.packName}'s physical ids are not Cloud Control identifiers`
          : 'Cloud Control cannot provision an org-internal type'
      }`,
      remedy: `Upgrade ${maker.packName} to a version that handles ${quoteList(unhandled)}, or remove ${unhandled.length === 1 ? 'it' : 'them'} from the resource.`,
    };
  }

  /** The provider that would delete this recorded resource can take its final snapshot first (Cloud Control cannot). */
  canSnapshot(type: string, recorded: RecordedProvenance): boolean {
    const decision = this.providerForDelete(type, recorded);
    return decision.route === 'sdk' && decision.registration.canSnapshot;
  }

  /**
   * True when the recorded resource's physical id never names a later resource,
   * so what a failed create left behind needs no identity proof before a later
   * command deletes it: a type listed in generated-identifiers.ts, else the
   * registration's `physicalIdNeverReused` (false when absent), else, for Cloud
   * Control, what the type's schema says.
   */
  physicalIdNeverReused(type: string, recorded: RecordedProvenance): boolean {
    if (isKnownNeverReused(type)) return true;
    const decision = this.providerForDelete(type, recorded);
    if (decision.route === 'sdk') return decision.registration.physicalIdNeverReused === true;
    if (decision.route === 'cc-api') return schemaSaysNeverReused(this.schemas.tryGet(type));
    return false;
  }

  /** Where a recorded resource is deleted: the provider that made it, when it is installed. */
  providerForDelete(type: string, recorded: RecordedProvenance): RouteDecision {
    if (isCustomResourceType(type)) return this.customResourceRoute();
    if (this.cloudControlOnly) return this.cloudControlOnlyRoute(type, recorded);
    if (recorded.provisionedBy === 'cc-api') {
      return {
        route: 'cc-api',
        reason: 'state records it as provisioned by Cloud Control (provisionedBy: cc-api)',
      };
    }
    const maker = recorded.providerPack
      ? this.registrationOf(recorded.providerPack, type)
      : this.byType.get(type);
    if (maker) return packRoute(maker, `state records it as provisioned by ${maker.packName}`);
    const cloudControl: RouteDecision = { route: 'cc-api', reason: `no provider pack registers ${type}` };
    return recorded.providerPack ? this.missingPackRoute(type, recorded, () => cloudControl) : cloudControl;
  }

  /**
   * The provider instance for a routing decision: one per registration and
   * region, created on first use from `ctx`.
   */
  providerInstance(decision: RouteDecision, ctx: ProviderContext): ResourceProvider {
    if (decision.route === 'refused') {
      throw new ProvisioningError(`No provider may take this resource: ${decision.reason}.`, {
        code: 'PROVIDER_ROUTE_REFUSED',
        remedy: decision.remedy,
      });
    }
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
        instance = registered.registration.createProvider(packContext(ctx, registered));
      } catch (err) {
        throw new ProvisioningError(
          `Provider pack ${registered.packName} could not create its provider for ${registered.resourceType}: ${describeError(err)}`,
          {
            cause: err,
            code: 'PROVIDER_PACK_ERROR',
            resource: { resourceType: registered.resourceType },
            remedy: packRemedy(registered.pluginType, registered.pluginName),
          },
        );
      }
      perRegion.set(ctx.region, instance);
    }
    return instance;
  }

  // -------------------------------------------------------------------------

  /** Custom resources: cdkd sends their requests to their ServiceToken itself. */
  private customResourceRoute(): RouteDecision {
    return packRoute(
      this.customResourceRegistration,
      'cdkd runs custom resources itself (through their ServiceToken)',
    );
  }

  /** A new resource: the type's pack when it handles every property set, else Cloud Control. */
  private newResourceRoute(
    type: string,
    current: RegisteredProvider | undefined,
    unhandledBy: (r: RegisteredProvider) => string[],
  ): RouteDecision {
    if (!current) return { route: 'cc-api', reason: `no provider pack registers ${type}` };
    const unhandled = unhandledBy(current);
    if (unhandled.length === 0) return handlesAll(current);
    const sets = setsUnhandled(unhandled, current, type);
    if (current.ownSchema) {
      return {
        route: 'refused',
        reason: `${sets}, and Cloud Control cannot provision an org-internal type`,
        remedy: `Add ${quoteList(unhandled)} to the handledProperties of ${current.packName} (or upgrade it), or remove ${unhandled.length === 1 ? 'it' : 'them'} from the resource.`,
      };
    }
    return { route: 'cc-api', reason: sets, unhandledProperties: unhandled };
  }

  /**
   * `--cloud-control-only`: Cloud Control takes every catalogued resource it
   * can address. A resource a pack made moves only when the pack addresses it by
   * its Cloud Control identifier (or, when the pack is not installed, as
   * {@link missingPackRoute} decides); otherwise it is refused, never guessed.
   */
  private cloudControlOnlyRoute(type: string, recorded?: RecordedProvenance): RouteDecision {
    const flag = '--cloud-control-only';
    const withoutFlag = `Run without ${flag}.`;
    if (!this.catalogue.isCatalogued(type)) {
      return {
        route: 'refused',
        reason: `Cloud Control cannot provision an org-internal type (${flag})`,
        remedy: withoutFlag,
      };
    }
    const cloudControl: RouteDecision = {
      route: 'cc-api',
      reason: `every resource goes to Cloud Control (${flag})`,
    };
    if (!recorded || recorded.provisionedBy === 'cc-api') return cloudControl;
    const maker = recorded.providerPack
      ? this.registrationOf(recorded.providerPack, type)
      : this.byType.get(type);
    if (!maker) {
      return recorded.providerPack ? this.missingPackRoute(type, recorded, () => cloudControl) : cloudControl;
    }
    if (maker.physicalIdIsPrimaryIdentifier) {
      return {
        route: 'cc-api',
        moved: true,
        reason: `it moves from ${maker.packName} to Cloud Control (${flag}; ${maker.packName} addresses it by its Cloud Control identifier)`,
      };
    }
    return {
      route: 'refused',
      reason: `it was provisioned by ${maker.packName}, whose physical ids are not Cloud Control identifiers, so Cloud Control cannot take it over (${flag})`,
      remedy: `${withoutFlag} To compare the two paths, deploy a fresh copy of the stack with ${flag}.`,
    };
  }

  /**
   * The pack that made a resource is not installed: with `--strict-packs`, or
   * for a type Cloud Control does not know, refused; otherwise `fallback` (Cloud
   * Control, as before pack provenance existed), with a warning naming the pack.
   */
  private missingPackRoute(
    type: string,
    recorded: RecordedProvenance,
    fallback: () => RouteDecision,
  ): RouteDecision {
    const pack = recorded.providerPack!;
    const who = recorded.providerPackVersion ? `${pack} ${recorded.providerPackVersion}` : pack;
    if (this.strictPacks || !this.catalogue.isCatalogued(type)) {
      return {
        route: 'refused',
        reason: `it was provisioned by ${who}, which is not installed${this.strictPacks ? ' (--strict-packs)' : ''}`,
        remedy: installRemedy(pack),
      };
    }
    const decision = fallback();
    if (decision.route !== 'cc-api') return decision;
    return {
      ...decision,
      moved: true,
      reason: `it was provisioned by ${who}, which is not installed; it moves to Cloud Control`,
      warning: {
        message: `Provider pack ${pack}, which provisioned resources of this app, is not installed: their changes go through Cloud Control (with the physical ids in state).`,
        remedy: `${installRemedy(pack)} Use --strict-packs to refuse instead.`,
      },
    };
  }

  private problem(
    p: Omit<RegistrationProblem, 'message' | 'remedy'>,
    message: string,
    remedy?: string,
  ): void {
    this.problems.push({ ...p, message, remedy: remedy ?? packRemedy(p.pluginType, p.pluginName) });
  }

  private addPack(pack: LoadedPack): void {
    const pluginName = pack.pluginName;
    const pluginType = installTypeOf(pack.pluginType);
    this.loaded.set(pluginName, { pluginType, packVersion: pack.pluginVersion });
    const declared = isRecord(pack.result) && typeof pack.result.name === 'string' ? pack.result.name : '';
    const packName = declared || pluginName;
    const where = { pack: packName, pluginName, pluginType };
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
    if (declared !== pluginName) {
      // A pack cannot stand in for another: a fork calling itself @cdkd/provider-sqs is refused.
      this.problem(
        { ...where, pack: pluginName },
        `Provider pack ${pluginName} declares the name ${declared}; a pack's name must be its npm package name, so it is not used.`,
        `Use a build of ${declared} published under its own name, or ask the maintainers of ${pluginName} to declare "${pluginName}". ${packRemedy(pluginType, pluginName)}`,
      );
      return;
    }
    if (typeof result.apiVersion !== 'number' || !SUPPORTED_PLUGIN_API_VERSIONS.includes(result.apiVersion)) {
      this.problem(
        where,
        `Provider pack ${packName} declares plugin API version ${JSON.stringify(result.apiVersion)}; this cdkd supports ${SUPPORTED_PLUGIN_API_VERSIONS.join(', ')}.`,
        `Use a version of ${packName} built for plugin API ${SUPPORTED_PLUGIN_API_VERSIONS.join(' or ')}. ${packRemedy(pluginType, pluginName)}`,
      );
      return;
    }
    if (!Array.isArray(result.providers)) {
      this.problem(where, `Provider pack ${packName}: "providers" must be an array of registrations.`);
      return;
    }
    this.packs.push({ packName, pluginName, pluginType, packVersion: pack.pluginVersion });
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
    const pluginType = installTypeOf(pack.pluginType);
    if (!isRecord(entry)) {
      this.problem(
        { pack: packName, pluginName, pluginType },
        `Provider pack ${packName}: providers[${index}] is not a registration object.`,
      );
      return undefined;
    }
    const type = entry.resourceType;
    if (typeof type !== 'string' || type === '') {
      this.problem(
        { pack: packName, pluginName, pluginType },
        `Provider pack ${packName}: providers[${index}].resourceType must be a resource type name.`,
      );
      return undefined;
    }
    const where = { pack: packName, pluginName, pluginType, resourceType: type };
    const refuse = (why: string, properties?: string[]): undefined => {
      this.problem(
        properties ? { ...where, properties } : where,
        `Provider pack ${packName}, ${type}: ${why}; the registration is refused.`,
      );
      return undefined;
    };

    // The schema the registration is checked against: the catalogue's, or the one the pack brings.
    let schemas = this.catalogue;
    let ownSchema: CfnResourceSchema | undefined;
    if (entry.schema !== undefined) {
      if (this.catalogue.isCatalogued(type)) {
        return refuse(
          `${type} is in AWS's CloudFormation catalogue, so cdkd uses its own schema for it; remove "schema" from the registration`,
        );
      }
      const converted = convertPackSchema(entry.schema, type);
      if (converted.problems) return refuse(quoteList(converted.problems));
      ownSchema = converted.schema;
      schemas = this.catalogue.withTypes(new Map([[type, ownSchema]]));
      const compileError = schemas.compileError(type);
      if (compileError) return refuse(`its schema is not a valid JSON Schema: ${compileError}`);
    } else if (!this.catalogue.isCatalogued(type)) {
      return refuse(
        `${type} is not a resource type cdkd knows: it is not in AWS's CloudFormation catalogue (resource specification ${this.catalogue.specVersion()}); a pack that provisions an org-internal type must bring its schema ("schema" in the registration, plugin API 1.1)`,
      );
    }
    if (typeof entry.createProvider !== 'function') return refuse('createProvider is not a function');

    const handled = entry.handledProperties;
    if (!Array.isArray(handled) || handled.some((p) => typeof p !== 'string')) {
      return refuse('handledProperties must be an array of property names');
    }
    const byDesignRaw = entry.unhandledByDesign ?? {};
    if (!isRecord(byDesignRaw))
      return refuse('unhandledByDesign must be an object of property name to rationale');
    const toCloudControlRaw = entry.cloudControlByDesign ?? {};
    if (!isRecord(toCloudControlRaw))
      return refuse('cloudControlByDesign must be an object of property name to rationale');
    if (
      entry.physicalIdIsPrimaryIdentifier !== undefined &&
      typeof entry.physicalIdIsPrimaryIdentifier !== 'boolean'
    )
      return refuse('physicalIdIsPrimaryIdentifier must be true or false');
    if (entry.canSnapshot !== undefined && typeof entry.canSnapshot !== 'boolean')
      return refuse('canSnapshot must be true or false');
    if (entry.physicalIdNeverReused !== undefined && typeof entry.physicalIdNeverReused !== 'boolean')
      return refuse('physicalIdNeverReused must be true or false');
    const secretAttributes = entry.secretAttributes ?? [];
    if (!Array.isArray(secretAttributes) || secretAttributes.some((a) => typeof a !== 'string' || a === ''))
      return refuse('secretAttributes must be an array of attribute names');

    const known = new Set(schemas.propertyNames(type));
    const readOnly = new Set(schemas.readOnlyPropertyNames(type));
    const rationales = (raw: Record<string, unknown>) =>
      new Map(Object.entries(raw).map(([name, r]) => [name, typeof r === 'string' ? r : '']));
    const byDesign = rationales(byDesignRaw);
    const toCloudControl = rationales(toCloudControlRaw);

    const unknownProps = [
      ...new Set([...(handled as string[]), ...byDesign.keys(), ...toCloudControl.keys()]),
    ].filter((p) => !known.has(p));
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
    for (const [field, map] of [
      ['unhandledByDesign', byDesign],
      ['cloudControlByDesign', toCloudControl],
    ] as const) {
      const noRationale = [...map].filter(([, r]) => r.trim() === '').map(([p]) => p);
      if (noRationale.length > 0) {
        return refuse(`${field}.${noRationale.join(`, ${field}.`)} needs a non-empty rationale`, noRationale);
      }
    }
    const twice = [...toCloudControl.keys()].filter(
      (p) => byDesign.has(p) || (handled as string[]).includes(p),
    );
    if (twice.length > 0) {
      return refuse(
        `${quoteList(twice)} ${twice.length === 1 ? 'is' : 'are'} listed in cloudControlByDesign and also as handled or unhandled by design`,
        twice,
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
      pluginType,
      ...(pack.pluginVersion ? { packVersion: pack.pluginVersion } : {}),
      handledProperties: new Set(handled as string[]),
      unhandledByDesign: byDesign,
      cloudControlByDesign: toCloudControl,
      physicalIdIsPrimaryIdentifier: entry.physicalIdIsPrimaryIdentifier === true,
      canSnapshot: entry.canSnapshot === true,
      ...(entry.physicalIdNeverReused === true ? { physicalIdNeverReused: true } : {}),
      secretAttributes: new Set(secretAttributes as string[]),
      ...(ownSchema ? { ownSchema } : {}),
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
        // The same message for each (printed once): each pack's own problems name it.
        for (const w of winners) {
          this.tied.add(w);
          this.problem(
            { pack: w.packName, pluginName: w.pluginName, pluginType: w.pluginType, resourceType: type },
            `Provider packs ${names.join(' and ')} both register ${type}; neither is used.`,
            `Remove one of them (${winners.map((c) => packRemedyVerb(c)).join('; ')}).`,
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

/**
 * The context one pack's provider gets: cdkd's, with the client factory's
 * refusals (an SDK too old, say) naming the pack.
 */
function packContext(ctx: ProviderContext, registered: RegisteredProvider): ProviderContext {
  return {
    ...ctx,
    clients: {
      get: (ClientClass, options) => {
        try {
          return ctx.clients.get(ClientClass, options);
        } catch (err) {
          if (!(err instanceof CdkdError)) throw err;
          throw new CdkdError(`Provider pack ${registered.packName}: ${err.message}`, {
            code: err.code,
            cause: err,
            remedy: `${err.remedy ?? ''} ${packRemedy(registered.pluginType, registered.pluginName)}`.trim(),
          });
        }
      },
    },
  };
}

/** The command that removes a pack, by how it is installed. */
function packRemedyVerb(r: RegisteredProvider): string {
  switch (r.pluginType) {
    case 'project':
      return `drop ${r.packName} from packs and run \`cdkd packs install\``;
    case 'link':
      return `\`cdkd plugins unlink ${r.pluginName}\``;
    case 'user':
      return `\`cdkd plugins uninstall ${r.pluginName}\``;
    default:
      return `${r.packName} is bundled`;
  }
}
