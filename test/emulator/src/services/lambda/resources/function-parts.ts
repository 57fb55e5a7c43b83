/**
 * The types that hang off a function, over the same store the Lambda API
 * uses: `AWS::Lambda::Permission` (identifier `<FunctionName>|<Id>`, a
 * statement of the function's policy), `AWS::Lambda::Version` (the version
 * ARN), `AWS::Lambda::Alias` (the alias ARN), `AWS::Lambda::Url` (the
 * function ARN, qualified by the alias it serves) and
 * `AWS::Lambda::EventInvokeConfig` (`<FunctionName>|<Qualifier>`).
 */
import { AwsError } from '../../../core/errors';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../../core/resources';
import type { ResourceSchema } from '../../../core/resource-schema';
import type { CallContext, InventoryItem, InventoryView, Operations } from '../../../core/service';
import { generatedName } from '../../cloudcontrol/generate';
import { AliasHandlers } from '../aliases';
import { InvokeConfigHandlers } from '../invoke-config';
import type { AliasRecord, LambdaFunction, PolicyStatement } from '../model';
import { functionArn, parseFunctionName } from '../names';
import { PermissionHandlers } from '../permissions';
import { UrlHandlers } from '../urls';
import { callContext, defined, Extras, orNotFound, run, type LambdaParts } from './common';

type Model = Record<string, unknown>;

/** One resource of a type in the store, with the account and region it lives in. */
interface Located<T> {
  account: string;
  region: string;
  fn: LambdaFunction;
  item: T;
}

/** Shared skeleton: identifiers, reads through `find`, lists and inventory through `items`. */
abstract class PartProvider<T> implements ResourceProvider {
  abstract readonly typeName: string;
  private extrasOfType?: Extras;

  constructor(protected readonly parts: LambdaParts) {}

  protected get extras(): Extras {
    return (this.extrasOfType ??= new Extras(this.parts.context, this.typeName));
  }

  /** The function (and qualifier) a FunctionName or ARN names in a scope; undefined when it names none. */
  protected locate(
    scope: ResourceScope,
    functionName: string,
  ): { fn: LambdaFunction; qualifier?: string } | undefined {
    let ref;
    try {
      ref = parseFunctionName(callContext(scope), functionName);
    } catch (err) {
      if (err instanceof AwsError) return undefined;
      throw err;
    }
    const fn = this.parts.context.store.getFunction(scope.account, scope.region, ref.name);
    return fn ? { fn, qualifier: ref.qualifier } : undefined;
  }

  protected abstract items(fn: LambdaFunction): T[];
  protected abstract identifierOf(fn: LambdaFunction, item: T): string;
  protected abstract modelOf(located: Located<T>, identifier: string, extras: Model): Model;
  protected abstract find(scope: ResourceScope, identifier: string): Located<T> | undefined;
  abstract create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource;
  abstract update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Model,
  ): StoredResource;
  abstract delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void;

  protected stored(
    located: Located<T>,
    identifier = this.identifierOf(located.fn, located.item),
  ): StoredResource {
    return { identifier, model: this.modelOf(located, identifier, this.extras.get(located, identifier)) };
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const located = this.find(scope, identifier);
    return located ? this.stored(located, identifier) : undefined;
  }

  protected readOrFail(scope: ResourceScope, identifier: string): StoredResource {
    const found = this.read(scope, undefined as never, identifier);
    if (!found) throw notFound(this.typeName, identifier);
    return found;
  }

  private all(): Located<T>[] {
    return [...this.parts.context.store.functions.values()].flatMap((fn) =>
      this.items(fn).map((item) => ({ account: fn.account, region: fn.region, fn, item })),
    );
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.all()
      .filter((l) => l.account === scope.account && l.region === scope.region)
      .map((l) => this.stored(l));
  }

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.all(), (l) => this.stored(l));
  }
}

