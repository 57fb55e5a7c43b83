// CDK's own custom-resource handlers, run by cdkd against the emulator: a
// bucket with autoDeleteObjects and event notifications (to a queue, a topic
// and a function), an AwsCustomResource making an SSM call, a
// Provider-framework resource whose onEvent handler records what it was sent
// (its log group's retention set by logRetention), an IAM
// OpenIdConnectProvider, a Provider with isComplete (the framework's Step
// Functions waiter polls it), a minimal VPC with restrictDefaultSecurityGroup,
// and a BucketDeployment (the AWS CLI from its layer). The context value
// `variant` drives an update (see test/e2e/custom-resources.test.ts).
'use strict';
const cdk = require('aws-cdk-lib');
const iam = require('aws-cdk-lib/aws-iam');
const lambda = require('aws-cdk-lib/aws-lambda');
const logs = require('aws-cdk-lib/aws-logs');
const ec2 = require('aws-cdk-lib/aws-ec2');
const s3 = require('aws-cdk-lib/aws-s3');
const s3deploy = require('aws-cdk-lib/aws-s3-deployment');
const s3n = require('aws-cdk-lib/aws-s3-notifications');
const sns = require('aws-cdk-lib/aws-sns');
const sqs = require('aws-cdk-lib/aws-sqs');
const cr = require('aws-cdk-lib/custom-resources');

const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const stack = new cdk.Stack(app, 'CustomResourcesApp', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdCustomResourcesApp',
});

const bucket = new s3.Bucket(stack, 'Data', {
  autoDeleteObjects: true,
  removalPolicy: cdk.RemovalPolicy.DESTROY,
});

const parameter = {
  service: 'SSM',
  action: 'putParameter',
  parameters: { Name: '/e2e/custom-resource', Value: `made by ${variant}`, Type: 'String', Overwrite: true },
  physicalResourceId: cr.PhysicalResourceId.of('/e2e/custom-resource'),
};
new cr.AwsCustomResource(stack, 'Parameter', {
  onCreate: parameter,
  onUpdate: parameter,
  onDelete: { service: 'SSM', action: 'deleteParameter', parameters: { Name: '/e2e/custom-resource' } },
  policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: cr.AwsCustomResourcePolicy.ANY_RESOURCE }),
  installLatestAwsSdk: false,
});

// Answers with a physical id from its Name (a new Name replaces the resource) and
// records every Delete as an SSM parameter, so the test can see it was sent.
const onEvent = new lambda.Function(stack, 'OnEvent', {
  runtime: lambda.Runtime.NODEJS_20_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline(`
const { SSMClient, PutParameterCommand } = require('@aws-sdk/client-ssm');
exports.handler = async (event) => {
  const p = event.ResourceProperties;
  if (event.RequestType === 'Delete') {
    await new SSMClient({}).send(new PutParameterCommand({
      Name: '/e2e/deleted/' + event.PhysicalResourceId, Value: 'deleted', Type: 'String', Overwrite: true }));
    return {};
  }
  return {
    PhysicalResourceId: 'thing-' + p.Name,
    Data: { Echo: p.Name, Old: event.OldResourceProperties ? event.OldResourceProperties.Name : 'none', Type: event.RequestType },
  };
};`),
  logRetention: logs.RetentionDays.ONE_WEEK,
});
onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['ssm:PutParameter'], resources: ['*'] }));

// Thumbprints given: the handler would otherwise fetch the issuer's certificate.
new iam.OpenIdConnectProvider(stack, 'Oidc', {
  url: 'https://oidc.example.com',
  clientIds: ['sts.amazonaws.com'],
  thumbprints: ['9e99a48a9960b14926bb7f3b02e22da2b0ab7280'],
});
const provider = new cr.Provider(stack, 'Provider', { onEventHandler: onEvent });
const thing = new cdk.CustomResource(stack, 'Thing', {
  serviceToken: provider.serviceToken,
  properties: { Name: variant === 'v1' ? 'one' : 'two' },
});

// Bucket notifications (Custom::S3BucketNotifications, CDK's Python handler): created objects
// under q/ go to a queue, under t/ to a topic; removals to a function that records them in SSM.
const events = new sqs.Queue(stack, 'Events');
const topic = new sns.Topic(stack, 'Topic');
const onRemoved = new lambda.Function(stack, 'OnRemoved', {
  runtime: lambda.Runtime.NODEJS_20_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline(`
const { SSMClient, PutParameterCommand } = require('@aws-sdk/client-ssm');
exports.handler = async (event) => {
  for (const r of event.Records)
    await new SSMClient({}).send(new PutParameterCommand({
      Name: '/e2e/removed/' + r.s3.object.key, Value: r.eventName, Type: 'String', Overwrite: true }));
};`),
});
onRemoved.addToRolePolicy(new iam.PolicyStatement({ actions: ['ssm:PutParameter'], resources: ['*'] }));
bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.SqsDestination(events), { prefix: 'q/' });
bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.SnsDestination(topic), { prefix: 't/' });
bucket.addEventNotification(s3.EventType.OBJECT_REMOVED, new s3n.LambdaDestination(onRemoved), {
  prefix: 'q/',
});

