/**
 * Layers: PublishLayerVersion, GetLayerVersion(ByArn), DeleteLayerVersion,
 * ListLayerVersions, ListLayers. Version numbers count up per layer and are
 * never reused; a deleted version's package stays with the functions using it.
 */
import type { LayerVersionContentInput } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { LambdaContext } from './context';
import { page } from './functions';
import type { LayerRecord, LayerVersionRecord } from './model';
import { lambdaTimestamp, layerArn, validationError } from './names';

const LAYER_NAME =
  /^(?:arn:[a-zA-Z0-9-]+:lambda:([a-zA-Z0-9-]+):(\d{12}):layer:([a-zA-Z0-9-_]+)|([a-zA-Z0-9-_]+))$/;

interface PublishInput {
  LayerName?: string;
  Content?: LayerVersionContentInput;
  Description?: string;
  CompatibleRuntimes?: string[];
  CompatibleArchitectures?: string[];
  LicenseInfo?: string;
}

const layerNotFound = () =>
  new AwsError('ResourceNotFoundException', 'The resource you requested does not exist.');

export class LayerHandlers {
  readonly operations: Operations = {
    PublishLayerVersion: (ctx, input: PublishInput) => this.publish(ctx, input),
    GetLayerVersion: (ctx, input: { LayerName?: string; VersionNumber?: number }) => {
      const layer = this.layer(ctx, input.LayerName);
      const version = layer?.versions[String(input.VersionNumber)];
      if (!layer || !version) throw layerNotFound();
      return this.render(ctx, layer, version);
    },
    GetLayerVersionByArn: (ctx, input: { Arn?: string }) => {
      const m = /^(arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\d{12}:layer:[a-zA-Z0-9-_]+):([0-9]+)$/.exec(
        input.Arn ?? '',
      );
      if (!m)
        throw validationError(
          'arn',
          input.Arn,
          'Member must satisfy regular expression pattern: arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+',
        );
      const layer = this.layer(ctx, m[1]);
      const version = layer?.versions[m[2]!];
      if (!layer || !version) throw layerNotFound();
      return this.render(ctx, layer, version);
    },
    DeleteLayerVersion: (ctx, input: { LayerName?: string; VersionNumber?: number }) => {
      const layer = this.layer(ctx, input.LayerName);
      if (layer) delete layer.versions[String(input.VersionNumber)];
      return {};
    },
    ListLayerVersions: (
      ctx,
      input: {
        LayerName?: string;
        CompatibleRuntime?: string;
        CompatibleArchitecture?: string;
        Marker?: string;
        MaxItems?: number;
      },
    ) => {
      const layer = this.layer(ctx, input.LayerName);
      const versions = Object.values(layer?.versions ?? {})
        .filter((v) => matches(v, input.CompatibleRuntime, input.CompatibleArchitecture))
        .sort((a, b) => b.Version - a.Version);
      const { items, nextMarker } = page(
        versions,
        (v) => String(1e10 - v.Version),
        input.Marker,
        input.MaxItems,
        50,
      );
      return { LayerVersions: items.map((v) => this.listed(layer!, v)), NextMarker: nextMarker };
    },
    ListLayers: (
      ctx,
      input: {
        CompatibleRuntime?: string;
        CompatibleArchitecture?: string;
        Marker?: string;
        MaxItems?: number;
      },
    ) => {
      const layers = [...this.lambda.store.layers.values()]
        .filter((l) => l.account === ctx.account && l.region === ctx.region)
        .map((layer) => {
          const latest = Object.values(layer.versions)
            .filter((v) => matches(v, input.CompatibleRuntime, input.CompatibleArchitecture))
            .sort((a, b) => b.Version - a.Version)[0];
          return latest ? { layer, latest } : undefined;
        })
        .filter((l): l is { layer: LayerRecord; latest: LayerVersionRecord } => l !== undefined)
        .sort((a, b) => (a.layer.name < b.layer.name ? -1 : 1));
      const { items, nextMarker } = page(layers, (l) => l.layer.name, input.Marker, input.MaxItems, 50);
      return {
        Layers: items.map(({ layer, latest }) => ({
          LayerName: layer.name,
          LayerArn: layerArn(layer.account, layer.region, layer.name),
          LatestMatchingVersion: this.listed(layer, latest),
        })),
        NextMarker: nextMarker,
      };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The layer a LayerName (name or layer ARN) names, in the caller's region. */
  private layer(ctx: CallContext, layerName: unknown): LayerRecord | undefined {
    const m = typeof layerName === 'string' ? LAYER_NAME.exec(layerName) : null;
    if (!m || (layerName as string).length > 140)
      throw validationError(
        'layerName',
        layerName,
        'Member must satisfy regular expression pattern: (arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+)|[a-zA-Z0-9-_]+',
      );
    const [, region, account, arnName, plainName] = m;
    return this.lambda.store.getLayer(account ?? ctx.account, region ?? ctx.region, (arnName ?? plainName)!);
  }

  private publish(ctx: CallContext, input: PublishInput): unknown {
    const m = typeof input.LayerName === 'string' ? LAYER_NAME.exec(input.LayerName) : null;
    if (!m)
      throw validationError(
        'layerName',
        input.LayerName,
        'Member must satisfy regular expression pattern: (arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+)|[a-zA-Z0-9-_]+',
      );
    if (!input.Content) throw validationError('content', null, 'Member must not be null');
    if ((input.CompatibleRuntimes?.length ?? 0) > 15)
      throw validationError(
        'compatibleRuntimes',
        input.CompatibleRuntimes,
        'Member must have length less than or equal to 15',
      );
    if ((input.CompatibleArchitectures?.length ?? 0) > 2)
      throw validationError(
        'compatibleArchitectures',
        input.CompatibleArchitectures,
        'Member must have length less than or equal to 2',
      );
    if (input.Description !== undefined && input.Description.length > 256)
      throw validationError(
        'description',
        input.Description,
        'Member must have length less than or equal to 256',
      );
    const name = (m[3] ?? m[4])!;
    if ((m[2] && m[2] !== ctx.account) || (m[1] && m[1] !== ctx.region))
      throw new AwsError(
        'AccessDeniedException',
        `User: ${ctx.callerArn} is not authorized to perform: lambda:PublishLayerVersion on resource: ${input.LayerName}`,
        403,
      );
    const code = this.lambda.code.take(input.Content, ctx.region);
    let layer = this.lambda.store.getLayer(ctx.account, ctx.region, name);
    if (!layer) {
      layer = { account: ctx.account, region: ctx.region, name, nextVersion: 1, versions: {} };
      this.lambda.store.putLayer(layer);
    }
    const version: LayerVersionRecord = {
      Version: layer.nextVersion++,
      ...(input.Description !== undefined ? { Description: input.Description } : {}),
      CreatedDate: lambdaTimestamp(),
      ...(input.CompatibleRuntimes?.length ? { CompatibleRuntimes: input.CompatibleRuntimes } : {}),
      ...(input.CompatibleArchitectures?.length
        ? { CompatibleArchitectures: input.CompatibleArchitectures }
        : {}),
      ...(input.LicenseInfo !== undefined ? { LicenseInfo: input.LicenseInfo } : {}),
      CodeSha256: code.CodeSha256,
      CodeSize: code.CodeSize,
    };
    layer.versions[String(version.Version)] = version;
    return this.render(ctx, layer, version);
  }

  private render(ctx: CallContext, layer: LayerRecord, version: LayerVersionRecord): Record<string, unknown> {
    const { CodeSha256, CodeSize, ...rest } = version;
    return {
      Content: {
        Location: `${ctx.baseUrl}/_emulator/lambda/code/${encodeURIComponent(CodeSha256)}`,
        CodeSha256,
        CodeSize,
      },
      LayerArn: layerArn(layer.account, layer.region, layer.name),
      LayerVersionArn: layerArn(layer.account, layer.region, layer.name, version.Version),
      ...rest,
    };
  }

  private listed(layer: LayerRecord, version: LayerVersionRecord): Record<string, unknown> {
    const { CodeSha256: _s, CodeSize: _c, ...rest } = version;
    return { LayerVersionArn: layerArn(layer.account, layer.region, layer.name, version.Version), ...rest };
  }
}

function matches(
  version: LayerVersionRecord,
  runtime: string | undefined,
  architecture: string | undefined,
): boolean {
  return (
    (runtime === undefined || (version.CompatibleRuntimes ?? []).includes(runtime)) &&
    (architecture === undefined || (version.CompatibleArchitectures ?? []).includes(architecture))
  );
}
