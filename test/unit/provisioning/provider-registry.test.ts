import type { ProviderContext, ResourceProvider } from '../../../src/plugin-api';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import type { LoadedPack } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';

const schemas = SchemaStore.default();

/** A provider whose methods record nothing: the registry only creates and caches it. */
function stubProvider(tag: string): ResourceProvider & { tag: string } {
  return {
    tag,
    create: async () => ({ physicalId: tag }),
    update: async () => ({ physicalId: tag, wasReplaced: false }),
    delete: async () => undefined,
  };
}

function pack(
  pluginName: string,
  pluginType: string,
  providers: unknown[],
  extra: Record<string, unknown> = {},
): LoadedPack {
  return { pluginName, pluginType, result: { apiVersion: 1, name: pluginName, providers, ...extra } };
}

function registration(
  resourceType: string,
  handledProperties: string[],
  unhandledByDesign?: Record<string, string>,
  tag = resourceType,
) {
  return { resourceType, handledProperties, unhandledByDesign, createProvider: () => stubProvider(tag) };
}

const ctx = (region: string): ProviderContext => ({ region }) as ProviderContext;

describe('ProviderRegistry validation', () => {
  it('accepts a valid pack', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('@acme/widgets', 'user', [
          registration('AWS::SQS::Queue', ['QueueName', 'VisibilityTimeout'], {
            Tags: 'tags are applied by a separate call',
          }),
        ]),
      ],
      schemas,
    );
    expect(registry.problems).toEqual([]);
    const r = registry.registrationFor('AWS::SQS::Queue');
    expect(r?.packName).toBe('@acme/widgets');
    expect(r?.pluginType).toBe('user');
    expect([...(r?.handledProperties ?? [])]).toEqual(['QueueName', 'VisibilityTimeout']);
    expect(r?.unhandledByDesign.get('Tags')).toBe('tags are applied by a separate call');
  });

  it('refuses a handled property the type does not have, naming pack, type and property, and keeps the rest', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('@acme/bad', 'link', [
          registration('AWS::SQS::Queue', ['QueueName', 'NotAProperty']),
          registration('AWS::SNS::Topic', ['TopicName']),
        ]),
        pack('@acme/good', 'user', [registration('AWS::SQS::QueuePolicy', ['PolicyDocument', 'Queues'])]),
      ],
      schemas,
    );
    expect(registry.problems).toHaveLength(1);
    const [problem] = registry.problems;
    expect(problem).toMatchObject({
      pack: '@acme/bad',
      resourceType: 'AWS::SQS::Queue',
      properties: ['NotAProperty'],
    });
    expect(problem.message).toContain('@acme/bad');
    expect(problem.message).toContain('AWS::SQS::Queue');
    expect(problem.message).toContain('NotAProperty');
    expect(registry.registrationFor('AWS::SQS::Queue')).toBeUndefined();
    expect(registry.registrationFor('AWS::SNS::Topic')?.packName).toBe('@acme/bad');
    expect(registry.registrationFor('AWS::SQS::QueuePolicy')?.packName).toBe('@acme/good');
  });

  it.each([
    [
      'an unknown type',
      registration('AWS::Nope::Thing', []),
      /AWS::Nope::Thing is not a resource type cdkd knows/,
    ],
    [
      'a by-design property the type lacks',
      registration('AWS::SQS::Queue', [], { Bogus: 'why' }),
      /Bogus is not a property of AWS::SQS::Queue/,
    ],
    [
      'an empty rationale',
      registration('AWS::SQS::Queue', [], { Tags: '  ' }),
      /unhandledByDesign\.Tags needs a non-empty rationale/,
    ],
    [
      'a read-only handled property',
      registration('AWS::SQS::Queue', ['Arn']),
      /Arn is read-only in AWS::SQS::Queue/,
    ],
    [
      'a property both handled and by design',
      registration('AWS::SQS::Queue', ['Tags'], { Tags: 'x' }),
      /Tags is listed both as handled and as unhandled by design/,
    ],
    [
      'handledProperties that is not an array',
      { ...registration('AWS::SQS::Queue', []), handledProperties: 'QueueName' },
      /handledProperties must be an array/,
    ],
    [
      'a missing createProvider',
      { resourceType: 'AWS::SQS::Queue', handledProperties: [] },
      /createProvider is not a function/,
    ],
    [
      'a canSnapshot that is not a boolean',
      { ...registration('AWS::RDS::DBCluster', []), canSnapshot: 'yes' },
      /canSnapshot must be true or false/,
    ],
    [
      'a physicalIdNeverReused that is not a boolean',
      { ...registration('AWS::EC2::VPC', []), physicalIdNeverReused: 'yes' },
      /physicalIdNeverReused must be true or false/,
    ],
    [
      'secretAttributes that are not a list of names',
      { ...registration('AWS::IAM::AccessKey', []), secretAttributes: 'SecretAccessKey' },
      /secretAttributes must be an array of attribute names/,
    ],
    ['a registration that is not an object', 42, /providers\[0\] is not a registration object/],
  ])('refuses %s', (_what, entry, message) => {
    const registry = ProviderRegistry.fromPacks([pack('@acme/p', 'user', [entry])], schemas);
    expect(registry.problems.map((p) => p.message)).toEqual([expect.stringMatching(message)]);
    expect(registry.problems[0].message).toContain('@acme/p');
    expect(registry.registrations()).toEqual([]);
  });

  it.each([
    [
      'an unsupported API version',
      { apiVersion: 2, name: 'p', providers: [] },
      /declares plugin API version 2; this cdkd supports 1/,
    ],
    ['a missing name', { apiVersion: 1, providers: [] }, /"name" must be a non-empty string/],
    [
      'providers that is not an array',
      { apiVersion: 1, name: 'p', providers: {} },
      /"providers" must be an array/,
    ],
    ['nothing', undefined, /returned nothing/],
  ])('refuses a whole pack with %s', (_what, result, message) => {
    const registry = ProviderRegistry.fromPacks(
      [
        { pluginName: 'p', pluginType: 'user', result },
        pack('other', 'core', [registration('AWS::SNS::Topic', [])]),
      ],
      schemas,
    );
    expect(registry.problems.map((p) => p.message)).toEqual([expect.stringMatching(message)]);
    expect(registry.registrationFor('AWS::SNS::Topic')?.packName).toBe('other');
  });

  it('reports a hook that threw and loads the others', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        { pluginName: '@acme/broken', pluginType: 'user', error: new Error('Cannot find module x') },
        pack('other', 'core', [registration('AWS::SNS::Topic', [])]),
      ],
      schemas,
    );
    expect(registry.problems).toEqual([
      expect.objectContaining({
        pack: '@acme/broken',
        message: 'Provider pack @acme/broken failed to load: Cannot find module x',
      }),
    ]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual(['AWS::SNS::Topic']);
  });

  it('uses the first of two registrations of one type in one pack and says so', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('p', 'user', [
          registration('AWS::SNS::Topic', ['TopicName'], undefined, 'first'),
          registration('AWS::SNS::Topic', [], undefined, 'second'),
        ]),
      ],
      schemas,
    );
    expect(registry.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/registers AWS::SNS::Topic twice/),
    ]);
    expect(registry.registrationFor('AWS::SNS::Topic')?.handledProperties.has('TopicName')).toBe(true);
  });
});

