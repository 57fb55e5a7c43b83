/**
 * Aliases: CreateAlias, GetAlias, UpdateAlias, DeleteAlias, ListAliases. An
 * alias points at `$LATEST` or a published version, optionally routing a
 * weight of its traffic to one more version.
 */
import { randomUUID } from 'node:crypto';
import type { AliasRoutingConfiguration } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { assertRevision } from './configuration';
import { functionNotFound, type LambdaContext } from './context';
import { page } from './functions';
import type { AliasRecord, LambdaFunction } from './model';
import { ALIAS_NAME, functionArn, validationError } from './names';

interface AliasInput {
  FunctionName?: string;
  Name?: string;
  FunctionVersion?: string;
  Description?: string;
  RoutingConfig?: AliasRoutingConfiguration;
  RevisionId?: string;
}

export function aliasNotFound(fn: LambdaFunction, name: string): AwsError {
  return new AwsError(
    'ResourceNotFoundException',
    `Alias not found: ${functionArn(fn.account, fn.region, fn.name, name)}`,
  );
}

export class AliasHandlers {
  readonly operations: Operations = {
    CreateAlias: (ctx, input: AliasInput) => this.createAlias(ctx, input),
    GetAlias: (ctx, input: AliasInput) => ({ ...this.alias(ctx, input).alias }),
    UpdateAlias: (ctx, input: AliasInput) => {
      const { fn, alias } = this.alias(ctx, input);
      assertRevision(input.RevisionId, alias.RevisionId);
      const functionVersion = input.FunctionVersion ?? alias.FunctionVersion;
      const routing = input.RoutingConfig ?? alias.RoutingConfig;
      this.checkTarget(fn, functionVersion, routing);
      alias.FunctionVersion = functionVersion;
      if (input.Description !== undefined) alias.Description = input.Description;
      if (input.RoutingConfig !== undefined) {
        if (Object.keys(input.RoutingConfig.AdditionalVersionWeights ?? {}).length)
          alias.RoutingConfig = input.RoutingConfig;
        else delete alias.RoutingConfig;
      }
      alias.RevisionId = randomUUID();
      return { ...alias };
    },
    DeleteAlias: (ctx, input: AliasInput) => {
      const { fn, alias } = this.alias(ctx, input);
      delete fn.aliases[alias.Name];
      delete fn.policies[alias.Name];
      delete fn.urls[alias.Name];
      delete fn.invokeConfigs[alias.Name];
      delete fn.settings.provisionedConcurrency?.[alias.Name];
      delete fn.settings.scaling?.[alias.Name];
      return {};
    },
    ListAliases: (
      ctx,
      input: { FunctionName?: string; FunctionVersion?: string; Marker?: string; MaxItems?: number },
    ) => {
      const { fn } = this.lambda.find(ctx, input.FunctionName);
      const aliases = Object.values(fn.aliases)
        .filter((a) => input.FunctionVersion === undefined || a.FunctionVersion === input.FunctionVersion)
        .sort((a, b) => (a.Name < b.Name ? -1 : 1));
      const { items, nextMarker } = page(aliases, (a) => a.Name, input.Marker, input.MaxItems);
      return { Aliases: items.map((a) => ({ ...a })), NextMarker: nextMarker };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  private alias(ctx: CallContext, input: AliasInput): { fn: LambdaFunction; alias: AliasRecord } {
    const { fn } = this.lambda.find(ctx, input.FunctionName);
    const alias = input.Name ? fn.aliases[input.Name] : undefined;
    if (!alias) throw aliasNotFound(fn, String(input.Name));
    return { fn, alias };
  }

  /** The primary version must exist; weighted routing needs a published primary and one other version. */
  private checkTarget(
    fn: LambdaFunction,
    functionVersion: string,
    routing: AliasRoutingConfiguration | undefined,
  ): void {
    const exists = (v: string) => v === '$LATEST' || fn.versions[v] !== undefined;
    if (!exists(functionVersion))
      throw functionNotFound(functionArn(fn.account, fn.region, fn.name, functionVersion));
    const weights = Object.entries(routing?.AdditionalVersionWeights ?? {});
    if (!weights.length) return;
    if (weights.length > 1)
      throw new AwsError(
        'InvalidParameterValueException',
        'Number of items in AdditionalVersionWeights cannot be greater than 1',
      );
    if (functionVersion === '$LATEST')
      throw new AwsError(
        'InvalidParameterValueException',
        '$LATEST is not supported for an alias pointing to more than 1 version',
      );
    const [[version, weight]] = weights as [[string, number]];
    if (version === functionVersion)
      throw new AwsError(
        'InvalidParameterValueException',
        'Primary and additional version cannot be the same',
      );
    if (!exists(version) || version === '$LATEST')
      throw functionNotFound(functionArn(fn.account, fn.region, fn.name, version));
    if (weight < 0 || weight > 1)
      throw validationError(
        'routingConfig.additionalVersionWeights',
        weight,
        'Map value must satisfy constraint: [Member must have value less than or equal to 1.0]',
      );
  }

  private createAlias(ctx: CallContext, input: AliasInput): unknown {
    const { fn } = this.lambda.find(ctx, input.FunctionName);
    if (!input.Name) throw validationError('name', null, 'Member must not be null');
    if (!input.FunctionVersion) throw validationError('functionVersion', null, 'Member must not be null');
    if (!ALIAS_NAME.test(input.Name) || input.Name.length > 128)
      throw validationError(
        'name',
        input.Name,
        'Member must satisfy regular expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)',
      );
    const arn = functionArn(fn.account, fn.region, fn.name, input.Name);
    if (fn.aliases[input.Name])
      throw new AwsError('ResourceConflictException', `Alias already exists: ${arn}`);
    this.checkTarget(fn, input.FunctionVersion, input.RoutingConfig);
    const alias: AliasRecord = {
      AliasArn: arn,
      Name: input.Name,
      FunctionVersion: input.FunctionVersion,
      Description: input.Description ?? '',
      ...(Object.keys(input.RoutingConfig?.AdditionalVersionWeights ?? {}).length
        ? { RoutingConfig: input.RoutingConfig }
        : {}),
      RevisionId: randomUUID(),
    };
    fn.aliases[input.Name] = alias;
    return { ...alias };
  }
}
