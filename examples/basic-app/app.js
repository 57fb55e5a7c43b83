// The README demo app: a few resources Cloud Control can create, with outputs.
// Context switches (`-c key=value`) let the end-to-end tests drive the same app
// through create -> update -> replace -> remove; see ../README.md.
'use strict';
const cdk = require('aws-cdk-lib');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');
const logs = require('aws-cdk-lib/aws-logs');

const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const queueSuffix = app.node.tryGetContext('queueSuffix');
const withLogGroup = app.node.tryGetContext('withLogGroup') !== 'false';
const stackName = app.node.tryGetContext('stackName') ?? 'CdkdBasicApp';
// The `cdk init` pattern: the stack takes the environment of whoever synthesizes it.
const callerEnv = app.node.tryGetContext('callerEnv') === 'true';

const stack = new cdk.Stack(app, 'BasicApp', {
  stackName,
  ...(callerEnv
    ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } }
    : {}),
});

const queue = new sqs.Queue(stack, 'Queue', {
  // Changing the visibility timeout updates the queue in place.
  visibilityTimeout: cdk.Duration.seconds(variant === 'v1' ? 30 : 60),
  // Giving the queue a (create-only) name forces a replacement.
  queueName: queueSuffix ? `${stackName}-queue-${queueSuffix}` : undefined,
});

const param = new ssm.StringParameter(stack, 'Parameter', {
  description: 'Written by the cdkd basic example',
  stringValue: `variant ${variant}`,
});

if (withLogGroup) {
  new logs.LogGroup(stack, 'LogGroup', {
    retention: logs.RetentionDays.ONE_WEEK,
    removalPolicy: cdk.RemovalPolicy.DESTROY,
  });
}

new cdk.CfnOutput(stack, 'QueueUrl', { value: queue.queueUrl, exportName: `${stackName}-QueueUrl` });
new cdk.CfnOutput(stack, 'QueueArn', { value: queue.queueArn });
new cdk.CfnOutput(stack, 'ParameterName', { value: param.parameterName });
if (callerEnv) new cdk.CfnOutput(stack, 'DeployedTo', { value: `${stack.account}/${stack.region}` });

app.synth();