describe('ProviderRegistry ranking', () => {
  it('lets a linked or user-installed pack replace a bundled one', () => {
    for (const type of ['link', 'user']) {
      const registry = ProviderRegistry.fromPacks(
        [
          pack('@cdkd/provider-sqs', 'core', [registration('AWS::SQS::Queue', ['QueueName'])]),
          pack('@acme/sqs', type, [registration('AWS::SQS::Queue', ['QueueName'])]),
        ],
        schemas,
      );
      expect(registry.problems).toEqual([]);
      expect(registry.registrationFor('AWS::SQS::Queue')?.packName).toBe('@acme/sqs');
      expect(registry.overrides).toEqual([
        { resourceType: 'AWS::SQS::Queue', packName: '@acme/sqs', overriddenPack: '@cdkd/provider-sqs' },
      ]);
      expect(registry.allRegistrations()).toHaveLength(2);
    }
  });

  it('refuses two packs of the same rank for one type, naming both', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('@acme/a', 'user', [registration('AWS::SQS::Queue', [])]),
        pack('@acme/b', 'link', [registration('AWS::SQS::Queue', [])]),
        pack('@cdkd/provider-sqs', 'core', [registration('AWS::SQS::Queue', [])]),
      ],
      schemas,
    );
    expect(registry.registrationFor('AWS::SQS::Queue')).toBeUndefined();
    expect(registry.problems.map((p) => p.pack).sort()).toEqual(['@acme/a', '@acme/b']);
    for (const p of registry.problems) {
      expect(p.message).toContain('@acme/a');
      expect(p.message).toContain('@acme/b');
      expect(p.message).toContain('AWS::SQS::Queue');
    }
    expect(registry.providerFor('AWS::SQS::Queue', {}).route).toBe('cc-api');
  });
});

