/**
 * The intrinsic function resolver: turns a template's resource properties and
 * outputs into plain values, given parameters, pseudo parameters, mappings,
 * conditions and the physical ids / attributes of resources already deployed.
 *
 * Two modes: `strict` (the deploy engine, at dispatch time, when every
 * dependency is done: a missing resource is an error) and `plan` (the diff:
 * a resource not deployed yet, or being replaced, yields an {@link Unknown}).
 */
import { CdkdError, TemplateResolutionError } from '../util/errors';
import type { TemplateLocation } from '../util/errors';
import type { PolicyAttribute } from '../state/types';
import { CidrError, cidrSubnets } from './cidr';
import { hasDynamicReference, isSecretReference, resolveDynamicReferences } from './dynamic-references';
import { deriveStackId, unsupportedCrossStackResolver } from './environment';
import type { ResolverEnvironment, ResourceSchemaInfo } from './environment';
import {
  describeExpression,
  getAttArguments,
  intrinsicName,
  isKnownIntrinsic,
  isPseudoParameter,
  ownValue,
  parseSubString,
  subArguments,
  subVariableTarget,
} from './intrinsics';
import { ParameterSet } from './parameters';
import { attributeOf, refValueOf } from './ref-value';
import { POLICY_ATTRIBUTES, isDeployedResourceType } from './types';
import type { CfnTemplate } from './types';
import { Unknown, containsUnknown, isUnknown, unknownFrom } from './unknown';

/** `Ref: AWS::NoValue`: the enclosing key (or list element) is removed. */
const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

export interface ResolverOptions {
  /**
   * `strict` (default): a `Ref` / `Fn::GetAtt` of a resource the lookup does not
   * know is an error. `plan`: it yields an {@link Unknown}.
   */
  mode?: 'strict' | 'plan';
  /**
   * `resolve` (default): every `{{resolve:...}}` reference is read. `preserve`: all
   * are kept as written. `preserve-secrets`: plain `ssm` references are read,
   * `ssm-secure` and `secretsmanager` ones kept as written (the form state stores
   * and the plan compares; read them afterwards with `resolveDynamicReferencesIn`).
   */
  dynamicReferences?: 'resolve' | 'preserve' | 'preserve-secrets';
  /** Told about every secret a dynamic reference resolved, for redaction. */
  onSecret?: (reference: string, value: string) => void;
}

/** A resource's resolved definition. */
export interface ResolvedResource {
  logicalId: string;
  resourceType: string;
  /** Resolved properties; may hold {@link Unknown}s in plan mode. */
  properties: Record<string, unknown>;
  deletionPolicy?: PolicyAttribute;
  updateReplacePolicy?: PolicyAttribute;
  /** `DependsOn` as written. */
  dependsOn: string[];
  metadata?: Record<string, unknown>;
}

/** An output whose condition holds, resolved. */
export interface ResolvedOutput {
  name: string;
  value: unknown;
  exportName?: unknown;
  description?: string;
}

/** Where a value is being resolved, for errors. */
interface Context {
  section: NonNullable<TemplateLocation['section']>;
  logicalId: string;
  path: string;
  /** Inside the Conditions section: condition functions allowed, resources not. */
  condition: boolean;
  /** Inside an intrinsic's arguments: the path stays at the property being resolved. */
  frozen?: boolean;
}

export class TemplateResolver {
  /** The stack's parameters (validated on construction, resolved lazily). */
  readonly parameters: ParameterSet;
  private readonly mode: 'strict' | 'plan';
  private readonly conditionCache = new Map<string, Promise<boolean>>();
  private readonly conditionsInProgress = new Set<string>();
  private readonly inclusionCache = new Map<string, Promise<boolean>>();
  private accountIdPromise?: Promise<string>;

  constructor(
    readonly template: CfnTemplate,
    private readonly env: ResolverEnvironment,
    private readonly options: ResolverOptions = {},
  ) {
    this.mode = options.mode ?? 'strict';
    this.parameters = new ParameterSet(
      template,
      env.parameterValues ?? {},
      env.ssmParameter,
      env.stackName,
      env.unknownParameters,
    );
  }

