/**
 * The CloudFormation template model, and {@link parseTemplate}, which checks a
 * template object's shape (what each section must look like) with errors that
 * name the offending element. Values stay unresolved: intrinsics are left as
 * they are for the resolver.
 */
import { ValidationError } from '../util/errors';
import type { PolicyAttribute } from '../state/types';
import { isRecord as isObject } from '../util/objects';

/** Any JSON value of a template, intrinsics included. */
export type TemplateValue = unknown;

export interface CfnParameter {
  Type: string;
  Default?: unknown;
  AllowedValues?: unknown[];
  AllowedPattern?: string;
  MinLength?: number;
  MaxLength?: number;
  MinValue?: number;
  MaxValue?: number;
  NoEcho?: boolean | string;
  Description?: string;
  ConstraintDescription?: string;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, TemplateValue>;
  /** Normalised to an array by {@link parseTemplate}. */
  DependsOn?: string[];
  Condition?: string;
  /** A policy name, or an intrinsic (`Fn::If`) resolving to one. */
  DeletionPolicy?: PolicyAttribute | Record<string, unknown>;
  UpdateReplacePolicy?: PolicyAttribute | Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  CreationPolicy?: unknown;
  UpdatePolicy?: unknown;
}

export interface CfnOutput {
  Value: TemplateValue;
  Description?: TemplateValue;
  Export?: { Name: TemplateValue };
  Condition?: string;
}