describe('ProviderRegistry routing', () => {
  const registry = ProviderRegistry.fromPacks(
    [
      pack('@cdkd/provider-sqs', 'core', [
        registration('AWS::SQS::Queue', ['QueueName', 'VisibilityTimeout'], {
          KmsDataKeyReusePeriodSeconds: 'deliberately not wired in this test',
        }),
      ]),
    ],
    schemas,
  );

  it('routes to the SDK provider when every template property is handled or by design', () => {
    const decision = registry.providerFor('AWS::SQS::Queue', {
      QueueName: 'q',
      KmsDataKeyReusePeriodSeconds: 300,
    });
    expect(decision).toMatchObject({ route: 'sdk', packName: '@cdkd/provider-sqs' });
    expect(decision.reason).toMatch(/@cdkd\/provider-sqs handles every property/);
  });

  it('routes to Cloud Control, naming the unhandled properties, otherwise', () => {
    const decision = registry.providerFor('AWS::SQS::Queue', {
      QueueName: 'q',
      DelaySeconds: 5,
      FifoQueue: true,
    });
    expect(decision).toEqual({
      route: 'cc-api',
      reason:
        'the template sets DelaySeconds, FifoQueue, which @cdkd/provider-sqs does not handle for AWS::SQS::Queue',
      unhandledProperties: ['DelaySeconds', 'FifoQueue'],
    });
  });

  it('does not count a property whose value is undefined as set', () => {
    expect(registry.providerFor('AWS::SQS::Queue', { QueueName: 'q', DelaySeconds: undefined }).route).toBe(
      'sdk',
    );
  });

  it('routes a type no pack registers to Cloud Control', () => {
    expect(registry.providerFor('AWS::SNS::Topic', {})).toEqual({
      route: 'cc-api',
      reason: 'no provider pack registers AWS::SNS::Topic',
    });
  });

  it('keeps a resource on Cloud Control when its pack does not address it by the Cloud Control identifier', () => {
    expect(
      registry.providerFor('AWS::SQS::Queue', { QueueName: 'q' }, { provisionedBy: 'cc-api' }),
    ).toMatchObject({
      route: 'cc-api',
      reason: expect.stringMatching(/provisionedBy: cc-api/),
    });
  });

  it('routes a record without pack provenance as before: the type pack when it handles the properties', () => {
    expect(registry.providerFor('AWS::SQS::Queue', { QueueName: 'q' }, { provisionedBy: 'sdk' }).route).toBe(
      'sdk',
    );
    expect(registry.providerFor('AWS::SQS::Queue', { QueueName: 'q' }, {}).route).toBe('sdk');
  });

  it("refuses to move a pack's resource to Cloud Control when its ids are not Cloud Control identifiers", () => {
    const decision = registry.providerFor(
      'AWS::SQS::Queue',
      { DelaySeconds: 1 },
      { provisionedBy: 'sdk', providerPack: '@cdkd/provider-sqs', providerPackVersion: '0.1.0' },
    );
    expect(decision).toMatchObject({
      route: 'refused',
      reason: expect.stringContaining(
        "the template sets DelaySeconds, which @cdkd/provider-sqs does not handle for AWS::SQS::Queue, and it cannot move: @cdkd/provider-sqs's physical ids are not Cloud Control identifiers",
      ),
      remedy: expect.stringContaining('Upgrade @cdkd/provider-sqs to a version that handles DelaySeconds'),
    });
  });

  it('creates one SDK provider per registration and region', () => {
    const decision = registry.providerFor('AWS::SQS::Queue', {});
    const a = registry.providerInstance(decision, ctx('us-east-1'));
    expect(registry.providerInstance(decision, ctx('us-east-1'))).toBe(a);
    expect(registry.providerInstance(decision, ctx('eu-west-1'))).not.toBe(a);
  });

  it('asks the supplied Cloud Control factory once per region, and says when there is none', () => {
    const decision = registry.providerFor('AWS::SNS::Topic', {});
    expect(() => registry.providerInstance(decision, ctx('us-east-1'))).toThrow(
      /Cloud Control provisioning is not available/,
    );
    const made: string[] = [];
    registry.setCloudControlProvider((c) => {
      made.push(c.region);
      return stubProvider('cc');
    });
    const cc = registry.providerInstance(decision, ctx('us-east-1'));
    expect(registry.providerInstance(decision, ctx('us-east-1'))).toBe(cc);
    registry.providerInstance(decision, ctx('eu-west-1'));
    expect(made).toEqual(['us-east-1', 'eu-west-1']);
  });

  it('wraps a createProvider that throws in an error naming the pack', () => {
    const broken = ProviderRegistry.fromPacks(
      [
        pack('@acme/p', 'user', [
          {
            resourceType: 'AWS::SNS::Topic',
            handledProperties: [],
            createProvider: () => {
              throw new Error('boom');
            },
          },
        ]),
      ],
      schemas,
    );
    expect(() =>
      broken.providerInstance(broken.providerFor('AWS::SNS::Topic', {}), ctx('us-east-1')),
    ).toThrow('Provider pack @acme/p could not create its provider for AWS::SNS::Topic: boom');
  });
});

