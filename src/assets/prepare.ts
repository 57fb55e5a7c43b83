/**
 * Works out, without any AWS call, which of a stack's assets are published
 * where, and the template that matches: in cdkd mode the destinations become
 * the region's cdkd asset bucket / repository (no role to assume) and the
 * template's references to the CDK bootstrap storage are rewritten to them; in
 * cdk-bootstrap mode the manifest's destinations are used verbatim. The stack's
 * own template, which the CDK uploads for CloudFormation, is not an asset cdkd
 * needs.
 */
import type * as CdkAssets from '@aws-cdk/cdk-assets-lib';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  AssetManifest as AssetManifestSchema,
  DockerImageAsset,
  DockerImageDestination,
  FileAsset,
  FileDestination,
} from '@aws-cdk/cloud-assembly-schema';
import type { AssetManifest, IManifestEntry } from '@aws-cdk/cdk-assets-lib';
import type { CloudFormationTemplate, SynthesizedStack } from '../synth/cloud-assembly';
import { UNKNOWN_ACCOUNT, UNKNOWN_REGION } from '../synth/cloud-assembly';
import { partitionOfRegion } from '../config/aws-clients';
import { AssetPublishError } from '../util/errors';
import type { AssetMode } from './asset-mode';
import { rewriteStorageNames } from './template-rewrite';
import type { NameReplacement } from './template-rewrite';

export type AssetType = 'file' | 'docker-image';

/** One asset to publish to one destination. */
export interface PlannedAsset {
  /** The asset's id in the manifest (its source hash). */
  assetId: string;
  /** The destination's id in the manifest. */
  destinationId: string;
  type: AssetType;
  /** The construct path CDK gives the asset, e.g. `Handler/Code`. */
  displayName: string;
  /** Absolute path of the source file or directory (the docker build directory for images), when it has one. */
  sourcePath?: string;
  /** `s3://bucket/key` or `repository:tag`, with the manifest's placeholders filled in from the stack's environment. */
  destination: string;
  /** Display path of the stack the asset belongs to. */
  stack: string;
  /** The cdk-assets manifest holding just this asset and destination. */
  manifest: AssetManifest;
  entry: IManifestEntry;
}

/** A stack's assets and the template that refers to where they will be. */
export interface PreparedStackAssets {
  stack: SynthesizedStack;
  mode: AssetMode;
  /** The template to deploy: the synthesized one, with storage names rewritten in cdkd mode. */
  template: CloudFormationTemplate;
  /**
   * The storage-name rewrite applied to {@link template} (empty in cdk-bootstrap mode). Apply it with
   * `rewriteStorageNames` to the stack's nested-stack templates too: their assets are in the same manifest.
   */
  replacements: NameReplacement[];
  assets: PlannedAsset[];
}

/** Plans the publishing of `stack`'s assets in `mode`; pure apart from reading the asset manifests. */
export function prepareStackAssets(stack: SynthesizedStack, mode: AssetMode): PreparedStackAssets {
  const { AssetManifest: Manifest, DestinationPattern } =
    require('@aws-cdk/cdk-assets-lib') as typeof CdkAssets;
  const replacements: NameReplacement[] = [];
  const assets: PlannedAsset[] = [];

  for (const { file } of stack.assetManifests) {
    const directory = path.dirname(file);
    const schema = readManifest(file);
    const files: Record<string, FileAsset> = {};
    for (const [id, asset] of Object.entries(schema.files ?? {})) {
      if (isStackTemplate(asset, directory, stack)) continue;
      files[id] =
        mode.mode === 'cdkd'
          ? {
              ...asset,
              destinations: mapValues(asset.destinations, (d) =>
                toCdkdFile(d, mode.assetBucket, stack, replacements),
              ),
            }
          : asset;
    }
    const images: Record<string, DockerImageAsset> = {};
    for (const [id, asset] of Object.entries(schema.dockerImages ?? {})) {
      if (mode.mode === 'cdkd') {
        if (!mode.containerRepository) {
          throw new AssetPublishError(
            `Stack ${stack.displayPath} has a container image asset (${asset.displayName ?? id}), and the cdkd asset storage of ${stack.environment.region} has no container repository.`,
            { remedy: `Run \`cdkd bootstrap --region ${stack.environment.region}\` to create it.` },
          );
        }
        const repository = mode.containerRepository;
        images[id] = {
          ...asset,
          destinations: mapValues(asset.destinations, (d) => toCdkdImage(d, repository, stack, replacements)),
        };
      } else {
        images[id] = asset;
      }
    }

    const manifest = new Manifest(directory, { ...schema, files, dockerImages: images });
    for (const entry of manifest.entries) {
      const single = manifest.select([new DestinationPattern(entry.id.assetId, entry.id.destinationId)]);
      assets.push(describeEntry(entry, single, directory, stack));
    }
  }

  const template = mode.mode === 'cdkd' ? rewriteStorageNames(stack.template, replacements) : stack.template;
  return { stack, mode, template, replacements, assets };
}