  /** The value of a named condition; each condition is evaluated once per resolver. */
  evaluateCondition(name: string): Promise<boolean> {
    let cached = this.conditionCache.get(name);
    if (!cached) {
      cached = this.computeCondition(name);
      this.conditionCache.set(name, cached);
    }
    return cached;
  }

  /**
   * True when the resource is part of this deploy: its `Condition` (if any) holds
   * and every resource it `DependsOn` is part of it too (CloudFormation does not
   * create a resource that depends on one it does not create).
   */
  isResourceIncluded(logicalId: string): Promise<boolean> {
    return this.included(logicalId, new Set());
  }

  /** Logical ids of every resource part of this deploy, in template order. */
  async includedResources(): Promise<string[]> {
    const ids = Object.keys(this.template.Resources);
    const flags = await Promise.all(ids.map((id) => this.isResourceIncluded(id)));
    return ids.filter((_, i) => flags[i]);
  }

  /** Resolves one resource's properties and policies. */
  async resolveResource(logicalId: string): Promise<ResolvedResource> {
    const resource = ownValue(this.template.Resources, logicalId);
    if (!resource) {
      throw new TemplateResolutionError(`Resource ${logicalId} is not defined in the template`, {
        logicalId,
      });
    }
    const ctx = (path: string): Context => ({ section: 'Resources', logicalId, path, condition: false });
    const properties = (await this.resolveTopLevel(resource.Properties ?? {}, ctx('Properties'))) as Record<
      string,
      unknown
    >;
    const out: ResolvedResource = {
      logicalId,
      resourceType: resource.Type,
      properties,
      dependsOn: resource.DependsOn ?? [],
    };
    for (const [key, field] of [
      ['DeletionPolicy', 'deletionPolicy'],
      ['UpdateReplacePolicy', 'updateReplacePolicy'],
    ] as const) {
      const raw = resource[key];
      if (raw === undefined) continue;
      const value = await this.resolveNode(raw, ctx(key));
      if (value === NO_VALUE) continue;
      if (!POLICY_ATTRIBUTES.includes(value as PolicyAttribute)) {
        throw this.fail(
          ctx(key),
          raw,
          `${key} resolves to ${describeExpression(value)}, which is not one of ${POLICY_ATTRIBUTES.join(', ')}`,
        );
      }
      out[field] = value as PolicyAttribute;
    }
    if (resource.Metadata) out.metadata = resource.Metadata;
    return out;
  }

  /** The outputs whose condition holds, resolved (value and export name). */
  async resolveOutputs(): Promise<ResolvedOutput[]> {
    const results: ResolvedOutput[] = [];
    for (const [name, output] of Object.entries(this.template.Outputs)) {
      if (output.Condition !== undefined && !(await this.evaluateCondition(output.Condition))) continue;
      const ctx = (path: string): Context => ({
        section: 'Outputs',
        logicalId: name,
        path,
        condition: false,
      });
      const value = await this.resolveTopLevel(output.Value, ctx('Value'));
      const resolved: ResolvedOutput = { name, value };
      if (output.Export !== undefined)
        resolved.exportName = await this.resolveTopLevel(output.Export.Name, ctx('Export.Name'));
      if (typeof output.Description === 'string') resolved.description = output.Description;
      results.push(resolved);
    }
    return results;
  }

  /** Resolves any template value at a given location (for callers resolving pieces themselves). */
  resolveValue(
    value: unknown,
    location: { section?: TemplateLocation['section']; logicalId: string; path: string },
  ): Promise<unknown> {
    return this.resolveTopLevel(value, {
      section: location.section ?? 'Resources',
      logicalId: location.logicalId,
      path: location.path,
      condition: false,
    });
  }

  /** `AWS::StackId`: the one given, or a stable ARN-shaped id derived from name, account and region. */
  async stackId(): Promise<string> {
    if (this.env.stackId) return this.env.stackId;
    return deriveStackId(this.env.partition, this.env.region, await this.accountId(), this.env.stackName);
  }

  // ---------------------------------------------------------------- internals

  private accountId(): Promise<string> {
    this.accountIdPromise ??= this.env.accountId();
    return this.accountIdPromise;
  }