describe('propertyCoverage', () => {
  it('classifies every schema property', () => {
    const registry = ProviderRegistry.fromPacks(
      [pack('p', 'user', [registration('AWS::SQS::Queue', ['QueueName'], { Tags: 'separate call' })])],
      schemas,
    );
    const coverage = propertyCoverage(registry.registrationFor('AWS::SQS::Queue')!, schemas);
    const status = Object.fromEntries(coverage.properties.map((p) => [p.property, p.status]));
    expect(status).toMatchObject({
      QueueName: 'handled',
      Tags: 'by-design',
      Arn: 'read-only',
      QueueUrl: 'read-only',
      DelaySeconds: 'unaccounted',
    });
    expect(coverage.properties.find((p) => p.property === 'Tags')?.rationale).toBe('separate call');
    expect(coverage.counts).toMatchObject({
      handled: 1,
      'by-design': 1,
      'read-only': 2,
      total: schemas.propertyNames('AWS::SQS::Queue').length,
    });
  });
});

describe('ProviderRegistry trust', () => {
  it('refuses a pack whose declared name is not its package name, naming both, and keeps the bundled pack', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('@cdkd/provider-sqs', 'core', [registration('AWS::SQS::Queue', ['QueueName'])]),
        {
          pluginName: '@fork/sqs',
          pluginType: 'user',
          result: {
            apiVersion: 1,
            name: '@cdkd/provider-sqs',
            providers: [registration('AWS::SQS::Queue', ['QueueName'], undefined, 'fork')],
          },
        },
      ],
      schemas,
    );
    expect(registry.problems).toEqual([
      expect.objectContaining({
        pack: '@fork/sqs',
        message: expect.stringContaining('@fork/sqs declares the name @cdkd/provider-sqs'),
        remedy: expect.stringContaining('cdkd plugins uninstall @fork/sqs'),
      }),
    ]);
    expect(registry.registrationFor('AWS::SQS::Queue')?.pluginName).toBe('@cdkd/provider-sqs');
  });

  it("ranks a project's declared pack above a user-installed or linked one", () => {
    const registry = ProviderRegistry.fromPacks(
      [
        pack('@acme/linked', 'link', [registration('AWS::SNS::Topic', ['TopicName'])]),
        {
          ...pack('@acme/declared', 'project', [registration('AWS::SNS::Topic', ['TopicName'])]),
          pluginVersion: '2.3.1',
        },
      ],
      schemas,
    );
    expect(registry.problems).toEqual([]);
    expect(registry.registrationFor('AWS::SNS::Topic')).toMatchObject({
      packName: '@acme/declared',
      pluginType: 'project',
      packVersion: '2.3.1',
    });
    expect(registry.overrides).toEqual([
      { resourceType: 'AWS::SNS::Topic', packName: '@acme/declared', overriddenPack: '@acme/linked' },
    ]);
  });

  it('gives every problem a remedy that fits how the pack is installed', () => {
    const registry = ProviderRegistry.fromPacks(
      [
        { pluginName: '@acme/p', pluginType: 'project', error: new Error('boom') },
        pack('@acme/q', 'user', [registration('AWS::Nope::Thing', [])], { apiVersion: 2 }),
      ],
      schemas,
    );
    expect(registry.problems.map((p) => [p.pack, p.remedy])).toEqual([
      ['@acme/p', expect.stringContaining('cdkd packs install')],
      ['@acme/q', expect.stringContaining('built for plugin API 1')],
    ]);
  });
});

const ACCOUNT = 'Acme::Billing::Account';
const accountSchema = (overrides: Record<string, unknown> = {}) => ({
  typeName: ACCOUNT,
  description: 'an org-internal type',
  handlers: { create: { permissions: [] } },
  properties: {
    AccountName: { type: 'string', pattern: '^[a-z-]+$' },
    Owner: { type: 'string' },
    Budget: { type: 'integer', minimum: 0 },
    Tags: { type: 'array', insertionOrder: false, items: { type: 'object' } },
    AccountId: { type: 'string' },
  },
  required: ['AccountName'],
  additionalProperties: false,
  primaryIdentifier: ['/properties/AccountName'],
  createOnlyProperties: ['/properties/AccountName'],
  readOnlyProperties: ['/properties/AccountId'],
  tagging: { taggable: true, tagProperty: '/properties/Tags' },
  ...overrides,
});
const billing = (schema: unknown, handled = ['AccountName', 'Owner', 'Budget']) =>
  pack('@acme/billing', 'project', [{ ...registration(ACCOUNT, handled), schema }]);

