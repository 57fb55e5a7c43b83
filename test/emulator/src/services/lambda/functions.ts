/**
 * Functions: CreateFunction, GetFunction(Configuration), UpdateFunctionCode,
 * UpdateFunctionConfiguration, DeleteFunction, ListFunctions, versions
 * (PublishVersion, ListVersionsByFunction), reserved concurrency and account
 * settings, as the Lambda API reference documents them.
 */
import { createHash } from 'node:crypto';
import type {
  CreateFunctionRequest,
  FunctionConfiguration,
  UpdateFunctionCodeRequest,
  UpdateFunctionConfigurationRequest,
} from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { CodeSource, StoredCode } from './code';
import {
  assertNotBusy,
  assertRevision,
  createConfiguration,
  newVersion,
  renderConfiguration,
  startUpdate,
  touch,
  updateConfiguration,
  type LayerLookup,
} from './configuration';
import { functionNotFound, type LambdaContext } from './context';
import type { FunctionVersion, LambdaFunction } from './model';
import { functionArn, parseFunctionName, validationError } from './names';
import type { RolePropagation } from './role-propagation';
import { validateTags } from './tags';

/** Account concurrency: the default quota, and the part that must stay unreserved. */
const ACCOUNT_CONCURRENCY = 1000;
const MIN_UNRESERVED = 100;

/** A page of a sorted list, with Lambda's opaque Marker (base64 of the last item's key). */
export function page<T>(
  items: T[],
  keyOf: (item: T) => string,
  marker: string | undefined,
  maxItems: number | undefined,
  limit = 10000,
  fallback = 50,
): { items: T[]; nextMarker?: string } {
  if (maxItems !== undefined && (maxItems < 1 || maxItems > limit))
    throw validationError(
      'maxItems',
      maxItems,
      `Member must have value ${maxItems < 1 ? 'greater than or equal to 1' : `less than or equal to ${limit}`}`,
    );
  let start = 0;
  if (marker) {
    const after = Buffer.from(marker, 'base64').toString('utf8');
    start = items.findIndex((item) => keyOf(item) > after);
    if (start < 0) start = items.length;
  }
  const size = maxItems ?? fallback;
  const slice = items.slice(start, start + size);
  return {
    items: slice,
    ...(start + size < items.length
      ? { nextMarker: Buffer.from(keyOf(slice[slice.length - 1]!)).toString('base64') }
      : {}),
  };
}

