/**
 * `cdkd pack new`: the files of a new TypeScript provider pack that builds
 * against `@cdkd/plugin-api` from the registry and tests itself with Node's
 * own test runner (no cdkd, no test framework to install). For an
 * org-internal type it brings a starter schema; for a catalogued AWS type the
 * author lists the handled properties and checks them with
 * `cdkd providers check`.
 */
import { CdkdError } from '../util/errors';
import { typeNameProblem } from '../provisioning/pack-schema';

export interface ScaffoldOptions {
  /** The npm package name, e.g. `@acme/cdkd-provider-widgets`. */
  name: string;
  /** The resource type (default: `<Scope>::<Name>::Resource`, an org-internal type). */
  resourceType?: string;
  /** True when `resourceType` is in AWS's catalogue (no schema is generated). */
  catalogued: boolean;
  /** The `@cdkd/plugin-api` version to depend on. */
  pluginApiVersion: string;
}

const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

function pascal(words: string): string {
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** The default type of a pack name: `@acme/cdkd-provider-widgets` -> `Acme::Widgets::Resource`. */
export function defaultResourceType(name: string): string {
  const [scope, bare] = name.startsWith('@') ? name.slice(1).split('/') : ['', name];
  const service = pascal(bare.replace(/^cdkd-provider-|^provider-/, '')) || 'Service';
  const org = pascal(scope) || service;
  return `${org.length >= 2 ? org : `${org}Org`}::${service.length >= 2 ? service : `${service}Svc`}::Resource`;
}

/** The folder a pack is created in by default: the name without its scope. */
export function defaultPackDir(name: string): string {
  return name.startsWith('@') ? name.split('/')[1] : name;
}

/** The new pack: its resource type, and its files by relative path. */
export function scaffoldPack(options: ScaffoldOptions): {
  resourceType: string;
  files: Record<string, string>;
} {
  const { name } = options;
  if (!NPM_NAME.test(name)) {
    throw new CdkdError(`${name} is not an npm package name.`, {
      code: 'INVALID_PACK_NAME',
      remedy: 'Use a lower-case package name, scoped to your organisation: @acme/cdkd-provider-widgets.',
    });
  }
  const type = options.resourceType ?? defaultResourceType(name);
  if (!options.catalogued) {
    const problem = typeNameProblem(type);
    if (problem) {
      throw new CdkdError(`--type ${type}: ${problem}.`, {
        code: 'INVALID_RESOURCE_TYPE',
        remedy:
          'Name an AWS type cdkd knows (AWS::Service::Resource), or an org-internal one in your namespace (Acme::Billing::Account).',
      });
    }
  }
  const className = `${pascal(type.split('::').slice(1).join(' '))}Provider`;
  const files: Record<string, string> = {
    'package.json': packageJson(options.name, type, options.pluginApiVersion),
    'tsconfig.json': TSCONFIG,
    '.gitignore': 'node_modules/\ndist/\n',
    'README.md': readme(name, type, options.catalogued),
    'src/hook.ts': hookTs(name, type, className, options.catalogued),
    'src/provider.ts': providerTs(name, type, className, options.catalogued),
    'test/registration.test.ts': registrationTest(options.catalogued),
  };
  if (!options.catalogued) files['src/schema.ts'] = schemaTs(type);
  return { resourceType: type, files };
}

function packageJson(name: string, type: string, pluginApiVersion: string): string {
  const manifest = {
    name,
    version: '0.1.0',
    description: `cdkd provider pack for ${type}`,
    license: 'UNLICENSED',
    type: 'commonjs',
    main: './dist/src/hook.js',
    files: ['dist/src'],
    scripts: {
      build: 'tsc -p tsconfig.json',
      test: 'npm run build && node --test dist/test/',
    },
    oclif: { hooks: { 'cdkd:providers': './dist/src/hook.js' } },
    dependencies: {},
    devDependencies: {
      '@cdkd/plugin-api': `^${pluginApiVersion}`,
      '@types/node': '^20.0.0',
      typescript: '^5.4.0',
    },
    engines: { node: '>=20' },
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'Node16',
      moduleResolution: 'Node16',
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      rootDir: '.',
      outDir: 'dist',
      types: ['node'],
    },
    include: ['src/**/*.ts', 'test/**/*.ts'],
  },
  null,
  2,
)}\n`;

function hookTs(name: string, type: string, className: string, catalogued: boolean): string {
  return `/**
 * The pack's cdkd:providers hook: registers ${type}. cdkd validates what it
 * returns; everything a provider needs at run time arrives through its
 * context, so the pack needs nothing from cdkd but the types.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import { HANDLED_PROPERTIES, RESOURCE_TYPE, ${className} } from './provider';
${catalogued ? '' : "import { schema } from './schema';\n"}
/** Must equal the package name: cdkd refuses a pack that declares another. */
export const PACK_NAME = ${JSON.stringify(name)};

