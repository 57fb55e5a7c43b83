// CDK's own custom-resource handlers, run by cdkd against the emulator: a
// bucket with autoDeleteObjects, an AwsCustomResource making an SSM call, a
// Provider-framework resource whose onEvent handler records what it was sent
// (its log group's retention set by logRetention), and an IAM
// OpenIdConnectProvider, and a Provider with isComplete (the framework's Step
// Functions waiter polls it). The context value `variant` drives an update (see
// test/e2e/custom-resources.test.ts).
'use strict';
const cdk = require('aws-cdk-lib');
const iam = require('aws-cdk-lib/aws-iam');
const lambda = require('aws-cdk-lib/aws-lambda');
const logs = require('aws-cdk-lib/aws-logs');
const s3 = require('aws-cdk-lib/aws-s3');
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
new cdk.CfnOutput(stack, 'OnEventName', { value: onEvent.functionName });
new cdk.CfnOutput(stack, 'Echo', { value: thing.getAttString('Echo') });
new cdk.CfnOutput(stack, 'Old', { value: thing.getAttString('Old') });
new cdk.CfnOutput(stack, 'RequestType', { value: thing.getAttString('Type') });
new cdk.CfnOutput(stack, 'WaitedPolls', { value: waited.getAttString('Polls') });
new cdk.CfnOutput(stack, 'WaitedName', { value: waited.getAttString('Name') });
new cdk.CfnOutput(stack, 'WaitedOld', { value: waited.getAttString('Old') });
new cdk.CfnOutput(stack, 'WaitedStarted', { value: waited.getAttString('Started') });

app.synth();
