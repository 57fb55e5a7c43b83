import { AwsClientFactory } from '../../../src/config/aws-clients';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import type { ResourcePlan, StackPlan } from '../../../src/plan/types';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { ResourceState } from '../../../src/state/types';
import { Unknown } from '../../../src/template/unknown';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';

const stub = {
  create: async () => ({ physicalId: 'x' }),
  update: async () => ({ physicalId: 'x', wasReplaced: false }),
  delete: async () => undefined,
};
const billingSchema = {
  typeName: 'Acme::Billing::Account',
  properties: {
    AccountName: { type: 'string' },
    Budget: { type: 'integer', minimum: 0 },
    AccountId: { type: 'string' },
  },
  required: ['AccountName'],
  additionalProperties: false,
  primaryIdentifier: ['/properties/AccountName'],
  createOnlyProperties: ['/properties/AccountName'],
  readOnlyProperties: ['/properties/AccountId'],
};

async function provisioner(): Promise<{ p: ResourceProvisioner; host: RecordingIoHost }> {
  const registry = ProviderRegistry.fromPacks(
    [
      {
        pluginName: '@acme/billing',
        pluginType: 'project',
        pluginVersion: '2.3.0',
        result: {
          apiVersion: 1,
          name: '@acme/billing',
          providers: [
            {
              resourceType: 'Acme::Billing::Account',
              handledProperties: ['AccountName', 'Budget'],
              schema: billingSchema,
              createProvider: () => stub,
            },
            { resourceType: 'AWS::SQS::Queue', handledProperties: ['QueueName'], createProvider: () => stub },
          ],
        },
      },
    ],
    SchemaStore.default(),
  );
  const host = new RecordingIoHost();
  const factory = await AwsClientFactory.create({ region: 'us-east-1', env: {} });
  return {
    p: new ResourceProvisioner({ registry, schemas: registry.schemas, factory, logger: createLogger(host) }),
    host,
  };
}

const plan = (
  resources: Array<Partial<ResourcePlan> & Pick<ResourcePlan, 'logicalId' | 'resourceType' | 'action'>>,
): StackPlan => ({
  stackName: 'S',
  resources: resources.map((r) => ({ propertyChanges: [], ...r })),
  outputs: [],
  hasChanges: true,
});
const create = (logicalId: string, resourceType: string, properties: Record<string, unknown>) => ({
  logicalId,
  resourceType,
  action: 'CREATE' as const,
  desired: { properties },
});

