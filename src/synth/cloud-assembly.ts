/**
 * The synthesized app as the rest of cdkd sees it: plain stack records read
 * once from the cloud assembly, with environments resolved and dependencies by
 * artifact id. The wrapper holds the toolkit's read lock on the output
 * directory until it is disposed (asset files are read from there).
 */
import type { IoHost } from '../util/io-host';
import { readValidationReport, reportAnnotations, toAnnotations } from './annotations';
import type { StackAnnotation } from './annotations';
import { selectStacks } from './stack-selection';
import type { SelectableStack, StackSelector } from './stack-selection';

export const UNKNOWN_ACCOUNT = 'unknown-account';
/** Code of the message naming the dependency stacks a selection added. */
export const STACK_SELECTION_CODE = 'CDKD_STACK_SELECTION';
export const UNKNOWN_REGION = 'unknown-region';

/** A CloudFormation template as synthesized (parsed JSON). */
export type CloudFormationTemplate = Record<string, unknown>;

/** Where a stack deploys. */
export interface StackEnvironment {
  /** Account id; `unknown-account` when the stack is account-agnostic and no default account was given. */
  account: string;
  /** Region; `unknown-region` when the stack is region-agnostic and no default region was given. */
  region: string;
  /** `aws://account/region`. */
  name: string;
  /** True when the app fixed the account (`env.account`) rather than leaving it to the caller. */
  accountFromApp: boolean;
  /** True when the app fixed the region. */
  regionFromApp: boolean;
}

/** An asset manifest artifact the stack depends on. */
export interface StackAssetManifest {
  artifactId: string;
  /** Absolute path of the asset manifest file (`*.assets.json`). */
  file: string;
}

/** One stack of the synthesized app. */
export interface SynthesizedStack extends SelectableStack {
  environment: StackEnvironment;
  /** The template as synthesized. */
  template: CloudFormationTemplate;
  /** Absolute path of the template file. */
  templateFile: string;
  /** Directory of the (possibly nested) cloud assembly the stack belongs to. */
  assemblyDirectory: string;
  /** Asset manifests of the stack's file and image assets. */
  assetManifests: StackAssetManifest[];
  /** Stack names of {@link SelectableStack.dependencies}, in the same order. */
  dependencyNames: string[];
  /** Stack-level tags (`Tags.of(stack)`). */
  tags: Record<string, string>;
  terminationProtection: boolean;
  /** Annotations the stack's constructs reported. */
  annotations: StackAnnotation[];
}

/** The caller's default environment, for environment-agnostic stacks. */
export interface DefaultEnvironment {
  account?: string;
  region?: string;
}

/** The slice of a cloud assembly artifact cdkd reads (structural, so any copy of the CDK's classes fits). */
export interface ArtifactLike {
  id: string;
  manifest: { type: string };
}

interface AssetManifestArtifactLike extends ArtifactLike {
  file: string;
}

/** The slice of a CDK `CloudFormationStackArtifact` cdkd reads. */
export interface StackArtifactLike extends ArtifactLike {
  stackName: string;
  hierarchicalId: string;
  displayName: string;
  environment: { account: string; region: string };
  template: unknown;
  templateFullPath: string;
  tags: Record<string, string>;
  terminationProtection?: boolean;
  dependencies: ArtifactLike[];
  messages: ReadonlyArray<{ level: string; id: string; entry: { data?: unknown } }>;
  assembly: { directory: string };
}

/** The slice of a CDK `CloudAssembly` cdkd reads. */
export interface CloudAssemblyLike {
  directory: string;
  stacks: StackArtifactLike[];
  stacksRecursively: StackArtifactLike[];
}

const STACK_TYPE = 'aws:cloudformation:stack';
const ASSET_MANIFEST_TYPE = 'cdk:asset-manifest';

/**
 * Reads every stack of the assembly (stages included) into {@link SynthesizedStack}
 * records; the validation report's violations join the annotations of the
 * stack they name.
 */
export function readStacks(
  assembly: CloudAssemblyLike,
  defaults: DefaultEnvironment = {},
): SynthesizedStack[] {
  return readAssembly(assembly, defaults).stacks;
}