  private async computeCondition(name: string): Promise<boolean> {
    const ctx: Context = { section: 'Conditions', logicalId: name, path: name, condition: true };
    if (!Object.prototype.hasOwnProperty.call(this.template.Conditions, name)) {
      throw new TemplateResolutionError(`Condition ${name} is not defined in the Conditions section`, {
        section: 'Conditions',
        logicalId: name,
      });
    }
    if (this.conditionsInProgress.has(name)) {
      throw new TemplateResolutionError(
        `Condition ${name} refers to itself (through ${[...this.conditionsInProgress].join(' -> ')})`,
        {
          section: 'Conditions',
          logicalId: name,
        },
      );
    }
    this.conditionsInProgress.add(name);
    try {
      const definition = this.template.Conditions[name];
      const value = await this.resolveNode(definition, ctx);
      if (typeof value !== 'boolean') {
        throw this.fail(
          ctx,
          definition,
          'a condition must be built from Fn::Equals, Fn::And, Fn::Or, Fn::Not or Condition',
        );
      }
      return value;
    } finally {
      this.conditionsInProgress.delete(name);
    }
  }

  private included(logicalId: string, visiting: Set<string>): Promise<boolean> {
    const cached = this.inclusionCache.get(logicalId);
    if (cached) return cached;
    const resource = ownValue(this.template.Resources, logicalId);
    if (!resource) return Promise.resolve(false);
    if (visiting.has(logicalId)) return Promise.resolve(true); // a DependsOn cycle is reported by the graph
    visiting.add(logicalId);
    const result = (async () => {
      if (!isDeployedResourceType(resource.Type)) return false;
      if (resource.Condition !== undefined && !(await this.evaluateCondition(resource.Condition)))
        return false;
      for (const dep of resource.DependsOn ?? []) {
        if (ownValue(this.template.Resources, dep) && !(await this.included(dep, visiting))) return false;
      }
      return true;
    })();
    this.inclusionCache.set(logicalId, result);
    return result;
  }

  /** Resolves a value that must not be `AWS::NoValue` as a whole, then reads dynamic references. */
  private async resolveTopLevel(value: unknown, ctx: Context): Promise<unknown> {
    const resolved = await this.resolveNode(value, ctx);
    if (resolved === NO_VALUE) {
      if (ctx.path === 'Properties') return {};
      throw this.fail(ctx, value, 'AWS::NoValue can only remove a property or a list element');
    }
    return this.options.dynamicReferences === 'preserve'
      ? resolved
      : this.readDynamicReferences(resolved, ctx);
  }