export class FunctionHandlers {
  readonly operations: Operations = {
    CreateFunction: (ctx, input: CreateFunctionRequest) => this.createFunction(ctx, input),
    GetFunction: (ctx, input: { FunctionName?: string; Qualifier?: string }) => this.getFunction(ctx, input),
    GetFunctionConfiguration: (ctx, input: { FunctionName?: string; Qualifier?: string }) => {
      const { version } = this.lambda.resolve(ctx, input.FunctionName, input.Qualifier);
      return this.render(version);
    },
    UpdateFunctionCode: (ctx, input: UpdateFunctionCodeRequest) => this.updateFunctionCode(ctx, input),
    UpdateFunctionConfiguration: (ctx, input: UpdateFunctionConfigurationRequest) =>
      this.updateFunctionConfiguration(ctx, input),
    DeleteFunction: (ctx, input: { FunctionName?: string; Qualifier?: string }) =>
      this.deleteFunction(ctx, input),
    ListFunctions: (ctx, input: { Marker?: string; MaxItems?: number; FunctionVersion?: string }) =>
      this.listFunctions(ctx, input),
    PublishVersion: (
      ctx,
      input: { FunctionName?: string; CodeSha256?: string; Description?: string; RevisionId?: string },
    ) => this.publishVersion(ctx, input),
    ListVersionsByFunction: (ctx, input: { FunctionName?: string; Marker?: string; MaxItems?: number }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      const all = [
        fn.latest,
        ...Object.keys(fn.versions)
          .sort((a, b) => Number(a) - Number(b))
          .map((v) => fn.versions[v]!),
      ];
      const keyOf = (v: FunctionVersion) =>
        v.configuration.Version === '$LATEST' ? '0' : v.configuration.Version!.padStart(10, '0');
      const { items, nextMarker } = page(all, keyOf, input.Marker, input.MaxItems);
      return { Versions: items.map((v) => this.render(v)), NextMarker: nextMarker };
    },
    PutFunctionConcurrency: (ctx, input: { FunctionName?: string; ReservedConcurrentExecutions?: number }) =>
      this.putConcurrency(ctx, input),
    DeleteFunctionConcurrency: (ctx, input: { FunctionName?: string }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      delete fn.reservedConcurrency;
      return {};
    },
    GetFunctionConcurrency: (ctx, input: { FunctionName?: string }) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      return fn.reservedConcurrency !== undefined
        ? { ReservedConcurrentExecutions: fn.reservedConcurrency }
        : {};
    },
    GetAccountSettings: (ctx) => {
      const functions = this.lambda.store.functionsIn(ctx.account, ctx.region);
      const reserved = functions.reduce((sum, f) => sum + (f.reservedConcurrency ?? 0), 0);
      return {
        AccountLimit: {
          TotalCodeSize: 80_530_636_800,
          CodeSizeUnzipped: 262_144_000,
          CodeSizeZipped: 52_428_800,
          ConcurrentExecutions: ACCOUNT_CONCURRENCY,
          UnreservedConcurrentExecutions: ACCOUNT_CONCURRENCY - reserved,
        },
        AccountUsage: {
          TotalCodeSize: functions.reduce((sum, f) => sum + (f.latest.configuration.CodeSize ?? 0), 0),
          FunctionCount: functions.length,
        },
      };
    },
  };

  constructor(
    private readonly lambda: LambdaContext,
    private readonly roles: RolePropagation,
  ) {}

  private render(version: FunctionVersion): FunctionConfiguration {
    return renderConfiguration(version, this.lambda.transitionMs);
  }

  /** Layer version ARNs of the caller's account must exist; another account's (AWS-published) are taken on trust. */
  private layerLookup(ctx: CallContext): LayerLookup {
    return (arn) => {
      const [, , , region, account, , name, version] = arn.split(':');
      if (account !== ctx.account) return 0;
      const found =
        region === ctx.region
          ? this.lambda.store.getLayer(account, region, name!)?.versions[version!]
          : undefined;
      if (!found)
        throw new AwsError('InvalidParameterValueException', `Layer version ${arn} does not exist.`);
      return found.CodeSize;
    };
  }

  /** The package of a create or code update: a zip (from the request or S3) or an image. */
  private takeCode(ctx: CallContext, source: CodeSource, packageType: string): StoredCode {
    if (packageType === 'Image') {
      if (!source.ImageUri)
        throw new AwsError(
          'InvalidParameterValueException',
          'Please provide ImageUri when PackageType is Image.',
        );
      return { CodeSha256: createHash('sha256').update(source.ImageUri).digest('hex'), CodeSize: 0 };
    }
    if (source.ImageUri)
      throw new AwsError(
        'InvalidParameterValueException',
        "Please don't provide ImageUri when PackageType is Zip.",
      );
    return this.lambda.code.take(source, ctx.region);
  }

  private createFunction(ctx: CallContext, input: CreateFunctionRequest): unknown {
    if (input.FunctionName === undefined)
      throw validationError('functionName', null, 'Member must not be null');
    if (input.Role === undefined) throw validationError('role', null, 'Member must not be null');
    if (input.Code === undefined) throw validationError('code', null, 'Member must not be null');
    const ref = parseFunctionName(ctx, input.FunctionName);
    if (ref.qualifier)
      throw validationError(
        'functionName',
        input.FunctionName,
        'Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_]+)',
      );
    const name = ref.name;
    if (this.lambda.store.getFunction(ctx.account, ctx.region, name))
      throw new AwsError('ResourceConflictException', `Function already exist: ${name}`);
    const tags = validateTags(input.Tags);
    if (Object.keys(tags).length > 50)
      throw new AwsError('InvalidParameterValueException', 'Number of tags exceeds resource tag limit.');
    const code = this.takeCode(ctx, input.Code, input.PackageType ?? 'Zip');
    const arn = functionArn(ctx.account, ctx.region, name);
    const configuration = createConfiguration(input, name, arn, code, this.layerLookup(ctx));
    this.roles.check(ctx.account, input.Role);
    const fn: LambdaFunction = {
      account: ctx.account,
      region: ctx.region,
      name,
      latest: newVersion(configuration, this.lambda.transitionMs),
      versions: {},
      nextVersion: 1,
      aliases: {},
      policies: {},
      urls: {},
      invokeConfigs: {},
      settings: input.CodeSigningConfigArn ? { codeSigningConfigArn: input.CodeSigningConfigArn } : {},
      tags,
    };
    this.lambda.store.putFunction(fn);
    if (input.Publish) return this.publish(fn, undefined);
    // Lambda answers every create while the function is still being created.
    return {
      ...this.render(fn.latest),
      State: 'Pending',
      StateReason: 'The function is being created.',
      StateReasonCode: 'Creating',
      LastUpdateStatus: undefined,
    };
  }

  private getFunction(ctx: CallContext, input: { FunctionName?: string; Qualifier?: string }): unknown {
    const { fn, version } = this.lambda.resolve(ctx, input.FunctionName, input.Qualifier);
    const configuration = version.configuration;
    const code =
      configuration.PackageType === 'Image'
        ? { RepositoryType: 'ECR', ImageUri: '', ResolvedImageUri: '' }
        : {
            RepositoryType: 'S3',
            Location: `${ctx.baseUrl}/_emulator/lambda/code/${encodeURIComponent(configuration.CodeSha256!)}`,
          };
    return {
      Configuration: this.render(version),
      Code: code,
      ...(Object.keys(fn.tags).length ? { Tags: { ...fn.tags } } : {}),
      ...(fn.reservedConcurrency !== undefined
        ? { Concurrency: { ReservedConcurrentExecutions: fn.reservedConcurrency } }
        : {}),
    };
  }

  /** The function an update names: no qualifier allowed, and it must not be busy. */
  private forUpdate(ctx: CallContext, functionName: unknown, revisionId: string | undefined): LambdaFunction {
    const { fn, ref } = this.lambda.find(ctx, functionName);
    if (ref.qualifier)
      throw new AwsError(
        'InvalidParameterValueException',
        'Only $LATEST can be updated; the function name must not carry a qualifier.',
      );
    assertNotBusy(fn, this.lambda.transitionMs);
    assertRevision(revisionId, fn.latest.configuration.RevisionId);
    return fn;
  }

  private updateFunctionCode(ctx: CallContext, input: UpdateFunctionCodeRequest): unknown {
    const fn = this.forUpdate(ctx, input.FunctionName, input.RevisionId);
    const current = fn.latest.configuration;
    const code = this.takeCode(ctx, input, current.PackageType ?? 'Zip');
    if (
      input.Architectures &&
      (input.Architectures.length !== 1 || !['x86_64', 'arm64'].includes(input.Architectures[0]!))
    )
      throw validationError(
        'architectures',
        input.Architectures,
        'Member must have length less than or equal to 1',
      );
    if (input.DryRun) return this.render(fn.latest);
    fn.latest.configuration = touch({
      ...current,
      CodeSha256: code.CodeSha256,
      CodeSize: code.CodeSize,
      ...(input.Architectures ? { Architectures: input.Architectures } : {}),
    });
    startUpdate(fn.latest, this.lambda.transitionMs);
    if (input.Publish) return this.publish(fn, undefined);
    return this.inProgress(fn.latest);
  }

  private updateFunctionConfiguration(ctx: CallContext, input: UpdateFunctionConfigurationRequest): unknown {
    const fn = this.forUpdate(ctx, input.FunctionName, input.RevisionId);
    const next = updateConfiguration(fn.latest.configuration, input, this.layerLookup(ctx));
    if (input.Role !== undefined) this.roles.check(ctx.account, input.Role);
    fn.latest.configuration = next;
    startUpdate(fn.latest, this.lambda.transitionMs);
    return this.inProgress(fn.latest);
  }

  /** Lambda answers every update while it is still being applied. */
  private inProgress(version: FunctionVersion): FunctionConfiguration {
    return {
      ...this.render(version),
      State: 'Active',
      LastUpdateStatus: 'InProgress',
      LastUpdateStatusReason: 'The function is being created.',
      LastUpdateStatusReasonCode: 'Creating' as FunctionConfiguration['LastUpdateStatusReasonCode'],
    };
  }

  private deleteFunction(ctx: CallContext, input: { FunctionName?: string; Qualifier?: string }): unknown {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    const qualifier = ref.qualifier ?? (input.Qualifier || undefined);
    if (ref.qualifier && input.Qualifier && ref.qualifier !== input.Qualifier)
      throw new AwsError(
        'InvalidParameterValueException',
        'The derived qualifier from the function name does not match the specified qualifier.',
      );
    if (qualifier === undefined) {
      this.lambda.store.deleteFunction(fn);
      return { StatusCode: 204 };
    }
    if (qualifier === '$LATEST')
      throw new AwsError(
        'InvalidParameterValueException',
        '$LATEST version cannot be deleted without deleting the function.',
      );
    if (!/^\d+$/.test(qualifier))
      throw new AwsError(
        'InvalidParameterValueException',
        'Deletion of aliases is not supported through DeleteFunction. Use DeleteAlias.',
      );
    if (!fn.versions[qualifier])
      throw functionNotFound(functionArn(fn.account, fn.region, fn.name, qualifier));
    const referencing = Object.values(fn.aliases)
      .filter(
        (a) =>
          a.FunctionVersion === qualifier ||
          a.RoutingConfig?.AdditionalVersionWeights?.[qualifier] !== undefined,
      )
      .map((a) => a.Name);
    if (referencing.length)
      throw new AwsError(
        'ResourceConflictException',
        `Unable to delete version because the following aliases reference it: [${referencing.join(', ')}]`,
      );
    delete fn.versions[qualifier];
    delete fn.policies[qualifier];
    delete fn.invokeConfigs[qualifier];
    delete fn.settings.provisionedConcurrency?.[qualifier];
    delete fn.settings.runtimeManagement?.[qualifier];
    delete fn.settings.scaling?.[qualifier];
    return { StatusCode: 204 };
  }

  private listFunctions(
    ctx: CallContext,
    input: { Marker?: string; MaxItems?: number; FunctionVersion?: string },
  ): unknown {
    if (input.FunctionVersion !== undefined && input.FunctionVersion !== 'ALL')
      throw validationError(
        'functionVersion',
        input.FunctionVersion,
        'Member must satisfy enum value set: [ALL]',
      );
    const versions = this.lambda.store.functionsIn(ctx.account, ctx.region).flatMap((fn) =>
      input.FunctionVersion === 'ALL'
        ? [
            fn.latest,
            ...Object.keys(fn.versions)
              .sort((a, b) => Number(a) - Number(b))
              .map((v) => fn.versions[v]!),
          ]
        : [fn.latest],
    );
    const keyOf = (v: FunctionVersion) =>
      `${v.configuration.FunctionName}:${v.configuration.Version === '$LATEST' ? '0' : v.configuration.Version!.padStart(10, '0')}`;
    const { items, nextMarker } = page(versions, keyOf, input.Marker, input.MaxItems);
    return { Functions: items.map((v) => this.render(v)), NextMarker: nextMarker };
  }

  private publishVersion(
    ctx: CallContext,
    input: { FunctionName?: string; CodeSha256?: string; Description?: string; RevisionId?: string },
  ): unknown {
    const { fn, ref } = this.lambda.find(ctx, input.FunctionName);
    if (ref.qualifier)
      throw new AwsError(
        'InvalidParameterValueException',
        'PublishVersion does not take a qualified function name.',
      );
    assertNotBusy(fn, this.lambda.transitionMs);
    assertRevision(input.RevisionId, fn.latest.configuration.RevisionId);
    const current = fn.latest.configuration.CodeSha256;
    if (input.CodeSha256 !== undefined && input.CodeSha256 !== current)
      throw new AwsError(
        'InvalidParameterValueException',
        `CodeSHA256 (${input.CodeSha256}) is different from current CodeSHA256 in $LATEST (${current}). Please try again.`,
      );
    return this.publish(fn, input.Description);
  }

  /** A new version from $LATEST, unless $LATEST has not changed since the last one (that one is returned). */
  publish(fn: LambdaFunction, description: string | undefined): FunctionConfiguration {
    const numbers = Object.keys(fn.versions).map(Number);
    const last = numbers.length ? fn.versions[String(Math.max(...numbers))] : undefined;
    if (last && last.digest === fn.latest.digest) return this.render(last);
    const number = String(fn.nextVersion++);
    const configuration = touch({
      ...fn.latest.configuration,
      FunctionArn: functionArn(fn.account, fn.region, fn.name, number),
      Version: number,
      Description: description ?? fn.latest.configuration.Description,
    });
    const version = newVersion(configuration, this.lambda.transitionMs);
    version.digest = fn.latest.digest;
    fn.versions[number] = version;
    return this.render(version);
  }

  private putConcurrency(
    ctx: CallContext,
    input: { FunctionName?: string; ReservedConcurrentExecutions?: number },
  ): unknown {
    const { fn } = this.lambda.find(ctx, input.FunctionName);
    const wanted = input.ReservedConcurrentExecutions;
    if (wanted === undefined)
      throw validationError('reservedConcurrentExecutions', null, 'Member must not be null');
    if (!Number.isInteger(wanted) || wanted < 0)
      throw validationError(
        'reservedConcurrentExecutions',
        wanted,
        'Member must have value greater than or equal to 0',
      );
    const others = this.lambda.store
      .functionsIn(ctx.account, ctx.region)
      .filter((f) => f !== fn)
      .reduce((sum, f) => sum + (f.reservedConcurrency ?? 0), 0);
    if (ACCOUNT_CONCURRENCY - others - wanted < MIN_UNRESERVED)
      throw new AwsError(
        'InvalidParameterValueException',
        `Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [${MIN_UNRESERVED}].`,
      );
    fn.reservedConcurrency = wanted;
    return { ReservedConcurrentExecutions: wanted };
  }
}