/** A policy statement as the CloudFormation model writes it. */
function permissionModel(statement: PolicyStatement): Model {
  const principal = statement.Principal;
  const condition = statement.Condition ?? {};
  const aws = typeof principal === 'object' ? principal.AWS : undefined;
  return defined({
    Action: statement.Action,
    Principal:
      typeof principal === 'string'
        ? principal
        : (principal.Service ?? (aws && /^arn:aws[a-z-]*:iam::(\d{12}):root$/.exec(aws)?.[1]) ?? aws),
    SourceArn: condition.ArnLike?.['AWS:SourceArn'],
    SourceAccount: condition.StringEquals?.['AWS:SourceAccount'],
    EventSourceToken: condition.StringEquals?.['lambda:EventSourceToken'],
    PrincipalOrgID: condition.StringEquals?.['aws:PrincipalOrgID'],
    FunctionUrlAuthType: condition.StringEquals?.['lambda:FunctionUrlAuthType'],
    InvokedViaFunctionUrl:
      condition.Bool?.['lambda:InvokedViaFunctionUrl'] !== undefined
        ? condition.Bool['lambda:InvokedViaFunctionUrl'] === 'true'
        : undefined,
    Id: statement.Sid,
  });
}

export class PermissionProvider extends PartProvider<{ key: string; statement: PolicyStatement }> {
  readonly typeName = 'AWS::Lambda::Permission';
  private readonly ops: Operations;

  constructor(parts: LambdaParts) {
    super(parts);
    this.ops = new PermissionHandlers(parts.context).operations;
  }

  protected items(fn: LambdaFunction) {
    return Object.entries(fn.policies).flatMap(([key, policy]) =>
      policy.statements.map((statement) => ({ key, statement })),
    );
  }

  protected identifierOf(fn: LambdaFunction, item: { key: string; statement: PolicyStatement }): string {
    return `${functionArn(fn.account, fn.region, fn.name, item.key || undefined)}|${item.statement.Sid}`;
  }

  protected modelOf(located: Located<{ statement: PolicyStatement }>, identifier: string): Model {
    return {
      FunctionName: identifier.slice(0, identifier.lastIndexOf('|')),
      ...permissionModel(located.item.statement),
    };
  }

  protected find(scope: ResourceScope, identifier: string) {
    const bar = identifier.lastIndexOf('|');
    const target = this.locate(scope, identifier.slice(0, bar));
    if (!target) return undefined;
    const key = target.qualifier ?? '';
    const statement = target.fn.policies[key]?.statements.find((s) => s.Sid === identifier.slice(bar + 1));
    return statement
      ? { account: scope.account, region: scope.region, fn: target.fn, item: { key, statement } }
      : undefined;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const id = generatedName(this.typeName);
    run(this.ops, 'AddPermission', callContext(scope), {
      FunctionName: desired.FunctionName,
      StatementId: id,
      Action: desired.Action,
      Principal: desired.Principal,
      SourceArn: desired.SourceArn,
      SourceAccount: desired.SourceAccount,
      EventSourceToken: desired.EventSourceToken,
      PrincipalOrgID: desired.PrincipalOrgID,
      FunctionUrlAuthType: desired.FunctionUrlAuthType,
      InvokedViaFunctionUrl: desired.InvokedViaFunctionUrl,
    });
    return this.readOrFail(scope, `${String(desired.FunctionName)}|${id}`);
  }

  /** Every property is create-only: nothing changes in place. */
  update(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource {
    return this.readOrFail(scope, identifier);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    if (!this.find(scope, identifier)) throw notFound(schema.typeName, identifier);
    const bar = identifier.lastIndexOf('|');
    run(this.ops, 'RemovePermission', callContext(scope), {
      FunctionName: identifier.slice(0, bar),
      StatementId: identifier.slice(bar + 1),
    });
  }
}

export class VersionProvider extends PartProvider<string> {
  readonly typeName = 'AWS::Lambda::Version';