describe('ProviderRegistry org-internal types', () => {
  it('accepts a registration with its own schema and lets every schema reader see the type', () => {
    const registry = ProviderRegistry.fromPacks([billing(accountSchema())], schemas);
    expect(registry.problems).toEqual([]);
    const store = registry.schemas;
    expect(store.has(ACCOUNT)).toBe(true);
    expect(store.isPackType(ACCOUNT)).toBe(true);
    expect(store.isCatalogued(ACCOUNT)).toBe(false);
    expect(schemas.has(ACCOUNT)).toBe(false);
    expect(store.refIdentifier(ACCOUNT)).toEqual(['/properties/AccountName']);
    expect(store.attributes(ACCOUNT)).toEqual(['AccountId']);
    expect(store.createOnlyProperties(ACCOUNT)).toEqual(['/properties/AccountName']);
    expect(store.get(ACCOUNT).tagging).toEqual({
      taggable: true,
      tagPropertyName: 'Tags',
      variant: 'standard',
    });
    expect(store.validate(ACCOUNT, { AccountName: 'team-a', Budget: 5 })).toEqual([]);
    expect(
      store.validate(ACCOUNT, { AccountName: 'Team A', Budget: -1, Color: 'red' }).map((v) => v.message),
    ).toEqual([
      `Color is not a property of ${ACCOUNT}`,
      'AccountName must match pattern "^[a-z-]+$"',
      'Budget must be >= 0',
    ]);
    expect(store.has('AWS::SQS::Queue')).toBe(true);
    expect(registry.canProvision(ACCOUNT)).toBe(true);
    expect(propertyCoverage(registry.registrationFor(ACCOUNT)!, store).counts).toMatchObject({
      handled: 3,
      'read-only': 1,
      unaccounted: 1,
    });
  });

  it('routes an org-internal type only to its pack: an unhandled property is refused, never sent to Cloud Control', () => {
    const registry = ProviderRegistry.fromPacks([billing(accountSchema())], schemas);
    expect(registry.providerFor(ACCOUNT, { AccountName: 'a', Owner: 'b' })).toMatchObject({ route: 'sdk' });
    expect(registry.providerFor(ACCOUNT, { AccountName: 'a', Tags: [] })).toMatchObject({
      route: 'refused',
      reason: expect.stringContaining('Cloud Control cannot provision an org-internal type'),
      remedy: expect.stringContaining('Add Tags to the handledProperties of @acme/billing'),
    });
  });

  it.each([
    [
      'a typeName other than the resourceType',
      accountSchema({ typeName: 'Acme::Billing::Other' }),
      /schema\.typeName must equal/,
    ],
    [
      'additional properties allowed',
      accountSchema({ additionalProperties: true }),
      /additionalProperties must be false/,
    ],
    ['no primary identifier', accountSchema({ primaryIdentifier: [] }), /primaryIdentifier must list/],
    [
      'an identifier that can change in place',
      accountSchema({ primaryIdentifier: ['/properties/Owner'] }),
      /\/properties\/Owner must be read-only or create-only/,
    ],
    [
      'a pointer to no property',
      accountSchema({ readOnlyProperties: ['/properties/Nope'] }),
      /readOnlyProperties names \/properties\/Nope/,
    ],
    [
      'a JSON Schema ajv refuses',
      accountSchema({ properties: { AccountName: { type: 'strng' }, AccountId: { type: 'string' } } }),
      /its schema is not a valid JSON Schema/,
    ],
  ])('refuses a schema with %s', (_what, schema, message) => {
    const registry = ProviderRegistry.fromPacks([billing(schema, ['AccountName'])], schemas);
    expect(registry.problems).toEqual([
      expect.objectContaining({
        pack: '@acme/billing',
        resourceType: ACCOUNT,
        message: expect.stringMatching(message),
      }),
    ]);
    expect(registry.registrationFor(ACCOUNT)).toBeUndefined();
    expect(registry.schemas.has(ACCOUNT)).toBe(false);
  });

  it('refuses a handled property the schema does not have, and a schema for a catalogued type', () => {
    expect(
      ProviderRegistry.fromPacks([billing(accountSchema(), ['Nope'])], schemas).problems[0].message,
    ).toMatch(/Nope is not a property of Acme::Billing::Account/);
    const sqs = ProviderRegistry.fromPacks(
      [
        pack('@acme/q', 'user', [
          { ...registration('AWS::SQS::Queue', []), schema: { typeName: 'AWS::SQS::Queue' } },
        ]),
      ],
      schemas,
    );
    expect(sqs.problems[0].message).toMatch(
      /AWS::SQS::Queue is in AWS's CloudFormation catalogue.*remove "schema"/,
    );
  });

  it('says an unknown type needs its schema, and refuses a reserved namespace', () => {
    const unknown = ProviderRegistry.fromPacks(
      [pack('@acme/x', 'user', [registration(ACCOUNT, [])])],
      schemas,
    );
    expect(unknown.problems[0].message).toMatch(
      /Acme::Billing::Account is not a resource type cdkd knows: it is not in AWS's CloudFormation catalogue .*must bring its schema/,
    );
    const reserved = ProviderRegistry.fromPacks(
      [
        pack('@acme/x', 'user', [
          {
            ...registration('AWS::Acme::Thing', []),
            schema: accountSchema({ typeName: 'AWS::Acme::Thing' }),
          },
        ]),
      ],
      schemas,
    );
    expect(reserved.problems[0].message).toMatch(/the AWS namespace is reserved/);
  });
});