/** The pack this hook returns (exported for the tests). */
export function providerPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: RESOURCE_TYPE,
        handledProperties: [...HANDLED_PROPERTIES],${
          catalogued
            ? `
        // Properties deliberately not wired, each with a one-line rationale:
        // unhandledByDesign: { SomeProperty: 'why' },`
            : `
        // ${type} is not in AWS's catalogue: the pack brings its schema, and only this pack provisions it.
        schema,`
        }
        createProvider: (ctx) => new ${className}(ctx),
      },
    ],
  };
}

const hook: ProvidersHook = async () => providerPack();

export default hook;
`;
}

function providerTs(name: string, type: string, className: string, catalogued: boolean): string {
  const handled = catalogued ? '' : "'Name', 'Description', 'Tags'";
  return `/**
 * ${type}: create, update and delete through your service's API.
 * The rules cdkd relies on are in docs/writing-a-provider-pack.md; each method
 * below says the one that applies to it.
 */
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ProvisioningErrorInstance,
  ResourceCreateResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';

export const RESOURCE_TYPE = ${JSON.stringify(type)};

/**
 * Every template property create and update wire to the API. A template that
 * sets another property ${catalogued ? 'goes to Cloud Control instead' : 'is refused before anything changes'}.${
   catalogued ? '\n * `cdkd providers check --pack <name>` lists the ones still unaccounted for.' : ''
 }
 */
export const HANDLED_PROPERTIES: readonly string[] = [${handled}];

