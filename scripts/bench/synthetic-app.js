// @ts-check
// The synthetic CDK app of the deploy benchmarks: one stack of N L1 resources
// in one of two shapes, chosen by context. See docs/benchmarks.md.
//
//   -c size=1000          number of resources (besides CDKMetadata)
//   -c shape=wide|deep    wide: N independent resources
//                         deep: `chains` chains; each resource references the
//                         previous one of its chain (Ref or Fn::GetAtt)
//   -c chains=10          number of chains of the deep shape
//   -c types=scale|orchestration
//                         scale: SSM Parameter, SNS Topic, Logs LogGroup (Cloud
//                         Control) and SQS Queue (SQS provider pack)
//                         orchestration: five Cloud Control types
//   -c stackName=...      the stack name
//   -c variant=N          a second version of the same stack: every tag set gains
//                         variant=N and each chain's first parameter a new value
//                         (in-place updates; the crash harness deploys both)
'use strict';
const cdk = require('aws-cdk-lib');
const { resourceTypesOf, shapeOf } = require('./shape');

const app = new cdk.App();
// A benchmark stack is far past CloudFormation's 500-resource limit; cdkd has none.
app.node.setContext('@aws-cdk/core:stackResourceLimit', 0);
const ctx = (key, fallback) => app.node.tryGetContext(key) ?? fallback;

const size = Number(ctx('size', 100));
const shape = String(ctx('shape', 'wide'));
const chains = Number(ctx('chains', 10));
const types = resourceTypesOf(String(ctx('types', 'scale')));
const stackName = String(ctx('stackName', `Bench-${shape}-${size}`));
const variant = ctx('variant', undefined);

const stack = new cdk.Stack(app, 'Bench', { stackName, analyticsReporting: false });

/** The L1 construct of each benchmark type, given the value that links it to its predecessor. */
const MAKERS = {
  'AWS::SSM::Parameter': (id, after) =>
    new cdk.aws_ssm.CfnParameter(stack, id, {
      type: 'String',
      value: after ?? (variant === undefined ? 'chain start' : `chain start ${variant}`),
    }),
  'AWS::SNS::Topic': (id, after) => new cdk.aws_sns.CfnTopic(stack, id, { tags: linkTags(after) }),
  'AWS::Logs::LogGroup': (id, after) =>
    new cdk.aws_logs.CfnLogGroup(stack, id, { retentionInDays: 7, tags: linkTags(after) }),
  'AWS::SQS::Queue': (id, after) => new cdk.aws_sqs.CfnQueue(stack, id, { tags: linkTags(after) }),
  'AWS::Events::EventBus': (id, after) =>
    new cdk.aws_events.CfnEventBus(stack, id, { name: `${stackName}-${id}`, tags: linkTags(after) }),
  'AWS::ECR::Repository': (id, after) => new cdk.aws_ecr.CfnRepository(stack, id, { tags: linkTags(after) }),
};

function linkTags(after) {
  return [
    { key: 'bench', value: 'cdkd' },
    ...(after === undefined ? [] : [{ key: 'after', value: after }]),
    ...(variant === undefined ? [] : [{ key: 'variant', value: String(variant) }]),
  ];
}

/** How a successor refers to a resource: Fn::GetAtt Arn where the type has one, else Ref. */
function referenceTo(resource, type) {
  if (type === 'AWS::Logs::LogGroup' || type === 'AWS::Events::EventBus' || type === 'AWS::ECR::Repository') {
    return resource.getAtt('Arn').toString();
  }
  return resource.ref;
}

const made = new Map();
for (const node of shapeOf({ size, shape, chains, types })) {
  const after = node.after === undefined ? undefined : made.get(node.after);
  const resource = MAKERS[node.type](node.id, after && referenceTo(after.resource, after.type));
  made.set(node.id, { resource, type: node.type });
}

app.synth();