  private async readDynamicReferences(value: unknown, ctx: Context): Promise<unknown> {
    if (typeof value === 'string') {
      if (!hasDynamicReference(value)) return value;
      try {
        return await resolveDynamicReferences(
          value,
          {
            ssmParameter: this.env.ssmParameter,
            secretValue: this.env.secretValue,
            onSecret: this.options.onSecret,
          },
          this.options.dynamicReferences === 'preserve-secrets'
            ? (ref) => !isSecretReference(ref)
            : undefined,
        );
      } catch (err) {
        throw this.wrap(ctx, value, err);
      }
    }
    if (Array.isArray(value))
      return Promise.all(
        value.map((v, i) => this.readDynamicReferences(v, { ...ctx, path: `${ctx.path}[${i}]` })),
      );
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value))
        out[k] = await this.readDynamicReferences(v, { ...ctx, path: `${ctx.path}.${k}` });
      return out;
    }
    return value;
  }

  private async resolveNode(value: unknown, ctx: Context): Promise<unknown> {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        const v = await this.resolveNode(value[i], ctx.frozen ? ctx : { ...ctx, path: `${ctx.path}[${i}]` });
        if (v !== NO_VALUE) out.push(v);
      }
      return out;
    }
    if (!isPlainObject(value)) return value;
    const fn =
      intrinsicName(value) ?? (ctx.condition && isConditionReference(value) ? 'Condition' : undefined);
    if (fn !== undefined) {
      try {
        return await this.evaluate(fn, value[fn], value, ctx);
      } catch (err) {
        throw this.wrap(ctx, value, err);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = await this.resolveNode(v, ctx.frozen ? ctx : { ...ctx, path: `${ctx.path}.${k}` });
      if (resolved !== NO_VALUE) out[k] = resolved;
    }
    return out;
  }

  private async evaluate(
    fn: string,
    arg: unknown,
    expr: Record<string, unknown>,
    outer: Context,
  ): Promise<unknown> {
    // Fn::If's chosen branch sits at the property itself; other arguments are not properties.
    if (fn === 'Fn::If') return this.fnIf(arg, expr, outer);
    const ctx: Context = { ...outer, frozen: true };
    if (fn === 'Condition') {
      if (typeof arg !== 'string') throw this.fail(ctx, expr, 'Condition must name a condition');
      return this.evaluateCondition(arg);
    }
    if (!isKnownIntrinsic(fn)) {
      throw this.fail(
        ctx,
        expr,
        `${fn} is not a supported intrinsic function`,
        'See docs/template-support.md for the functions cdkd evaluates.',
      );
    }
    switch (fn) {
      case 'Ref':
        return this.ref(arg, expr, ctx);
      case 'Fn::GetAtt':
        return this.getAtt(arg, expr, ctx);
      case 'Fn::Join':
        return this.join(arg, expr, ctx);
      case 'Fn::Sub':
        return this.sub(arg, expr, ctx);
      case 'Fn::Select':
        return this.select(arg, expr, ctx);
      case 'Fn::Split':
        return this.split(arg, expr, ctx);
      case 'Fn::Base64': {
        const s = await this.resolveNode(arg, ctx);
        if (isUnknown(s)) return s;
        if (typeof s !== 'string') throw this.fail(ctx, expr, 'Fn::Base64 takes a string');
        return Buffer.from(s, 'utf8').toString('base64');
      }
      case 'Fn::GetAZs':
        return this.getAZs(arg, expr, ctx);
      case 'Fn::FindInMap':
        return this.findInMap(arg, expr, ctx);
      case 'Fn::Cidr':
        return this.cidr(arg, expr, ctx);
      case 'Fn::ToJsonString': {
        const v = await this.resolveNode(arg, ctx);
        if (v === NO_VALUE) throw this.fail(ctx, expr, 'Fn::ToJsonString of AWS::NoValue');
        if (containsUnknown(v)) return unknownFrom(v);
        if (typeof v !== 'object' || v === null)
          throw this.fail(ctx, expr, 'Fn::ToJsonString takes an object or a list');
        return JSON.stringify(v);
      }
      case 'Fn::Length': {
        const v = await this.resolveNode(arg, ctx);
        if (isUnknown(v)) return v;
        if (!Array.isArray(v)) throw this.fail(ctx, expr, 'Fn::Length takes a list');
        return v.length;
      }
      case 'Fn::ImportValue':
        return this.importValue(arg, expr, ctx);
      case 'Fn::GetStackOutput':
        return this.getStackOutput(arg, expr, ctx);
      case 'Fn::Equals':
      case 'Fn::And':
      case 'Fn::Or':
      case 'Fn::Not':
        return this.conditionFunction(fn, arg, expr, ctx);
    }
  }

  private async ref(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (typeof arg !== 'string')
      throw this.fail(ctx, expr, 'Ref takes the name of a parameter, a resource or a pseudo parameter');
    if (isPseudoParameter(arg)) return this.pseudo(arg);
    if (this.parameters.has(arg)) return this.parameters.value(arg);
    if (ownValue(this.template.Resources, arg)) return this.resourceRef(arg, expr, ctx);
    throw this.fail(ctx, expr, `Ref to ${arg}: the template has no parameter or resource of that name`);
  }

  private async pseudo(name: string): Promise<unknown> {
    switch (name) {
      case 'AWS::NoValue':
        return NO_VALUE;
      case 'AWS::AccountId':
        return this.accountId();
      case 'AWS::Region':
        return this.env.region;
      case 'AWS::Partition':
        return this.env.partition;
      case 'AWS::URLSuffix':
        return this.env.urlSuffix;
      case 'AWS::StackName':
        return this.env.stackName;
      case 'AWS::StackId':
        return this.stackId();
      case 'AWS::NotificationARNs':
        return [];
    }
    return undefined;
  }

  /** The deployed resource, checking it may be referenced from here; undefined = not available. */
  private async target(logicalId: string, expr: unknown, ctx: Context) {
    if (ctx.condition) throw this.fail(ctx, expr, `conditions cannot reference resources (${logicalId})`);
    if (!(await this.isResourceIncluded(logicalId))) {
      const condition = ownValue(this.template.Resources, logicalId)?.Condition;
      throw this.fail(
        ctx,
        expr,
        `${logicalId} is not created in this deploy` +
          (condition
            ? ` (its condition ${condition} is false, or it depends on a resource that is not created)`
            : ' (it depends on a resource that is not created)'),
        'Guard the reference with Fn::If on the same condition, or give the referencing element the same Condition.',
      );
    }
    const target = this.env.resources(logicalId);
    if (!target && this.mode === 'strict') {
      throw this.fail(
        ctx,
        expr,
        `resource ${logicalId} has not been deployed yet`,
        'This is a cdkd bug: a resource was dispatched before one it references.',
      );
    }
    return target;
  }

  private schemaOf(type: string): ResourceSchemaInfo | undefined {
    const schemas = this.env.schemas;
    return schemas && schemas.has(type) ? schemas.get(type) : undefined;
  }

  private async resourceRef(logicalId: string, expr: unknown, ctx: Context): Promise<unknown> {
    const target = await this.target(logicalId, expr, ctx);
    if (!target) return new Unknown(`${logicalId}.Ref`);
    return refValueOf(target, this.schemaOf(target.resourceType));
  }

  private async getAtt(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    const args = getAttArguments(arg);
    if (!args) throw this.fail(ctx, expr, 'Fn::GetAtt takes [LogicalId, AttributeName]');
    const attribute = await this.resolveNode(args.attribute, ctx);
    if (typeof attribute !== 'string')
      throw this.fail(ctx, expr, 'the attribute name of Fn::GetAtt must resolve to a string');
    return this.attributeValue(args.logicalId, attribute, expr, ctx);
  }

  private async attributeValue(
    logicalId: string,
    attribute: string,
    expr: unknown,
    ctx: Context,
  ): Promise<unknown> {
    const resource = ownValue(this.template.Resources, logicalId);
    if (!resource)
      throw this.fail(
        ctx,
        expr,
        `Fn::GetAtt of ${logicalId}.${attribute}: the template has no resource ${logicalId}`,
      );
    const target = await this.target(logicalId, expr, ctx);
    if (!target) return new Unknown(`${logicalId}.${attribute}`);
    const schema = this.schemaOf(target.resourceType);
    const found = attributeOf(target, attribute, schema);
    if (found.found) return found.value;
    const known = schema?.attributes;
    // `Outputs.<Key>` of a nested stack: a key inside an object-valued attribute.
    const notAnAttribute =
      known !== undefined && !known.includes(attribute) && !known.includes(attribute.split('.')[0]);
    if (!notAnAttribute) {
      // An attribute that appeared after the resource was recorded: read it from the resource.
      const live = await this.env.liveAttribute?.(logicalId, target, attribute);
      if (live !== undefined) return live;
      if (this.mode === 'plan') return new Unknown(`${logicalId}.${attribute}`);
    }
    throw this.fail(
      ctx,
      expr,
      notAnAttribute
        ? `${target.resourceType} has no attribute ${attribute} (resource ${logicalId}; its attributes are ${known.join(', ') || 'none'})`
        : `resource ${logicalId} (${target.resourceType}) has no recorded attribute ${attribute}`,
      notAnAttribute
        ? undefined
        : `Redeploy ${logicalId} so its attributes are recorded again (change one of its properties if it is unchanged).`,
    );
  }

  private async join(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length !== 2)
      throw this.fail(ctx, expr, 'Fn::Join takes [delimiter, [values]]');
    const delimiter = await this.resolveNode(arg[0], ctx);
    if (typeof delimiter !== 'string')
      throw this.fail(ctx, expr, 'the delimiter of Fn::Join must be a string');
    const list = await this.resolveNode(arg[1], ctx);
    if (isUnknown(list)) return list;
    if (!Array.isArray(list)) throw this.fail(ctx, expr, 'the second argument of Fn::Join must be a list');
    if (list.some(isUnknown)) return unknownFrom(list);
    const parts = list.map((item) => {
      if (isScalar(item)) return String(item);
      throw this.fail(ctx, expr, `Fn::Join can only join strings, got ${describeExpression(item)}`);
    });
    return parts.join(delimiter);
  }

  private async sub(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    const args = subArguments(arg);
    if (!args) throw this.fail(ctx, expr, 'Fn::Sub takes a string, or [string, {Variable: value}]');
    const parts = parseSubString(args.text);
    if (!parts) throw this.fail(ctx, expr, 'Fn::Sub has an unterminated ${');
    const variables = new Map<string, unknown>();
    for (const [name, raw] of Object.entries(args.variables))
      variables.set(name, await this.resolveNode(raw, ctx));
    const values: unknown[] = [];
    for (const part of parts) {
      if ('literal' in part) {
        values.push(part.literal);
        continue;
      }
      const name = part.variable;
      let value: unknown;
      if (variables.has(name)) {
        value = variables.get(name);
      } else {
        const target = subVariableTarget(name);
        if (target.attribute === undefined) {
          if (isPseudoParameter(name)) value = await this.pseudo(name);
          else if (this.parameters.has(name)) value = await this.parameters.value(name);
          else if (ownValue(this.template.Resources, name)) value = await this.resourceRef(name, expr, ctx);
          else
            throw this.fail(
              ctx,
              expr,
              `Fn::Sub variable \${${name}} is not a parameter, a resource, a pseudo parameter or a key of the variable map`,
            );
        } else {
          if (!ownValue(this.template.Resources, target.logicalId)) {
            throw this.fail(
              ctx,
              expr,
              `Fn::Sub variable \${${name}}: the template has no resource ${target.logicalId}`,
            );
          }
          value = await this.attributeValue(target.logicalId, target.attribute, expr, ctx);
        }
      }
      if (isUnknown(value)) {
        values.push(value);
        continue;
      }
      if (isScalar(value)) {
        values.push(String(value));
        continue;
      }
      throw this.fail(
        ctx,
        expr,
        `Fn::Sub variable \${${name}} resolves to ${describeExpression(value === NO_VALUE ? 'AWS::NoValue' : value)}, not a string`,
      );
    }
    if (values.some(isUnknown)) return unknownFrom(values);
    return values.join('');
  }

  private async select(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length !== 2) throw this.fail(ctx, expr, 'Fn::Select takes [index, list]');
    const indexValue = await this.resolveNode(arg[0], ctx);
    const index = integerValue(indexValue);
    if (!Number.isInteger(index) || index < 0)
      throw this.fail(
        ctx,
        expr,
        `the index of Fn::Select must be a non-negative integer, got ${describeExpression(indexValue)}`,
      );
    const list = await this.resolveNode(arg[1], ctx);
    if (isUnknown(list)) return list;
    if (!Array.isArray(list)) throw this.fail(ctx, expr, 'the second argument of Fn::Select must be a list');
    if (index >= list.length)
      throw this.fail(
        ctx,
        expr,
        `Fn::Select index ${index} is out of range for a list of ${list.length} element${list.length === 1 ? '' : 's'}`,
      );
    return list[index];
  }

  private async split(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length !== 2)
      throw this.fail(ctx, expr, 'Fn::Split takes [delimiter, string]');
    const delimiter = await this.resolveNode(arg[0], ctx);
    if (typeof delimiter !== 'string' || delimiter === '')
      throw this.fail(ctx, expr, 'the delimiter of Fn::Split must be a non-empty string');
    const source = await this.resolveNode(arg[1], ctx);
    if (isUnknown(source)) return source;
    if (typeof source !== 'string')
      throw this.fail(ctx, expr, 'the second argument of Fn::Split must be a string');
    return source.split(delimiter);
  }

  private async fnIf(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length !== 3 || typeof arg[0] !== 'string') {
      throw this.fail(ctx, expr, 'Fn::If takes [ConditionName, valueIfTrue, valueIfFalse]');
    }
    const chosen = (await this.evaluateCondition(arg[0])) ? arg[1] : arg[2];
    return this.resolveNode(chosen, ctx);
  }

  private async getAZs(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    const regionValue = await this.resolveNode(arg, ctx);
    if (typeof regionValue !== 'string')
      throw this.fail(ctx, expr, 'Fn::GetAZs takes a region name (or "" for the current region)');
    if (!this.env.availabilityZones)
      throw this.fail(ctx, expr, 'Fn::GetAZs needs an availability zone lookup, and none is available');
    return [...(await this.env.availabilityZones(regionValue === '' ? this.env.region : regionValue))];
  }

  private async findInMap(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length < 3 || arg.length > 4) {
      throw this.fail(
        ctx,
        expr,
        'Fn::FindInMap takes [MapName, TopLevelKey, SecondLevelKey] (and optionally {DefaultValue})',
      );
    }
    const keys: string[] = [];
    for (const raw of arg.slice(0, 3)) {
      const key = await this.resolveNode(raw, ctx);
      if (isUnknown(key)) return key;
      if (typeof key !== 'string' && typeof key !== 'number')
        throw this.fail(ctx, expr, 'the keys of Fn::FindInMap must resolve to strings');
      keys.push(String(key));
    }
    const [mapName, topKey, secondKey] = keys;
    const map = ownValue(this.template.Mappings, mapName);
    const value = ownValue(ownValue(map, topKey), secondKey);
    if (value !== undefined) return this.resolveNode(value, ctx);
    const options = arg[3];
    if (isPlainObject(options) && 'DefaultValue' in options)
      return this.resolveNode(options.DefaultValue, ctx);
    const missing = !map
      ? `mapping ${mapName} does not exist`
      : !ownValue(map, topKey)
        ? `mapping ${mapName} has no key ${topKey}`
        : `mapping ${mapName}.${topKey} has no key ${secondKey}`;
    throw this.fail(ctx, expr, `Fn::FindInMap: ${missing}`);
  }

  private async cidr(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!Array.isArray(arg) || arg.length !== 3)
      throw this.fail(ctx, expr, 'Fn::Cidr takes [ipBlock, count, cidrBits]');
    const values = [];
    for (const raw of arg) values.push(await this.resolveNode(raw, ctx));
    if (values.some(isUnknown)) return unknownFrom(values);
    const [ipBlock, count, bits] = values;
    if (typeof ipBlock !== 'string') throw this.fail(ctx, expr, 'the ipBlock of Fn::Cidr must be a string');
    try {
      return cidrSubnets(ipBlock, integerValue(count), integerValue(bits));
    } catch (err) {
      if (err instanceof CidrError) throw this.fail(ctx, expr, `Fn::Cidr: ${err.message}`);
      throw err;
    }
  }

  private crossStackContext(ctx: Context, expr: unknown) {
    return { stackName: this.env.stackName, region: this.env.region, ...location(ctx, expr) };
  }

  private async importValue(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    const name = await this.resolveNode(arg, ctx);
    if (isUnknown(name)) return name;
    if (typeof name !== 'string' || name === '')
      throw this.fail(ctx, expr, 'Fn::ImportValue takes an export name');
    return (this.env.crossStack ?? unsupportedCrossStackResolver).importValue(
      name,
      this.crossStackContext(ctx, expr),
    );
  }

  private async getStackOutput(arg: unknown, expr: unknown, ctx: Context): Promise<unknown> {
    if (!isPlainObject(arg))
      throw this.fail(ctx, expr, 'Fn::GetStackOutput takes {StackName, OutputName, Region?, RoleArn?}');
    const read = async (key: string, required: boolean): Promise<string | undefined> => {
      if (arg[key] === undefined) {
        if (required) throw this.fail(ctx, expr, `Fn::GetStackOutput needs ${key}`);
        return undefined;
      }
      if (key === 'RoleArn' && typeof arg[key] !== 'string') {
        throw this.fail(
          ctx,
          expr,
          'the RoleArn of Fn::GetStackOutput must be a literal string',
          'Write the role ARN itself, not an intrinsic function.',
        );
      }
      const value = await this.resolveNode(arg[key], ctx);
      if (typeof value !== 'string' || value === '')
        throw this.fail(ctx, expr, `the ${key} of Fn::GetStackOutput must resolve to a non-empty string`);
      return value;
    };
    const stackName = (await read('StackName', true))!;
    const outputName = (await read('OutputName', true))!;
    const region = await read('Region', false);
    const roleArn = await read('RoleArn', false);
    return (this.env.crossStack ?? unsupportedCrossStackResolver).getStackOutput(
      { stackName, outputName, ...(region ? { region } : {}), ...(roleArn ? { roleArn } : {}) },
      this.crossStackContext(ctx, expr),
    );
  }

  private async conditionFunction(
    fn: 'Fn::Equals' | 'Fn::And' | 'Fn::Or' | 'Fn::Not',
    arg: unknown,
    expr: unknown,
    ctx: Context,
  ): Promise<boolean> {
    if (!ctx.condition)
      throw this.fail(
        ctx,
        expr,
        `${fn} can only be used in the Conditions section (use Fn::If with a named condition)`,
      );
    if (fn === 'Fn::Equals') {
      if (!Array.isArray(arg) || arg.length !== 2)
        throw this.fail(ctx, expr, 'Fn::Equals takes [value1, value2]');
      const [a, b] = [await this.resolveNode(arg[0], ctx), await this.resolveNode(arg[1], ctx)];
      return equalsValue(a, b);
    }
    const min = fn === 'Fn::Not' ? 1 : 2;
    const max = fn === 'Fn::Not' ? 1 : 10;
    if (!Array.isArray(arg) || arg.length < min || arg.length > max) {
      throw this.fail(
        ctx,
        expr,
        fn === 'Fn::Not' ? 'Fn::Not takes [condition]' : `${fn} takes between 2 and 10 conditions`,
      );
    }
    const values: boolean[] = [];
    for (const item of arg) {
      const v = await this.resolveNode(item, ctx);
      if (typeof v !== 'boolean')
        throw this.fail(
          ctx,
          expr,
          `every argument of ${fn} must be a condition (Fn::Equals, Fn::And, Fn::Or, Fn::Not or Condition)`,
        );
      values.push(v);
    }
    if (fn === 'Fn::Not') return !values[0];
    return fn === 'Fn::And' ? values.every(Boolean) : values.some(Boolean);
  }

  private fail(ctx: Context, expression: unknown, message: string, remedy?: string): TemplateResolutionError {
    return new TemplateResolutionError(message, location(ctx, expression), remedy ? { remedy } : {});
  }

  /** Errors from injected functions (SSM, cross-stack...) get the template location; ours pass through. */
  private wrap(ctx: Context, expression: unknown, err: unknown): unknown {
    if (err instanceof TemplateResolutionError) return err;
    const message = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
    return new TemplateResolutionError(message, location(ctx, expression), {
      cause: err,
      ...(CdkdError.isCdkdError(err)
        ? { code: err.code, ...(err.remedy ? { remedy: err.remedy } : {}) }
        : {}),
    });
  }
}

/** Where an expression is, for errors and cross-stack reads. */
function location(ctx: Context, expression: unknown): TemplateLocation {
  return {
    section: ctx.section,
    logicalId: ctx.logicalId,
    path: ctx.path,
    expression: describeExpression(expression),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isUnknown(value);
}

/** A string, number or boolean: the values Fn::Join, Fn::Sub and Fn::Equals read as strings. */
function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A number as it is, a string of digits as its number, anything else NaN (Fn::Select, Fn::Cidr). */
function integerValue(value: unknown): number {
  return typeof value === 'number'
    ? value
    : typeof value === 'string' && /^\d+$/.test(value)
      ? Number(value)
      : NaN;
}

/** `{Condition: Name}` inside the Conditions section. */
function isConditionReference(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'Condition' && typeof value.Condition === 'string';
}

/** `Fn::Equals`: scalars compare as strings (`"1"` equals `1`, as CloudFormation compares them); anything else structurally. */
function equalsValue(a: unknown, b: unknown): boolean {
  if (isScalar(a) && isScalar(b)) return String(a) === String(b);
  return JSON.stringify(a) === JSON.stringify(b);
}