  protected items(fn: LambdaFunction): string[] {
    return Object.keys(fn.versions);
  }

  protected identifierOf(fn: LambdaFunction, version: string): string {
    return functionArn(fn.account, fn.region, fn.name, version);
  }

  protected modelOf(located: Located<string>, identifier: string, extras: Model): Model {
    const version = located.fn.versions[located.item]!;
    return defined({
      FunctionName: located.fn.name,
      FunctionArn: identifier,
      Version: located.item,
      Description: version.configuration.Description || undefined,
      ...extras,
    });
  }

  protected find(scope: ResourceScope, identifier: string) {
    const target = this.locate(scope, identifier);
    if (!target || !target.qualifier || !target.fn.versions[target.qualifier]) return undefined;
    return { account: scope.account, region: scope.region, fn: target.fn, item: target.qualifier };
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const target = this.locate(scope, String(desired.FunctionName));
    const before = new Set(Object.keys(target?.fn.versions ?? {}));
    const published = run<{ FunctionArn: string; Version: string }>(
      this.parts.functions.operations,
      'PublishVersion',
      callContext(scope),
      defined({
        FunctionName: desired.FunctionName,
        Description: desired.Description,
        CodeSha256: desired.CodeSha256,
      }),
    );
    if (before.has(published.Version))
      throw new HandlerError(
        'AlreadyExists',
        `A version for this Lambda function exists ( ${published.Version} ). Modify the function to create a new version.`,
      );
    const located = this.find(scope, published.FunctionArn)!;
    delete located.fn.versions[published.Version]!.transition;
    this.extras.set(scope, published.FunctionArn, {
      FunctionName: desired.FunctionName,
      CodeSha256: desired.CodeSha256,
      ProvisionedConcurrencyConfig: desired.ProvisionedConcurrencyConfig,
      RuntimePolicy: desired.RuntimePolicy,
      FunctionScalingConfig: desired.FunctionScalingConfig,
    });
    return this.stored(located, published.FunctionArn);
  }

  /** Only FunctionScalingConfig changes in place; the version itself is immutable. */
  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    if (!this.find(scope, identifier)) throw notFound(schema.typeName, identifier);
    this.extras.set(scope, identifier, {
      ...this.extras.get(scope, identifier),
      FunctionScalingConfig: desired.FunctionScalingConfig,
    });
    return this.readOrFail(scope, identifier);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    run(this.parts.functions.operations, 'DeleteFunction', callContext(scope), {
      FunctionName: located.fn.name,
      Qualifier: located.item,
    });
    this.extras.delete(scope, identifier);
  }
}

/** CloudFormation's `[{ FunctionVersion, FunctionWeight }]` ↔ the API's `{ version: weight }`. */
function weightsToApi(routing: unknown): { AdditionalVersionWeights: Record<string, number> } {
  const list = ((routing as { AdditionalVersionWeights?: unknown })?.AdditionalVersionWeights ??
    []) as Array<{
    FunctionVersion: string;
    FunctionWeight: number;
  }>;
  return {
    AdditionalVersionWeights: Object.fromEntries(list.map((w) => [w.FunctionVersion, w.FunctionWeight])),
  };
}

export class AliasProvider extends PartProvider<AliasRecord> {
  readonly typeName = 'AWS::Lambda::Alias';
  private readonly ops: Operations;

  constructor(parts: LambdaParts) {
    super(parts);
    this.ops = new AliasHandlers(parts.context).operations;
  }

  protected items(fn: LambdaFunction): AliasRecord[] {
    return Object.values(fn.aliases);
  }

  protected identifierOf(_fn: LambdaFunction, alias: AliasRecord): string {
    return alias.AliasArn;
  }