export class ${className} implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    // Creates are retried, possibly by another process: use context.idempotencyToken as the
    // API's client token, or context.generatePhysicalName() for a name the template leaves unset.
    // Get AWS clients from this.ctx.clients.get(SomeClient): cdkd configures region, credentials
    // and the endpoint.
    throw this.notImplemented('create', logicalId);
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    // A property set before (previousProperties) and absent now must go back to its default.
    throw this.notImplemented('update', logicalId, physicalId);
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    // Before treating "not found" as deleted, call
    // this.ctx.assertRegionMatch(clientRegion, context?.expectedRegion, resourceType, logicalId, physicalId).
    throw this.notImplemented('delete', logicalId, physicalId);
  }

  private notImplemented(operation: string, logicalId: string, physicalId?: string): ProvisioningErrorInstance {
    return new this.ctx.errors.ProvisioningError(\`\${RESOURCE_TYPE} \${operation} is not implemented yet.\`, {
      remedy: \`Implement \${operation} in src/provider.ts of ${name}.\`,
      resource: { logicalId, resourceType: RESOURCE_TYPE, physicalId },
    });
  }
}
`;
}

function schemaTs(type: string): string {
  return `/**
 * The schema of ${type}, in the CloudFormation registry schema format. cdkd
 * validates templates against it, plans replacements from createOnlyProperties
 * and resolves Ref (primaryIdentifier) and Fn::GetAtt (readOnlyProperties).
 */
import type { ResourceTypeSchema } from '@cdkd/plugin-api';

export const schema: ResourceTypeSchema = {
  typeName: ${JSON.stringify(type)},
  description: 'Describe the resource here.',
  properties: {
    Name: { type: 'string', minLength: 1, maxLength: 64, description: 'The resource name; changing it replaces the resource.' },
    Description: { type: 'string', maxLength: 256 },
    Tags: {
      type: 'array',
      insertionOrder: false,
      items: { $ref: '#/definitions/Tag' },
    },
    Arn: { type: 'string', description: 'Set by the provider; a template reads it with Fn::GetAtt.' },
  },
  definitions: {
    Tag: {
      type: 'object',
      properties: { Key: { type: 'string' }, Value: { type: 'string' } },
      required: ['Key', 'Value'],
      additionalProperties: false,
    },
  },
  required: ['Name'],
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  readOnlyProperties: ['/properties/Arn'],
};
`;
}

function registrationTest(catalogued: boolean): string {
  return `/**
 * The registration, checked with the rules cdkd applies when it loads the pack
 * (run \`cdkd providers check --pack <name>\` for the full check against cdkd's
 * schemas). Node's own test runner: \`npm test\`.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import hook, { PACK_NAME, providerPack } from '../src/hook';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  name: string;
  oclif: { hooks: Record<string, string> };
};

test('the pack is named after its package and speaks plugin API 1', () => {
  const pack = providerPack();
  assert.equal(pack.name, manifest.name);
  assert.equal(PACK_NAME, manifest.name);
  assert.equal(pack.apiVersion, 1);
  assert.ok(manifest.oclif.hooks['cdkd:providers'], 'package.json declares the cdkd:providers hook');
});

test('the hook returns the pack', async () => {
  const answer = await hook.call(
    { debug() {}, log() {}, warn() {}, error() {}, exit() {} },
    { apiVersions: [1], cdkdVersion: '0.0.0', config: { name: 'cdkd', version: '0.0.0' }, context: { debug() {}, log() {}, warn() {}, error() {}, exit() {} } },
  );
  assert.deepEqual(JSON.parse(JSON.stringify(answer)), JSON.parse(JSON.stringify(providerPack())));
});
${
  catalogued
    ? ''
    : `
test('every handled property is a writable property of the schema, and the schema names its type', () => {
  for (const registration of providerPack().providers) {
    const schema = registration.schema;
    assert.ok(schema, 'an org-internal type brings its schema');
    assert.equal(schema.typeName, registration.resourceType);
    assert.equal(schema.additionalProperties, false);
    const readOnly = new Set((schema.readOnlyProperties ?? []).map((p) => p.split('/')[2]));
    for (const property of registration.handledProperties) {
      assert.ok(property in schema.properties, \`\${property} is in the schema\`);
      assert.ok(!readOnly.has(property), \`\${property} is not read-only\`);
    }
    for (const pointer of schema.primaryIdentifier) {
      assert.ok(pointer.split('/')[2] in schema.properties, \`\${pointer} names a property\`);
    }
  }
});
`
}`;
}

function readme(name: string, type: string, catalogued: boolean): string {
  return `# ${name}

A cdkd provider pack for \`${type}\`${catalogued ? '' : ' (an org-internal type: the pack brings its schema, src/schema.ts)'}.

\`\`\`sh
npm install
npm test                                   # builds, then runs test/ with Node's test runner
cdkd plugins link . --no-install           # try it with your cdkd
cdkd providers check --pack ${name}
\`\`\`

Implement \`src/provider.ts\` (create, update, delete) against your service's
API; add the \`@aws-sdk/client-*\` packages it calls to \`dependencies\` and get
clients from \`ctx.clients.get(...)\`. Publish with \`npm publish\` to your
registry; a project then declares it under \`packs\` in cdk.json
(\`"context": { "cdkd": { "packs": { "${name}": "^0.1.0" } } }\`) and runs
\`cdkd packs install\`. See cdkd's docs/writing-a-provider-pack.md.
`;
}
