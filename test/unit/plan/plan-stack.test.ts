import { planStack } from '../../../src/plan/plan-stack';
import type { ResourcePlan } from '../../../src/plan/types';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { ResourceState, StackState } from '../../../src/state/types';
import type { ResourceSchemaLookup } from '../../../src/template/environment';
import { parseTemplate } from '../../../src/template/types';
import { isUnknown } from '../../../src/template/unknown';

const resolverEnv = {
  stackName: 'Shop',
  region: 'eu-west-1',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
  accountId: async () => '123456789012',
};

/** The real schemas/ (through SchemaStore, which must satisfy the plan's lookup interface). */
const schemas: ResourceSchemaLookup = SchemaStore.default();

const template = parseTemplate({
  Parameters: { QueueName: { Type: 'String', Default: 'orders' } },
  Resources: {
    Queue: {
      Type: 'AWS::SQS::Queue',
      Properties: { QueueName: { Ref: 'QueueName' }, VisibilityTimeout: 30 },
      DeletionPolicy: 'Retain',
    },
    Topic: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'events' } },
    Sub: {
      Type: 'AWS::SNS::Subscription',
      Properties: {
        TopicArn: { Ref: 'Topic' },
        Protocol: 'sqs',
        Endpoint: { 'Fn::GetAtt': ['Queue', 'Arn'] },
      },
    },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Environment: { Variables: { QUEUE_URL: { Ref: 'Queue' } } },
        Role: 'arn:aws:iam::123456789012:role/r',
      },
    },
  },
  Outputs: {
    QueueUrl: { Value: { Ref: 'Queue' }, Export: { Name: 'Shop-QueueUrl' } },
    TopicArn: { Value: { Ref: 'Topic' } },
  },
});

const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const topicArn = 'arn:aws:sns:eu-west-1:123456789012:events';
const queueArn = 'arn:aws:sqs:eu-west-1:123456789012:orders';

function deployedState(
  overrides: Partial<Record<string, Partial<ResourceState>>> = {},
  extra: Partial<StackState> = {},
): StackState {
  const resources: Record<string, ResourceState> = {
    Queue: {
      physicalId: queueUrl,
      resourceType: 'AWS::SQS::Queue',
      properties: { QueueName: 'orders', VisibilityTimeout: 30 },
      attributes: { Arn: queueArn, QueueName: 'orders' },
      deletionPolicy: 'Retain',
    },
    Topic: {
      physicalId: topicArn,
      resourceType: 'AWS::SNS::Topic',
      properties: { TopicName: 'events' },
      attributes: { TopicArn: topicArn },
    },
    Sub: {
      physicalId: `${topicArn}:sub-1`,
      resourceType: 'AWS::SNS::Subscription',
      properties: { TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn },
      dependencies: ['Topic', 'Queue'],
    },
    Fn: {
      physicalId: 'fn',
      resourceType: 'AWS::Lambda::Function',
      properties: {
        Environment: { Variables: { QUEUE_URL: queueUrl } },
        Role: 'arn:aws:iam::123456789012:role/r',
      },
      dependencies: ['Queue'],
    },
  };
  for (const [id, o] of Object.entries(overrides))
    resources[id] = { ...resources[id], ...o } as ResourceState;
  return {
    version: 9,
    stackName: 'Shop',
    region: 'eu-west-1',
    resources,
    outputs: { QueueUrl: queueUrl, 'Shop-QueueUrl': queueUrl, TopicArn: topicArn },
    exportNames: ['Shop-QueueUrl'],
    lastModified: 1,
    ...extra,
  };
}

function byId(resources: ResourcePlan[]): Record<string, ResourcePlan> {
  return Object.fromEntries(resources.map((r) => [r.logicalId, r]));
}

