/**
 * Publishes the selected stacks' file and image assets with
 * @aws-cdk/cdk-assets-lib, to the destinations {@link prepareStackAssets}
 * planned. An asset already at its destination is not uploaded again (a
 * ListObjectsV2 / DescribeImages check first). Image assets need docker: when
 * one must be built and docker is missing, nothing is published and the error
 * names the asset. Uploads run in parallel, bounded.
 */
import type * as CdkAssets from '@aws-cdk/cdk-assets-lib';
import type { AssetPublishing, EventType, IPublishProgress } from '@aws-cdk/cdk-assets-lib';
import type { AwsClientFactory } from '../config/aws-clients';
import type { CloudFormationTemplate, SynthesizedStack } from '../synth/cloud-assembly';
import { UNKNOWN_ACCOUNT, UNKNOWN_REGION } from '../synth/cloud-assembly';
import { mapWithConcurrency } from '../util/concurrency';
import { AssetPublishError, CdkdError } from '../util/errors';
import type { IoHost, LogLevel } from '../util/io-host';
import type { AssetMode } from './asset-mode';
import { CdkAssetsAws } from './aws-adapter';
import { assertContainerRepositories } from './container-repository';
import { dockerCommand, isDockerAvailable } from './docker';
import { prepareStackAssets } from './prepare';
import type { AssetType, PlannedAsset, PreparedStackAssets } from './prepare';
import type { NameReplacement } from './template-rewrite';

/** Default number of assets published at once. */
export const DEFAULT_ASSET_CONCURRENCY = 8;

export const ASSET_PROGRESS_CODE = 'CDKD_ASSET_PROGRESS';

/** A stack and the storage its assets go to. */
export interface AssetTarget {
  stack: SynthesizedStack;
  mode: AssetMode;
}

export interface PublishAssetsOptions {
  targets: readonly AssetTarget[];
  aws: AwsClientFactory;
  ioHost: IoHost;
  /** Assets published at once (default {@link DEFAULT_ASSET_CONCURRENCY}). */
  concurrency?: number;
  /** The container client for image assets (default: `CDK_DOCKER`, else `docker`, as cdk-assets uses). */
  dockerCommand?: string;
}

export type AssetStatus = 'uploaded' | 'already-published';

/** What happened to one asset destination. */
export interface AssetOutcome {
  assetId: string;
  type: AssetType;
  displayName: string;
  /** Display path of the stack (the first, when several stacks share the asset). */
  stack: string;
  /** `s3://bucket/key` or `repository:tag`. */
  destination: string;
  status: AssetStatus;
}

export interface PublishAssetsResult {
  /** Each target stack's template to deploy, by artifact id (storage names rewritten in cdkd mode). */
  templates: Map<string, CloudFormationTemplate>;
  /** Each target stack's storage-name rewrite, by artifact id: apply it to its nested-stack templates. */
  replacements: Map<string, NameReplacement[]>;
  assets: AssetOutcome[];
}

/** Payload of {@link ASSET_PROGRESS_CODE} messages. */
export interface AssetProgressData {
  assetId: string;
  displayName: string;
  stack: string;
  /** The cdk-assets event: start, check, found, build, upload, success, fail, debug... */
  event: string;
}

interface Job {
  asset: PlannedAsset;
  stack: SynthesizedStack;
  published?: boolean;
  /** One publisher per job, so the published check and the upload share cdk-assets' state. */
  publisher?: AssetPublishing;
}

/** Publishes the assets of every target; returns the templates to deploy and what was uploaded. */
export async function publishAssets(options: PublishAssetsOptions): Promise<PublishAssetsResult> {
  const prepared = options.targets.map((t) => prepareStackAssets(t.stack, t.mode));
  const jobs = uniqueJobs(prepared);
  const concurrency = options.concurrency ?? DEFAULT_ASSET_CONCURRENCY;
  const awsByEnv = new Map<string, CdkAssetsAws>();
  const awsFor = (stack: SynthesizedStack): CdkAssetsAws => {
    const region = stack.environment.region;
    let aws = awsByEnv.get(region);
    if (!aws) {
      aws = new CdkAssetsAws(options.aws, region);
      awsByEnv.set(region, aws);
    }
    return aws;
  };
  for (const job of jobs) assertEnvironment(job.stack);

  // 1. What is already there (one List / DescribeImages call each).
  await mapWithConcurrency(jobs, concurrency, async (job) => {
    job.published = await publisherFor(job, awsFor(job.stack), options.ioHost).isEntryPublished(
      job.asset.entry,
    );
  });

  // 2. Images to build need docker: refuse before uploading anything.
  const toBuild = jobs.filter((j) => !j.published && j.asset.type === 'docker-image');
  if (toBuild.length > 0) {
    const command = options.dockerCommand ?? dockerCommand();
    if (!(await isDockerAvailable(command))) {
      const names = toBuild.map(
        (j) =>
          `${j.asset.stack}: ${j.asset.displayName} (asset ${j.asset.assetId}${j.asset.sourcePath ? `, built from ${j.asset.sourcePath}` : ''})`,
      );
      throw new AssetPublishError(
        `Container image assets need '${command}', which is not installed or not on the PATH:\n  ${names.join('\n  ')}`,
        {
          code: 'DOCKER_NOT_FOUND',
          remedy:
            'Install Docker (or set CDK_DOCKER to a compatible container client, e.g. finch or podman) and run the command again.',
        },
      );
    }
  }

  // 3. Publish the rest (cdkd's container repository first checked: bootstrap does not create it).
  await assertContainerRepositories(prepared, options.aws);
  const failures: string[] = [];
  await mapWithConcurrency(jobs, concurrency, async (job) => {
    if (job.published) return;
    const publisher = publisherFor(job, awsFor(job.stack), options.ioHost);
    await publisher.publish();
    for (const f of publisher.failures) {
      failures.push(
        `${job.asset.stack}: ${job.asset.displayName} to ${job.asset.destination}: ${causeMessage(f.error)}`,
      );
    }
  });
  if (failures.length > 0) {
    throw new AssetPublishError(
      `Could not publish ${failures.length === 1 ? 'an asset' : `${failures.length} assets`}:\n  ${failures.join('\n  ')}`,
      {
        remedy: remedyFor(options.targets),
      },
    );
  }

  return {
    templates: new Map(prepared.map((p) => [p.stack.artifactId, p.template])),
    replacements: new Map(prepared.map((p) => [p.stack.artifactId, p.replacements])),
    assets: jobs.map((j) => ({
      assetId: j.asset.assetId,
      type: j.asset.type,
      displayName: j.asset.displayName,
      stack: j.asset.stack,
      destination: j.asset.destination,
      status: j.published ? 'already-published' : 'uploaded',
    })),
  };
}

