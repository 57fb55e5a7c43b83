/**
 * Nested stacks planned with their parent, before anything changes: the child
 * (and grandchild) plans against their own records, a Parameter known only
 * after deploy stays Unknown, and preflight, schema checks, the security diff
 * and diff rendering see inside them, naming `Parent > Child > Resource`.
 */
import { planNestedStacks } from '../../../src/engine/nested-plan';
import type { NestedTemplateSource } from '../../../src/engine/nested-template';
import { childStackTags } from '../../../src/engine/nested-template';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { planStack } from '../../../src/plan/plan-stack';
import { securityChangesOf } from '../../../src/plan/security-changes';
import type { StackPlan } from '../../../src/plan/types';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { parseTemplate } from '../../../src/template/types';
import { isUnknown } from '../../../src/template/unknown';
import { renderStackPlan } from '../../../src/ui/diff-render';
import { createLogger, RecordingIoHost } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

const schemas = SchemaStore.default();
const lookup = { has: (t: string) => schemas.has(t), get: (t: string) => schemas.get(t) };

const nested = (url: string, extra: Record<string, unknown> = {}) => ({
  Type: 'AWS::CloudFormation::Stack',
  Properties: { TemplateURL: url, ...extra },
});

const PARENT = {
  Resources: {
    Topic: { Type: 'AWS::SNS::Topic', Properties: {} },
    Child: nested('https://s3.us-east-1.amazonaws.com/assets/child.json', {
      Parameters: { TopicArn: { Ref: 'Topic' }, Retention: '345600' },
      Tags: [{ Key: 'team', Value: 'payments' }],
    }),
  },
};

const CHILD = {
  Parameters: { TopicArn: { Type: 'String' }, Retention: { Type: 'String' } },
  Resources: {
    Work: {
      Type: 'AWS::SQS::Queue',
      Properties: {
        MessageRetentionPeriod: { Ref: 'Retention' },
        QueueName: { 'Fn::Sub': 'work-${TopicArn}' },
      },
    },
    Grandchild: nested('s3://assets/grandchild.json'),
  },
};

const GRANDCHILD = {
  Resources: {
    Role: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        },
        Policies: [
          {
            PolicyName: 'all',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
            },
          },
        ],
      },
    },
    Misspelt: { Type: 'AWS::SQS::Queueue', Properties: {} },
    BadTopic: { Type: 'AWS::SNS::Topic', Properties: { FifoTopic: 'not-a-boolean' } },
  },
};

const TEMPLATES: Record<string, unknown> = {
  'https://s3.us-east-1.amazonaws.com/assets/child.json': CHILD,
  's3://assets/grandchild.json': GRANDCHILD,
};

async function plannedTree(store: TestStore): Promise<{ plan: StackPlan; reads: Array<[string, unknown]> }> {
  const reads: Array<[string, unknown]> = [];
  const templates: NestedTemplateSource = async (url, childName, tags) => {
    reads.push([childName, tags]);
    return parseTemplate(TEMPLATES[url as string] as Record<string, unknown>, childName);
  };
  const plan = await planStack({
    template: parseTemplate(PARENT, 'parent'),
    state: undefined,
    schemas: lookup,
    resolverEnv: {
      stackName: 'Parent',
      region: 'us-east-1',
      partition: 'aws',
      urlSuffix: 'amazonaws.com',
      accountId: async () => '123456789012',
    },
  });
  await planNestedStacks(plan, {
    region: 'us-east-1',
    store,
    factory: store.factory,
    schemas: lookup,
    templates,
    stackTags: { env: 'dev', team: 'platform' },
    logger: createLogger(new RecordingIoHost()),
  });
  return { plan, reads };
}

describe('nested stacks planned with the parent', () => {
  it('plans the child and grandchild against their records, with unknown parameters and propagated tags', async () => {
    const store = await testStore(ctx.emulator);
    const { plan, reads } = await plannedTree(store);
    const child = plan.resources.find((r) => r.logicalId === 'Child')!.nested!;
    expect(child.plan.stackName).toBe('Parent~Child');
    expect(child.state).toBeUndefined();
    const work = child.plan.resources.find((r) => r.logicalId === 'Work')!;
    expect(work.action).toBe('CREATE');
    expect(work.desired!.properties.MessageRetentionPeriod).toBe('345600');
    // The topic is made in this deploy: its ARN, passed down, is known only after deploy.
    expect(isUnknown(work.desired!.properties.QueueName)).toBe(true);
    const grandchild = child.plan.resources.find((r) => r.logicalId === 'Grandchild')!.nested!;
    expect(grandchild.plan.stackName).toBe('Parent~Child~Grandchild');
    expect(grandchild.plan.resources.map((r) => r.logicalId).sort()).toEqual([
      'BadTopic',
      'Misspelt',
      'Role',
    ]);
    // The nested stack's own Tags win over the parent's stack tags, and reach the grandchild too.
    expect(reads).toEqual([
      ['Parent~Child', { env: 'dev', team: 'payments' }],
      ['Parent~Child~Grandchild', { env: 'dev', team: 'payments' }],
    ]);
  });

  it('refuses inside the grandchild before anything changes, naming the nested path', async () => {
    const store = await testStore(ctx.emulator);
    const { plan } = await plannedTree(store);
    const registry = ProviderRegistry.fromPacks([], schemas);
    const provisioner = new ResourceProvisioner({
      registry,
      schemas,
      factory: store.factory,
      logger: createLogger(new RecordingIoHost()),
    });
    expect(() => provisioner.assertProvisionable(plan, {})).toThrow(
      /Parent > Child > Grandchild > Misspelt \(AWS::SQS::Queueue\)/,
    );
    expect(() => provisioner.assertPropertiesValid(plan)).toThrow(/Parent > Child > Grandchild > BadTopic/);
  });

  it('counts a broadening IAM change in the grandchild for --require-approval, and diff shows it indented', async () => {
    const store = await testStore(ctx.emulator);
    const { plan } = await plannedTree(store);
    const security = securityChangesOf(plan, undefined);
    expect(security.change).toBe('broadening');
    const text = renderStackPlan(plan);
    expect(text).toContain('    Nested stack Parent~Child\n');
    expect(text).toContain('        Nested stack Parent~Child~Grandchild\n');
    expect(text).toMatch(/\n {8}\S+ AWS::IAM::Role Role/);
  });

  it('childStackTags keeps only literal Key/Value pairs', () => {
    expect(
      childStackTags({ a: '1' }, [{ Key: 'b', Value: 2 }, { Key: 'c', Value: { Ref: 'X' } }, 'junk']),
    ).toEqual({ a: '1', b: '2' });
  });
});
