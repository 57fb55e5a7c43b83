/**
 * AWS::Lambda::LayerVersion: PublishLayerVersion and DeleteLayerVersion (every
 * property is create-only, so there is no update). The physical id is the
 * layer version ARN.
 *
 * PublishLayerVersion has no idempotency token and layer versions carry no
 * tags: each call makes a new version. So a create notes the layer's newest
 * version before it publishes (kept for the life of the process, per
 * idempotency token); a retry that finds a newer version with the same
 * description, runtimes, architectures and licence adopts it instead of
 * publishing another. A deploy interrupted right after publishing, repeated by
 * a new process, publishes again: the earlier version is left unreferenced
 * (layer versions cost only their storage); the pack does not delete it
 * because it cannot tell it from a version another stack uses.
 */
import {
  DeleteLayerVersionCommand,
  GetLayerVersionByArnCommand,
  ListLayerVersionsCommand,
  PublishLayerVersionCommand,
  type Architecture,
  type LayerVersionContentInput,
  type LayerVersionsListItem,
  type Runtime,
} from '@aws-sdk/client-lambda';
import { LAYER_VERSION_TYPE } from './properties';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { assertUpdateRegion, deleteChecked, lambdaClient, same } from './common';
import { isNotFound, provisioningError } from './errors';
import { physicalName } from './ownership';

/** Layer names: `[a-zA-Z0-9-_]`, 1–140 characters. */
const NAME_OPTIONS = { maxLength: 140, extraCharacters: '-_' };

type Props = Record<string, unknown>;

function parseLayerVersionArn(arn: string): { layerArn: string; version: number } | undefined {
  const m = /^(arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\d{12}:layer:[a-zA-Z0-9-_]+):(\d+)$/.exec(arn);
  return m ? { layerArn: m[1]!, version: Number(m[2]) } : undefined;
}

/** A listed version is what the template publishes (everything but the package, which is not listed). */
function describes(version: LayerVersionsListItem, props: Props): boolean {
  const list = (v: unknown) => [...((v as string[] | undefined) ?? [])].sort();
  return (
    (version.Description ?? '') === String(props.Description ?? '') &&
    (version.LicenseInfo ?? '') === String(props.LicenseInfo ?? '') &&
    same(list(version.CompatibleRuntimes), list(props.CompatibleRuntimes)) &&
    same(list(version.CompatibleArchitectures), list(props.CompatibleArchitectures))
  );
}

export class LambdaLayerVersionProvider implements ResourceProvider {
  /** The newest version of the layer before each create (by token), so a retried create knows its own. */
  private readonly newestBefore = new Map<string, number>();

  constructor(private readonly ctx: ProviderContext) {}

  private async versions(layerName: string, signal?: AbortSignal): Promise<LayerVersionsListItem[]> {
    const all: LayerVersionsListItem[] = [];
    let marker: string | undefined;
    do {
      const page = await lambdaClient(this.ctx).send(
        new ListLayerVersionsCommand({ LayerName: layerName, Marker: marker }),
        {
          abortSignal: signal,
        },
      );
      all.push(...(page.LayerVersions ?? []));
      marker = page.NextMarker;
    } while (marker);
    return all;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const layerName =
      typeof properties.LayerName === 'string' && properties.LayerName !== ''
        ? properties.LayerName
        : physicalName(context, logicalId, NAME_OPTIONS);
    const resource = { logicalId, resourceType };
    const signal = context.signal;
    const token = context.idempotencyToken;
    try {
      const existing = await this.versions(layerName, signal);
      const newest = Math.max(0, ...existing.map((v) => v.Version ?? 0));
      const before = this.newestBefore.get(token);
      if (before === undefined) this.newestBefore.set(token, newest);
      else {
        const own = existing
          .filter((v) => (v.Version ?? 0) > before && describes(v, properties))
          .sort((a, b) => (b.Version ?? 0) - (a.Version ?? 0))[0];
        if (own?.LayerVersionArn) {
          this.ctx.logger.debug(
            `${logicalId}: ${own.LayerVersionArn} was published by an earlier attempt of this create`,
          );
          this.newestBefore.delete(token);
          return { physicalId: own.LayerVersionArn, attributes: { LayerVersionArn: own.LayerVersionArn } };
        }
      }
      const out = await lambdaClient(this.ctx).send(
        new PublishLayerVersionCommand({
          LayerName: layerName,
          Content: properties.Content as LayerVersionContentInput,
          ...(properties.Description !== undefined ? { Description: String(properties.Description) } : {}),
          ...(properties.CompatibleRuntimes !== undefined
            ? { CompatibleRuntimes: properties.CompatibleRuntimes as Runtime[] }
            : {}),
          ...(properties.CompatibleArchitectures !== undefined
            ? { CompatibleArchitectures: properties.CompatibleArchitectures as Architecture[] }
            : {}),
          ...(properties.LicenseInfo !== undefined ? { LicenseInfo: String(properties.LicenseInfo) } : {}),
        }),
        { abortSignal: signal },
      );
      this.newestBefore.delete(token);
      return { physicalId: out.LayerVersionArn!, attributes: { LayerVersionArn: out.LayerVersionArn } };
    } catch (err) {
      throw provisioningError(this.ctx, err, `publishing a version of layer ${layerName}`, resource);
    }
  }

  /** Every property is create-only: a change is a replacement, decided by cdkd. */
  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties: Props,
    _previous: Props,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    await assertUpdateRegion(this.ctx, { logicalId, resourceType, physicalId }, context?.expectedRegion);
    return { physicalId, wasReplaced: false, attributes: { LayerVersionArn: physicalId } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ) {
    const parsed = parseLayerVersionArn(physicalId);
    if (!parsed)
      throw provisioningError(
        this.ctx,
        new Error(`${physicalId} is not a layer version ARN`),
        `deleting ${physicalId}`,
        { logicalId, resourceType, physicalId },
      );
    // DeleteLayerVersion answers success for a version that is already gone.
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `deleting layer version ${physicalId}`,
      () =>
        lambdaClient(this.ctx).send(
          new DeleteLayerVersionCommand({ LayerName: parsed.layerArn, VersionNumber: parsed.version }),
          {
            abortSignal: context?.signal,
          },
        ),
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'LayerVersionArn' ? physicalId : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    try {
      const out = await lambdaClient(this.ctx).send(new GetLayerVersionByArnCommand({ Arn: physicalId }));
      return {
        LayerName: out.LayerArn?.split(':').pop(),
        ...(out.Description ? { Description: out.Description } : {}),
        ...(out.CompatibleRuntimes?.length ? { CompatibleRuntimes: out.CompatibleRuntimes } : {}),
        ...(out.CompatibleArchitectures?.length
          ? { CompatibleArchitectures: out.CompatibleArchitectures }
          : {}),
        ...(out.LicenseInfo ? { LicenseInfo: out.LicenseInfo } : {}),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading layer version ${physicalId}`, {
        resourceType: LAYER_VERSION_TYPE,
        physicalId,
      });
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    if (!input.knownPhysicalId) return null;
    return (await this.readCurrentState(input.knownPhysicalId))
      ? { physicalId: input.knownPhysicalId, attributes: { LayerVersionArn: input.knownPhysicalId } }
      : null;
  }
}