/** {@link readStacks}, plus the validation report's violations that name no stack. */
export function readAssembly(
  assembly: CloudAssemblyLike,
  defaults: DefaultEnvironment = {},
): { stacks: SynthesizedStack[]; unattributed: StackAnnotation[] } {
  const topLevel = new Set(assembly.stacks.map((s) => s.id));
  const artifacts = assembly.stacksRecursively;
  const nameById = new Map(artifacts.map((a) => [a.id, a.stackName]));
  const violations = readValidationReport(assembly.directory);
  const ownerOf = (p: string): StackArtifactLike | undefined =>
    artifacts
      .filter((a) => p === a.hierarchicalId || p.startsWith(`${a.hierarchicalId}/`))
      .sort((a, b) => b.hierarchicalId.length - a.hierarchicalId.length)[0];
  const stacks = artifacts.map((art) => {
    const stackDeps = art.dependencies.filter((d) => d.manifest.type === STACK_TYPE).map((d) => d.id);
    const manifests = art.dependencies
      .filter((d): d is AssetManifestArtifactLike => d.manifest.type === ASSET_MANIFEST_TYPE)
      .map((d) => ({ artifactId: d.id, file: d.file }));
    return {
      artifactId: art.id,
      stackName: art.stackName,
      displayPath: art.hierarchicalId,
      displayName: art.displayName,
      topLevel: topLevel.has(art.id),
      dependencies: stackDeps,
      dependencyNames: stackDeps.map((id) => nameById.get(id) ?? id),
      environment: resolveEnvironment(art.environment, defaults),
      template: (art.template ?? {}) as CloudFormationTemplate,
      templateFile: art.templateFullPath,
      assemblyDirectory: art.assembly.directory,
      assetManifests: manifests,
      tags: { ...(art.tags ?? {}) },
      terminationProtection: art.terminationProtection ?? false,
      annotations: [...toAnnotations(art.messages), ...violations.filter((v) => ownerOf(v.path) === art)],
    };
  });
  return { stacks, unattributed: violations.filter((v) => ownerOf(v.path) === undefined) };
}

/** Fills in an environment-agnostic stack's account and region from the caller's defaults. */
export function resolveEnvironment(
  env: { account: string; region: string },
  defaults: DefaultEnvironment,
): StackEnvironment {
  const accountFromApp = env.account !== UNKNOWN_ACCOUNT;
  const regionFromApp = env.region !== UNKNOWN_REGION;
  const account = accountFromApp ? env.account : (defaults.account ?? UNKNOWN_ACCOUNT);
  const region = regionFromApp ? env.region : (defaults.region ?? UNKNOWN_REGION);
  return { account, region, name: `aws://${account}/${region}`, accountFromApp, regionFromApp };
}

/**
 * A synthesized app. Holds the cloud assembly's read lock until
 * {@link SynthesizedAssembly.dispose} is called; dispose it when done.
 */
export class SynthesizedAssembly implements AsyncDisposable {
  /** Every stack of the app, stages included, in assembly order (dependencies first). */
  readonly stacks: readonly SynthesizedStack[];

  constructor(
    /** The cloud assembly directory (e.g. `cdk.out`). */
    readonly directory: string,
    stacks: SynthesizedStack[],
    private readonly ioHost: IoHost,
    private readonly release: () => Promise<void> = async () => {},
    /** Validation report violations that name no stack: reported with every selection. */
    private readonly unattributed: StackAnnotation[] = [],
  ) {
    this.stacks = stacks;
  }

  /** The stack with this artifact id, display path or stack name. */
  stack(idOrName: string): SynthesizedStack | undefined {
    return (
      this.stacks.find((s) => s.artifactId === idOrName) ??
      this.stacks.find((s) => s.displayPath === idOrName) ??
      this.stacks.find((s) => s.stackName === idOrName)
    );
  }

  /**
   * Selects stacks (CDK CLI semantics, see {@link selectStacks}), reports the
   * selected stacks' annotations, and throws when any of them is an error.
   */
  select(selector: StackSelector): SynthesizedStack[] {
    const { stacks, addedDependencies } = selectStacks(this.stacks, selector);
    if (addedDependencies.length > 0) {
      this.ioHost.notify({
        level: 'info',
        code: STACK_SELECTION_CODE,
        message: `Including dependency stacks: ${addedDependencies.map((s) => s.displayName).join(', ')}`,
        data: { added: addedDependencies.map((s) => s.artifactId) },
        time: new Date(),
      });
    }
    reportAnnotations([{ displayPath: '', annotations: this.unattributed }, ...stacks], this.ioHost);
    return stacks;
  }

  /** Releases the lock on the assembly directory. */
  async dispose(): Promise<void> {
    await this.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}