// restrictDefaultSecurityGroup (Custom::VpcRestrictDefaultSG): the smallest VPC that has one.
const vpc = new ec2.Vpc(stack, 'Net', {
  restrictDefaultSecurityGroup: true,
  natGateways: 0,
  maxAzs: 1,
  subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC }],
});

// BucketDeployment (Custom::CDKBucketDeployment): its Python handler runs the AWS CLI from the
// AwsCliLayer. v2 drops it: the update removes the bucket's aws-cdk:cr-owned tag, then the
// deployment's Delete (retainOnDelete: false) removes what it put. No autoDeleteObjects here, so
// the destroy also proves the bucket was left empty. (On a stack destroy the tag is still there and
// the handler keeps the objects, as on AWS: a bucket that outlives no stack needs autoDeleteObjects.)
const site = new s3.Bucket(stack, 'Site', { removalPolicy: cdk.RemovalPolicy.DESTROY });
if (variant === 'v1')
  new s3deploy.BucketDeployment(stack, 'Deploy', {
    sources: [
      s3deploy.Source.data('hello.txt', 'hello'),
      s3deploy.Source.data('dir/page.html', '<p>page</p>'),
    ],
    destinationBucket: site,
    retainOnDelete: false,
  });

// A Provider with isComplete: onEvent starts the work, and isComplete answers
// "not yet" twice per request (counted in an SSM parameter named by the
// request id) before it answers complete with Data. The framework's waiter
// state machine retries it every queryInterval; the e2e makes those waits
// instant through the emulator's Step Functions time scale.
const waitedOnEvent = new lambda.Function(stack, 'WaitedOnEvent', {
  runtime: lambda.Runtime.NODEJS_20_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline(`
exports.handler = async (event) => ({ PhysicalResourceId: 'waited', Data: { Started: event.RequestType } });`),
});
const isComplete = new lambda.Function(stack, 'WaitedIsComplete', {
  runtime: lambda.Runtime.NODEJS_20_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline(`
const { SSMClient, GetParameterCommand, PutParameterCommand } = require('@aws-sdk/client-ssm');
exports.handler = async (event) => {
  const ssm = new SSMClient({});
  const Name = '/e2e/polls/' + event.RequestId;
  let polls = 0;
  try {
    polls = Number((await ssm.send(new GetParameterCommand({ Name }))).Parameter.Value);
  } catch (err) {
    if (err.name !== 'ParameterNotFound') throw err;
  }
  polls += 1;
  await ssm.send(new PutParameterCommand({ Name, Value: String(polls), Type: 'String', Overwrite: true }));
  if (polls < 3) return { IsComplete: false };
  return {
    IsComplete: true,
    Data: {
      Polls: String(polls),
      Name: event.ResourceProperties.Name,
      Old: event.OldResourceProperties ? event.OldResourceProperties.Name : 'none',
    },
  };
};`),
});
isComplete.addToRolePolicy(
  new iam.PolicyStatement({ actions: ['ssm:GetParameter', 'ssm:PutParameter'], resources: ['*'] }),
);
const waitedProvider = new cr.Provider(stack, 'WaitedProvider', {
  onEventHandler: waitedOnEvent,
  isCompleteHandler: isComplete,
  queryInterval: cdk.Duration.seconds(5),
  totalTimeout: cdk.Duration.minutes(5),
});
const waited = new cdk.CustomResource(stack, 'Waited', {
  serviceToken: waitedProvider.serviceToken,
  properties: { Name: variant === 'v1' ? 'one' : 'two' },
});

new cdk.CfnOutput(stack, 'BucketName', { value: bucket.bucketName });
new cdk.CfnOutput(stack, 'SiteName', { value: site.bucketName });
new cdk.CfnOutput(stack, 'QueueUrl', { value: events.queueUrl });
new cdk.CfnOutput(stack, 'TopicArn', { value: topic.topicArn });
new cdk.CfnOutput(stack, 'DefaultSecurityGroup', { value: vpc.vpcDefaultSecurityGroup });
new cdk.CfnOutput(stack, 'OnEventName', { value: onEvent.functionName });
new cdk.CfnOutput(stack, 'Echo', { value: thing.getAttString('Echo') });
new cdk.CfnOutput(stack, 'Old', { value: thing.getAttString('Old') });
new cdk.CfnOutput(stack, 'RequestType', { value: thing.getAttString('Type') });
new cdk.CfnOutput(stack, 'WaitedPolls', { value: waited.getAttString('Polls') });
new cdk.CfnOutput(stack, 'WaitedName', { value: waited.getAttString('Name') });
new cdk.CfnOutput(stack, 'WaitedOld', { value: waited.getAttString('Old') });
new cdk.CfnOutput(stack, 'WaitedStarted', { value: waited.getAttString('Started') });

app.synth();