  protected modelOf(located: Located<AliasRecord>, _identifier: string, extras: Model): Model {
    const alias = located.item;
    const weights = Object.entries(alias.RoutingConfig?.AdditionalVersionWeights ?? {});
    return defined({
      FunctionName: located.fn.name,
      AliasArn: alias.AliasArn,
      Name: alias.Name,
      FunctionVersion: alias.FunctionVersion,
      Description: alias.Description || undefined,
      RoutingConfig: weights.length
        ? {
            AdditionalVersionWeights: weights.map(([FunctionVersion, FunctionWeight]) => ({
              FunctionVersion,
              FunctionWeight,
            })),
          }
        : undefined,
      ...extras,
    });
  }

  protected find(scope: ResourceScope, identifier: string) {
    const target = this.locate(scope, identifier);
    const alias = target?.qualifier ? target.fn.aliases[target.qualifier] : undefined;
    return alias ? { account: scope.account, region: scope.region, fn: target!.fn, item: alias } : undefined;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const alias = run<AliasRecord>(this.ops, 'CreateAlias', callContext(scope), {
      FunctionName: desired.FunctionName,
      Name: desired.Name,
      FunctionVersion: desired.FunctionVersion,
      Description: desired.Description,
      ...(desired.RoutingConfig ? { RoutingConfig: weightsToApi(desired.RoutingConfig) } : {}),
    });
    this.extras.set(scope, alias.AliasArn, {
      FunctionName: desired.FunctionName,
      ProvisionedConcurrencyConfig: desired.ProvisionedConcurrencyConfig,
    });
    return this.readOrFail(scope, alias.AliasArn);
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    run(this.ops, 'UpdateAlias', callContext(scope), {
      FunctionName: located.fn.name,
      Name: located.item.Name,
      FunctionVersion: desired.FunctionVersion,
      Description: desired.Description ?? '',
      RoutingConfig: weightsToApi(desired.RoutingConfig),
    });
    this.extras.set(scope, identifier, {
      ...this.extras.get(scope, identifier),
      ProvisionedConcurrencyConfig: desired.ProvisionedConcurrencyConfig,
    });
    return this.readOrFail(scope, identifier);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    run(this.ops, 'DeleteAlias', callContext(scope), {
      FunctionName: located.fn.name,
      Name: located.item.Name,
    });
    this.extras.delete(scope, identifier);
  }
}

export class UrlProvider extends PartProvider<string> {
  readonly typeName = 'AWS::Lambda::Url';
  private readonly ops: Operations;

  constructor(parts: LambdaParts) {
    super(parts);
    this.ops = new UrlHandlers(parts.context).operations;
  }

  protected items(fn: LambdaFunction): string[] {
    return Object.keys(fn.urls);
  }

  protected identifierOf(fn: LambdaFunction, key: string): string {
    return functionArn(fn.account, fn.region, fn.name, key || undefined);
  }

  protected modelOf(located: Located<string>, identifier: string, extras: Model): Model {
    const url = located.fn.urls[located.item]!;
    return defined({
      TargetFunctionArn: functionArn(located.fn.account, located.fn.region, located.fn.name),
      Qualifier: located.item || undefined,
      AuthType: url.AuthType,
      Cors: url.Cors && Object.keys(url.Cors).length ? url.Cors : undefined,
      InvokeMode: url.InvokeMode,
      FunctionArn: identifier,
      FunctionUrl: url.FunctionUrl,
      ...extras,
    });
  }