describe('ProviderRegistry routing of recorded resources', () => {
  const moving = (type = 'AWS::SSM::Parameter') => ({
    ...registration(type, ['Name', 'Type', 'Value']),
    physicalIdIsPrimaryIdentifier: true,
  });
  const build = (packs: LoadedPack[], strictPacks = false) =>
    ProviderRegistry.fromPacks(packs, schemas, { strictPacks });
  const ssm = (name: string, type: string, version: string, entries: unknown[]) => ({
    ...pack(name, type, entries),
    pluginVersion: version,
  });

  it('moves a Cloud Control resource to a pack that declares its ids are Cloud Control identifiers', () => {
    const registry = build([ssm('@acme/ssm', 'user', '1.0.0', [moving()])]);
    expect(
      registry.providerFor('AWS::SSM::Parameter', { Name: 'n', Value: 'v' }, { provisionedBy: 'cc-api' }),
    ).toMatchObject({
      route: 'sdk',
      moved: true,
      packName: '@acme/ssm',
      reason: expect.stringContaining('moves from Cloud Control to @acme/ssm'),
    });
    // Not when the template sets a property the pack does not handle, nor for a pack that does not declare it.
    expect(
      registry.providerFor(
        'AWS::SSM::Parameter',
        { Name: 'n', Tier: 'Advanced' },
        { provisionedBy: 'cc-api' },
      ).route,
    ).toBe('cc-api');
    const plain = build([
      ssm('@acme/ssm', 'user', '1.0.0', [registration('AWS::SSM::Parameter', ['Name', 'Value'])]),
    ]);
    expect(plain.providerFor('AWS::SSM::Parameter', { Name: 'n' }, { provisionedBy: 'cc-api' }).route).toBe(
      'cc-api',
    );
  });

  it("moves a declaring pack's resource to Cloud Control when the template sets a property the pack does not handle", () => {
    const registry = build([ssm('@acme/ssm', 'user', '1.0.0', [moving()])]);
    const recorded = {
      provisionedBy: 'sdk' as const,
      providerPack: '@acme/ssm',
      providerPackVersion: '1.0.0',
    };
    expect(
      registry.providerFor('AWS::SSM::Parameter', { Name: 'n', Tier: 'Advanced' }, recorded),
    ).toMatchObject({
      route: 'cc-api',
      moved: true,
      unhandledProperties: ['Tier'],
      reason: expect.stringContaining('it moves to Cloud Control'),
    });
  });

  it('keeps a resource with the pack that made it, even when another pack now wins its type', () => {
    const registry = build([
      ssm('@acme/old', 'core', '1.0.0', [
        registration('AWS::SSM::Parameter', ['Name', 'Value'], undefined, 'old'),
      ]),
      ssm('@acme/new', 'user', '2.0.0', [
        registration('AWS::SSM::Parameter', ['Name', 'Value'], undefined, 'new'),
      ]),
    ]);
    expect(registry.registrationFor('AWS::SSM::Parameter')?.packName).toBe('@acme/new');
    const recorded = { provisionedBy: 'sdk' as const, providerPack: '@acme/old' };
    expect(registry.providerFor('AWS::SSM::Parameter', { Name: 'n' }, recorded)).toMatchObject({
      packName: '@acme/old',
    });
    expect(registry.providerForDelete('AWS::SSM::Parameter', recorded)).toMatchObject({
      packName: '@acme/old',
    });
  });

  it('sends a resource whose pack is missing to Cloud Control with a warning, or refuses it with --strict-packs', () => {
    const recorded = {
      provisionedBy: 'sdk' as const,
      providerPack: '@acme/gone',
      providerPackVersion: '3.1.0',
    };
    const loose = build([]).providerFor('AWS::SSM::Parameter', { Name: 'n' }, recorded);
    expect(loose).toMatchObject({
      route: 'cc-api',
      moved: true,
      reason: 'it was provisioned by @acme/gone 3.1.0, which is not installed; it moves to Cloud Control',
      warning: {
        message: expect.stringContaining(
          'Provider pack @acme/gone, which provisioned resources of this app, is not installed',
        ),
        remedy: expect.stringContaining('cdkd packs install'),
      },
    });
    expect(build([], true).providerFor('AWS::SSM::Parameter', { Name: 'n' }, recorded)).toMatchObject({
      route: 'refused',
      reason: 'it was provisioned by @acme/gone 3.1.0, which is not installed (--strict-packs)',
    });
    expect(build([], true).providerForDelete('AWS::SSM::Parameter', recorded).route).toBe('refused');
    expect(build([]).providerForDelete('AWS::SSM::Parameter', recorded).route).toBe('cc-api');
  });

  it('refuses to touch an org-internal resource whose pack is missing', () => {
    const recorded = {
      provisionedBy: 'sdk' as const,
      providerPack: '@acme/billing',
      providerPackVersion: '2.3.0',
    };
    for (const decision of [
      build([]).providerFor(ACCOUNT, { AccountName: 'a' }, recorded),
      build([]).providerForDelete(ACCOUNT, recorded),
    ]) {
      expect(decision).toMatchObject({
        route: 'refused',
        reason: 'it was provisioned by @acme/billing 2.3.0, which is not installed',
        remedy: expect.stringContaining('cdkd packs install'),
      });
    }
  });
});