describe('planStack', () => {
  it('creates everything for a new stack; references to new resources are known after deploy', async () => {
    const plan = await planStack({ template, state: undefined, schemas, resolverEnv });
    const r = byId(plan.resources);
    expect(plan.resources.map((x) => `${x.logicalId}:${x.action}`)).toEqual([
      'Queue:CREATE',
      'Topic:CREATE',
      'Sub:CREATE',
      'Fn:CREATE',
    ]);
    expect(isUnknown(r.Sub.desired!.properties.Endpoint)).toBe(true);
    expect(r.Queue.desired).toEqual({
      properties: { QueueName: 'orders', VisibilityTimeout: 30 },
      deletionPolicy: 'Retain',
    });
    expect(plan.outputs.map((o) => `${o.name}:${o.action}:${o.unknown ?? false}`)).toEqual([
      'QueueUrl:ADD:true',
      'TopicArn:ADD:true',
    ]);
    expect(plan.hasChanges).toBe(true);
  });

  it('finds nothing to do when state matches the template', async () => {
    const plan = await planStack({ template, state: deployedState(), schemas, resolverEnv });
    expect(plan.resources.map((x) => x.action)).toEqual(['NO_CHANGE', 'NO_CHANGE', 'NO_CHANGE', 'NO_CHANGE']);
    expect(plan.outputs.map((o) => o.action)).toEqual(['NO_CHANGE', 'NO_CHANGE']);
    expect(plan.hasChanges).toBe(false);
  });

  it('replaces on a create-only change and shows what depends on the replaced resource as known after deploy', async () => {
    const plan = await planStack({
      template,
      state: deployedState({ Queue: { properties: { QueueName: 'old-orders', VisibilityTimeout: 30 } } }),
      schemas,
      resolverEnv,
    });
    const r = byId(plan.resources);
    expect(r.Queue).toMatchObject({
      action: 'REPLACE',
      replacementReason: 'create-only property QueueName changed',
    });
    // Endpoint is create-only for a subscription: it may be replaced
    expect(r.Sub).toMatchObject({ action: 'REPLACE', mayReplace: true });
    expect(r.Sub.propertyChanges).toEqual([
      {
        path: 'Properties.Endpoint',
        before: queueArn,
        after: expect.anything(),
        unknown: true,
        mayCauseReplacement: true,
      },
    ]);
    // an environment variable is updatable: an update with an unknown value
    expect(r.Fn).toMatchObject({ action: 'UPDATE' });
    expect(r.Fn.propertyChanges).toEqual([
      {
        path: 'Properties.Environment.Variables.QUEUE_URL',
        before: queueUrl,
        after: expect.anything(),
        unknown: true,
      },
    ]);
    expect(r.Topic.action).toBe('NO_CHANGE');
    expect(plan.outputs.find((o) => o.name === 'QueueUrl')).toMatchObject({
      action: 'UPDATE',
      unknown: true,
    });
  });

  it('deletes what the template no longer has, dependents first, noting retained resources', async () => {
    const state = deployedState();
    state.resources.OldBucket = {
      physicalId: 'b',
      resourceType: 'AWS::S3::Bucket',
      properties: {},
      deletionPolicy: 'RetainExceptOnCreate',
    };
    state.resources.OldPolicy = {
      physicalId: 'p',
      resourceType: 'AWS::S3::BucketPolicy',
      properties: {},
      dependencies: ['OldBucket'],
    };
    const plan = await planStack({ template, state, schemas, resolverEnv });
    const deletes = plan.resources.filter((x) => x.action === 'DELETE');
    expect(deletes.map((d) => d.logicalId)).toEqual(['OldPolicy', 'OldBucket']);
    expect(deletes[1]).toMatchObject({ deletionPolicy: 'RetainExceptOnCreate', retain: true });
    expect(deletes[0].retain).toBeUndefined();
  });

  it('deletes a resource whose condition became false', async () => {
    const conditional = parseTemplate({
      Conditions: { Never: { 'Fn::Equals': ['a', 'b'] } },
      Resources: {
        Topic: { Type: 'AWS::SNS::Topic', Condition: 'Never', Properties: { TopicName: 'events' } },
      },
    });
    const plan = await planStack({ template: conditional, state: deployedState(), schemas, resolverEnv });
    expect(byId(plan.resources).Topic.action).toBe('DELETE');
  });

  it('reports a policy-only change', async () => {
    const plan = await planStack({
      template,
      state: deployedState({ Queue: { deletionPolicy: 'Delete' } }),
      schemas,
      resolverEnv,
    });
    expect(byId(plan.resources).Queue).toMatchObject({ action: 'UPDATE', policyOnly: true });
  });

  it('diffs outputs: changed values, removed outputs and export aliases', async () => {
    const state = deployedState(
      {},
      {
        outputs: {
          QueueUrl: queueUrl,
          'Shop-QueueUrl': queueUrl,
          TopicArn: 'old',
          Gone: 'x',
          'Shop-OldExport': 'y',
        },
        exportNames: ['Shop-QueueUrl', 'Shop-OldExport'],
      },
    );
    const plan = await planStack({ template, state, schemas, resolverEnv });
    expect(plan.outputs).toEqual([
      {
        name: 'QueueUrl',
        action: 'NO_CHANGE',
        before: queueUrl,
        after: queueUrl,
        exportName: 'Shop-QueueUrl',
      },
      { name: 'TopicArn', action: 'UPDATE', before: 'old', after: topicArn },
      { name: 'Gone', action: 'REMOVE', before: 'x' },
      { name: 'Shop-OldExport', action: 'REMOVE', before: 'y' },
    ]);
  });

  it('plans a type change as a replacement', async () => {
    const plan = await planStack({
      template,
      state: deployedState({ Topic: { resourceType: 'AWS::SNS::TopicPolicy' } }),
      schemas,
      resolverEnv,
    });
    expect(byId(plan.resources).Topic).toMatchObject({
      action: 'REPLACE',
      previousResourceType: 'AWS::SNS::TopicPolicy',
    });
    expect(isUnknown(byId(plan.resources).Sub.desired!.properties.TopicArn)).toBe(true);
  });
});
