import type {
  ResolverEnvironment,
  ResourceReferenceTarget,
  ResourceSchemaInfo,
  ResourceSchemaLookup,
} from '../../../src/template/environment';
import { TemplateResolver, type ResolverOptions } from '../../../src/template/resolver';
import { parseTemplate } from '../../../src/template/types';

/** A schema lookup over in-test schema objects. */
export function schemaLookup(schemas: Record<string, ResourceSchemaInfo>): ResourceSchemaLookup {
  return {
    has: (type) => Object.prototype.hasOwnProperty.call(schemas, type),
    get: (type) => {
      const s = schemas[type];
      if (!s) throw new Error(`no schema for ${type}`);
      return s;
    },
  };
}

export interface TestSetup {
  resources?: Record<string, ResourceReferenceTarget>;
  env?: Partial<ResolverEnvironment>;
  options?: ResolverOptions;
}

/** A resolver over `template` with an in-memory environment; `calls` counts the injected lookups. */
export function makeResolver(template: Record<string, unknown>, setup: TestSetup = {}) {
  const calls = { accountId: 0, ssm: [] as string[], azs: [] as string[] };
  const env: ResolverEnvironment = {
    stackName: 'MyStack',
    region: 'eu-west-1',
    partition: 'aws',
    urlSuffix: 'amazonaws.com',
    accountId: async () => {
      calls.accountId++;
      return '123456789012';
    },
    resources: (id) => setup.resources?.[id],
    availabilityZones: async (region) => {
      calls.azs.push(region);
      return [`${region}a`, `${region}b`, `${region}c`];
    },
    ssmParameter: async (name) => {
      calls.ssm.push(name);
      if (name === '/missing') throw new Error('ParameterNotFound');
      return `ssm:${name}`;
    },
    ...setup.env,
  };
  const resolver = new TemplateResolver(parseTemplate(template, 'MyStack'), env, setup.options);
  return { resolver, calls, env };
}

/** Resolves the properties of a one-resource template `{ R: { Type, Properties } }`. */
export async function resolveProps(
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  setup: TestSetup = {},
) {
  const { resolver } = makeResolver(
    {
      ...extra,
      Resources: {
        ...((extra.Resources as object) ?? {}),
        R: { Type: 'AWS::Test::Thing', Properties: properties },
      },
    },
    setup,
  );
  return (await resolver.resolveResource('R')).properties;
}