describe('ProviderRegistry with --cloud-control-only', () => {
  const handles = (type: string, properties: string[], addressedByIdentifier: boolean) => ({
    ...registration(type, properties),
    physicalIdIsPrimaryIdentifier: addressedByIdentifier,
  });
  const parameters = () => handles('AWS::SSM::Parameter', ['Name', 'Value'], true);
  const registry = ProviderRegistry.fromPacks(
    [pack('@acme/all', 'core', [parameters(), handles('AWS::SQS::Queue', ['QueueName'], false)])],
    schemas,
    { cloudControlOnly: true },
  );

  it('sends a new resource to Cloud Control although a pack handles it', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.providerFor('AWS::SSM::Parameter', { Name: 'n', Value: 'v' })).toEqual({
      route: 'cc-api',
      reason: 'every resource goes to Cloud Control (--cloud-control-only)',
    });
    expect(
      registry.providerFor('AWS::SSM::Parameter', { Name: 'n' }, { provisionedBy: 'cc-api' }).route,
    ).toBe('cc-api');
  });

  it("moves a pack's resource only when the pack addresses it by its Cloud Control identifier", () => {
    const byPack = { provisionedBy: 'sdk' as const, providerPack: '@acme/all' };
    expect(registry.providerFor('AWS::SSM::Parameter', { Name: 'n' }, byPack)).toMatchObject({
      route: 'cc-api',
      moved: true,
    });
    expect(registry.providerForDelete('AWS::SSM::Parameter', byPack).route).toBe('cc-api');
    const refused = registry.providerForDelete('AWS::SQS::Queue', byPack);
    expect(refused).toMatchObject({
      route: 'refused',
      reason: expect.stringContaining('physical ids are not Cloud Control identifiers'),
      remedy: expect.stringContaining('Run without --cloud-control-only'),
    });
  });

  it('refuses an org-internal type, which Cloud Control cannot provision', () => {
    expect(registry.providerFor('Acme::Billing::Account', { AccountName: 'a' })).toMatchObject({
      route: 'refused',
      reason: expect.stringContaining('Cloud Control cannot provision an org-internal type'),
    });
  });

  it('routes as usual without the flag', () => {
    const usual = ProviderRegistry.fromPacks([pack('@acme/all', 'core', [parameters()])], schemas);
    expect(usual.cloudControlOnly).toBe(false);
    expect(usual.providerFor('AWS::SSM::Parameter', { Name: 'n' }).route).toBe('sdk');
  });
});