function readManifest(file: string): AssetManifestSchema {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as AssetManifestSchema;
  } catch (err) {
    throw new AssetPublishError(`Cannot read the asset manifest ${file}: ${(err as Error).message}`, {
      cause: err,
      remedy: 'Synthesize the app again (the cloud assembly may be incomplete).',
    });
  }
}

/** The CDK uploads the stack's template for CloudFormation; cdkd deploys without it. */
function isStackTemplate(asset: FileAsset, directory: string, stack: SynthesizedStack): boolean {
  return (
    asset.source.path !== undefined &&
    asset.source.packaging !== 'zip' &&
    path.resolve(directory, asset.source.path) === stack.templateFile
  );
}

function stackRegion(stack: SynthesizedStack): string | undefined {
  return stack.environment.region === UNKNOWN_REGION ? undefined : stack.environment.region;
}

function toCdkdFile(
  d: FileDestination,
  bucket: string,
  stack: SynthesizedStack,
  replacements: NameReplacement[],
): FileDestination {
  replacements.push({ from: d.bucketName, to: bucket });
  return { bucketName: bucket, objectKey: d.objectKey, region: d.region ?? stackRegion(stack) };
}

function toCdkdImage(
  d: DockerImageDestination,
  repository: string,
  stack: SynthesizedStack,
  replacements: NameReplacement[],
): DockerImageDestination {
  replacements.push({ from: d.repositoryName, to: repository });
  return { repositoryName: repository, imageTag: d.imageTag, region: d.region ?? stackRegion(stack) };
}

function describeEntry(
  entry: IManifestEntry,
  manifest: AssetManifest,
  directory: string,
  stack: SynthesizedStack,
): PlannedAsset {
  const base = {
    assetId: entry.id.assetId,
    destinationId: entry.id.destinationId,
    displayName: entry.displayName(false),
    stack: stack.displayPath,
    manifest,
    entry,
  };
  if (entry.type === 'docker-image') {
    const source = entry.genericSource as DockerImageAsset['source'];
    const dest = entry.genericDestination as DockerImageDestination;
    return {
      ...base,
      type: 'docker-image',
      sourcePath: source.directory ? path.resolve(directory, source.directory) : undefined,
      destination: fillPlaceholders(`${dest.repositoryName}:${dest.imageTag}`, stack),
    };
  }
  const source = entry.genericSource as FileAsset['source'];
  const dest = entry.genericDestination as FileDestination;
  return {
    ...base,
    type: 'file',
    sourcePath: source.path ? path.resolve(directory, source.path) : undefined,
    destination: fillPlaceholders(`s3://${dest.bucketName}/${dest.objectKey}`, stack),
  };
}

/** The manifest's `${AWS::AccountId}` / `${AWS::Region}` / `${AWS::Partition}`, as cdk-assets will fill them for this stack. */
function fillPlaceholders(s: string, stack: SynthesizedStack): string {
  const { account, region } = stack.environment;
  return s
    .replace(/\$\{AWS::AccountId\}/g, account === UNKNOWN_ACCOUNT ? '${AWS::AccountId}' : account)
    .replace(/\$\{AWS::Region\}/g, region === UNKNOWN_REGION ? '${AWS::Region}' : region)
    .replace(
      /\$\{AWS::Partition\}/g,
      region === UNKNOWN_REGION ? '${AWS::Partition}' : partitionOfRegion(region),
    );
}

function mapValues<T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}