describe('ResourceProvisioner.assertProvisionable', () => {
  it('passes a plan every provider can take', async () => {
    const { p } = await provisioner();
    expect(() =>
      p.assertProvisionable(
        plan([
          create('Account', 'Acme::Billing::Account', { AccountName: 'a', Budget: 3 }),
          create('Queue', 'AWS::SQS::Queue', { QueueName: 'q', DelaySeconds: 3 }),
          create('Later', 'Acme::Billing::Account', { AccountName: new Unknown('X.Ref'), Budget: -1 }),
        ]),
        {},
      ),
    ).not.toThrow();
  });

  it('names, before anything changes, every resource no provider may take, with the remedies', async () => {
    const { p } = await provisioner();
    const recorded: Record<string, ResourceState> = {
      Old: {
        physicalId: 'o',
        resourceType: 'Acme::Other::Thing',
        properties: {},
        provisionedBy: 'sdk',
        providerPack: '@acme/other',
      },
    };
    let caught: (Error & { remedy?: string }) | undefined;
    try {
      p.assertProvisionable(
        plan([
          create('Unhandled', 'Acme::Billing::Account', { AccountName: 'a', AccountId: 'x' }),
          create('Hook', 'Custom::Seeder', {
            ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:f',
          }),
          create('Relay', 'AWS::CloudFormation::CustomResource', {
            ServiceToken: 'arn:aws:sns:us-east-1:123456789012:t',
          }),
          create('Widget', 'Acme::Widgets::Widget', {}),
          { logicalId: 'Old', resourceType: 'Acme::Other::Thing', action: 'DELETE' },
        ]),
        recorded,
      );
    } catch (err) {
      caught = err as Error;
    }
    expect(caught?.message).toContain(
      'S cannot be deployed: Unhandled (Acme::Billing::Account): the template sets AccountId',
    );
    // Custom resources cdkd runs itself.
    expect(caught?.message).not.toContain('Hook');
    expect(caught?.message).not.toContain('Relay');
    expect(caught?.message).toContain(
      "Widget (Acme::Widgets::Widget): it is not in AWS's CloudFormation catalogue",
    );
    expect(caught?.message).toContain(
      'Old (Acme::Other::Thing): cannot be deleted: it was provisioned by @acme/other, which is not installed',
    );
    expect(caught?.message).toMatch(/Nothing was changed\.$/);
    expect(caught?.remedy).toContain('cdkd packs install');
  });

  it('names every property that breaks its schema, skipping values known only after deploy', async () => {
    const { p } = await provisioner();
    let caught: (Error & { remedy?: string; code?: string }) | undefined;
    try {
      p.assertPropertiesValid(
        plan([
          create('Bad', 'Acme::Billing::Account', { AccountName: 'a', Budget: -1 }),
          create('ReadOnly', 'Acme::Billing::Account', { AccountName: 'a', AccountId: 'x' }),
          create('Later', 'Acme::Billing::Account', { AccountName: new Unknown('X.Ref'), Budget: -2 }),
          create('Queue', 'AWS::SQS::Queue', { QueueName: new Unknown('Y.Name'), DelaySeconds: 'soon' }),
          create('Param', 'AWS::SSM::Parameter', { Type: 'String' }),
          create('Loose', 'AWS::SQS::Queue', { DelaySeconds: '3', QueueName: { 'Fn::Join': 1 } as never }),
        ]),
      );
    } catch (err) {
      caught = err as Error;
    }
    expect(caught?.code).toBe('TEMPLATE_PROPERTIES_INVALID');
    const lines = caught!.message.split('\n').slice(1);
    expect(lines).toEqual([
      '  - Bad (Acme::Billing::Account) Properties.Budget: Budget must be >= 0 [minimum]',
      '  - ReadOnly (Acme::Billing::Account) Properties.AccountId: AccountId is read-only in Acme::Billing::Account; AWS sets it [readOnly]',
      '  - Later (Acme::Billing::Account) Properties.Budget: Budget must be >= 0 [minimum]',
      '  - Queue (AWS::SQS::Queue) Properties.DelaySeconds: DelaySeconds must be integer [type]',
      '  - Param (AWS::SSM::Parameter) Properties.Value: Value is required in AWS::SSM::Parameter [required]',
      '  - Loose (AWS::SQS::Queue) Properties.QueueName: QueueName must be string [type]',
    ]);
    expect(caught!.message).toMatch(
      /^S cannot be deployed: 6 resource properties break their schema\. Nothing was changed\./,
    );
    expect(caught?.remedy).toContain('Acme::Billing::Account schema of @acme/billing');
    expect(() =>
      p.assertPropertiesValid(
        plan([
          create('Ok', 'AWS::SQS::Queue', { DelaySeconds: '3', QueueName: '{{resolve:ssm:/q/name}}' }),
          // A custom resource takes whatever its handler reads: its schema lists only ServiceToken.
          create('Hook', 'AWS::CloudFormation::CustomResource', {
            ServiceToken: 'arn:t',
            Name: 'n',
            Size: 3,
          }),
          create('Seeder', 'Custom::Seeder', { ServiceToken: 'arn:t', Rows: [1, 2] }),
        ]),
      ),
    ).not.toThrow();
  });

  it('checks a destroy the same way, and routes with provenance', async () => {
    const { p, host } = await provisioner();
    const record: ResourceState = {
      physicalId: 'https://q',
      resourceType: 'AWS::SQS::Queue',
      properties: {},
      provisionedBy: 'sdk',
      providerPack: '@gone/sqs',
      providerPackVersion: '1.0.0',
    };
    expect(() => p.assertDeletable('S', { Queue: record })).not.toThrow();
    expect(() =>
      p.assertDeletable('S', {
        Account: { ...record, resourceType: 'Acme::Billing::Other', providerPack: '@acme/x' },
      }),
    ).toThrow(
      /S cannot be destroyed: Account \(Acme::Billing::Other\): it was provisioned by @acme\/x 1\.0\.0, which is not installed/,
    );
    const routed = p.route('Acme::Billing::Account', { AccountName: 'a' }, 'us-east-1');
    expect(routed.provenance).toEqual({
      provisionedBy: 'sdk',
      providerPack: '@acme/billing',
      providerPackVersion: '2.3.0',
    });
    // A pack missing for two resources: one warning.
    p.routeRecord(record, 'us-east-1');
    p.routeRecord({ ...record, physicalId: 'https://q2' }, 'us-east-1');
    expect(host.text('warn').filter((t) => t.includes('@gone/sqs'))).toHaveLength(1);
  });
});

