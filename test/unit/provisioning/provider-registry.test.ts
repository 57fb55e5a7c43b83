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