  protected find(scope: ResourceScope, identifier: string) {
    const target = this.locate(scope, identifier);
    const key = target?.qualifier ?? '';
    return target?.fn.urls[key]
      ? { account: scope.account, region: scope.region, fn: target.fn, item: key }
      : undefined;
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const url = run<{ FunctionArn: string }>(this.ops, 'CreateFunctionUrlConfig', callContext(scope), {
      FunctionName: desired.TargetFunctionArn,
      Qualifier: desired.Qualifier,
      AuthType: desired.AuthType,
      Cors: desired.Cors,
      InvokeMode: desired.InvokeMode,
    });
    this.extras.set(scope, url.FunctionArn, { TargetFunctionArn: desired.TargetFunctionArn });
    return this.readOrFail(scope, url.FunctionArn);
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    run(this.ops, 'UpdateFunctionUrlConfig', callContext(scope), {
      FunctionName: located.fn.name,
      Qualifier: located.item || undefined,
      AuthType: desired.AuthType,
      Cors: desired.Cors ?? {},
      InvokeMode: desired.InvokeMode ?? 'BUFFERED',
    });
    return this.readOrFail(scope, identifier);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    run(this.ops, 'DeleteFunctionUrlConfig', callContext(scope), {
      FunctionName: located.fn.name,
      Qualifier: located.item || undefined,
    });
    this.extras.delete(scope, identifier);
  }
}

export class EventInvokeConfigProvider extends PartProvider<string> {
  readonly typeName = 'AWS::Lambda::EventInvokeConfig';
  private readonly ops: Operations;

  constructor(parts: LambdaParts) {
    super(parts);
    this.ops = new InvokeConfigHandlers(parts.context).operations;
  }

  protected items(fn: LambdaFunction): string[] {
    return Object.keys(fn.invokeConfigs);
  }

  protected identifierOf(fn: LambdaFunction, qualifier: string): string {
    return `${fn.name}|${qualifier}`;
  }

  protected modelOf(located: Located<string>, identifier: string): Model {
    const config = located.fn.invokeConfigs[located.item]!;
    const destination = (side: 'OnSuccess' | 'OnFailure') => {
      const d = config.DestinationConfig?.[side]?.Destination;
      return d ? { Destination: d } : undefined;
    };
    const destinations = defined({
      OnSuccess: destination('OnSuccess'),
      OnFailure: destination('OnFailure'),
    });
    return defined({
      FunctionName: identifier.slice(0, identifier.lastIndexOf('|')),
      Qualifier: located.item,
      MaximumRetryAttempts: config.MaximumRetryAttempts,
      MaximumEventAgeInSeconds: config.MaximumEventAgeInSeconds,
      DestinationConfig: Object.keys(destinations).length ? destinations : undefined,
    });
  }

  protected find(scope: ResourceScope, identifier: string) {
    const bar = identifier.lastIndexOf('|');
    const target = this.locate(scope, identifier.slice(0, bar));
    const qualifier = identifier.slice(bar + 1);
    return target?.fn.invokeConfigs[qualifier]
      ? { account: scope.account, region: scope.region, fn: target.fn, item: qualifier }
      : undefined;
  }

  private put(ctx: CallContext, desired: Model): void {
    run(this.ops, 'PutFunctionEventInvokeConfig', ctx, {
      FunctionName: desired.FunctionName,
      Qualifier: desired.Qualifier,
      MaximumRetryAttempts: desired.MaximumRetryAttempts,
      MaximumEventAgeInSeconds: desired.MaximumEventAgeInSeconds,
      DestinationConfig: desired.DestinationConfig,
    });
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const identifier = `${String(desired.FunctionName)}|${String(desired.Qualifier)}`;
    if (this.find(scope, identifier)) throw alreadyExists(schema.typeName, identifier);
    this.put(callContext(scope), desired);
    return this.readOrFail(scope, identifier);
  }

  /** Put replaces the whole configuration: what the model leaves out goes back to its default. */
  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    if (!this.find(scope, identifier)) throw notFound(schema.typeName, identifier);
    this.put(callContext(scope), desired);
    return this.readOrFail(scope, identifier);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const located = this.find(scope, identifier);
    if (!located) throw notFound(schema.typeName, identifier);
    orNotFound(schema.typeName, identifier, () =>
      run(this.ops, 'DeleteFunctionEventInvokeConfig', callContext(scope), {
        FunctionName: located.fn.name,
        Qualifier: located.item,
      }),
    );
  }
}