describe('settling an intent (routeIntent)', () => {
  it('re-sends through the pack the intent names, and never through another pack registered for the type', async () => {
    const { p } = await provisioner();
    const queue = { resourceType: 'AWS::SQS::Queue', provisionedBy: 'sdk' as const };
    const same = p.routeIntent(
      { ...queue, providerPack: '@acme/billing', providerPackVersion: '2.3.0' },
      'us-east-1',
    );
    expect(same.provenance).toEqual({
      provisionedBy: 'sdk',
      providerPack: '@acme/billing',
      providerPackVersion: '2.3.0',
    });
    expect(same.decision.reason).toBe('the pending operation was sent through @acme/billing');
    // @acme/billing registers queues now, but the call went to @gone/sqs: only that pack can settle it.
    let caught: (Error & { code?: string; remedy?: string }) | undefined;
    try {
      p.routeIntent({ ...queue, providerPack: '@gone/sqs', providerPackVersion: '1.0.0' }, 'us-east-1');
    } catch (err) {
      caught = err as Error;
    }
    expect(caught?.code).toBe('PACK_MISSING');
    expect(caught?.message).toMatch(
      /^An interrupted run sent an operation on a AWS::SQS::Queue through the provider pack @gone\/sqs 1\.0\.0, which is not installed now/,
    );
    expect(caught?.remedy).toContain('cdkd plugins install @gone/sqs');
    // An intent from before intents named their pack: the pack registered for the type now.
    expect(p.routeIntent(queue, 'us-east-1').provenance.providerPack).toBe('@acme/billing');
    expect(
      p.routeIntent({ ...queue, provisionedBy: 'cc-api', providerPack: undefined }, 'us-east-1').decision
        .route,
    ).toBe('cc-api');
  });
});

describe('nested stacks (AWS::CloudFormation::Stack)', () => {
  const nested = (extra: Partial<ResourceState> = {}): ResourceState => ({
    physicalId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/S~Child/1',
    resourceType: 'AWS::CloudFormation::Stack',
    properties: { TemplateURL: 'https://s3.us-east-1.amazonaws.com/b/k.json' },
    provisionedBy: 'sdk',
    ...extra,
  });

  it('are provisioned by the engine: preflight passes, and create, update, delete and a settle never reach Cloud Control', async () => {
    const { p } = await provisioner();
    expect(p.canProvision('AWS::CloudFormation::Stack')).toBe(true);
    expect(() =>
      p.assertProvisionable(
        plan([
          create('Child', 'AWS::CloudFormation::Stack', { TemplateURL: 'https://s3.amazonaws.com/b/k.json' }),
          { logicalId: 'Old', resourceType: 'AWS::CloudFormation::Stack', action: 'DELETE' },
        ]),
        { Old: nested() },
      ),
    ).not.toThrow();
    expect(() => p.assertDeletable('S', { Child: nested() })).not.toThrow();
    const routes = [
      p.route('AWS::CloudFormation::Stack', {}, 'us-east-1'),
      p.route('AWS::CloudFormation::Stack', {}, 'us-east-1', nested()),
      p.routeRecord(nested(), 'us-east-1'),
      p.routeIntent({ resourceType: 'AWS::CloudFormation::Stack', provisionedBy: 'sdk' }, 'us-east-1'),
    ];
    for (const routed of routes) {
      expect(routed.decision.route).toBe('engine');
      expect(routed.provider).toBe(p.nestedStacks);
      expect(routed.provenance).toEqual({
        provisionedBy: 'sdk',
        providerPack: undefined,
        providerPackVersion: undefined,
      });
    }
    // Not counted as any provider's resource: the child's resources are.
    expect(p.stats().routes).toEqual({ sdk: {}, cloudControl: {} });
  });

  it('a nested stack an older cdkd sent to Cloud Control is deleted there', async () => {
    const { p } = await provisioner();
    expect(p.routeRecord(nested({ provisionedBy: 'cc-api' }), 'us-east-1').decision.route).toBe('cc-api');
  });

  it('hold no slot while their children run, so a child never waits for its parent', async () => {
    const { p } = await provisioner();
    const gate = p.slots(
      (id) => ({ resourceType: id.startsWith('Child') ? 'AWS::CloudFormation::Stack' : 'AWS::SQS::Queue' }),
      1,
    );
    const nestedClass = gate.classOf('Child1');
    for (let i = 0; i < 50; i++) expect(gate.tryAcquire(nestedClass)).toBe(true);
    const queue = gate.classOf('Queue');
    expect(gate.tryAcquire(queue)).toBe(true);
    expect(gate.tryAcquire(queue)).toBe(false);
    gate.release(queue);
    gate.release(nestedClass);
    expect(gate.tryAcquire(queue)).toBe(true);
  });

  it('refuse an operation outside a parent session, naming the remedy', async () => {
    const { p } = await provisioner();
    await expect(
      p.nestedStacks.delete(
        'Child',
        nested().physicalId,
        'AWS::CloudFormation::Stack',
        {},
        {
          stackName: 'S',
          expectedRegion: 'us-east-1',
        },
      ),
    ).rejects.toMatchObject({
      code: 'NESTED_STACK_NO_PARENT',
      remedy: 'Deploy or destroy the parent stack.',
    });
  });
});