export interface CfnTemplate {
  AWSTemplateFormatVersion?: string;
  Description?: string;
  Transform?: string | string[];
  Parameters: Record<string, CfnParameter>;
  /** MapName -> TopLevelKey -> SecondLevelKey -> value. */
  Mappings: Record<string, Record<string, Record<string, unknown>>>;
  Conditions: Record<string, TemplateValue>;
  Resources: Record<string, CfnResource>;
  Outputs: Record<string, CfnOutput>;
  /** Kept for completeness; cdkd does not evaluate Rules. */
  Rules?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

export const POLICY_ATTRIBUTES: readonly PolicyAttribute[] = [
  'Delete',
  'Retain',
  'Snapshot',
  'RetainExceptOnCreate',
];

/** Transforms whose functions cdkd implements itself (`Fn::ToJsonString`, `Fn::Length`, `Fn::FindInMap` defaults). */
/**
 * Types that exist only for CloudFormation's bookkeeping and have no AWS
 * resource behind them: cdkd leaves them out of every deploy, plan and graph.
 * (`AWS::CDK::Metadata` is the CDK's version-reporting resource.)
 */
export const NOT_DEPLOYED_RESOURCE_TYPES: ReadonlySet<string> = new Set(['AWS::CDK::Metadata']);

/** False for {@link NOT_DEPLOYED_RESOURCE_TYPES}. */
export function isDeployedResourceType(type: string): boolean {
  return !NOT_DEPLOYED_RESOURCE_TYPES.has(type);
}

export const SUPPORTED_TRANSFORMS: readonly string[] = ['AWS::LanguageExtensions'];

const LOGICAL_ID = /^[A-Za-z0-9]+$/;
const RESOURCE_TYPE = /^(AWS|Alexa|Custom|[A-Za-z0-9]+)::[A-Za-z0-9_@-]+(::[A-Za-z0-9_@-]+)*$/;
/** Resource attributes copied to the model as written. */
const COPIED_ATTRIBUTES = [
  'Condition',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'Metadata',
  'CreationPolicy',
  'UpdatePolicy',
] as const;
/** Every attribute a resource may have (`Version` is a legacy custom-resource attribute, accepted and ignored). */
const RESOURCE_KEYS = new Set<string>(['Type', 'Properties', 'DependsOn', ...COPIED_ATTRIBUTES, 'Version']);

/**
 * Checks the shape of a template object and returns it with every section
 * present (empty objects for missing ones) and `DependsOn` normalised to an
 * array. `source` names the template in error messages (a stack name or file).
 */
export function parseTemplate(raw: unknown, source = 'template'): CfnTemplate {
  const fail = (what: string): never => {
    throw new ValidationError(`Invalid ${source}: ${what}`, {
      code: 'INVALID_TEMPLATE',
      remedy: 'Fix the template (or the CDK code producing it) and synthesize again.',
    });
  };
  if (!isObject(raw)) fail('a template must be a JSON object.');
  const t = raw as Record<string, unknown>;

  const section = (name: string): Record<string, unknown> => {
    const value = t[name];
    if (value === undefined || value === null) return {};
    if (!isObject(value)) fail(`the ${name} section must be an object.`);
    return value as Record<string, unknown>;
  };

  const transforms =
    t.Transform === undefined ? [] : Array.isArray(t.Transform) ? t.Transform : [t.Transform];
  for (const transform of transforms) {
    if (typeof transform !== 'string' || !SUPPORTED_TRANSFORMS.includes(transform)) {
      fail(
        `Transform ${JSON.stringify(transform)} is not supported: cdkd does not run CloudFormation macros ` +
          `(only ${SUPPORTED_TRANSFORMS.join(', ')}).`,
      );
    }
  }

  const parameters: Record<string, CfnParameter> = {};
  for (const [name, p] of Object.entries(section('Parameters'))) {
    if (!LOGICAL_ID.test(name)) fail(`parameter name ${JSON.stringify(name)} must be alphanumeric.`);
    if (!isObject(p) || typeof p.Type !== 'string')
      fail(`parameter ${name} must be an object with a string Type.`);
    const param = p as unknown as CfnParameter;
    if (param.AllowedValues !== undefined && !Array.isArray(param.AllowedValues))
      fail(`parameter ${name}: AllowedValues must be a list.`);
    for (const key of ['MinLength', 'MaxLength', 'MinValue', 'MaxValue'] as const) {
      const v = param[key] as unknown;
      if (
        v !== undefined &&
        (typeof v === 'number' ? false : typeof v !== 'string' || Number.isNaN(Number(v)))
      ) {
        fail(`parameter ${name}: ${key} must be a number.`);
      }
    }
    if (param.AllowedPattern !== undefined && typeof param.AllowedPattern !== 'string')
      fail(`parameter ${name}: AllowedPattern must be a string.`);
    parameters[name] = param;
  }

  const mappings: CfnTemplate['Mappings'] = {};
  for (const [name, map] of Object.entries(section('Mappings'))) {
    if (!isObject(map) || !Object.values(map).every(isObject)) {
      fail(
        `mapping ${name} must be an object of objects (MapName -> TopLevelKey -> SecondLevelKey -> value).`,
      );
    }
    mappings[name] = map as Record<string, Record<string, unknown>>;
  }

  const conditions = section('Conditions');

  const resources: Record<string, CfnResource> = {};
  for (const [logicalId, r] of Object.entries(section('Resources'))) {
    if (!LOGICAL_ID.test(logicalId))
      fail(`resource logical id ${JSON.stringify(logicalId)} must be alphanumeric.`);
    if (!isObject(r)) fail(`resource ${logicalId} must be an object.`);
    const res = r as Record<string, unknown>;
    if (typeof res.Type !== 'string' || res.Type === '') fail(`resource ${logicalId} has no Type.`);
    if (!RESOURCE_TYPE.test(res.Type as string))
      fail(`resource ${logicalId} has an invalid Type ${JSON.stringify(res.Type)}.`);
    for (const key of Object.keys(res)) {
      if (!RESOURCE_KEYS.has(key)) fail(`resource ${logicalId} has an unknown attribute ${key}.`);
    }
    if (res.Properties !== undefined && res.Properties !== null && !isObject(res.Properties)) {
      fail(`resource ${logicalId}: Properties must be an object.`);
    }
    let dependsOn: string[] | undefined;
    if (res.DependsOn !== undefined) {
      const list = Array.isArray(res.DependsOn) ? res.DependsOn : [res.DependsOn];
      if (!list.every((d) => typeof d === 'string'))
        fail(`resource ${logicalId}: DependsOn must be a string or a list of strings.`);
      dependsOn = list as string[];
    }
    if (res.Condition !== undefined) {
      if (typeof res.Condition !== 'string')
        fail(`resource ${logicalId}: Condition must be the name of a condition.`);
      if (!Object.prototype.hasOwnProperty.call(conditions, res.Condition as string))
        fail(`resource ${logicalId} uses condition ${res.Condition}, which is not defined in Conditions.`);
    }
    for (const key of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
      const v = res[key];
      if (v !== undefined && !isObject(v) && !POLICY_ATTRIBUTES.includes(v as PolicyAttribute)) {
        fail(
          `resource ${logicalId}: ${key} ${JSON.stringify(v)} is not one of ${POLICY_ATTRIBUTES.join(', ')}.`,
        );
      }
    }
    if (res.Metadata !== undefined && !isObject(res.Metadata))
      fail(`resource ${logicalId}: Metadata must be an object.`);
    const resource: CfnResource = { Type: res.Type as string };
    if (isObject(res.Properties)) resource.Properties = res.Properties;
    if (dependsOn) resource.DependsOn = dependsOn;
    for (const key of COPIED_ATTRIBUTES) {
      if (res[key] !== undefined) (resource as unknown as Record<string, unknown>)[key] = res[key];
    }
    resources[logicalId] = resource;
  }

  const outputs: Record<string, CfnOutput> = {};
  for (const [name, o] of Object.entries(section('Outputs'))) {
    if (!LOGICAL_ID.test(name)) fail(`output name ${JSON.stringify(name)} must be alphanumeric.`);
    if (!isObject(o) || !('Value' in o) || o.Value === undefined) fail(`output ${name} has no Value.`);
    const out = o as Record<string, unknown>;
    if (out.Export !== undefined && (!isObject(out.Export) || out.Export.Name === undefined))
      fail(`output ${name}: Export must be an object with a Name.`);
    if (out.Condition !== undefined) {
      if (typeof out.Condition !== 'string')
        fail(`output ${name}: Condition must be the name of a condition.`);
      if (!Object.prototype.hasOwnProperty.call(conditions, out.Condition as string))
        fail(`output ${name} uses condition ${out.Condition}, which is not defined in Conditions.`);
    }
    outputs[name] = out as unknown as CfnOutput;
  }

  const template: CfnTemplate = {
    Parameters: parameters,
    Mappings: mappings,
    Conditions: conditions,
    Resources: resources,
    Outputs: outputs,
  };
  if (typeof t.AWSTemplateFormatVersion === 'string')
    template.AWSTemplateFormatVersion = t.AWSTemplateFormatVersion;
  if (typeof t.Description === 'string') template.Description = t.Description;
  if (t.Transform !== undefined) template.Transform = t.Transform as string | string[];
  if (isObject(t.Rules)) template.Rules = t.Rules;
  if (isObject(t.Metadata)) template.Metadata = t.Metadata;
  return template;
}