describe('cloudControlByDesign', () => {
  const withCloudControl = (cloudControlByDesign: unknown, handled = ['QueueName']) =>
    ProviderRegistry.fromPacks(
      [
        pack('@acme/widgets', 'user', [
          { ...registration('AWS::SQS::Queue', handled), cloudControlByDesign },
        ]),
      ],
      schemas,
    );

  it('routes a resource setting such a property to Cloud Control with the rationale, and counts it as accounted for', () => {
    const registry = withCloudControl({
      RedrivePolicy: 'dead-letter queues: not wired; Cloud Control applies it',
    });
    expect(registry.problems).toEqual([]);
    expect(registry.providerFor('AWS::SQS::Queue', { QueueName: 'q' }).route).toBe('sdk');
    expect(
      registry.providerFor('AWS::SQS::Queue', { QueueName: 'q', RedrivePolicy: {}, DelaySeconds: 1 }),
    ).toEqual({
      route: 'cc-api',
      unhandledProperties: ['DelaySeconds', 'RedrivePolicy'],
      reason:
        'the template sets DelaySeconds, which @acme/widgets does not handle for AWS::SQS::Queue; and RedrivePolicy, which @acme/widgets leaves to Cloud Control by design (dead-letter queues: not wired; Cloud Control applies it)',
    });
    const coverage = propertyCoverage(registry.registrationFor('AWS::SQS::Queue')!, schemas);
    expect(coverage.properties.find((p) => p.property === 'RedrivePolicy')).toEqual({
      property: 'RedrivePolicy',
      status: 'cloud-control',
      rationale: 'dead-letter queues: not wired; Cloud Control applies it',
    });
    expect(coverage.counts['cloud-control']).toBe(1);
  });

  it.each([
    [{ NotAProperty: 'x' }, /NotAProperty is not a property of AWS::SQS::Queue/],
    [{ RedrivePolicy: ' ' }, /cloudControlByDesign\.RedrivePolicy needs a non-empty rationale/],
    [{ QueueName: 'x' }, /QueueName is listed in cloudControlByDesign and also as handled/],
    ['nope', /cloudControlByDesign must be an object/],
  ])('refuses %j', (declared, message) => {
    const registry = withCloudControl(declared);
    expect(registry.problems.map((p) => p.message)).toEqual([expect.stringMatching(message)]);
  });
});

describe('ProviderRegistry custom resources', () => {
  const made: string[] = [];
  const registry = ProviderRegistry.fromPacks([], schemas, { cloudControlOnly: true });
  registry.setCustomResourceProvider((c) => {
    made.push(c.region);
    return {} as ResourceProvider;
  });

  it("routes every custom-resource type to cdkd's own provider, whatever it sets, even with --cloud-control-only", () => {
    for (const type of ['Custom::Seeder', 'AWS::CloudFormation::CustomResource']) {
      expect(registry.canProvision(type)).toBe(true);
      const decision = registry.providerFor(type, { ServiceToken: 'arn', Anything: 1 });
      expect(decision).toMatchObject({ route: 'sdk', packName: 'cdkd' });
      if (decision.route !== 'sdk') throw new Error('unreachable');
      expect(decision.registration.builtIn).toBe(true);
      expect(registry.providerForDelete(type, { provisionedBy: 'sdk' })).toMatchObject({ route: 'sdk' });
      expect(registry.registrationFor(type)?.builtIn).toBe(true);
      registry.providerInstance(decision, ctx('eu-west-1'));
    }
    // One provider per region.
    expect(made).toEqual(['eu-west-1']);
  });

  it('a catalogued type Cloud Control cannot provision is not provisionable', () => {
    expect(schemas.isCatalogued('AWS::CloudFormation::Stack')).toBe(true);
    expect(ProviderRegistry.fromPacks([], schemas).canProvision('AWS::CloudFormation::Stack')).toBe(false);
  });
});

describe("whether a failed create's leftover needs an identity proof", () => {
  const registry = ProviderRegistry.fromPacks(
    [
      pack('@acme/queues', 'user', [registration('AWS::SQS::Queue', ['QueueName'])]),
      pack('@acme/keys', 'user', [
        { ...registration('AWS::KMS::Key', ['Description']), physicalIdNeverReused: true },
      ]),
    ],
    schemas,
  );
  const sdk = (packName: string) => ({ provisionedBy: 'sdk' as const, providerPack: packName });
  const cc = { provisionedBy: 'cc-api' as const };

  it('follows the registration for a pack: never reused only when it says so', () => {
    expect(registry.physicalIdNeverReused('AWS::KMS::Key', sdk('@acme/keys'))).toBe(true);
    expect(registry.physicalIdNeverReused('AWS::SQS::Queue', sdk('@acme/queues'))).toBe(false);
  });

  it.each([
    ['AWS::EC2::VPC', true], // a read-only vpc- id
    ['AWS::EC2::NatGateway', true],
    ['AWS::KMS::Key', true],
    ['AWS::S3::Bucket', false], // the name is the id
    ['AWS::Logs::LogGroup', false],
    ['AWS::SQS::Queue', false], // a read-only URL made from QueueName
    ['AWS::SNS::Topic', false],
    ['AWS::EC2::SecurityGroup', true], // listed: a generated id beside a GroupName
    ['AWS::SQS::QueuePolicy', true], // listed: its delete compares the policy
    ['AWS::SNS::TopicPolicy', true],
  ])('on Cloud Control, from the schema: %s never reused: %s', (type, expected) => {
    expect(registry.physicalIdNeverReused(type, cc)).toBe(expected);
  });
});