/** Publishes one stack's assets; returns its template to deploy. */
export async function publishStackAssets(
  stack: SynthesizedStack,
  mode: AssetMode,
  options: Omit<PublishAssetsOptions, 'targets'>,
): Promise<{ template: CloudFormationTemplate; replacements: NameReplacement[]; assets: AssetOutcome[] }> {
  const result = await publishAssets({ ...options, targets: [{ stack, mode }] });
  return {
    template: result.templates.get(stack.artifactId) ?? stack.template,
    replacements: result.replacements.get(stack.artifactId) ?? [],
    assets: result.assets,
  };
}

/** One job per destination: two stacks sharing an asset in the same place publish it once. */
function uniqueJobs(prepared: PreparedStackAssets[]): Job[] {
  const jobs = new Map<string, Job>();
  for (const p of prepared) {
    for (const asset of p.assets) {
      const key = `${asset.type}|${p.stack.environment.account}|${p.stack.environment.region}|${asset.destination}`;
      if (!jobs.has(key)) jobs.set(key, { asset, stack: p.stack });
    }
  }
  return [...jobs.values()];
}

/** Placeholders in the manifest resolve to the stack's account and region: both must be known. */
function assertEnvironment(stack: SynthesizedStack): void {
  if (stack.environment.region === UNKNOWN_REGION || stack.environment.account === UNKNOWN_ACCOUNT) {
    throw new AssetPublishError(
      `Cannot publish the assets of ${stack.displayPath}: its environment is ${stack.environment.name}.`,
      {
        remedy:
          'Synthesize with the default environment (the caller account and region), or give the stack an explicit env.',
      },
    );
  }
}

const EVENT_LEVEL: Record<string, LogLevel> = {
  start: 'debug',
  check: 'debug',
  found: 'info',
  cached: 'debug',
  build: 'info',
  upload: 'info',
  success: 'info',
  fail: 'error',
};

/** A cdk-assets publisher for one asset, reporting its progress to the IoHost. */
function publisherFor(job: Job, aws: CdkAssetsAws, host: IoHost): AssetPublishing {
  if (job.publisher) return job.publisher;
  const { AssetPublishing: Publishing } = require('@aws-cdk/cdk-assets-lib') as typeof CdkAssets;
  const { asset } = job;
  const publisher = new Publishing(asset.manifest, {
    aws,
    throwOnError: false,
    // Subprocess output (docker build, bundling commands) comes back as progress events.
    subprocessOutputDestination: 'publish',
    progressListener: {
      onPublishEvent(type: EventType, event: IPublishProgress): void {
        const data: AssetProgressData = {
          assetId: asset.assetId,
          displayName: asset.displayName,
          stack: asset.stack,
          event: type,
        };
        host.notify({
          level: EVENT_LEVEL[type] ?? 'debug',
          code: ASSET_PROGRESS_CODE,
          message: `${asset.stack}: ${asset.displayName}: ${event.message}`,
          data,
          time: new Date(),
        });
      },
    },
  });
  job.publisher = publisher;
  return publisher;
}

function causeMessage(err: unknown): string {
  if (CdkdError.isCdkdError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function remedyFor(targets: readonly AssetTarget[]): string {
  const cdkd = targets.find((t) => t.mode.mode === 'cdkd');
  if (cdkd && cdkd.mode.mode === 'cdkd') {
    return `Check that the cdkd asset storage exists and is writable (bucket ${cdkd.mode.assetBucket}); \`cdkd bootstrap --region ${cdkd.stack.environment.region}\` recreates it.`;
  }
  return 'Check that the environment is bootstrapped for the CDK (`cdk bootstrap`) and that your credentials may assume its publishing roles, or run `cdkd bootstrap` to publish to cdkd-owned asset storage.';
}
